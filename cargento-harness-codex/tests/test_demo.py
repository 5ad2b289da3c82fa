"""The ``cargento --demo`` simulation for Codex, seen through the board as a viewer sees it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing
from cargento.testing.homes import snapshot_tree
from cargento_harness_codex import plugin
from cargento_harness_codex.demo import CYCLE_S, KEEP_AGENTS, CodexDemo

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LIVE = "Port the scheduler to the new queue"


class Viewer(DemoViewer[CodexDemo]):
    """The demo started through the plugin's hook, and a board over its home on one test clock."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, plugin, "codex", start=START)
        assert isinstance(self.demo, CodexDemo)

    def live(self, board: Board) -> BoardSession:
        return next(s for s in board.sessions if s.title == LIVE)

    def records(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.demo.live.path.read_text().splitlines()]


def _shape(viewer: Viewer) -> list[tuple[object, object]]:
    return [(r.get("type"), r.get("timestamp")) for r in viewer.records()]


def test_a_cycle_goes_working_with_a_subagent_then_idle(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    states = [viewer.live(viewer.at(s)).state for s in range(0, int(CYCLE_S) + 5, 5)]
    assert states[0] == "working" and states[-1] == "working", "each cycle opens with a prompt"
    assert "idle" in states, "the recorded turn end makes the row idle until the next prompt"
    row = viewer.live(viewer.at(CYCLE_S + 25))
    assert any(a.running for a in row.subagents)
    old = next(s for s in viewer.at(CYCLE_S + 26).sessions if s.title != LIVE)
    assert old.state == "idle"


def test_every_tool_call_gets_its_own_output(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    viewer.at(CYCLE_S - 1)
    payloads = [r["payload"] for r in viewer.records() if r.get("type") == "response_item"]
    calls = {p["call_id"] for p in payloads if isinstance(p, dict) and p.get("type") == "function_call"
             and p.get("name") == "exec_command"}
    outputs = {p["call_id"] for p in payloads if isinstance(p, dict) and p.get("type") == "function_call_output"}
    assert calls and calls <= outputs


def test_a_clock_going_backwards_writes_nothing(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(50), lambda: snapshot_tree(viewer.home))


def test_a_clock_jumping_ahead_finishes_the_turn_and_resumes_in_the_present(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    viewer.at(50)  # mid-turn
    lines = len(viewer.records())
    base = 2 * 24 * 3600  # a cycle boundary two days on
    board = viewer.at(base + 12)
    added = viewer.records()[lines:]
    assert 0 < len(added) < 40, "the turn in hand and the start of the present one, not two days of turns"
    stamps = sorted(str(r["timestamp"]) for r in added)
    assert stamps[-1].startswith("2026-12-02T12:00:1"), "the present turn carries its own times"
    assert viewer.live(board).state == "working"
    assert viewer.live(viewer.at(base + CYCLE_S - 5)).state == "idle"


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in (3, 17, 40, 41, 95, 150, 400, 10_000):
        for viewer in (a, b):
            viewer.step(second)
    assert _shape(a) == _shape(b)


def test_subagent_rollouts_stay_bounded(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    for cycle in range(5):
        viewer.at(cycle * CYCLE_S + 60)
    row = viewer.live(viewer.at(5 * CYCLE_S - 1))
    assert len(row.subagents) == KEEP_AGENTS
    rollouts = list((viewer.home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert len(rollouts) == 2 + KEEP_AGENTS
