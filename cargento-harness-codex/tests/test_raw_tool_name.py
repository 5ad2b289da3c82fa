"""Codex MCP tools keep their recorded name beside the ``server · tool`` display name."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.models import SessionReading
from cargento.testing import make_context
from cargento_harness_codex import plugin
from cargento_harness_codex.fixtures import CodexStore

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
SID = "01a22b67-0000-7000-8000-0000000000b1"


def _read(home: Path, now: datetime) -> SessionReading:
    ctx = make_context(home, now=now, window_s=None)
    [ref] = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    return reading


def test_an_mcp_call_carries_its_wire_name_and_a_plain_one_none(tmp_path: Path) -> None:
    session = CodexStore(tmp_path).session(SID, cwd="/w/p", at=T0)
    session.turn_start(T0)
    session.prompt("Go", T0)
    call = session.tool("mcp__github__search_issues", T0 + timedelta(seconds=1))
    reading = _read(tmp_path, T0 + timedelta(seconds=2))
    assert (reading.last_tool, reading.last_tool_raw) == ("github · search_issues", "mcp__github__search_issues")
    session.tool_output(call, T0 + timedelta(seconds=3))
    session.tool("shell", T0 + timedelta(seconds=4))
    reading = _read(tmp_path, T0 + timedelta(seconds=5))
    assert (reading.last_tool, reading.last_tool_raw) == ("shell", None), "read on from the cached summary"


def test_a_namespaced_mcp_call_joins_namespace_and_name(tmp_path: Path) -> None:
    session = CodexStore(tmp_path).session(SID, cwd="/w/p", at=T0)
    session.turn_start(T0)
    session.prompt("Go", T0)
    session.item(
        "function_call",
        T0 + timedelta(seconds=1),
        name="search",
        namespace="mcp__docs",
        arguments=json.dumps({}),
        call_id="c1",
    )
    reading = _read(tmp_path, T0 + timedelta(seconds=2))
    assert (reading.last_tool, reading.last_tool_raw) == ("docs · search", "mcp__docs__search")
