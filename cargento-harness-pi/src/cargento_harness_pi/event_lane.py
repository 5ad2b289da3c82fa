"""Pi's live events: what the bundled extension (``pi_extension.js``) posts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from cargento.events.payloads import EventKind, LifecycleEvent
from cargento.events.vocabulary import EventLane

__all__ = ["EVENTS", "LANE", "refine"]

EVENTS: Mapping[str, EventKind] = {
    "ui.prompt.opened": "wait_opened",
    "ui.prompt.closed": "wait_closed",
}

LANE = EventLane(events=EVENTS, adapter="Pi extension (pi_extension.js)")


def refine(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    """An open extension prompt is worded from its ``prompt_kind`` (``an extension confirm
    prompt is open``)."""
    if event.kind != "wait_opened":
        return event
    raw = body.get("prompt_kind")
    prompt = raw.strip()[:32] if isinstance(raw, str) and raw.strip() else None
    text = f"an extension {prompt} prompt is open" if prompt else "an extension prompt is open"
    return attrs.evolve(event, gate_kind="prompt", gate_text=text)
