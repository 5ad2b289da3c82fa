"""What consecutive boards say happened: the observations the history keeps."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.board import Board, BoardSession, BoardTask, Waiting
from cargento_web.history.observer import UNWATCHED, BoardObserver
from cargento_web.history.store import HistoryStore

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
Row = Callable[..., BoardSession]
Boards = Callable[..., Board]
Task = Callable[..., BoardTask]


def kinds(observations: list[Any]) -> list[str]:
    return [o.kind for o in observations]


def test_a_turn_a_wait_a_task_and_an_end_are_observed_with_their_source(
    row: Row, board_of: Boards, task_of: Task
) -> None:
    seen = BoardObserver(known=lambda h, s: False, days=14, end_reason=lambda h, s: "logout")
    first = seen.observe(board_of(T0, row("s", state="idle", last_active_at=T0)))
    assert kinds(first) == ["state"] and first[0].detail == "first seen by this server"
    t1 = T0 + timedelta(seconds=10)
    working = row(
        "s", state="working", state_source="event:UserPromptSubmit", tasks=(task_of("build", "pending", "1"),)
    )
    made = seen.observe(board_of(t1, working))
    assert kinds(made) == ["state", "turn_started"]
    assert made[0].source == "event:UserPromptSubmit" and made[0].previous == "idle" and made[0].at == t1
    gate = Waiting(kind="permission", text="run ls?", since=t1, source="event")
    waiting = row("s", state="needs_input", waiting=gate, state_source="event:PermissionRequest", tasks=working.tasks)
    assert kinds(seen.observe(board_of(t1, waiting))) == ["state", "wait_started"]
    done = row("s", state="working", tasks=(task_of("build", "completed", "1"),))
    made = seen.observe(board_of(t1, done))
    assert kinds(made) == ["state", "wait_ended", "task_completed"] and made[2].detail == "build"
    ended = row("s", state="idle", ended=True, tasks=done.tasks, state_source="event:SessionEnd")
    made = seen.observe(board_of(t1, ended))
    assert kinds(made) == ["state", "turn_ended", "session_ended"]
    assert made[2].detail == "logout", "the reason the session-end store holds"
    assert seen.observe(board_of(t1, ended)) == [], "nothing moved, nothing observed"


def test_first_sight_is_a_baseline(row: Row, board_of: Boards, task_of: Task) -> None:
    seen = BoardObserver(known=lambda h, s: s == "known", days=1)
    old = row("old", last_active_at=T0 - timedelta(days=3))
    known = row("known", state="working")
    finished = row("fresh", tasks=(task_of("done before we looked", "completed"),))
    made = seen.observe(board_of(T0, old, known, finished))
    assert [(o.session_id, o.kind) for o in made] == [("fresh", "state")], (
        "a session outside the window, one the history knows, and completions before first sight are not observations"
    )


def test_a_known_session_found_in_another_state_records_the_change_it_missed(row: Row, board_of: Boards) -> None:
    """The history's last word on a session is Idle, and this server first sees it Working:
    the change is recorded at this board, from the row's source, said to be unwatched."""
    last = {"moved": "idle", "same": "working"}
    seen = BoardObserver(known=lambda h, s: s in last, days=14, last_state=lambda h, s: last.get(s))
    moved = row("moved", state="working", state_source="store")
    same = row("same", state="working")
    made = seen.observe(board_of(T0, moved, same))
    assert [(o.session_id, o.kind, o.previous, o.state) for o in made] == [("moved", "state", "idle", "working")]
    assert made[0].at == T0 and made[0].source == "store" and made[0].detail == UNWATCHED
    assert seen.observe(board_of(T0 + timedelta(seconds=5), moved, same)) == []


def test_a_wait_begun_or_ended_while_no_server_watched_is_opened_and_closed(
    row: Row, board_of: Boards, tmp_path: Path
) -> None:
    """Across a restart, with the history's own store: a session last seen waiting on you that
    is now working gets the wait's end, and one last seen working that now waits gets the
    wait's start, so the decisions timeline pairs every wait; a wait still open stays as is."""

    def observer(store: HistoryStore) -> BoardObserver:
        return BoardObserver(known=store.holds, days=14, last_state=store.last_state, open_wait=store.open_wait)

    store = HistoryStore(tmp_path, clock=lambda: T0)
    store.load()
    gate = Waiting(kind="permission", text="run ls?", since=T0, source="event")
    first = observer(store)
    store.record(first.observe(board_of(T0, row("ended", state="working", last_active_at=T0))))
    store.record(first.observe(board_of(T0, row("begun", state="working", last_active_at=T0))))
    store.record(first.observe(board_of(T0, row("still", state="working", last_active_at=T0))))
    waiting = [row(sid, state="needs_input", waiting=gate, last_active_at=T0) for sid in ("ended", "still")]
    store.record(first.observe(board_of(T0, *waiting, row("begun", state="working", last_active_at=T0))))
    assert store.open_wait("claude", "ended") == "permission" and store.open_wait("claude", "begun") is None
    assert store.flush()

    restarted = HistoryStore(tmp_path, clock=lambda: T0)
    restarted.load()
    later = T0 + timedelta(minutes=5)
    made = observer(restarted).observe(
        board_of(
            later,
            row("ended", state="working", last_active_at=later),
            row("begun", state="needs_input", waiting=gate, last_active_at=later),
            row("still", state="needs_input", waiting=gate, last_active_at=later),
        )
    )
    assert [(o.session_id, o.kind, o.detail) for o in made] == [
        ("ended", "state", UNWATCHED),
        ("ended", "wait_ended", "permission"),
        ("begun", "state", UNWATCHED),
        ("begun", "wait_started", "permission"),
    ]
    restarted.record(made)
    assert restarted.open_wait("claude", "ended") is None and restarted.open_wait("claude", "begun") == "permission"


