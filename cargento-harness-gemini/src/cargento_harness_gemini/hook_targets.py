"""Where ``cargento hooks`` puts Gemini CLI's hooks: ``.gemini/settings.json`` under
``GEMINI_CLI_HOME`` or the home directory."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.events.targets import HookTarget

from cargento_harness_gemini import locations

__all__ = ["EVENTS", "targets"]

KEY = "gemini"
EVENTS: tuple[str, ...] = ("SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "Notification", "SessionEnd")


def targets(env: Mapping[str, str], home: Path) -> tuple[HookTarget, ...]:
    base = env.get(locations.VARIABLE, "").strip()
    return (
        HookTarget(
            name=KEY,
            style="settings",
            path=(Path(base) if base else home) / locations.DEFAULT / "settings.json",
            description="every lifecycle event in .gemini/settings.json under GEMINI_CLI_HOME or home",
            forwarder="event_hook",
            arguments=(KEY,),
            events=EVENTS,
            asynchronous=False,
            timeout=None,
        ),
    )
