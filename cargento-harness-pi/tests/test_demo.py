"""The ``cargento --demo`` simulation for Pi, seen through the board as a viewer sees it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing
from cargento.testing.homes import snapshot_tree
from cargento_harness_pi import plugin
from cargento_harness_pi.demo import CYCLE_S, PiDemo

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LIVE = "Fix the flaky pagination test"


class Viewer(DemoViewer[PiDemo]):
    """The demo started through the plugin's hook, and a board over its home on one test clock."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, plugin, "pi", start=START)
        assert isinstance(self.demo, PiDemo)

    def live(self, board: Board) -> BoardSession:
        return next(s for s in board.sessions if s.title == LIVE)

    def records(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.demo.live.path.read_text().splitlines()]


def test_a_cycle_goes_working_then_idle_and_starts_again(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert viewer.live(viewer.at(30)).state == "working"
    assert viewer.live(viewer.at(100)).state == "idle", "the closing reply ends the turn"
    assert viewer.live(viewer.at(CYCLE_S + 30)).state == "working"
    old = next(s for s in viewer.at(CYCLE_S + 31).sessions if s.title != LIVE)
    assert old.state == "idle" and old.title == "Changelog tidy"


def test_a_clock_going_backwards_writes_nothing(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(50), lambda: snapshot_tree(viewer.home))


def test_a_clock_jumping_ahead_finishes_the_turn_and_resumes_in_the_present(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    viewer.at(30)  # mid-turn, the bash call running
    lines = len(viewer.records())
    base = 2 * 24 * 3600  # a cycle boundary two days on
    board = viewer.at(base + 8)
    added = viewer.records()[lines:]
    assert 0 < len(added) < 15, "the turn in hand and the start of the present one, not two days of turns"
    stamps = sorted(str(r["timestamp"]) for r in added)
    assert stamps[-1].startswith("2026-12-02T12:00:0"), "the present turn carries its own times"
    assert viewer.live(board).state == "working"
    assert viewer.live(viewer.at(base + CYCLE_S - 5)).state == "idle"


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in (3, 17, 40, 41, 95, 150, 400, 10_000):
        for viewer in (a, b):
            viewer.step(second)
    shapes = [[(r.get("type"), r.get("timestamp")) for r in viewer.records()] for viewer in (a, b)]
    assert shapes[0] == shapes[1] and len(shapes[0]) > 20
