"""Where ``cargento hooks`` puts Antigravity's status line, and the plugin's bundled
``hooks.json``.

The target is the status line in ``.gemini/antigravity-cli/settings.json`` (under
``GEMINI_CLI_HOME`` or the home directory); it is refused when another status line is
configured there, since there is only one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cargento.events.settings import forwarder_command, handler
from cargento.events.targets import HookTarget

from cargento_harness_antigravity import locations

__all__ = ["EVENTS", "bundled_hooks", "targets"]

KEY = "antigravity"
#: The plugin hooks the bundled ``hooks.json`` registers.
EVENTS: tuple[str, ...] = ("PostToolUse", "PostInvocation")


def targets(env: Mapping[str, str], home: Path) -> tuple[HookTarget, ...]:
    base = env.get(locations.VARIABLE, "").strip()
    return (
        HookTarget(
            name=KEY,
            style="status_line",
            path=(Path(base) if base else home) / locations.DEFAULT / "settings.json",
            description="the status line in .gemini/antigravity-cli/settings.json",
            forwarder="statusline_hook",
        ),
    )


def bundled_hooks(*, script: bool = True) -> dict[str, Any]:
    """The Antigravity plugin's ``hooks/hooks.json``: after a tool step and after a model
    invocation, telling the dashboard only that the store probably moved."""
    return {
        "cargento": {
            "PostToolUse": [
                {
                    "hooks": [
                        handler(
                            forwarder_command("event_hook", KEY, "--event", "PostToolUse", script=script),
                            asynchronous=None,
                        )
                    ]
                }
            ],
            "PostInvocation": [
                handler(
                    forwarder_command("event_hook", KEY, "--event", "PostInvocation", script=script), asynchronous=None
                )
            ],
        }
    }
