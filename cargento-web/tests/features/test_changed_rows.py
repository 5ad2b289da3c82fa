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


def test_an_ending_recorded_between_boards_for_a_row_that_stood_is_retired_as_before(
    row: Row, board_of: Boards
) -> None:
    rows = [row(f"s{i}", state="idle", last_active_at=T0) for i in range(5)]
    quick = EndingReadings(probe=None, changed=lambda: None)
    every = EndingReadings(probe=None, changed=lambda: None)
    tracker = ChangeTracker()
    first = board_of(T0, *rows)
    quick.on_board(first, tracker.see(first))
    every.on_board(first)
    # The demo records an ending observed elsewhere, older than the row's last write.
    for readings in (quick, every):
        readings.record(rows[2], "stop", T0 - timedelta(hours=1))
    assert quick.document() == every.document() != {}
    again = board_of(T0 + timedelta(seconds=5), *rows)
    quick.on_board(again, tracker.see(again))
    every.on_board(again)
    assert quick.document() == every.document() == {}
