"""Antigravity CLI's live events: its plugin hooks and its status line.

The plugin hooks say only that the store probably moved (never a turn boundary); the status
line pushes the agent state and quota. Neither names its event, so an unnamed body is read as
the status line when it carries ``agent_state`` or ``quota``, else as the store-moved nudge.
"""

from __future__ import annotations

from collections.abc import Mapping

from cargento.events.payloads import EventKind
from cargento.events.vocabulary import EventLane

__all__ = ["EVENTS", "LANE"]

EVENTS: Mapping[str, EventKind] = {
    "PostToolUse": "store_moved",
    "PostInvocation": "store_moved",
    "StatusLine": "status",
}

LANE = EventLane(
    events=EVENTS,
    adapter="Antigravity plugin hooks and status line (statusline_hook.py)",
    unnamed_event="PostToolUse",
    status_fields=("agent_state", "quota"),
)
