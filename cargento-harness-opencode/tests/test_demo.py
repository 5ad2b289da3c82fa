"""The ``cargento --demo`` simulation for OpenCode on core's schedule, seen through the board."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cargento.board import Board, BoardSession
from cargento.readers import query_ro
from cargento.testing.demo import DemoViewer
from cargento.testing.demo_contract import DemoContract
from cargento_harness_opencode import plugin
from cargento_harness_opencode.demo import CYCLE_S, LEAD_S, OpenCodeSimulation

DAYS_ON = LEAD_S + 2 * 24 * 3600  # a cycle boundary two days on (960 cycles)

Viewer = DemoViewer[OpenCodeSimulation]


def _live(board: Board) -> BoardSession:
    return next(s for s in board.sessions if s.project == "work/api")


def _rows(viewer: Viewer, sql: str) -> list[tuple[Any, ...]]:
    return query_ro(viewer.demo.store.path, sql)


def _parts(viewer: Viewer) -> list[tuple[Any, ...]]:
    """Every message and part row, oldest first: what the simulation has written."""
    return _rows(
        viewer, "SELECT id, time_created FROM message UNION ALL SELECT id, time_created FROM part ORDER BY 2, 1"
    )


class TestOpenCodeDemo(DemoContract[OpenCodeSimulation]):
    plugin = plugin
    key = "opencode"
    demo_type = OpenCodeSimulation
    cycle_s = CYCLE_S
    store_folder = ".local/share/opencode"
    schedule = (3, 17, 40, 41, 95, 150, 400, 10_000)
    back_at_s = LEAD_S + 26
    jump_from_s = LEAD_S + CYCLE_S + 26  # the next turn, its subagent running
    jump_to_s = DAYS_ON + 26

    def shape(self, viewer: Viewer) -> object:
        return _parts(viewer)

    def written(self, viewer: Viewer) -> int:
        return len(_parts(viewer))

    def jump_bound(self, viewer: Viewer) -> int:
        viewer.step(0)
        empty = len(_parts(viewer))
        viewer.step(LEAD_S + CYCLE_S - 1)  # one whole turn, to measure what a cycle writes
        return 2 * (len(_parts(viewer)) - empty)

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        newest = max(t for _, t in _parts(viewer))
        assert newest == round(viewer.moment(DAYS_ON + 23).timestamp() * 1000), "the present turn carries its own times"
        row = _live(board)
        assert row.state == "working" and True in [a.running for a in row.subagents]
        assert _live(viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"

    def test_the_live_session_runs_a_subagent_and_advances_its_todos(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        assert _live(viewer.at(LEAD_S + 12)).state == "needs_input"
        row = _live(viewer.at(LEAD_S + 26))
        assert row.state == "working" and [a.running for a in row.subagents] == [True]
        row = _live(viewer.at(LEAD_S + 59))
        assert row.state == "idle" and [a.running for a in row.subagents] == [False]
        assert row.tasks_done == 2

    def test_a_clock_jumping_ahead_begins_one_child_session_for_the_present_turn(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        viewer.step(self.jump_from_s)
        sessions = len(_rows(viewer, "SELECT id FROM session"))
        viewer.step(self.jump_to_s)
        assert len(_rows(viewer, "SELECT id FROM session")) == sessions + 1
