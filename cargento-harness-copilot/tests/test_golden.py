"""The stores the real Copilot CLI 1.0.102 wrote, read against their truth.json."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.testing.golden import golden_board
from cargento_harness_copilot import plugin

SCENARIOS = ["A-single-turn", "B-todos", "C-subagent", "D1-permission-wait"]
Golden = Callable[[str], tuple[Path, dict[str, Any]]]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_scenario(golden: Golden, scenario: str) -> None:
    home, truth = golden(f"copilot-1.0.102/{scenario}")
    board = golden_board(plugin, "copilot", home, truth)
    assert [s.session_id for s in board.sessions] == truth["session_ids"]
    row = board.sessions[0]
    assert not row.faults and not row.missing
    assert row.cwd is not None and row.cwd.endswith(truth["cwd"].replace("$LAB", ""))
    assert row.title == truth["expected_title"]
    assert row.state == truth["expected_state"]
    assert row.model == truth["model"]
    assert row.output_tokens_total == truth["output_tokens_total"]
    assert [(t.id, t.subject, t.status) for t in row.tasks] == [
        (t["id"], t["title"], t["status"]) for t in truth["tasks"]
    ]
    assert [(a.name, a.role, a.running) for a in row.subagents] == [
        (a["agentDisplayName"], a["agentName"], a["expected_state"] == "working") for a in truth["subagents"]
    ]
    # BYOK runs write no AI Units: unmeasured, never zero.
    assert row.ai_units is None


def test_golden_subagent_model_comes_from_its_started_event(golden: Golden) -> None:
    home, truth = golden("copilot-1.0.102/C-subagent")
    row = golden_board(plugin, "copilot", home, truth).sessions[0]
    assert row.subagents[0].model == "claude-sonnet-4.5"
    assert row.subagents[0].session_id == "b5450994-ceba-4170-a82e-4119679684a0"


def test_golden_permission_wait_names_only_the_kind(golden: Golden) -> None:
    home, truth = golden("copilot-1.0.102/D1-permission-wait")
    board = golden_board(plugin, "copilot", home, truth)
    row = board.sessions[0]
    assert row.state == "needs_input"
    assert row.waiting is not None
    assert row.waiting.kind == "command"
    assert row.waiting.text is None
    assert row.detail == "asking to run a command"
    text = repr(board)
    assert truth["pending_tool"]["command"] not in text
    assert "Write hi to hi.txt" not in text  # the model's stated reason


def test_golden_ended_sessions_read_idle_at_once(golden: Golden) -> None:
    home, truth = golden("copilot-1.0.102/A-single-turn")
    # Ten seconds after the last write: recency alone would say Working.
    moment = datetime.fromisoformat("2026-11-30T07:54:20+00:00")
    board = golden_board(plugin, "copilot", home, {**truth, "snapshot_at": moment.timestamp()})
    row = board.sessions[0]
    assert row.state == "idle"
    assert row.ended
