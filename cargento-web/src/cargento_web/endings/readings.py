"""How each session landed: the ending readings behind CLOSE THE LOOP and At risk.

An ending is observed when a row stops (working or waiting, then idle: a stop) or ends (the
board marks it ended: an end, including the ends the session-end store,
``cargento-ends.json`` on the event hub, carried across a restart). Each ending gets one git
probe (:func:`~cargento_web.endings.git.probe_git`) on a small worker pool, never on the event
loop or the board's build; the reading is one of six:

    stop or end, each with uncommitted work, clean git state, or unmeasured git state

and it is retired when work resumes (the row is working or waiting again, or its store was
written after the ending). Under ``--no-git`` no git runs at all and the git half of every
reading stays empty: ``git`` is ``None``, which the page says as unmeasured, never clean.

Conflicting completion evidence is read at the ending too: an end or a stop whose task list
still holds open tasks, and tasks all completed while a failed-tool loop is on record.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import attrs
from cargento.board import Board, BoardSession
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso

from cargento_web.boardchanges import BoardChanges

if TYPE_CHECKING:
    # The probe's module (git's environment, its commands) is imported by the first probe.
    from cargento_web.endings.git import GitReading

__all__ = ["Ending", "EndingReadings", "conflict_of", "outcome"]

#: A store write this soon after an ending is the ending's own last write, not resumed work.
GRACE = timedelta(seconds=3)
#: Endings held at most (the oldest go first).
LIMIT = 500


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Ending:
    """One observed stop or end, and what the probe found."""

    harness: str
    session_id: str
    key: str
    #: ``stop`` or ``end``.
    kind: str
    at: datetime
    cwd: str | None
    project: str | None
    #: ``None`` while the probe runs, and under ``--no-git`` for good.
    git: GitReading | None = None
    probing: bool = False
    conflict: str | None = None

    def document(self) -> dict[str, Any]:
        git = self.git
        return {
            "harness": self.harness,
            "sid": self.session_id,
            "kind": self.kind,
            "at": iso(self.at),
            "project": self.project,
            "outcome": outcome(self),
            "git": git.status if git is not None else None,
            "dirty": git.dirty if git is not None else None,
            "changed": git.changed if git is not None else None,
            "git_detail": git.detail if git is not None else None,
            "probing": self.probing,
            "conflict": self.conflict,
        }


def outcome(e: Ending) -> str:
    """The six-reading vocabulary: ``stop-dirty``, ``stop-clean``, ``stop-unmeasured`` and the
    same three for ``end``."""
    status = e.git.status if e.git is not None else "unmeasured"
    return f"{e.kind}-{status}"


def conflict_of(s: BoardSession) -> str | None:
    """Conflicting completion evidence on a row that has just stopped or ended."""
    total = len(s.tasks)
    done = sum(t.status == "completed" for t in s.tasks)
    if total and done == total and s.loop is not None:
        return f"all {total} tasks completed while the last tool calls failed ({s.loop.failures} failures)"
    if total and done < total and s.ended:
        return f"the session ended with {total - done} of {total} tasks still open"
    return None


Probe = Callable[[str | None], "GitReading"]


class EndingReadings:
    """Observed endings per session, each probed once, retired when work resumes.

    :param probe: runs git for a working directory (blocking); ``None`` under ``--no-git``.
    :param changed: told when a reading appears, completes or is retired.
    :param ended_at: the session-end store's time for a session, when it holds one.
    """

    def __init__(
        self,
        *,
        probe: Probe | None,
        changed: Callable[[], None],
        ended_at: Callable[[str, str], datetime | None] = lambda h, s: None,
        workers: int = 2,
    ) -> None:
        self.probe = probe
        self.changed = changed
        self.ended_at = ended_at
        self._lock = threading.Lock()
        self._endings: dict[tuple[str, str], Ending] = {}
        self._rows: dict[tuple[str, str], tuple[str, bool]] = {}
        #: Held endings not yet read against their session's row: started or recorded since
        #: the row was last looked at. A held ending read against a row that has stood since
        #: would read the same, so a board that did not change the row need not look again.
        self._unread: set[tuple[str, str]] = set()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cargento-git") if probe else None
        self._first = True
        self._closed = False
        #: Probes started by this run (tests read it).
        self.probes_started = 0

    def on_board(self, board: Board, moves: BoardChanges | None = None) -> None:
        """Read *board*: an ending starts on a row's change into idle or ended, and a held
        one is retired when its session resumed. With *moves* (what changed since the previous
        board) only the changed rows and those of the sessions an ending is held for are
        looked at, in board order: a row that stood was read as it is already."""
        now = board.generated_at
        moved = False
        first = self._first
        self._first = False
        examine: Sequence[BoardSession] = board.sessions
        if moves is not None and not moves.full:
            examine = moves.changed
            with self._lock:
                unread = [k for k in self._unread if k in self._endings]
            if unread:
                # Held endings not read against their row yet: the row stood, so it is not
                # among the changed ones, and it is looked at in board order with them.
                ids = set(map(id, examine))
                extra = [r for r in (moves.rows.get(k) for k in unread) if r is not None and id(r) not in ids]
                if extra:
                    place = dict(zip(map(id, board.sessions), range(len(board.sessions)), strict=True))
                    examine = sorted([*examine, *extra], key=lambda r: place[id(r)])
        for s in examine:
            key = (s.harness, s.session_id)
            prior = self._rows.get(key)
            self._rows[key] = (s.state, s.ended)
            with self._lock:
                held = self._endings.get(key)
                self._unread.discard(key)
            if held is not None and self._resumed(held, s):
                with self._lock:
                    self._endings.pop(key, None)
                moved = True
                held = None
            kind: str | None = None
            if s.state == "idle":
                if s.ended and (prior is None or not prior[1]):
                    kind = "end"
                elif prior is not None and prior[0] != "idle":
                    kind = "stop"
                elif first and self.ended_at(s.harness, s.session_id) is not None:
                    kind = "end"  # observed before the restart, carried by the session-end store
            if kind is not None and (held is None or held.kind != kind):
                at = now if prior is not None else (self.ended_at(s.harness, s.session_id) or now)
                self._start(s, kind, at)
                moved = True
        if moved:
            self.changed()

    def record(self, s: BoardSession, kind: str, at: datetime) -> None:
        """Take an ending observed elsewhere (the demo's seeded ones)."""
        self._rows[(s.harness, s.session_id)] = (s.state, s.ended)
        self._start(s, kind, at)
        self.changed()

    def _resumed(self, e: Ending, s: BoardSession) -> bool:
        if s.state != "idle":
            return True
        newest = s.last_active_at
        for sub in s.subagents:
            if sub.last_active_at is not None and (newest is None or sub.last_active_at > newest):
                newest = sub.last_active_at
        return newest is not None and newest > e.at + GRACE

    def _start(self, s: BoardSession, kind: str, at: datetime) -> None:
        ending = Ending(
            harness=s.harness,
            session_id=s.session_id,
            key=s.key,
            kind=kind,
            at=at,
            cwd=s.cwd,
            project=s.project,
            probing=self._pool is not None,
            conflict=conflict_of(s),
        )
        key = (s.harness, s.session_id)
        with self._lock:
            self._endings.pop(key, None)
            self._endings[key] = ending
            self._unread.add(key)
            while len(self._endings) > LIMIT:
                self._unread.discard(next(iter(self._endings)))
                self._endings.pop(next(iter(self._endings)))
        if self._pool is not None and self.probe is not None and not self._closed:
            self.probes_started += 1
            future = self._pool.submit(self.probe, s.cwd)
            future.add_done_callback(lambda f: self._finish(key, ending, f))

    def _finish(self, key: tuple[str, str], ending: Ending, future: Future[GitReading]) -> None:
        try:
            reading = future.result()
        except Exception as exc:  # a probe that raised is unmeasured, never clean
            from cargento_web.endings.git import GitReading

            reading = GitReading(status="unmeasured", detail=f"the probe failed ({exc})")
        with self._lock:
            if self._endings.get(key) is not ending:
                return  # retired or replaced while git ran
            self._endings[key] = attrs.evolve(ending, git=reading, probing=False)
        self.changed()

    def get(self, harness: str, session_id: str) -> Ending | None:
        with self._lock:
            return self._endings.get((harness, session_id))

    def all(self) -> tuple[Ending, ...]:
        with self._lock:
            return tuple(self._endings.values())

    def document(self) -> Mapping[str, dict[str, Any]]:
        with self._lock:
            return {e.key: e.document() for e in self._endings.values()}

    def wait_idle(self, timeout_s: float = 10.0) -> bool:
        """True once no probe is running (tests)."""
        import time

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not any(e.probing for e in self.all()):
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
