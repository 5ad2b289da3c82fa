"""The real stores Gemini CLI 0.61.0 wrote, read against their ``truth.json``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board
from cargento.testing.golden import golden_board
from cargento_harness_gemini import plugin

SCENARIOS = ["A-single-turn", "B-todos", "C-subagent", "D1-approval-wait"]
Golden = Callable[[str], tuple[Path, dict[str, Any]]]


def board_of(golden: Golden, scenario: str) -> tuple[Board, dict[str, Any]]:
    home, truth = golden(f"gemini-cli-0.61.0/{scenario}")
    return golden_board(plugin, "gemini", home, truth), truth


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_golden_session_identity_and_facts(golden: Golden, scenario: str) -> None:
    board, truth = board_of(golden, scenario)
    # Subagent recordings fold into their parent: one row per main session.
    assert [s.session_id for s in board.sessions] == truth["session_ids"]
    (row,) = board.sessions
    assert row.cwd is not None and row.cwd.endswith(truth["cwd"].replace("$LAB", ""))
    assert row.project == "work/" + truth["cwd"].rsplit("/", 1)[-1]
    assert row.title == truth["expected_title"]
    assert row.model == truth["model"]
    assert row.output_tokens_total == truth["output_tokens_total"]
    assert [(t.subject, t.status) for t in row.tasks] == [(t["description"], t["status"]) for t in truth["tasks"]]
    assert not row.faults and not row.notes
    assert not row.read_by_scanning  # Gemini CLI has turn-end hooks


@pytest.mark.parametrize("scenario", ["A-single-turn", "B-todos", "C-subagent"])
def test_golden_finished_turns_read_idle_at_once(golden: Golden, scenario: str) -> None:
    board, truth = board_of(golden, scenario)
    (row,) = board.sessions
    assert truth["expected_state"] == "idle"
    assert (
        row.last_active_at is not None and (board.generated_at - row.last_active_at).total_seconds() < 90
    )  # fresh, yet the turn ended
    assert row.state == "idle"


def test_golden_first_prompt_is_the_typed_one(golden: Golden) -> None:
    board, truth = board_of(golden, "A-single-turn")
    (row,) = board.sessions
    assert row.instruction is not None
    assert row.instruction.text == truth["first_prompt"]  # not the CLI's <session_context> preamble


def test_golden_subagent_is_a_named_finished_pill(golden: Golden) -> None:
    board, truth = board_of(golden, "C-subagent")
    (row,) = board.sessions
    expected = truth["subagents"][0]
    (pill,) = row.subagents
    assert pill.session_id == expected["session_id"] == truth["child_session_ids"][0]
    assert pill.name == expected["agent_name"]
    assert pill.running is (expected["expected_state"] == "working")
    assert pill.model == truth["model"]


def test_golden_approval_wait_is_not_visible_in_the_store(golden: Golden) -> None:
    """The chat log of a pending approval looks like a finished turn (truth's state_notes): the
    store cannot say Needs input, so no gate is claimed; the Notification hook is that lane."""
    board, truth = board_of(golden, "D1-approval-wait")
    (row,) = board.sessions
    assert truth["expected_state"] == "needs_input"
    assert row.waiting is None
    assert row.state != "needs_input"
    assert not plugin.harness_info().reports_waits
