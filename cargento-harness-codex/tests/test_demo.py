"""The ``cargento --demo`` simulation for Codex, seen through the board as a viewer sees it."""

from __future__ import annotations

import json
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer
from cargento.testing.demo_contract import DemoContract
from cargento_harness_codex import plugin
from cargento_harness_codex.demo import CYCLE_S, KEEP_AGENTS, CodexDemo

LIVE = "Port the scheduler to the new queue"
DAYS_ON = 2 * 24 * 3600  # a cycle boundary two days on


def _live(board: Board) -> BoardSession:
    return next(s for s in board.sessions if s.title == LIVE)


def _records(viewer: DemoViewer[CodexDemo]) -> list[dict[str, object]]:
    return [json.loads(line) for line in viewer.demo.live.path.read_text().splitlines()]


class TestCodexDemo(DemoContract[CodexDemo]):
    plugin = plugin
    key = "codex"
    demo_type = CodexDemo
    cycle_s = CYCLE_S
    store_folder = ".codex"
    schedule = (3, 17, 40, 41, 95, 150, 400, 10_000)
    jump_from_s = 50  # mid-turn
    jump_to_s = DAYS_ON + 12
    jump_most = 39

    def shape(self, viewer: DemoViewer[CodexDemo]) -> object:
        return [(r.get("type"), r.get("timestamp")) for r in _records(viewer)]

    def written(self, viewer: DemoViewer[CodexDemo]) -> int:
        return len(_records(viewer))

    def check_jump(self, viewer: DemoViewer[CodexDemo], board: Board, before: int) -> None:
        stamps = sorted(str(r["timestamp"]) for r in _records(viewer)[before:])
        assert stamps[-1].startswith("2026-12-02T12:00:1"), "the present turn carries its own times"
        assert _live(board).state == "working"
        assert _live(viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"

    def test_a_cycle_goes_working_with_a_subagent_then_idle(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        states = [_live(viewer.at(s)).state for s in range(0, int(CYCLE_S) + 5, 5)]
        assert states[0] == "working" and states[-1] == "working", "each cycle opens with a prompt"
        assert "idle" in states, "the recorded turn end makes the row idle until the next prompt"
        row = _live(viewer.at(CYCLE_S + 25))
        assert any(a.running for a in row.subagents)
        old = next(s for s in viewer.at(CYCLE_S + 26).sessions if s.title != LIVE)
        assert old.state == "idle"

    def test_every_tool_call_gets_its_own_output(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        viewer.at(CYCLE_S - 1)
        payloads = [r["payload"] for r in _records(viewer) if r.get("type") == "response_item"]
        calls = {
            p["call_id"]
            for p in payloads
            if isinstance(p, dict) and p.get("type") == "function_call" and p.get("name") == "exec_command"
        }
        outputs = {p["call_id"] for p in payloads if isinstance(p, dict) and p.get("type") == "function_call_output"}
        assert calls and calls <= outputs

    def test_subagent_rollouts_stay_bounded(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        for cycle in range(5):
            viewer.at(cycle * CYCLE_S + 60)
        row = _live(viewer.at(5 * CYCLE_S - 1))
        assert len(row.subagents) == KEEP_AGENTS
        rollouts = list((viewer.home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        assert len(rollouts) == 2 + KEEP_AGENTS
