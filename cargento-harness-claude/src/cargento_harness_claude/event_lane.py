"""Claude Code's live events: the hook names its lane maps, and what its payloads add.

Field shapes come from the recorded payloads: Claude Code 2.1.222 to 2.1.332.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from cargento.events.payloads import EventKind, LifecycleEvent
from cargento.events.vocabulary import EventLane
from cargento.labels import clip

__all__ = ["EVENTS", "LANE", "refine"]

EVENTS: Mapping[str, EventKind] = {
    "SessionStart": "session_started",
    "SessionEnd": "session_ended",
    "UserPromptSubmit": "turn_started",
    "Stop": "turn_stopped",
    "StopFailure": "turn_stopped",
    "PermissionRequest": "permission",
    "PostToolUse": "tool_finished",
    "PostToolUseFailure": "tool_finished",
    "SubagentStart": "subagent_started",
    "SubagentStop": "subagent_stopped",
    "TaskCreated": "tasks_changed",
    "TaskCompleted": "tasks_changed",
    "PostCompact": "compacted",
    "Notification": "notification",
}

LANE = EventLane(
    events=EVENTS,
    adapter="Claude Code hooks (plugin hooks.json, or event_hook.py in settings)",
    # The specification's path 2 (notify_hook.py) posts Claude Code's Notification hook.
    receives_notify=True,
    reports_irreversible=True,
)


def refine(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    """A Claude Code notification's message is the gate's text (Claude words it for people)."""
    if event.kind != "notification":
        return event
    message = body.get("message")
    if isinstance(message, str) and message.strip():
        return attrs.evolve(event, gate_text=clip(message.strip()[:400], 120))
    return event
