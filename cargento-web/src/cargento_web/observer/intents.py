"""What a reading reads against: a session's words, seen through the annotation store.

:class:`Intent` is the observer's view of one session's current words (the goal, the outcome
lines, the revision they are, and the moment after which a direction is still to settle).
:class:`IntentSource` is how the observer reaches them and records what a reading found against
them; :mod:`.annotated` implements it over ``cargento_web.annotations``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["Intent", "IntentSource"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Intent:
    harness: str
    sid: str
    goal: str | None
    #: ``typed``, or ``prompt`` for a goal adopted from the session's own prompt.
    goal_source: str = "typed"
    lines: tuple[str, ...] = ()
    revision: int | None = None
    #: A direction given after this moment is a later direction still to settle.
    unsettled_after: datetime | None = None
    #: What earlier checks recorded against these words, oldest first.
    readings: tuple[Mapping[str, Any], ...] = ()

    @property
    def items(self) -> tuple[str, ...]:
        """What a reading reads, one row each: the outcome lines, or the goal when there are none."""
        if self.lines:
            return self.lines
        return (self.goal,) if self.goal else ()


class IntentSource(Protocol):
    #: ``None`` when the words can be read; otherwise why not (the reading gate is closed).
    def closed(self) -> str | None: ...

    def intent(self, harness: str, sid: str) -> Intent | None: ...

    def every(self) -> Sequence[Intent]: ...

    def record(self, harness: str, sid: str, reading: Mapping[str, Any]) -> bool:
        """Record *reading* against the session's words; False when it could not be kept."""
        ...
