"""Where ``cargento hooks`` puts Claude Code's hooks, and the plugin's bundled ``hooks.json``.

Two targets share Claude Code's user settings (``settings.json`` under ``CLAUDE_CONFIG_DIR``
or ``~/.claude``): ``claude``, the Notification and SessionEnd hooks of the specification's
path 2, and ``claude-events``, path 3 by hand for a Claude Code run without the Cargento
plugin (whose bundled ``hooks/hooks.json`` already registers these).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cargento.events.settings import forwarder_command, hook_groups
from cargento.events.targets import HookTarget

from cargento_harness_claude import locations

__all__ = ["EVENTS", "NOTIFY_EVENTS", "bundled_hooks", "settings_path", "targets"]

KEY = "claude"
#: Claude Code events the plugin forwards (path 3); SessionEnd runs synchronously so it
#: lands before the process exits, every other one asynchronously.
EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "PostCompact",
    "SessionEnd",
)
NOTIFY_EVENTS: tuple[str, ...] = ("Notification", "SessionEnd")
_SYNC = ("SessionEnd",)


def settings_path(env: Mapping[str, str], home: Path) -> Path:
    """Claude Code's user settings: ``$CLAUDE_CONFIG_DIR/settings.json`` or ``~/.claude``."""
    base = env.get(locations.VARIABLE, "").strip()
    return (Path(base) if base else home / locations.DEFAULT) / "settings.json"


def targets(env: Mapping[str, str], home: Path) -> tuple[HookTarget, ...]:
    path = settings_path(env, home)
    return (
        HookTarget(
            name=KEY,
            style="settings",
            path=path,
            description="the Notification and SessionEnd hooks (path 2) in Claude Code's user settings",
            forwarder="notify_hook",
            port_form="notify_url",
            events=NOTIFY_EVENTS,
            sync_events=_SYNC,
        ),
        HookTarget(
            name=f"{KEY}-events",
            style="settings",
            path=path,
            description="every lifecycle event (path 3) for a Claude Code run without the Cargento plugin",
            forwarder="event_hook",
            arguments=(KEY,),
            events=EVENTS,
            sync_events=_SYNC,
        ),
    )


def bundled_hooks(*, script: bool = True) -> dict[str, Any]:
    """The Claude Code plugin's ``hooks/hooks.json``."""
    return {
        "description": "Cargento: forward lifecycle events to the local dashboard (prints nothing, never answers a gate)",
        "hooks": hook_groups(EVENTS, forwarder_command("event_hook", KEY, script=script), sync=_SYNC),
    }