def test_subagents_starting_and_stopping_are_the_delegation_record(row: Row, board_of: Boards) -> None:
    from cargento.models import Subagent

    seen = BoardObserver(known=lambda h, s: True, days=14)
    seen.observe(board_of(T0, row("p", state="working")))
    helper = Subagent(name="explorer", session_id="c1", running=True)
    made = seen.observe(board_of(T0, row("p", state="working", subagents=(helper,))))
    assert [(o.kind, o.detail) for o in made] == [("subagent_started", "explorer")]
    done = Subagent(name="explorer", session_id="c1", running=False)
    made = seen.observe(board_of(T0, row("p", state="working", subagents=(done,))))
    assert [(o.kind, o.detail) for o in made] == [("subagent_ended", "explorer")]


def test_a_starting_row_is_not_a_session_the_history_keeps(row: Row, board_of: Boards) -> None:
    seen = BoardObserver(known=lambda h, s: False, days=14)
    starting = row("pid-4242", state="starting", last_active_at=T0, state_source="process table")
    assert seen.observe(board_of(T0, starting)) == []
    made = seen.observe(board_of(T0 + timedelta(seconds=5), row("s", state="working", last_active_at=T0)))
    assert [(o.session_id, o.kind) for o in made] == [("s", "state")]


def test_a_row_object_seen_before_is_not_compared_again(row: Row, board_of: Boards, monkeypatch: Any) -> None:
    """The builder hands on the same frozen object for a row that did not change: it has
    nothing new to say, so its facts are not taken again (the per-board cost at 640 rows)."""
    from cargento_web.history import observer

    taken: list[str] = []
    real = observer._facts

    def counting(s: BoardSession) -> Any:
        taken.append(s.session_id)
        return real(s)

    monkeypatch.setattr(observer, "_facts", counting)
    seen = BoardObserver(known=lambda h, s: False, days=14)
    a, b = row("a", state="idle", last_active_at=T0), row("b", state="idle", last_active_at=T0)
    seen.observe(board_of(T0, a, b))
    assert taken == ["a", "b"]
    taken.clear()
    assert seen.observe(board_of(T0, a, b)) == []
    assert taken == []
    moved = row("b", state="working", last_active_at=T0)
    assert kinds(seen.observe(board_of(T0, a, moved))) == ["state", "turn_started"]
    assert taken == ["b"]


def test_sessions_that_come_and_go_leave_no_row_object_behind(row: Row, board_of: Boards) -> None:
    """A server sees sessions come and go for days: the row objects that spare a comparison
    are kept for the rows on the board, not for every session that ever left it."""
    seen = BoardObserver(known=lambda h, s: False, days=14)
    stays = row("stays", state="idle", last_active_at=T0)
    for n in range(500):
        seen.observe(board_of(T0 + timedelta(seconds=n), stays, row(f"s{n}", state="working", last_active_at=T0)))
    assert len(seen._objects) <= 2 * 2 + 64 + 1
    assert seen._objects[("claude", "stays")] is stays
    gone = row("s0", state="working", last_active_at=T0)
    assert seen.observe(board_of(T0 + timedelta(hours=1), stays, gone)) == [], "back unchanged: nothing new"


def test_rows_without_tasks_or_subagents_share_one_empty_set(row: Row, board_of: Boards, task_of: Task) -> None:
    """Two sets are remembered for every row between boards, empty for most: each empty set
    built is 216 bytes of its own (about 280 kB at 640 sessions), one shared is none."""
    seen = BoardObserver(known=lambda h, s: False, days=14)
    busy = row("busy", state="working", tasks=(task_of("build", "completed", "1"),))
    seen.observe(board_of(T0, busy, *(row(f"s{n}", state="working", last_active_at=T0) for n in range(20))))
    empties = {id(f.completed) for k, f in seen._rows.items() if k[1] != "busy"}
    empties |= {id(f.running) for f in seen._rows.values()}
    assert len(empties) == 1
    assert seen._rows[("claude", "busy")].completed == frozenset({"1"})
