"""Where ``cargento hooks`` puts Codex's hooks, and the plugin's bundled ``codex-hooks.json``.

The target is ``hooks.json`` under ``CODEX_HOME`` or ``~/.codex`` (the same events as the
bundled file; Codex asks you to trust each hook once). Handlers are synchronous: Codex awaits
every hook, and a PermissionRequest handler that prints nothing and exits 0 is no opinion.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cargento.events.settings import forwarder_command, hook_groups
from cargento.events.targets import HookTarget

from cargento_harness_codex import locations

__all__ = ["EVENTS", "bundled_hooks", "targets"]

KEY = "codex"
#: The specification's eight Codex events, plus Interrupt (what 0.171 sends instead of Stop
#: for an interrupted turn) and SessionEnd, both seen firing in the recorded 0.171 runs.
EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "Interrupt",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
)


def targets(env: Mapping[str, str], home: Path) -> tuple[HookTarget, ...]:
    base = env.get(locations.VARIABLE, "").strip()
    return (
        HookTarget(
            name=KEY,
            style="settings",
            path=(Path(base) if base else home / locations.DEFAULT) / "hooks.json",
            description="every lifecycle event in hooks.json under CODEX_HOME or ~/.codex",
            forwarder="event_hook",
            arguments=(KEY,),
            events=EVENTS,
            asynchronous=False,
        ),
    )


def bundled_hooks(*, script: bool = True) -> dict[str, Any]:
    """The Codex plugin's ``hooks/codex-hooks.json``."""
    return {"hooks": hook_groups(EVENTS, forwarder_command("event_hook", KEY, script=script), asynchronous=False)}
