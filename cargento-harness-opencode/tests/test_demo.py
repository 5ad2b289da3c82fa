"""The ``cargento --demo`` simulation for OpenCode on core's schedule, seen through the board."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cargento import HarnessError
from cargento.board import Board, BoardSession
from cargento.readers import query_ro
from cargento.testing.demo import DEMO_START, DemoViewer, assert_going_back_writes_nothing
from cargento.testing.homes import snapshot_tree
from cargento_harness_opencode import plugin
from cargento_harness_opencode.simulation import CYCLE_S, LEAD_S, OpenCodeSimulation


class Viewer(DemoViewer[OpenCodeSimulation]):
    """The demo started through the plugin's ``simulate`` hook, with a board over its home."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, plugin, "opencode")
        assert isinstance(self.demo, OpenCodeSimulation)

    def live(self, board: Board) -> BoardSession:
        return next(s for s in board.sessions if s.project == "work/api")

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return query_ro(self.demo.store.path, sql)

    def parts(self) -> list[tuple[Any, ...]]:
        """Every message and part row, oldest first: what the simulation has written."""
        return self.rows("SELECT id, time_created FROM message UNION ALL SELECT id, time_created FROM part ORDER BY 2, 1")


def test_the_live_session_runs_a_subagent_and_advances_its_todos(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert viewer.live(viewer.at(LEAD_S + 12)).state == "needs_input"
    row = viewer.live(viewer.at(LEAD_S + 26))
    assert row.state == "working" and [a.running for a in row.subagents] == [True]
    row = viewer.live(viewer.at(LEAD_S + 59))
    assert row.state == "idle" and [a.running for a in row.subagents] == [False]
    assert row.tasks_done == 2


def test_a_clock_going_backwards_writes_nothing(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(LEAD_S + 26), lambda: snapshot_tree(viewer.home))


def test_a_clock_jumping_ahead_does_at_most_two_cycles_of_work(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    viewer.step(0)
    empty = len(viewer.parts())
    viewer.step(LEAD_S + CYCLE_S - 1)  # one whole turn, to measure what a cycle writes
    per_cycle = len(viewer.parts()) - empty
    viewer.step(LEAD_S + CYCLE_S + 26)  # the next turn, its subagent running
    before = len(viewer.parts())
    sessions = len(viewer.rows("SELECT id FROM session"))
    base = LEAD_S + 2 * 24 * 3600  # a cycle boundary two days on (960 cycles)
    board = viewer.at(base + 26)
    added = len(viewer.parts()) - before
    assert 0 < added <= 2 * per_cycle, "the turn in hand and the start of the present one, not two days of turns"
    assert len(viewer.rows("SELECT id FROM session")) == sessions + 1, "one child session for the present turn"
    newest = max(t for _, t in viewer.parts())
    assert newest == round(viewer.moment(base + 23).timestamp() * 1000), "the present turn carries its own times"
    row = viewer.live(board)
    assert row.state == "working" and True in [a.running for a in row.subagents]
    assert viewer.live(viewer.at(base + CYCLE_S - 5)).state == "idle"


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in (3, 17, 40, 41, 95, 150, 400, 10_000):
        for viewer in (a, b):
            viewer.step(second)
    assert a.parts() == b.parts()


def test_a_store_resolving_outside_the_home_is_refused(tmp_path: Path) -> None:
    home, outside = tmp_path / "home", tmp_path / "elsewhere"
    (home / ".local" / "share").mkdir(parents=True)
    outside.mkdir()
    (home / ".local" / "share" / "opencode").symlink_to(outside, target_is_directory=True)
    with pytest.raises(HarnessError, match="outside the demo home"):
        OpenCodeSimulation(home, DEMO_START)
    assert not any(outside.iterdir())
