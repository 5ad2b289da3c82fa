"""The irreversible-command reports a dashboard run keeps: what a hook said ran, not proof
that it succeeded; in memory for this run, the newest 1,000 overall, 20 per session, for at
most 24 hours. The shapes themselves are matched by :func:`cargento.events.irreversible.match_command`.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from datetime import datetime, timedelta

import attrs
from cargento.events.irreversible import Shape, match_command, shown_command
from cargento.sharedmethods import shared_methods

__all__ = ["GLOBAL_LIMIT", "MAX_AGE", "SESSION_LIMIT", "Report", "ReportLog"]

GLOBAL_LIMIT = 1000
SESSION_LIMIT = 20
MAX_AGE = timedelta(hours=24)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Report:
    """One after-tool report of an irreversible command shape."""

    harness: str
    session_id: str
    at: datetime
    shape: Shape
    #: The command as the hook reported it: one line, redacted, at most 200 characters.
    command: str
    tool: str | None = None


class ReportLog:
    """The in-memory record: newest 1,000 overall, 20 per session, 24 hours."""

    def __init__(
        self, *, global_limit: int = GLOBAL_LIMIT, session_limit: int = SESSION_LIMIT, max_age: timedelta = MAX_AGE
    ) -> None:
        self.global_limit = global_limit
        self.session_limit = session_limit
        self.max_age = max_age
        self._all: deque[Report] = deque()
        self._per: OrderedDict[tuple[str, str], deque[Report]] = OrderedDict()

    def add(
        self, harness: str, session_id: str, command: str, at: datetime, *, tool: str | None = None
    ) -> tuple[Report, ...]:
        """Match *command* and record a report per shape found."""
        shapes = match_command(command)
        added = tuple(
            Report(harness=harness, session_id=session_id, at=at, shape=s, command=shown_command(command), tool=tool)
            for s in shapes
        )
        for report in added:
            self._all.append(report)
            bucket = self._per.setdefault((harness, session_id), deque())
            bucket.append(report)
            self._per.move_to_end((harness, session_id))
            while len(bucket) > self.session_limit:
                dropped = bucket.popleft()
                self._all.remove(dropped)
        while len(self._all) > self.global_limit:
            self._discard(self._all.popleft())
        return added

    def _discard(self, report: Report) -> None:
        key = (report.harness, report.session_id)
        bucket = self._per.get(key)
        if bucket is None:
            return
        try:
            bucket.remove(report)
        except ValueError:
            pass
        if not bucket:
            del self._per[key]

    def prune(self, now: datetime) -> None:
        """Drop reports older than the age limit."""
        while self._all and now - self._all[0].at > self.max_age:
            self._discard(self._all.popleft())

    def reports(self, now: datetime, harness: str | None = None, session_id: str | None = None) -> tuple[Report, ...]:
        """Live reports, newest first; all of them, or one session's."""
        self.prune(now)
        if harness is not None and session_id is not None:
            return tuple(reversed(self._per.get((harness, session_id), ())))
        return tuple(reversed(self._all))

    def __len__(self) -> int:
        return len(self._all)
