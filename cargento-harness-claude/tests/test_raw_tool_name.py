"""An MCP tool's recorded wire string rides beside its display name, through the board document."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from cargento.board import board_json
from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()
SID = "33333333-3333-4333-8333-333333333333"


def _doc_row(board: Any, store: ClaudeStore) -> dict[str, Any]:
    [row] = json.loads(board_json(board(store.home)))["sessions"]
    assert isinstance(row, dict)
    return row


def test_the_document_carries_the_mcp_wire_name_beside_the_display_name(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("list my issues", T0 - 30)
    s.tool("mcp__linear__list_issues", T0 - 25)
    row = _doc_row(board, store)
    assert row["state"] == "working"
    assert row["detail"] == "Linear · list issues"
    assert row["last_tool_raw"] == "mcp__linear__list_issues"


def test_a_tool_shown_under_its_own_name_has_no_raw_name(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("run it", T0 - 30)
    s.tool("Bash", T0 - 25)
    row = _doc_row(board, store)
    assert row["detail"] == "Bash" and row["last_tool_raw"] is None


def test_the_raw_name_goes_when_the_detail_is_no_longer_that_tool(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("list my issues", T0 - 60)
    s.tool("mcp__linear__list_issues", T0 - 50)
    store.task(SID, "1", "Triage", status="in_progress", active_form="Triaging", at=T0 - 40)
    row = _doc_row(board, store)
    assert row["detail"] == "Triaging" and row["last_tool_raw"] is None, "the tooltip must not name another line's tool"
    s.end_turn(T0 - 20)
    row = _doc_row(board, store)
    assert row["state"] == "idle" and row["last_tool_raw"] is None


def test_a_new_prompt_clears_the_raw_name(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("list my issues", T0 - 60)
    s.tool("mcp__linear__list_issues", T0 - 50)
    s.prompt("now explain", T0 - 10)
    s.tokens(5, T0 - 5)
    row = _doc_row(board, store)
    assert row["detail"] == "generating…" and row["last_tool_raw"] is None


def test_the_raw_name_is_redacted_like_every_shown_text(store: ClaudeStore, board: Any) -> None:
    import attrs
    from cargento.board.redaction import redact_session

    s = store.session(SID)
    s.prompt("list my issues", T0 - 30)
    s.tool("mcp__linear__list_issues", T0 - 25)
    [row] = board(store.home).sessions
    secret = "sk-ant-api03-" + "a1B2c3D4e5" * 9
    leaky = attrs.evolve(row, last_tool_raw=f"mcp__api__call {secret}")
    assert secret not in (redact_session(leaky).last_tool_raw or "")
    assert redact_session(row) is row, "a clean row comes back as the same object"
