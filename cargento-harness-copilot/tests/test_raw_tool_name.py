"""A Copilot MCP tool shows ``server · tool`` and keeps the recorded tool name beside it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import make_context
from cargento_harness_copilot import plugin
from cargento_harness_copilot.fixtures import CopilotStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_an_mcp_tool_keeps_its_recorded_name_and_a_builtin_has_none(tmp_path: Path) -> None:
    session = CopilotStore(tmp_path).session(
        "aaaaaaaa-0000-4000-8000-0000000000f1", cwd="/w/proj", at=NOW - timedelta(seconds=60)
    )
    session.prompt("find the bug", at=NOW - timedelta(seconds=50))
    session.emit(
        "tool.execution_start",
        {
            "toolCallId": "t1",
            "toolName": "github-search_issues",
            "mcpServerName": "github",
            "mcpToolName": "search_issues",
        },
        NOW - timedelta(seconds=40),
    )
    ctx = make_context(tmp_path, now=NOW, window_s=None)
    [ref] = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert (reading.last_tool, reading.last_tool_raw) == ("github · search_issues", "github-search_issues")
    session.tool("bash", NOW - timedelta(seconds=30))
    ctx = make_context(tmp_path, now=NOW, window_s=None)
    reading = plugin.read_session(ref=plugin.discover(ctx=ctx).sessions[0], ctx=ctx)
    assert reading is not None and (reading.last_tool, reading.last_tool_raw) == ("bash", None)
