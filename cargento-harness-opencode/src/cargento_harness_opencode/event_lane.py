"""OpenCode's live events: what the bundled passive plugin (``opencode_plugin.js``) posts."""

from __future__ import annotations

from collections.abc import Mapping

from cargento.events.payloads import EventKind
from cargento.events.vocabulary import EventLane

__all__ = ["EVENTS", "LANE"]

EVENTS: Mapping[str, EventKind] = {
    "permission.asked": "wait_opened",
    "permission.replied": "wait_closed",
}

LANE = EventLane(events=EVENTS, adapter="OpenCode passive plugin (opencode_plugin.js)")
