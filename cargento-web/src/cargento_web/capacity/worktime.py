"""How long sessions actually worked, per project, from the boards this dashboard saw.

Only intervals seen whole count: a session seen to go into Working and later seen to leave it.
A session already working when first seen, or gone from the board mid-interval, adds nothing,
because its start or its end was not observed. Kept in memory for the run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import datetime

import attrs
from cargento.board import Board, BoardSession
from cargento.sharedmethods import shared_methods

from cargento_web.boardchanges import BoardChanges

__all__ = ["WorkTime", "Worked"]

#: At most this many sessions are tracked at once (the board is bounded far below this).
MAX_TRACKED = 4096


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Worked:
    project: str
    seconds: float
    intervals: int
    since: datetime


class WorkTime:
    def __init__(self, started: datetime) -> None:
        self.started = started
        self._lock = threading.Lock()
        #: key -> (state, project, when it went into Working, or None when not seen to).
        self._seen: dict[str, tuple[str, str | None, datetime | None]] = {}
        self._totals: dict[str, tuple[float, int]] = {}

    def observe(self, board: Board, moves: BoardChanges | None = None) -> bool:
        """Take one board; ``True`` when a project's measured total moved. With *moves* (what
        changed since the previous board) only the changed rows are taken: a row that stood
        is tracked as it was, and rows that left are forgotten."""
        at = board.as_of or board.generated_at
        moved = False
        with self._lock:
            seen: dict[str, tuple[str, str | None, datetime | None]] = {}
            rows: Iterable[BoardSession] = board.sessions
            if moves is not None and not moves.full and len(board.sessions) < MAX_TRACKED:
                seen = dict(self._seen)
                for gone in moves.dropped:
                    seen.pop(gone.key, None)
                rows = moves.changed
            for s in rows:
                before = self._seen.get(s.key)
                opened: datetime | None = None
                if s.state == "working":
                    if before is None:
                        opened = None
                    elif before[0] == "working":
                        opened = before[2]
                    else:
                        opened = at
                elif before is not None and before[0] == "working" and before[2] is not None and s.project:
                    seconds, count = self._totals.get(s.project, (0.0, 0))
                    self._totals[s.project] = (seconds + max((at - before[2]).total_seconds(), 0.0), count + 1)
                    moved = True
                seen[s.key] = (s.state, s.project, opened)
                if len(seen) >= MAX_TRACKED:
                    break
            self._seen = seen
        return moved

    def most(self) -> Worked | None:
        """The project with the most measured working time, or ``None`` before any."""
        with self._lock:
            if not self._totals:
                return None
            project, (seconds, count) = max(self._totals.items(), key=lambda kv: (kv[1][0], kv[0]))
        return Worked(project=project, seconds=seconds, intervals=count, since=self.started)
