"""The real stores Codex 0.171.0 wrote, read against their truth.json."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cargento.testing import make_context, snapshot_tree
from cargento.testing.golden import golden_board
from cargento_harness_codex import plugin

Golden = Callable[[str], tuple[Path, dict[str, Any]]]


@pytest.mark.parametrize("scenario", ["A-single-turn", "B-plan", "C-subagent", "D1-approval-wait"])
def test_golden_scenario(golden: Golden, scenario: str) -> None:
    home, truth = golden(f"codex-0.171.0/{scenario}")
    before = snapshot_tree(home)
    board = golden_board(plugin, "codex", home, truth)
    assert snapshot_tree(home) == before
    assert [s.session_id for s in board.sessions] == truth["session_ids"][:1]
    row = board.sessions[0]
    assert not row.faults
    assert row.title == truth["expected_title"]
    assert row.cwd is not None and row.cwd.endswith(truth["cwd"].replace("$LAB", ""))
    assert row.model == truth["model"]
    assert row.output_tokens_total == truth["output_tokens_total"]
    assert [(t.subject, t.status) for t in row.tasks] == [(t["step"], t["status"]) for t in truth["tasks"]]
    assert all(t.age_s is None for t in row.tasks)
    assert [(a.session_id, a.name, a.running) for a in row.subagents] == [
        (s["thread_id"], s["agent_nickname"], s["expected_state"] == "working") for s in truth["subagents"]
    ]
    assert row.resume_command == f"codex resume {truth['session_ids'][0]}"
    assert row.instruction is not None and row.instruction.source == "prompt"
    if truth["expected_state"] == "needs_input":
        # The store holds no approval record: only the PermissionRequest hook can raise the
        # gate. What the store supports: an open turn whose newest tool call has no output.
        assert row.waiting is None
        assert row.state == "working"
        assert row.detail == truth["pending_tool"]["name"]
        assert row.turn is not None
    else:
        assert row.state == truth["expected_state"]


def test_golden_subagent_usage_and_model(golden: Golden) -> None:
    home, truth = golden("codex-0.171.0/C-subagent")
    ctx = make_context(home, now=truth["snapshot_at"], window_s=None)
    found = plugin.discover(ctx=ctx)
    by_id = {ref.session_id: ref for ref in found.sessions}
    assert set(by_id) == set(truth["session_ids"] + truth["child_session_ids"])
    child = plugin.read_session(ref=by_id[truth["child_session_ids"][0]], ctx=ctx)
    assert child is not None
    assert child.parent_id == truth["session_ids"][0]
    assert child.agent_name == "Gibbs"
    assert child.turn.state == "ended"
    child_usage = plugin.usage(reading=child, ctx=ctx)
    assert child_usage is not None and child_usage.output_tokens_total == truth["output_tokens_subagents"]
    lead = plugin.read_session(ref=by_id[truth["session_ids"][0]], ctx=ctx)
    assert lead is not None
    lead_usage = plugin.usage(reading=lead, ctx=ctx)
    assert lead_usage is not None and lead_usage.output_tokens_total == truth["output_tokens_total"]
    assert lead_usage.rate_limits == ()


def test_golden_turn_end_reads_idle_at_once(golden: Golden) -> None:
    home, truth = golden("codex-0.171.0/B-plan")
    ctx = make_context(home, now=truth["snapshot_at"], window_s=None)
    ref = plugin.discover(ctx=ctx).sessions[0]
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    # Written 4.5 s before the snapshot: recency alone would say working.
    assert reading.last_active_at is not None
    assert (ctx.now - reading.last_active_at).total_seconds() < 90
    assert reading.turn.state == "ended"
    assert golden_board(plugin, "codex", home, truth).sessions[0].state == "idle"
