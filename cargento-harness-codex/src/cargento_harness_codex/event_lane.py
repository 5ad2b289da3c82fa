"""Codex's live events: the hook names its lane maps, and what its payloads cannot say.

Field shapes come from the recorded payloads: Codex 0.146 and 0.171.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from cargento.events.payloads import EventKind, LifecycleEvent
from cargento.events.vocabulary import EventLane

__all__ = ["EVENTS", "LANE", "refine"]

EVENTS: Mapping[str, EventKind] = {
    "SessionStart": "session_started",
    "SessionEnd": "session_ended",
    "UserPromptSubmit": "turn_started",
    "Stop": "turn_stopped",
    # Codex 0.171 sends Interrupt instead of Stop for an interrupted turn.
    "Interrupt": "turn_stopped",
    "PermissionRequest": "permission",
    "PostToolUse": "tool_finished",
    "SubagentStart": "subagent_started",
    "SubagentStop": "subagent_stopped",
    "PostCompact": "compacted",
}

LANE = EventLane(events=EVENTS, adapter="Codex hooks (codex-hooks.json)", reports_irreversible=True)


def refine(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    """A Codex row says a permission gate is open and cannot say which (the specification)."""
    if event.kind == "permission":
        return attrs.evolve(event, gate_kind="permission", gate_text=None)
    return event
