"""The stores the real OpenCode 1.18.33 wrote, read against their truth.json."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cargento.testing import snapshot_tree
from cargento.testing.golden import golden_board
from cargento_harness_opencode import plugin

SCENARIOS = ["A-single-turn", "B-todos", "C-subagent", "D1-permission-wait"]
Golden = Callable[[str], tuple[Path, dict[str, Any]]]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_scenario(golden: Golden, scenario: str) -> None:
    home, truth = golden(f"opencode-1.18.33/{scenario}")
    before = snapshot_tree(home)
    board = golden_board(plugin, "opencode", home, truth)
    assert snapshot_tree(home) == before  # db, -wal and -shm untouched
    assert [s.session_id for s in board.sessions] == truth["session_ids"]
    row = board.sessions[0]
    assert not row.faults and not row.missing
    assert row.cwd is not None and row.cwd.endswith(truth["cwd"].replace("$LAB", ""))
    assert row.title == truth["expected_title"]
    assert row.state == truth["expected_state"]
    assert row.model == truth["model"]
    assert [(t.subject, t.status) for t in row.tasks] == [(t["content"], t["status"]) for t in truth["tasks"]]
    assert [(a.session_id, a.role, a.running) for a in row.subagents] == [
        (a["session_id"], a["agent"], a["expected_state"] == "working") for a in truth["subagents"]
    ]
    if scenario == "D1-permission-wait":
        # The response's 27 tokens are not written until its step finishes: unmeasured, not zero.
        assert row.output_tokens_total is None
    else:
        assert row.output_tokens_total == truth["output_tokens_total"]


def test_golden_child_session_is_a_pill_with_its_own_model(golden: Golden) -> None:
    home, truth = golden("opencode-1.18.33/C-subagent")
    board = golden_board(plugin, "opencode", home, truth)
    assert len(board.sessions) == 1
    pill = board.sessions[0].subagents[0]
    assert pill.name == "Say hello"
    assert pill.model == "claude-sonnet-4-5"
    assert pill.output_tokens_per_min is not None


def test_golden_permission_wait_names_only_the_kind(golden: Golden) -> None:
    home, truth = golden("opencode-1.18.33/D1-permission-wait")
    board = golden_board(plugin, "opencode", home, truth)
    row = board.sessions[0]
    assert row.waiting is not None and row.waiting.kind == "command" and row.waiting.text is None
    assert truth["pending_tool"]["command"] not in repr(board)


def test_golden_prompt_comes_from_the_text_part(golden: Golden) -> None:
    home, truth = golden("opencode-1.18.33/B-todos")
    row = golden_board(plugin, "opencode", home, truth).sessions[0]
    assert row.instruction is not None and "SCENARIO-B: plan the parser work" in row.instruction.text
