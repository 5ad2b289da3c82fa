"""Gemini CLI's live events: the hook names its lane maps, and what its payloads add.

Field shapes come from the recorded payloads: Gemini CLI 0.53 and 0.61.
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
    "BeforeAgent": "turn_started",
    "AfterAgent": "turn_stopped",
    "AfterTool": "tool_finished",
    "Notification": "notification",
}

LANE = EventLane(events=EVENTS, adapter="Gemini CLI hooks (event_hook.py in settings)")


def refine(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    """A Gemini notification whose ``details.type`` is ``exec`` asks about a command."""
    if event.kind != "notification" or event.gate_kind == "question":
        return event
    details = body.get("details")
    if isinstance(details, Mapping) and details.get("type") == "exec":
        return attrs.evolve(event, gate_kind="command")
    return event
