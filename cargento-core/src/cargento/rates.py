"""Output-token rates over the ten-minute window."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from datetime import datetime, timedelta

__all__ = ["RATE_WINDOW_S", "TokenTimeline", "per_minute", "tokens_in_window"]

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


class TokenTimeline:
    """A session's ``(timestamp, tokens)`` events kept in time order as they are read, so the
    window's sum costs the events inside the window, not every event of the session.

    :meth:`in_window` answers what :func:`tokens_in_window` answers over the same events (an
    event without a timestamp never counts; a negative count counts as zero). A reader that
    walks a long session once and then only its appended records keeps one of these instead
    of a list it sums again on every refresh.
    """

    __slots__ = ("_at", "_tokens")

    def __init__(self) -> None:
        self._at: list[datetime] = []
        self._tokens: list[int] = []

    def add(self, at: datetime | None, tokens: int) -> None:
        """One more event; one older than the newest kept (a clock step back) is filed in its
        place."""
        if at is None:
            return
        count = max(0, int(tokens))
        if not self._at or at >= self._at[-1]:
            self._at.append(at)
            self._tokens.append(count)
            return
        where = bisect_right(self._at, at)
        self._at.insert(where, at)
        self._tokens.insert(where, count)

    def in_window(self, now: datetime, window_s: float = RATE_WINDOW_S) -> int:
        """The tokens of the events inside the window ending at *now* (up to two minutes ahead
        of it counts, as in :func:`tokens_in_window`)."""
        low = bisect_left(self._at, now - timedelta(seconds=window_s))
        high = bisect_right(self._at, now + timedelta(seconds=_AHEAD_S), low)
        return sum(self._tokens[low:high])

    def copy(self) -> TokenTimeline:
        """The same events, kept apart from these."""
        twin = TokenTimeline()
        twin._at, twin._tokens = list(self._at), list(self._tokens)
        return twin

    def __len__(self) -> int:
        return len(self._at)


def per_minute(tokens: int | None, window_s: float = RATE_WINDOW_S) -> float | None:
    """Tokens per minute over the window; ``None`` stays ``None`` (unmeasured is not zero)."""
    if tokens is None:
        return None
    return round(tokens / (window_s / 60.0), 1)
