"""Turn clocks and estimates shared by every plugin.

A prompt starts a turn and a recorded end closes it. A quiet gap longer than five minutes
inside a turn banks the generation time so far and restarts the clock, so a permission wait
is not counted as generation. The estimate compares the running turn with the same session's
completed turns and is withheld when there is no defensible sample.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from pathlib import Path

import attrs

from cargento.models import TurnEvidence, TurnState
from cargento.sharedmethods import shared_methods

__all__ = ["LONG_TURN_S", "QUIET_GAP_S", "TurnClock", "TurnFigures", "estimate", "withheld_harnesses"]

QUIET_GAP_S = 300.0
LONG_TURN_S = 900.0
#: Completed turns needed before an estimate is offered at all.
MIN_SAMPLE = 2


class TurnClock:
    """Feed it a session's records in order; it yields :class:`TurnEvidence`."""

    def __init__(self) -> None:
        self.state: TurnState = "unknown"
        self.anchor: datetime | None = None
        self.last: datetime | None = None
        self.banked = 0.0
        self.ended_at: datetime | None = None
        self.completed: list[float] = []

    def start(self, at: datetime | None) -> None:
        """A human prompt (or the harness's own turn-start record) at *at*."""
        if at is None:
            return
        self.state = "open"
        self.anchor = at
        self.last = at
        self.banked = 0.0
        self.ended_at = None

    def activity(self, at: datetime | None) -> None:
        """Any record written during the turn."""
        if at is None or self.state != "open" or self.anchor is None or self.last is None:
            return
        if at < self.last:
            return
        if (at - self.last).total_seconds() > QUIET_GAP_S:
            self.banked += (self.last - self.anchor).total_seconds()
            self.anchor = at
        self.last = at

    def end(self, at: datetime | None) -> None:
        """The store records that the turn ended at *at*."""
        if at is None:
            return
        if self.state == "open" and self.anchor is not None:
            self.activity(at)
            duration = self.banked + max(0.0, (at - self.anchor).total_seconds())
            self.completed.append(duration)
            if len(self.completed) > 200:
                del self.completed[:-200]
        self.state = "ended"
        self.ended_at = at

    def copy(self) -> TurnClock:
        """A clock in the same state that goes on apart from this one (a reader that resumes
        a walk from a checkpoint feeds a copy, and keeps the checkpoint as it was)."""
        twin = TurnClock()
        twin.state, twin.anchor, twin.last = self.state, self.anchor, self.last
        twin.banked, twin.ended_at, twin.completed = self.banked, self.ended_at, list(self.completed)
        return twin

    def evidence(self, *, boundaries_recorded: bool = True) -> TurnEvidence:
        """The evidence so far; ``boundaries_recorded=False`` marks the state as unknown."""
        state: TurnState = self.state if boundaries_recorded else "unknown"
        return TurnEvidence(
            state=state,
            started_at=self.anchor if self.state == "open" else None,
            banked_s=self.banked if self.state == "open" else 0.0,
            ended_at=self.ended_at,
            completed_s=tuple(self.completed[-50:]),
        )


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TurnFigures:
    elapsed_s: float
    eta_s: float | None
    long: bool


def estimate(turn: TurnEvidence, now: datetime) -> TurnFigures | None:
    """Elapsed and estimated remaining time of the running turn, or ``None`` without one."""
    if turn.started_at is None:
        return None
    gap = (now - turn.started_at).total_seconds()
    elapsed = turn.banked_s + max(0.0, gap)
    eta: float | None = None
    if len(turn.completed_s) >= MIN_SAMPLE:
        longer = [d for d in turn.completed_s if d >= elapsed]
        if longer:
            eta = max(0.0, _median(longer) - elapsed)
    long = elapsed >= LONG_TURN_S or (eta is not None and elapsed + eta >= LONG_TURN_S)
    return TurnFigures(elapsed_s=round(elapsed, 1), eta_s=None if eta is None else round(eta, 1), long=long)


def _median(values: list[float]) -> float:
    """The median of *values* (not empty), as :func:`statistics.median` works it out, without
    importing :mod:`statistics` (and the :mod:`random`, :mod:`fractions` and :mod:`decimal` it
    brings: 5 ms of every start that estimates a turn)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


@functools.cache
def withheld_harnesses() -> frozenset[str]:
    """The harnesses whose estimate the benchmark measured as no better than knowing nothing
    (``bench/eta.py``, published in ``docs/turn-eta.md``): their rows carry no estimate."""
    try:
        # Beside this module, where the wheel puts it (``importlib.resources`` would import
        # tempfile, random and zipfile's readers at every start for one file).
        text = (Path(__file__).parent / "turn_eta.json").read_text(encoding="utf-8")
        data = json.loads(text)
    except (FileNotFoundError, OSError, ValueError):
        return frozenset()
    listed = data.get("withheld") if isinstance(data, dict) else None
    return frozenset(k for k in listed if isinstance(k, str)) if isinstance(listed, list) else frozenset()
