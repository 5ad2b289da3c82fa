"""The real stores Pi 0.73.1 wrote, read against their truth.json."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cargento.testing import snapshot_tree
from cargento.testing.golden import golden_board
from cargento_harness_pi import plugin

Golden = Callable[[str], tuple[Path, dict[str, Any]]]


@pytest.mark.parametrize("scenario", ["A-single-turn", "B-bash-tool", "W1-working-second-turn"])
def test_golden_scenario(golden: Golden, scenario: str) -> None:
    home, truth = golden(f"pi-0.73.1/{scenario}")
    before = snapshot_tree(home)
    board = golden_board(plugin, "pi", home, truth)
    assert snapshot_tree(home) == before
    assert [s.session_id for s in board.sessions] == truth["session_ids"]
    row = board.sessions[0]
    assert not row.faults
    assert row.state == truth["expected_state"]
    assert row.model == truth["model"]
    assert row.authority == f"via {truth['provider']} · {truth['model']}"
    assert row.output_tokens_total == truth["output_tokens_total"]
    assert row.subagents == () and row.tasks == ()
    assert row.cwd is not None and row.cwd.endswith(truth["cwd"].replace("$LAB", ""))
    assert row.resume_command is None and row.read_by_scanning
    if truth["expected_title"] is None:
        # No session_info entry: the derived label is the first prompt, as Pi's own selector shows.
        assert row.title == truth.get("first_prompt", row.title)
    if scenario == "W1-working-second-turn":
        assert row.detail == "thinking"
        assert row.instruction is not None and row.instruction.text == "SCENARIO-W again: one more slow answer"
    if scenario == "B-bash-tool":
        # The final answer landed half a second before the snapshot: idle at once.
        assert row.last_active_at is not None and (board.generated_at - row.last_active_at).total_seconds() < 90
