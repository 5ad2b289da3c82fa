"""A session as the board works on it, between reading it and publishing its row."""

from __future__ import annotations

from datetime import datetime

import attrs

from cargento.models import Gate, HarnessInfo, ModelInfo, SessionReading, Usage
from cargento.sharedrepr import shared_repr

__all__ = ["SessionKey", "SessionRow"]

#: A session's identity inside the builder's caches: ``(harness id, session id)``.
SessionKey = tuple[str, str]


@shared_repr
@attrs.define(repr=False, eq=False)
class SessionRow:
    """One session's reading, its hook answers, and what folding adds to it.

    Mutable on purpose: the read pass fills the hook answers, folding attaches children and
    moves ``last_active`` and ``rate``; only the published :class:`BoardSession` is frozen.
    """

    info: HarnessInfo
    reading: SessionReading
    gate: Gate | None = None
    model: ModelInfo | None = None
    usage: Usage | None = None
    #: ``hook: message`` for each per-session hook that faulted.
    faults: list[str] = attrs.Factory(list)
    #: Sessions folded onto this one (subagent transcripts of the same harness).
    children: list[SessionRow] = attrs.Factory(list)
    last_active: datetime | None = None
    #: Output tokens per minute, the children's included once folded.
    rate: float | None = None
