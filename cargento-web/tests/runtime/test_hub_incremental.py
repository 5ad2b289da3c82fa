"""The hub reads only the rows that changed since the previous board, and decides what reading
every row decided: the same published board, the same raises, the same cleared gates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from cargento.board import Board, BoardBuilder, board_json
from cargento.models import Gate
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.boardchanges import ChangeTracker
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier
from hypothesis import given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class Clock:
    """A hand-moved clock."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class EveryRow(EventHub):
    """The reference: the hub reading every row of every board."""

    def on_board(self, board: Board) -> Board:
        self._changes = ChangeTracker()  # a tracker that has seen no board reads every row
        return super().on_board(board)

    def _end_candidates(self, board: Board, rows: Any) -> list[Any]:
        return [s for s in board.sessions if s.state == "idle"]


SIDS = [f"s{i}" for i in range(6)]

_step = st.one_of(
    st.tuples(
        st.just("event"),
        st.sampled_from(SIDS),
        st.sampled_from(["UserPromptSubmit", "Stop", "PermissionRequest", "SessionEnd", "SessionStart"]),
    ),
    st.tuples(st.just("write"), st.sampled_from(SIDS), st.just("")),
    st.tuples(st.just("gate"), st.sampled_from(SIDS), st.sampled_from(["on", "off"])),
    st.tuples(st.just("clock"), st.just(""), st.sampled_from(["1", "7", "95"])),
)


def _body(sid: str, name: str) -> dict[str, Any]:
    body: dict[str, Any] = {"session_id": sid, "hook_event_name": name, "prompt_id": "p"}
    if name == "PermissionRequest":
        body.update({"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})
    return body


def _hub(
    tmp_path: Path, name: str, clock: Clock, notifier: MemoryNotifier, kind: type[EventHub] = EventHub
) -> EventHub:
    return kind(clock=clock, state_dir=tmp_path / name, notifier=notifier, confirm=timedelta(0))


def _doc(board: Board) -> bytes:
    return board_json(attrs.evolve(board, revision=0))


@settings(max_examples=40, deadline=None)
@given(st.lists(_step, min_size=1, max_size=14))
def test_reading_the_changed_rows_decides_what_reading_every_row_decides(
    tmp_path_factory: Any, steps: list[tuple[str, str, str]]
) -> None:
    tmp_path = tmp_path_factory.mktemp("hubs")
    clock = Clock(T0)
    sessions = [FakeSession(sid, at=T0 - timedelta(seconds=30 + i)) for i, sid in enumerate(SIDS)]
    registry = load_registry(entry_points=False, extra=[("claude", FakeHarness("claude", sessions))])
    builder = BoardBuilder(registry, env={"HOME": "/home/u"}, clock=clock, processes=StaticProcesses())
    quick_notes, full_notes = MemoryNotifier(), MemoryNotifier()
    quick = _hub(tmp_path, "quick", clock, quick_notes)
    full = _hub(tmp_path, "full", clock, full_notes, EveryRow)
    try:
        for kind, sid, arg in [*steps, ("clock", "", "1")]:
            by_id = {s.session_id: s for s in sessions}
            if kind == "event":
                for hub in (quick, full):
                    hub.ingest("claude", _body(sid, arg))
            elif kind == "write":
                by_id[sid].at = clock() - timedelta(seconds=0.5)
            elif kind == "gate":
                by_id[sid].gate = Gate(kind="permission", text="allow?", since=clock()) if arg == "on" else None
            else:
                clock.tick(float(arg))
            board = builder.build(overlays=quick.overlays(clock()), changes={"claude": frozenset({"x"})})
            assert _doc(quick.on_board(board)) == _doc(full.on_board(board))
            # What the alerts hold back and have told (the raises themselves go out on a thread).
            assert set(quick.alerts._pending) == set(full.alerts._pending)
            assert quick.alerts._told == full.alerts._told
            assert quick.diagnostics()["lanes"] == full.diagnostics()["lanes"]
    finally:
        quick.close()
        full.close()


def test_a_board_where_one_row_changed_reads_that_row_alone(tmp_path: Path) -> None:
    clock = Clock(T0)
    sessions = [FakeSession(f"s{i:02d}", at=T0 - timedelta(seconds=30 + i)) for i in range(40)]
    registry = load_registry(entry_points=False, extra=[("claude", FakeHarness("claude", sessions))])
    builder = BoardBuilder(registry, env={"HOME": "/home/u"}, clock=clock, processes=StaticProcesses())
    hub = _hub(tmp_path, "hub", clock, MemoryNotifier())
    try:
        read: list[str] = []
        real = hub._clear_on_own_write

        def counting(key: tuple[str, str], s: Any) -> bool:
            read.append(key[1])
            return real(key, s)

        hub._clear_on_own_write = counting  # type: ignore[method-assign]
        hub.on_board(builder.build(overlays=hub.overlays(clock())))
        assert len(read) == 40, "the first board is read whole"
        read.clear()
        # No store moved (the file watcher says so): the event's row alone is derived again.
        hub.ingest("claude", _body("s07", "UserPromptSubmit"))
        hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
        assert read == ["s07"], "only the row the event moved is read"
        read.clear()
        hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
        assert read == [], "nothing moved: no row is read"
    finally:
        hub.close()


def test_a_gate_raise_held_for_a_row_that_stood_and_does_not_wait_is_withdrawn(tmp_path: Path) -> None:
    clock = Clock(T0)
    sessions = [FakeSession(f"s{i}", at=T0 - timedelta(seconds=30 + i)) for i in range(5)]
    registry = load_registry(entry_points=False, extra=[("claude", FakeHarness("claude", sessions))])
    builder = BoardBuilder(registry, env={"HOME": "/home/u"}, clock=clock, processes=StaticProcesses())
    hub = _hub(tmp_path, "hub", clock, MemoryNotifier())
    try:
        first = builder.build(overlays=hub.overlays(clock()))
        hub.on_board(first)
        # A raise about s2's wait is held (or told) while its row, unchanged, reads working.
        hub.alerts.gate("claude", "s2", "s2 needs input", "allow?", clock(), kind="gate")
        assert ("claude", "s2") in hub.alerts.sessions_holding("gate")
        second = builder.build(overlays=hub.overlays(clock()), changes={})
        assert second.sessions == first.sessions and all(
            a is b for a, b in zip(second.sessions, first.sessions, strict=True)
        )
        hub.on_board(second)
        assert ("claude", "s2") not in hub.alerts.sessions_holding("gate")
    finally:
        hub.close()
