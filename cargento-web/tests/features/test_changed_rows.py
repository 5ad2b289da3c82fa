"""The features' per-board passes that look at the changed rows alone (the board's changes,
cargento_web.boardchanges) decide what looking at every row decided, and look at fewer."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import pytest
from cargento.board import Board, BoardSession, State
from cargento_web.boardchanges import ChangeTracker
from cargento_web.cockpit.semantic import SemanticHistory
from cargento_web.endings.readings import EndingReadings
from cargento_web.history import observer as observer_module
from cargento_web.history.observer import BoardObserver

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
Row = Callable[..., BoardSession]
Boards = Callable[..., Board]


def _boards(row: Row, board_of: Boards, seed: int, steps: int = 30) -> list[Board]:
    """Consecutive boards of twelve sessions where a few rows change (new objects) each time."""
    rng = random.Random(seed)
    rows = [row(f"s{i:02d}", state="idle", last_active_at=T0) for i in range(12)]
    out = []
    for step in range(steps):
        at = T0 + timedelta(seconds=10 * step)
        for _ in range(rng.choice([0, 1, 1, 2, 4])):
            i = rng.randrange(len(rows))
            state: State = rng.choice(["idle", "working", "needs_input"])
            rows[i] = attrs.evolve(rows[i], state=state, last_active_at=at, detail=f"{state} at {step}")
        out.append(board_of(at, *rows))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_the_history_observer_on_the_changed_rows_observes_what_it_did_on_every_row(
    row: Row, board_of: Boards, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked: list[str] = []
    real = observer_module._facts

    def counting(s: BoardSession) -> Any:
        looked.append(s.session_id)
        return real(s)

    monkeypatch.setattr(observer_module, "_facts", counting)
    quick = BoardObserver(known=lambda h, s: False, days=14)
    every = BoardObserver(known=lambda h, s: False, days=14)
    tracker = ChangeTracker()
    for board in _boards(row, board_of, seed):
        moves = tracker.see(board)
        looked.clear()
        made = quick.observe(board, None if moves.full else moves.changed)
        assert len(looked) == len(moves.changed), "only the changed rows are looked at"
        assert made == every.observe(board)


@pytest.mark.parametrize("seed", range(8))
def test_the_endings_on_the_changed_rows_are_the_endings_of_every_row(row: Row, board_of: Boards, seed: int) -> None:
    quick = EndingReadings(probe=None, changed=lambda: None)
    every = EndingReadings(probe=None, changed=lambda: None)
    tracker = ChangeTracker()
    for board in _boards(row, board_of, seed):
        quick.on_board(board, tracker.see(board))
        every.on_board(board)
        assert quick.document() == every.document()


def test_the_semantic_history_records_from_the_changed_rows_what_it_did_from_every_row(
    row: Row, board_of: Boards, tmp_path: Any
) -> None:
    quick = SemanticHistory(tmp_path / "quick")
    every = SemanticHistory(tmp_path / "every")
    tracker = ChangeTracker()
    for board in _boards(row, board_of, 3):
        moves = tracker.see(board)
        assert quick.observe(board, None if moves.full else moves.changed) == every.observe(board)
        assert quick.projects == every.projects


def _feed(quick: EndingReadings, every: EndingReadings, tracker: ChangeTracker, board: Board) -> None:
    """*board* to two endings readers: *quick* with its changes, *every* reading every row."""
    quick.on_board(board, tracker.see(board))
    every.on_board(board)


def _twins(first: Board) -> tuple[EndingReadings, EndingReadings, ChangeTracker]:
    """Two endings readers (see :func:`_feed`) that have read *first*, and the changes' tracker."""
    quick = EndingReadings(probe=None, changed=lambda: None)
    every = EndingReadings(probe=None, changed=lambda: None)
    tracker = ChangeTracker()
    _feed(quick, every, tracker, first)
    return quick, every, tracker


def test_an_ending_recorded_between_boards_for_a_row_that_stood_is_retired_as_before(
    row: Row, board_of: Boards
) -> None:
    rows = [row(f"s{i}", state="idle", last_active_at=T0) for i in range(5)]
    quick, every, tracker = _twins(board_of(T0, *rows))
    # The demo records an ending observed elsewhere, older than the row's last write.
    for readings in (quick, every):
        readings.record(rows[2], "stop", T0 - timedelta(hours=1))
    assert quick.document() == every.document() != {}
    _feed(quick, every, tracker, board_of(T0 + timedelta(seconds=5), *rows))
    assert quick.document() == every.document() == {}


