"""The OpenCode demo writes its store in the dashboard's own process, beside the board reader.

SQLite maps a database's WAL index (``-shm``) once per process. When the board's read-only
reader is the first connection of the process to map it (the ``-wal``/``-shm`` an earlier write
left behind because a read held the database as it closed), every write the demo makes while
that read is open is refused with ``SQLITE_READONLY``. The demo used to stop OpenCode's
simulation on the first such refusal, so the live session froze where it stood and its question
was never asked again; here each write waits the read out, and a write that fails for good skips
only its own scripted moment.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer
from cargento.testing.heldreads import HeldReads
from cargento_harness_opencode import plugin
from cargento_harness_opencode.demo import CYCLE_S, LEAD_S, OpenCodeSimulation
from cargento_harness_opencode.fixtures import Moment
from cargento_harness_opencode.mapping import GATE_AFTER_S

Viewer = DemoViewer[OpenCodeSimulation]

#: Where the question stands in each cycle (the demo's plan): asked at 39 s, answered at 55 s.
QUESTION_AT_S = 39.0
ANSWERED_AT_S = 55.0
CYCLES = 3


def _live(board: Board) -> BoardSession:
    return next(s for s in board.sessions if s.project == "work/api")


def test_the_question_is_asked_every_cycle_while_the_board_reads_in_the_same_process(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home", plugin, "opencode")
    store = viewer.demo.store
    reads = HeldReads()
    store.pause = reads.pause
    asked: list[tuple[int, str, str | None]] = []
    for cycle in range(CYCLES):
        begins = LEAD_S + cycle * CYCLE_S
        standing = begins + QUESTION_AT_S + GATE_AFTER_S + 1
        for second in range(int(begins), int(begins + CYCLE_S)):
            reads.hold(store.path)
            viewer.step(second)
            reads.release()
            if second == standing:
                row = _live(viewer.board(viewer.moment(second)))
                asked.append((cycle, row.state, row.waiting.kind if row.waiting else None))
        assert _live(viewer.board(viewer.moment(begins + ANSWERED_AT_S + 1))).waiting is None
    assert asked == [(cycle, "needs_input", "question") for cycle in range(CYCLES)]
    assert viewer.demo.schedule.skipped == 0, "no scripted moment was lost"
    assert reads.refusals > 0, "the demo's writes met the read-only WAL index"


def test_a_write_that_fails_for_good_skips_its_moment_and_the_next_cycle_asks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    viewer = Viewer(tmp_path / "home", plugin, "opencode")
    live = viewer.demo.live
    wait = live.wait
    refused: list[str] = []

    def question_refused_once(name: str, at: Moment, **kwargs: Any) -> str:
        if name == "question" and not refused:
            refused.append(name)
            raise sqlite3.OperationalError("disk I/O error")
        return wait(name, at, **kwargs)

    monkeypatch.setattr(live, "wait", question_refused_once)
    first = _live(viewer.at(LEAD_S + QUESTION_AT_S + GATE_AFTER_S + 1))
    assert refused == ["question"] and first.waiting is None
    assert viewer.demo.schedule.skipped == 1
    again = _live(viewer.at(LEAD_S + CYCLE_S + QUESTION_AT_S + GATE_AFTER_S + 1))
    assert again.state == "needs_input" and again.waiting is not None and again.waiting.kind == "question"
