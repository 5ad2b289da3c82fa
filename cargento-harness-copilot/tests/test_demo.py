"""The ``cargento --demo`` simulation for Copilot CLI on core's schedule, seen through the board."""

from __future__ import annotations

import json
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer
from cargento.testing.demo_contract import DemoContract
from cargento_harness_copilot import plugin
from cargento_harness_copilot.demo import CYCLE_S, LEAD_S, CopilotSimulation

DAYS_ON = LEAD_S + 2 * 24 * 3600  # a cycle boundary two days on (960 cycles)


def _live(board: Board) -> BoardSession:
    return next(s for s in board.sessions if s.project == "work/parser")


def _events(viewer: DemoViewer[CopilotSimulation]) -> list[dict[str, object]]:
    return [json.loads(line) for line in viewer.demo.live.events.read_text().splitlines()]


class TestCopilotDemo(DemoContract[CopilotSimulation]):
    plugin = plugin
    key = "copilot"
    demo_type = CopilotSimulation
    cycle_s = CYCLE_S
    store_folder = ".copilot"
    schedule = (3, 17, 40, 41, 95, 150, 400, 10_000)
    back_at_s = LEAD_S + 12
    jump_from_s = LEAD_S + CYCLE_S + 12  # the next turn, standing at its permission dialog
    jump_to_s = DAYS_ON + 12

    def shape(self, viewer: DemoViewer[CopilotSimulation]) -> object:
        return viewer.demo.live.session_id, [(e["type"], e["timestamp"]) for e in _events(viewer)]

    def written(self, viewer: DemoViewer[CopilotSimulation]) -> int:
        return len(_events(viewer))

    def jump_bound(self, viewer: DemoViewer[CopilotSimulation]) -> int:
        viewer.step(LEAD_S + CYCLE_S - 1)  # one whole turn, to measure what a cycle writes
        per_cycle = len(_events(viewer)) - 1  # the session.start record is not the turn's
        return 2 * per_cycle

    def check_jump(self, viewer: DemoViewer[CopilotSimulation], board: Board, before: int) -> None:
        added = _events(viewer)[before:]
        kinds = [e["type"] for e in added]
        assert "permission.completed" in kinds, "the turn in hand's dialog is answered"
        assert sum(1 for k in kinds if k == "user.message") == 1, "only the present turn is begun"
        assert added[-1]["type"] == "permission.requested"
        assert added[-1]["timestamp"] == "2026-12-02T12:00:06.000Z", "the present turn carries its own times"
        assert _live(board).state == "needs_input"
        assert _live(viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"

    def test_the_permission_wait_opens_and_is_answered_later(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        assert _live(viewer.at(LEAD_S + 12)).state == "needs_input"
        row = _live(viewer.at(LEAD_S + 25))
        assert row.state == "working" and row.waiting is None
        kinds = [e["type"] for e in _events(viewer)]
        assert kinds.index("permission.requested") < kinds.index("permission.completed")
