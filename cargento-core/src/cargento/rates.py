"""Output-token rates over the ten-minute window."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from datetime import datetime, timedelta

__all__ = ["KEEP_S", "MAX_KEPT", "RATE_WINDOW_S", "TokenTimeline", "per_minute", "tokens_in_window"]

RATE_WINDOW_S = 600.0
#: How far ahead of now an event's timestamp may be and still count (clock skew).
_AHEAD_S = 120.0
#: How long before its newest event a :class:`TokenTimeline` keeps an event: the window and
#: five minutes more. An older event reaches the window of a board whose clock is more than
#: five minutes behind the store's newest record, and of no other.
KEEP_S = RATE_WINDOW_S + 300.0
#: Events let go of at once (so a long session pays one move of the kept events per this many).
_DROP_AT_ONCE = 64
#: The most events a timeline keeps, whatever their times: a store of a million records at one
#: moment must not be held whole. A real session writes far fewer in a quarter hour.
MAX_KEPT = 20_000
_KEEP = timedelta(seconds=KEEP_S)


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
    event without a timestamp never counts; a negative count counts as zero) for a board whose
    clock is at most five minutes behind the newest event, or anywhere after it. A reader that
    walks a long session once and then only its appended records keeps one of these instead
    of a list it sums again on every refresh.

    It keeps the events of :data:`KEEP_S` before the newest one (and up to
    :data:`_DROP_AT_ONCE` more), so a session of any length holds about a quarter hour of them,
    and never more than :data:`MAX_KEPT` (the oldest go first).
    """

    __slots__ = ("_at", "_tokens")

    def __init__(self) -> None:
        self._at: list[datetime] = []
        self._tokens: list[int] = []

    def add(self, at: datetime | None, tokens: int) -> None:
        """One more event; one older than the newest kept (a clock step back) is filed in its
        place (and let go of with the others once a newer event leaves it behind)."""
        if at is None:
            return
        count = max(0, int(tokens))
        if not self._at or at >= self._at[-1]:
            self._at.append(at)
            self._tokens.append(count)
            if len(self._at) > _DROP_AT_ONCE and self._at[_DROP_AT_ONCE - 1] < at - _KEEP:
                stale = bisect_left(self._at, at - _KEEP)
                del self._at[:stale], self._tokens[:stale]
            elif len(self._at) > MAX_KEPT + _DROP_AT_ONCE:
                del self._at[:_DROP_AT_ONCE], self._tokens[:_DROP_AT_ONCE]
            return
        where = bisect_right(self._at, at)
        self._at.insert(where, at)
        self._tokens.insert(where, count)

    def in_window(self, now: datetime, window_s: float = RATE_WINDOW_S) -> int:
        """The tokens of the events inside the window ending at *now* (up to two minutes ahead
        of it counts, as in :func:`tokens_in_window`). A *window_s* longer than
        :data:`RATE_WINDOW_S` sums only the events kept (see the class)."""
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

    def __eq__(self, other: object) -> bool:
        """The same events kept (two timelines fed the same events in the same order are)."""
        if not isinstance(other, TokenTimeline):
            return NotImplemented
        return self._at == other._at and self._tokens == other._tokens

    __hash__ = None  # type: ignore[assignment]


def per_minute(tokens: int | None, window_s: float = RATE_WINDOW_S) -> float | None:
    """Tokens per minute over the window; ``None`` stays ``None`` (unmeasured is not zero)."""
    if tokens is None:
        return None
    return round(tokens / (window_s / 60.0), 1)
