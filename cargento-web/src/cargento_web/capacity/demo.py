"""What ``--demo`` publishes so the strip and quota pressure show: an Antigravity quota block
as its status line would push it, and a stand-in vendor window (no vendor is ever asked).

Each window's reset is anchored at the demo's start and rolls on by its own length when it
passes, so the block changes only at a rollover rather than on every board.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from cargento.timestamps import iso

from cargento_web.capacity.windows import FIVE_HOURS_S, WEEK_S, Window

__all__ = ["pushed_block", "stand_in_windows"]


def _next_reset(start: datetime, first_in_s: float, length_s: float, now: datetime) -> datetime:
    reset = start + timedelta(seconds=first_in_s)
    while reset <= now:
        reset += timedelta(seconds=length_s)
    return reset


def pushed_block(start: datetime, now: datetime) -> dict[str, dict[str, Any]]:
    """Antigravity's quota block: Gemini's 5h window two-thirds spent with four-fifths of its
    time gone, and a weekly window half spent a day in (its pace projects an end before the
    reset, so Attention raises it)."""
    five = _next_reset(start, 3600.0, FIVE_HOURS_S, now)
    week = _next_reset(start, 6 * 86400.0, WEEK_S, now)
    return {
        "gemini-5h": {"remaining_fraction": 0.35, "reset_time": iso(five)},
        "3p-5h": {"remaining_fraction": 0.9, "reset_time": iso(five)},
        "gemini-weekly": {"remaining_fraction": 0.5, "reset_time": iso(week)},
        "3p-weekly": {"remaining_fraction": 0.8, "reset_time": iso(week)},
    }


def stand_in_windows(start: datetime, now: datetime) -> list[Window]:
    """A stand-in for what a vendor reply would publish: Claude Code's 5h and weekly windows."""
    detail = "a demo stand-in: the demo asks no vendor"
    return [
        Window(
            key="claude:5h",
            harness="claude",
            harness_label="Claude Code",
            name="5h",
            used_percent=22.0,
            window_s=FIVE_HOURS_S,
            resets_at=_next_reset(start, 3.5 * 3600.0, FIVE_HOURS_S, now),
            read_at=now,
            source="demo",
            detail=detail,
        ),
        Window(
            key="claude:weekly",
            harness="claude",
            harness_label="Claude Code",
            name="weekly",
            used_percent=48.0,
            window_s=WEEK_S,
            resets_at=_next_reset(start, 3 * 86400.0, WEEK_S, now),
            read_at=now,
            source="demo",
            detail=detail,
        ),
    ]
