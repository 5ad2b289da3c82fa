"""Pace math over quota windows: time gone, pace, colour, projected run-out, ordering, pressure.

A window's *pace* is the share of its allowance spent over the share of its own time gone:
1× spends the allowance exactly as the window closes. The *projected run-out* extends the
spending measured so far at the same rate. Nothing here compares the run-out with the reset
to say which comes first; :func:`pressing` only asks whether the run-out falls before the
reset, which is Attention's rule, and the strip shows both times side by side.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

import attrs
from cargento.sharedmethods import shared_methods

from cargento_web.capacity.windows import Window

__all__ = [
    "AMBER_PACE",
    "CLAY_PACE",
    "MAX_PROJECTION_S",
    "MIN_ELAPSED_S",
    "PRESSURE_PERCENT",
    "Assessment",
    "assess",
    "elapsed_fraction",
    "order",
    "pace",
    "pressing",
    "run_out",
    "tone",
]

#: Attention raises a window at or above this share of its allowance.
PRESSURE_PERCENT = 70.0
#: Pace at which a bar turns amber (spending exactly as fast as the window allows).
AMBER_PACE = 1.0
#: Pace at which a bar turns clay.
CLAY_PACE = 1.5
#: Below this much of a window's time gone no pace is measured (a just-reset window with
#: one request in it would otherwise read as a hundredfold pace).
MIN_ELAPSED_S = 60.0
#: A projected run-out further off than this is no projection at all (a trace of spending
#: over a long window): it is left unprojected rather than dated decades out.
MAX_PROJECTION_S = 400 * 86400.0


def _clock(window: Window) -> tuple[datetime, float] | None:
    if window.window_s is None or window.resets_at is None or window.window_s <= 0:
        return None
    return window.resets_at, window.window_s


def elapsed_seconds(window: Window, now: datetime) -> float | None:
    """Seconds of the window gone at *now*, within ``[0, window_s]``; ``None`` with no clock."""
    clock = _clock(window)
    if clock is None:
        return None
    resets_at, length = clock
    start = resets_at - timedelta(seconds=length)
    return min(max((now - start).total_seconds(), 0.0), length)


def elapsed_fraction(window: Window, now: datetime) -> float | None:
    """The share of the window's own time gone at *now* (0 to 1), or ``None`` with no clock."""
    gone = elapsed_seconds(window, now)
    if gone is None or window.window_s is None:
        return None
    return gone / window.window_s


def pace(window: Window, now: datetime) -> float | None:
    """Share spent over share of time gone; ``None`` where no clock supports a pace."""
    gone = elapsed_seconds(window, now)
    if gone is None or window.window_s is None or gone < MIN_ELAPSED_S:
        return None
    return (max(window.used_percent, 0.0) / 100.0) / (gone / window.window_s)


def tone(measured: float | None) -> str:
    """``accent`` below sustainable pace, ``amber`` from 1×, ``clay`` from 1.5×, ``ink`` with
    no pace."""
    if measured is None:
        return "ink"
    if measured >= CLAY_PACE:
        return "clay"
    if measured >= AMBER_PACE:
        return "amber"
    return "accent"


def run_out(window: Window, now: datetime) -> datetime | None:
    """When the allowance is spent if spending goes on at the pace measured so far.

    ``now`` for a window already spent; ``None`` when nothing is spent yet (no pace to
    extend), no clock supports one, or the end lies past :data:`MAX_PROJECTION_S`.
    """
    gone = elapsed_seconds(window, now)
    if gone is None or gone < MIN_ELAPSED_S:
        return None
    used = window.used_percent / 100.0
    if used >= 1.0:
        return now
    if used <= 0.0:
        return None
    left_s = (1.0 - used) * gone / used
    return None if left_s > MAX_PROJECTION_S else now + timedelta(seconds=left_s)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Assessment:
    """One window with what its clock says at one moment."""

    window: Window
    elapsed_fraction: float | None
    pace: float | None
    tone: str
    run_out_at: datetime | None
    #: Minutes the remaining allowance lasts at the measured pace (``None``: no pace).
    minutes_left: float | None
    pressure: bool


def pressing(window: Window, run_out_at: datetime | None) -> bool:
    """Attention's rule: at or above 70 percent, or a projected end before the reset."""
    if window.used_percent >= PRESSURE_PERCENT:
        return True
    return run_out_at is not None and window.resets_at is not None and run_out_at < window.resets_at


def assess(window: Window, now: datetime) -> Assessment:
    measured = pace(window, now)
    end = run_out(window, now)
    return Assessment(
        window=window,
        elapsed_fraction=elapsed_fraction(window, now),
        pace=measured,
        tone=tone(measured),
        run_out_at=end,
        minutes_left=None if end is None else max((end - now).total_seconds(), 0.0) / 60.0,
        pressure=pressing(window, end),
    )


def order(assessments: Iterable[Assessment]) -> list[Assessment]:
    """Soonest projected run-out first; windows with no projection after, fullest first."""

    def key(a: Assessment) -> tuple[int, float, float, str]:
        if a.run_out_at is not None:
            return (0, a.run_out_at.timestamp(), 0.0, a.window.key)
        return (1, 0.0, -a.window.used_percent, a.window.key)

    return sorted(assessments, key=key)
