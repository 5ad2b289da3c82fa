"""The ``cargento --demo`` simulation for Pi, seen through the board as a viewer sees it."""

from __future__ import annotations

import json
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer
from cargento.testing.demo_contract import DemoContract
from cargento_harness_pi import plugin
from cargento_harness_pi.demo import CYCLE_S, PiDemo

LIVE = "Fix the flaky pagination test"
DAYS_ON = 2 * 24 * 3600  # a cycle boundary two days on


def _live(board: Board) -> BoardSession:
    return next(s for s in board.sessions if s.title == LIVE)


def _records(viewer: DemoViewer[PiDemo]) -> list[dict[str, object]]:
    return [json.loads(line) for line in viewer.demo.live.path.read_text().splitlines()]


class TestPiDemo(DemoContract[PiDemo]):
    plugin = plugin
    key = "pi"
    demo_type = PiDemo
    cycle_s = CYCLE_S
    store_folder = ".pi"
    schedule = (3, 17, 40, 41, 95, 150, 400, 10_000)
    jump_from_s = 30  # mid-turn, the bash call running
    jump_to_s = DAYS_ON + 8
    jump_most = 14

    def shape(self, viewer: DemoViewer[PiDemo]) -> object:
        return [(r.get("type"), r.get("timestamp")) for r in _records(viewer)]

    def written(self, viewer: DemoViewer[PiDemo]) -> int:
        return len(_records(viewer))

    def check_jump(self, viewer: DemoViewer[PiDemo], board: Board, before: int) -> None:
        stamps = sorted(str(r["timestamp"]) for r in _records(viewer)[before:])
        assert stamps[-1].startswith("2026-12-02T12:00:0"), "the present turn carries its own times"
        assert _live(board).state == "working"
        assert _live(viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"

    def test_a_cycle_goes_working_then_idle_and_starts_again(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        assert _live(viewer.at(30)).state == "working"
        assert _live(viewer.at(100)).state == "idle", "the closing reply ends the turn"
        assert _live(viewer.at(CYCLE_S + 30)).state == "working"
        old = next(s for s in viewer.at(CYCLE_S + 31).sessions if s.title != LIVE)
        assert old.state == "idle" and old.title == "Changelog tidy"

    def test_the_schedule_writes_many_records(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        for second in self.schedule:
            viewer.step(second)
        assert len(_records(viewer)) > 20
