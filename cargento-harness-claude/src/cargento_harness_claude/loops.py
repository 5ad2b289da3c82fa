"""Failed-tool loop detection over one request, the three readings of the interpretation notes.

* ``run``: four consecutive failed tool calls, the tight run (a success resets it);
* ``total``: six failed calls in the request however spaced, outnumbering the successes
  (no success resets it);
* ``nothing-worked``: three failed calls and no success at all.

The last two describe the whole request, so they are withheld when the scan started
partway through it.
"""

from __future__ import annotations

from cargento.models import LoopReading

__all__ = ["NOTHING_WORKED_FAILURES", "RUN_FAILURES", "TOTAL_FAILURES", "ToolOutcomes"]

RUN_FAILURES = 4
TOTAL_FAILURES = 6
NOTHING_WORKED_FAILURES = 3


class ToolOutcomes:
    """Counts the outcomes of the current request's tool calls."""

    def __init__(self, *, whole_request: bool = True) -> None:
        #: False when the scan started partway through the request.
        self.whole_request = whole_request
        self.failures = 0
        self.successes = 0
        self.run = 0

    def new_request(self) -> None:
        """A human prompt starts a new request, seen from its beginning."""
        self.whole_request = True
        self.failures = 0
        self.successes = 0
        self.run = 0

    def outcome(self, *, failed: bool) -> None:
        """One tool call finished, failed or not."""
        if failed:
            self.failures += 1
            self.run += 1
        else:
            self.successes += 1
            self.run = 0

    def reading(self) -> LoopReading | None:
        """The strongest reading that fires, or ``None``."""
        if self.run >= RUN_FAILURES:
            return LoopReading(
                kind="run",
                failures=self.failures,
                successes=self.successes,
                note=f"{self.run} failed tool calls in a row",
            )
        if not self.whole_request:
            return None
        if self.failures >= TOTAL_FAILURES and self.failures > self.successes:
            return LoopReading(
                kind="total",
                failures=self.failures,
                successes=self.successes,
                note=f"{self.failures} failed tool calls in this request, more than the {self.successes} that succeeded",
            )
        if self.failures >= NOTHING_WORKED_FAILURES and self.successes == 0:
            return LoopReading(
                kind="nothing-worked",
                failures=self.failures,
                successes=0,
                note=f"{self.failures} failed tool calls and nothing has worked yet",
            )
        return None
