"""Output-token rates over the ten-minute window."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

__all__ = ["RATE_WINDOW_S", "per_minute", "tokens_in_window"]

RATE_WINDOW_S = 600.0


def tokens_in_window(
    events: Iterable[tuple[datetime | None, int]], now: datetime, window_s: float = RATE_WINDOW_S
) -> int:
    """Sum the tokens of the ``(timestamp, tokens)`` events inside the window ending at *now*."""
    total = 0
    for at, tokens in events:
        if at is None:
            continue
        age = (now - at).total_seconds()
        if -120.0 <= age <= window_s:
            total += max(0, int(tokens))
    return total


def per_minute(tokens: int | None, window_s: float = RATE_WINDOW_S) -> float | None:
    """Tokens per minute over the window; ``None`` stays ``None`` (unmeasured is not zero)."""
    if tokens is None:
        return None
    return round(tokens / (window_s / 60.0), 1)
