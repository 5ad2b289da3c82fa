"""A latency histogram kept without any metrics library, so a run that is never scraped
imports none: fixed buckets, a count and a sum, updated from any thread."""

from __future__ import annotations

import bisect
import threading

__all__ = ["LATENCY_BUCKETS", "Latency"]

#: Upper bounds in seconds; from a millisecond to ten seconds (and +Inf beyond).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Latency:
    def __init__(self, name: str, help: str, buckets: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.name = name
        self.help = help
        self.buckets = buckets
        self._counts = [0] * (len(buckets) + 1)
        self._sum = 0.0
        self._lock = threading.Lock()

    def observe(self, seconds: float) -> None:
        if seconds != seconds or seconds < 0:
            return
        with self._lock:
            self._counts[bisect.bisect_left(self.buckets, seconds)] += 1
            self._sum += seconds

    def cumulative(self) -> tuple[list[tuple[str, int]], float, int]:
        """``([(upper bound, cumulative count)...], sum, count)`` in the exposition's terms."""
        with self._lock:
            counts, total = list(self._counts), self._sum
        out, running = [], 0
        for bound, n in zip((*(repr(b) for b in self.buckets), "+Inf"), counts, strict=True):
            running += n
            out.append((bound, running))
        return out, total, running
