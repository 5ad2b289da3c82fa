"""The stand-in vendor window ``--demo`` publishes, so the strip shows what a vendor reading
looks like without asking any vendor (the demo never reads a login or makes a request).

Its resets are anchored at the demo's start and roll on by the window's length when they pass.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cargento_web.capacity.windows import FIVE_HOURS_S, WEEK_S, Window

__all__ = ["STAND_IN", "stand_in_windows"]

STAND_IN = "a demo stand-in: the demo asks no vendor"


def _next_reset(start: datetime, first_in_s: float, length_s: float, now: datetime) -> datetime:
    reset = start + timedelta(seconds=first_in_s)
    while reset <= now:
        reset += timedelta(seconds=length_s)
    return reset


def stand_in_windows(harness: str, label: str, start: datetime, now: datetime) -> list[Window]:
    """A five-hour and a weekly window for *harness*, as its vendor's reply would publish them."""
    shapes = (("5h", 22.0, 3.5 * 3600.0, FIVE_HOURS_S), ("weekly", 48.0, 3 * 86400.0, WEEK_S))
    return [
        Window(
            key=f"{harness}:{name}",
            harness=harness,
            harness_label=label,
            name=name,
            used_percent=used,
            window_s=length,
            resets_at=_next_reset(start, first, length, now),
            read_at=now,
            source="demo",
            detail=STAND_IN,
        )
        for name, used, first, length in shapes
    ]
