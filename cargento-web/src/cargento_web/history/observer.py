"""What one board says happened since the last: the observations the history keeps.

:class:`BoardObserver` compares each board with the one before it, row by row, and names what
moved: a state change (with the source that published the new state), a turn's start and end,
a wait and its end, a session end, a task completed, and a subagent starting or stopping (the
delegation the cockpit draws). Comparing two small dicts per row is the
whole cost, so a board where nothing moved yields nothing and no write follows.

The first board of a run is a baseline: a session is recorded at first sight only when the
history holds nothing of it and it was active inside the history window, and tasks completed
before the server saw them are never recorded as completions it observed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

import attrs
from cargento.board import Board, BoardSession
from cargento.models import Subagent
from cargento.sharedmethods import shared_methods

from cargento_web.history.store import Observation

__all__ = ["UNWATCHED", "BoardObserver", "RowFacts"]

_DETAIL_LIMIT = 200


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class RowFacts:
    """What the observer remembers of one row between boards."""

    state: str
    source: str
    waiting: str | None
    ended: bool
    completed: frozenset[str]
    #: The subagents seen running (by session id, else name).
    running: frozenset[str]


def _sub_key(sub: Subagent) -> str:
    return sub.session_id or sub.name


#: The facts of a row without completed tasks or running subagents (most rows) share this one:
#: each empty ``frozenset`` built is an object of its own, 216 bytes, two a session.
_NONE: frozenset[str] = frozenset()


def _facts(s: BoardSession) -> RowFacts:
    return RowFacts(
        state=s.state,
        source=s.state_source,
        waiting=(s.waiting.kind or "wait") if s.waiting is not None else None,
        ended=s.ended,
        completed=frozenset(t.id or t.subject for t in s.tasks if t.status == "completed") or _NONE,
        running=frozenset(_sub_key(a) for a in s.subagents if a.running) or _NONE,
    )


def _clip(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= _DETAIL_LIMIT else text[: _DETAIL_LIMIT - 1] + "…"


#: The detail of a state change found at a first sight: it happened before this board.
UNWATCHED = "changed while no server watched; seen at this board"


class BoardObserver:
    """Turns consecutive boards into :class:`Observation`s.

    :param known: whether the history already holds anything of a session (first sight).
    :param days: the history window (a first sight older than it is not recorded).
    :param end_reason: the reason the session-end store holds for a session's end, if any.
    :param last_state: the state the history last recorded for a session it knows, if any: a
        first sight that finds another one records the change, seen at that board (the
        session moved while no server watched it), so the timeline never ends on a state the
        row contradicts.
    :param open_wait: the kind of the wait the history holds open for a session (its newest
        wait observation is a start), if any: a first sight that finds the row waiting with no
        wait open records the start, and one that finds the wait over records its end, so every
        wait the decisions timeline shows has its start and, once over, its end.
    """

    def __init__(
        self,
        *,
        known: Callable[[str, str], bool],
        days: float,
        end_reason: Callable[[str, str], str | None] = lambda h, s: None,
        last_state: Callable[[str, str], str | None] = lambda h, s: None,
        open_wait: Callable[[str, str], str | None] = lambda h, s: None,
    ) -> None:
        self.known = known
        self.last_state = last_state
        self.open_wait = open_wait
        self.days = days
        self.end_reason = end_reason
        self._rows: dict[tuple[str, str], RowFacts] = {}
        #: The row object each session's facts were last taken from: the builder hands on
        #: the very same (frozen) object for a row that did not change, which then has
        #: nothing new to say.
        self._objects: dict[tuple[str, str], BoardSession] = {}

    def observe(self, board: Board, rows: Iterable[BoardSession] | None = None) -> list[Observation]:
        """What *board* shows that the rows last seen did not. *rows* are the rows to look at
        (those not on the previous board); every row of the board when ``None``. A row object
        already seen records nothing either way."""
        now = board.generated_at
        out: list[Observation] = []
        seen: dict[tuple[str, str], RowFacts] = {}
        objects = self._objects
        for s in board.sessions if rows is None else rows:
            if s.state == "starting":
                # A running process with no store yet is not a session: its row is named by
                # its pid and leaves once the session it starts writes, so nothing is kept.
                continue
            key = (s.harness, s.session_id)
            if objects.get(key) is s:
                continue
            objects[key] = s
            facts = _facts(s)
            seen[key] = facts
            prior = self._rows.get(key)
            if prior is None:
                out.extend(self._first_sight(s, facts, now))
            elif prior != facts:
                out.extend(self._changes(s, prior, facts, now))
        # A row missing from this board keeps its last facts (the display window may hold it
        # back); coming back unchanged records nothing.
        self._rows.update(seen)
        if len(objects) > 2 * len(board.sessions) + 64:
            # The row objects only spare rows on the board a comparison: one kept for each
            # session that ever left would hold its whole last row for as long as the server
            # runs.
            on_board = {(s.harness, s.session_id) for s in board.sessions}
            self._objects = {k: v for k, v in objects.items() if k in on_board}
        return out

    def _first_sight(self, s: BoardSession, facts: RowFacts, now: datetime) -> list[Observation]:
        if self.known(s.harness, s.session_id):
            before = self.last_state(s.harness, s.session_id)
            made = []
            if before is not None and before != facts.state:
                made.append(
                    self._make(s, "state", now, facts.source, state=facts.state, previous=before, detail=UNWATCHED)
                )
            # A wait is only ever recorded open while its row waits on the reader, so only a
            # row that waits now or did then can have a wait to open or close.
            if facts.waiting is not None or before == "needs_input":
                held = self.open_wait(s.harness, s.session_id)
                if held is not None and held != facts.waiting:
                    made.append(self._make(s, "wait_ended", now, facts.source, detail=held))
                if facts.waiting is not None and held != facts.waiting:
                    made.append(self._make(s, "wait_started", now, facts.source, detail=facts.waiting))
            return made
        active_at = s.last_active_at or s.started_at
        if active_at is None or now - active_at > timedelta(days=self.days):
            return []
        # Observed now: the server saw the state at this board, whatever the store's age.
        made = [self._make(s, "state", now, facts.source, state=facts.state, detail="first seen by this server")]
        if facts.waiting is not None:
            made.append(self._make(s, "wait_started", now, facts.source, detail=facts.waiting))
        names = {_sub_key(a): a.name for a in s.subagents}
        for running in sorted(facts.running):
            made.append(self._make(s, "subagent_started", now, "store", detail=names.get(running, running)))
        return made

    def _changes(self, s: BoardSession, prior: RowFacts, facts: RowFacts, now: datetime) -> list[Observation]:
        made: list[Observation] = []
        src = facts.source
        if prior.state != facts.state:
            made.append(self._make(s, "state", now, src, state=facts.state, previous=prior.state))
            if facts.state == "working" and prior.state == "idle":
                made.append(self._make(s, "turn_started", now, src))
            if prior.state == "working" and facts.state == "idle":
                made.append(self._make(s, "turn_ended", now, src))
        if prior.waiting is None and facts.waiting is not None:
            made.append(self._make(s, "wait_started", now, src, detail=facts.waiting))
        elif prior.waiting is not None and facts.waiting is None:
            made.append(self._make(s, "wait_ended", now, src, detail=prior.waiting))
        if facts.ended and not prior.ended:
            made.append(self._make(s, "session_ended", now, src, detail=self.end_reason(s.harness, s.session_id)))
        subjects = {t.id or t.subject: t.subject for t in s.tasks}
        for done in sorted(facts.completed - prior.completed):
            made.append(self._make(s, "task_completed", now, "store", detail=subjects.get(done, done)))
        names = {_sub_key(a): a.name for a in s.subagents}
        for started in sorted(facts.running - prior.running):
            made.append(self._make(s, "subagent_started", now, "store", detail=names.get(started, started)))
        for stopped in sorted(prior.running - facts.running):
            made.append(self._make(s, "subagent_ended", now, "store", detail=names.get(stopped, stopped)))
        return made

    @staticmethod
    def _make(
        s: BoardSession,
        kind: str,
        at: datetime,
        source: str,
        *,
        state: str | None = None,
        previous: str | None = None,
        detail: str | None = None,
    ) -> Observation:
        return Observation(
            harness=s.harness,
            session_id=s.session_id,
            kind=kind,
            at=at,
            source=source,
            project=s.project,
            state=state,
            previous=previous,
            detail=_clip(detail),
        )
