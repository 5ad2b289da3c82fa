"""The real stores Pi 0.73.1 wrote, read against their truth.json."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing import snapshot_tree
from cargento_harness_pi import plugin

Golden = Callable[[str], tuple[Path, dict[str, Any]]]


@pytest.mark.parametrize("scenario", ["A-single-turn", "B-bash-tool", "W1-working-second-turn"])
def test_golden_scenario(golden: Golden, scenario: str) -> None:
    home, truth = golden(f"pi-0.73.1/{scenario}")
    before = snapshot_tree(home)
    moment = datetime.fromtimestamp(truth["snapshot_at"], UTC)
    registry = load_registry(entry_points=False, extra=[("pi", plugin)])
    board = BoardBuilder(registry, env={"HOME": str(home)}, home=home, clock=lambda: moment,
                         processes=StaticProcesses()).build(all_sessions=True)
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