def test_held_endings_of_rows_that_stood_are_not_read_again_on_every_board(
    row: Row, board_of: Boards, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty sessions stopped and are held; then one row moves per board. Each board reads the
    row that moved, not the forty held endings again (it read all of them on every board:
    a place index of the whole board and a look per held row, on the event path)."""
    working = [row(f"s{i:02d}", state="working", last_active_at=T0) for i in range(40)]
    readings, every, tracker = _twins(board_of(T0, *working))
    rows = [attrs.evolve(r, state="idle") for r in working]
    _feed(readings, every, tracker, board_of(T0 + timedelta(seconds=1), *rows))
    assert len(readings.document()) == 40
    reads: list[str] = []
    resumed = EndingReadings._resumed

    def counted(self: EndingReadings, e: Any, s: BoardSession) -> bool:
        if self is readings:  # not the reference that reads every row
            reads.append(s.session_id)
        return resumed(self, e, s)

    monkeypatch.setattr(EndingReadings, "_resumed", counted)
    # The board after the stop reads each new ending once against the row it came from.
    again = board_of(T0 + timedelta(seconds=2), *rows)
    readings.on_board(again, tracker.see(again))
    assert len(reads) == 40
    for step in range(3, 13):
        reads.clear()
        i = step % 40
        rows[i] = attrs.evolve(rows[i], detail=f"still idle at {step}")
        _feed(readings, every, tracker, board_of(T0 + timedelta(seconds=step), *rows))
        assert reads == [rows[i].session_id]
        assert readings.document() == every.document()


def _context(tmp_path: Any, tracker: ChangeTracker, latest: list[Board]) -> Any:
    from cargento.board import BoardBuilder
    from cargento.cli import Options
    from cargento.plugins import load_registry
    from cargento_web.extensions import ExtensionContext
    from cargento_web.settings import Settings

    return ExtensionContext(
        options=Options(),
        settings=Settings(),
        builder=BoardBuilder(load_registry(entry_points=False), env={"HOME": str(tmp_path)}),
        hub=None,
        state_dir=tmp_path / "state",
        env={"HOME": str(tmp_path)},
        changed=lambda: None,
        latest_board=lambda: latest[-1] if latest else None,
        board_changes=tracker.see,
    )


def test_the_annotations_share_is_made_again_only_when_the_set_of_sessions_moves(
    row: Row, board_of: Boards, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cargento_web.annotations import create
    from cargento_web.annotations import extension as annotations_extension
    from cargento_web.annotations.summary import board_share as real

    made: list[int] = []

    def counting(store: Any, board: Board | None) -> Any:
        made.append(1)
        return real(store, board)

    monkeypatch.setattr(annotations_extension, "board_share", counting)
    tracker = ChangeTracker()
    feature = create(_context(tmp_path, tracker, []))
    rows = [row(f"s{i}", state="idle", last_active_at=T0) for i in range(6)]
    feature.on_board(board_of(T0, *rows))
    assert len(made) == 1
    rows[1] = attrs.evolve(rows[1], state="working")  # a row changed, the set did not
    feature.on_board(board_of(T0, *rows))
    assert len(made) == 1
    before = feature.document()["annotations"]["sessions"]
    rows.append(row("s9", state="idle", last_active_at=T0))  # a session came
    feature.on_board(board_of(T0, *rows))
    assert len(made) == 2
    assert feature.document()["annotations"]["sessions"] == before


def test_the_dismissals_counts_from_the_changed_rows_are_the_counts_of_every_row(
    row: Row, board_of: Boards, tmp_path: Any
) -> None:
    from cargento_web.dismissals import create

    latest: list[Board] = []
    tracker = ChangeTracker()
    feature = create(_context(tmp_path, tracker, latest))
    assert feature.store is not None
    for i, board in enumerate(_boards(row, board_of, 5)):
        if i == 3:
            feature.store.mark("claude", "s01", T0 + timedelta(hours=1))
            feature.store.mark("claude", "s04", T0 + timedelta(hours=1))
        latest.append(board)
        feature.on_board(board)
        quick = feature.document()["dismissals"]["counts"]
        feature._recount(None)  # a route's recount: every row of the latest board
        assert feature.document()["dismissals"]["counts"] == quick
