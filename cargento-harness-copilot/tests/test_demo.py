"""The ``cargento --demo`` simulation for Copilot CLI on core's schedule, seen through the board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cargento import HarnessError
from cargento.board import Board, BoardSession
from cargento.testing.demo import DEMO_START, DemoViewer, assert_going_back_writes_nothing
from cargento.testing.homes import snapshot_tree
from cargento_harness_copilot import plugin
from cargento_harness_copilot.simulation import CYCLE_S, LEAD_S, CopilotSimulation


class Viewer(DemoViewer[CopilotSimulation]):
    """The demo started through the plugin's ``simulate`` hook, with a board over its home."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, plugin, "copilot")
        assert isinstance(self.demo, CopilotSimulation)

    def live(self, board: Board) -> BoardSession:
        return next(s for s in board.sessions if s.project == "work/parser")

    def events(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.demo.live.events.read_text().splitlines()]


def _shape(viewer: Viewer) -> list[tuple[object, object]]:
    return [(e["type"], e["timestamp"]) for e in viewer.events()]


def test_the_permission_wait_opens_and_is_answered_later(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert viewer.live(viewer.at(LEAD_S + 12)).state == "needs_input"
    row = viewer.live(viewer.at(LEAD_S + 25))
    assert row.state == "working" and row.waiting is None
    kinds = [e["type"] for e in viewer.events()]
    assert kinds.index("permission.requested") < kinds.index("permission.completed")


def test_a_clock_going_backwards_writes_nothing(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(LEAD_S + 12), lambda: snapshot_tree(viewer.home))


def test_a_clock_jumping_ahead_does_at_most_two_cycles_of_work(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    viewer.step(LEAD_S + CYCLE_S - 1)  # one whole turn, to measure what a cycle writes
    per_cycle = len(viewer.events()) - 1  # the session.start record is not the turn's
    viewer.step(LEAD_S + CYCLE_S + 12)  # the next turn, standing at its permission dialog
    before = len(viewer.events())
    base = LEAD_S + 2 * 24 * 3600  # a cycle boundary two days on (960 cycles)
    board = viewer.at(base + 12)
    added = viewer.events()[before:]
    assert 0 < len(added) <= 2 * per_cycle, "the turn in hand and the start of the present one, not two days of turns"
    kinds = [e["type"] for e in added]
    assert "permission.completed" in kinds, "the turn in hand's dialog is answered"
    assert sum(1 for k in kinds if k == "user.message") == 1, "only the present turn is begun"
    assert added[-1]["type"] == "permission.requested"
    assert added[-1]["timestamp"] == "2026-12-02T12:00:06.000Z", "the present turn carries its own times"
    assert viewer.live(board).state == "needs_input"
    assert viewer.live(viewer.at(base + CYCLE_S - 5)).state == "idle"


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in (3, 17, 40, 41, 95, 150, 400, 10_000):
        for viewer in (a, b):
            viewer.step(second)
    assert _shape(a) == _shape(b)
    assert a.demo.live.session_id == b.demo.live.session_id


def test_a_store_resolving_outside_the_home_is_refused(tmp_path: Path) -> None:
    home, outside = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    outside.mkdir()
    (home / ".copilot").symlink_to(outside, target_is_directory=True)
    with pytest.raises(HarnessError, match="outside the demo home"):
        CopilotSimulation(home, DEMO_START)
    assert not any(outside.iterdir())
