"""Output-token rates over the ten-minute window."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

__all__ = ["RATE_WINDOW_S", "per_minute", "tokens_in_window"]

RATE_WINDOW_S = 600.0
#: How far ahead of now an event's timestamp may be and still count (clock skew).
_AHEAD_S = 120.0


def tokens_in_window(
    events: Iterable[tuple[datetime | None, int]], now: datetime, window_s: float = RATE_WINDOW_S
) -> int:
    """Sum the tokens of the ``(timestamp, tokens)`` events inside the window ending at *now*
    (an event up to two minutes ahead of *now*, a clock's skew, counts as inside it)."""
    # The window's two ends once, then one comparison an event: a long session holds tens of
    # thousands of events, and an age computed for each was most of a refresh's cost.
    earliest = now - timedelta(seconds=window_s)
    latest = now + timedelta(seconds=_AHEAD_S)
    total = 0
    for at, tokens in events:
        if at is not None and earliest <= at <= latest:
            total += max(0, int(tokens))
    return total


def per_minute(tokens: int | None, window_s: float = RATE_WINDOW_S) -> float | None:
    """Tokens per minute over the window; ``None`` stays ``None`` (unmeasured is not zero)."""
    if tokens is None:
        return None
    return round(tokens / (window_s / 60.0), 1)
