"""The ``work_record`` and ``reading_provider`` hooks: what a drift reading may quote of a Claude
Code session (its checks with their output's end, the files it wrote), read only from the
transcript's bounded tail, and the Claude Code CLI's exact command line."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from cargento.models import SessionRef
from cargento.testing.homes import make_context, snapshot_tree
from cargento_harness_claude import plugin
from cargento_harness_claude.fixtures import ClaudeStore
from cargento_harness_claude.work import TAIL, claude_work
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SID = "1b2c0000-0000-4000-8000-000000000001"
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def _store(home: Path) -> None:
    now = time.time()
    session = ClaudeStore(home).session(SID, cwd="/w/proj")
    session.prompt("make the retry test pass", now - 300)
    check = session.tool("Bash", now - 290, input={"command": "pytest tests/test_retry.py"})
    session.result(check, now - 289, output="F" * 500 + " 3 passed", error=False)
    failing = session.tool("Bash", now - 280, input={"command": "ruff check ."})
    session.result(failing, now - 279, output="E501 line too long", error=True)
    session.tool("Edit", now - 270, input={"file_path": "/w/proj/src/retry.py", "old_string": "a", "new_string": "b"})
    session.tool("Read", now - 260, input={"file_path": "/w/proj/README.md"})


def test_the_checks_and_written_files_are_read_in_order_with_each_outputs_end(tmp_path: Path) -> None:
    _store(tmp_path)
    ctx = make_context(tmp_path)
    (ref,) = plugin.discover(ctx=ctx).sessions
    before = snapshot_tree(tmp_path)
    record = plugin.work_record(ref=ref, ctx=ctx, tool_output=True)
    assert snapshot_tree(tmp_path) == before, "read-only"
    assert record.lines[0].startswith("check ran: pytest tests/test_retry.py — output ends: ")
    assert record.lines[0].endswith(" 3 passed") and len(record.lines[0].split("output ends: ")[1]) == TAIL
    assert record.lines[1] == "check ran: ruff check . (the tool reported an error) — output ends: E501 line too long"
    assert record.lines[2] == "file written (Edit): /w/proj/src/retry.py"
    assert len(record.lines) == 3, "a read is not work"
    assert record.notes == ()


def test_without_tool_output_nothing_is_read_and_the_record_says_what_it_would_hold(tmp_path: Path) -> None:
    _store(tmp_path)
    ctx = make_context(tmp_path)
    (ref,) = plugin.discover(ctx=ctx).sessions
    record = plugin.work_record(ref=ref, ctx=ctx, tool_output=False)
    assert record.lines == () and "checks the session ran" in record.describes


def test_a_session_no_longer_discovered_is_found_by_its_id_or_said_missing(tmp_path: Path) -> None:
    _store(tmp_path)
    ctx = make_context(tmp_path)
    by_id = plugin.work_record(ref=SessionRef(harness="claude", session_id=SID, path=""), ctx=ctx, tool_output=True)
    assert len(by_id.lines) == 3
    gone = plugin.work_record(
        ref=SessionRef(harness="claude", session_id="00000000-0000-4000-8000-00000000dead", path=""),
        ctx=ctx,
        tool_output=True,
    )
    assert gone.lines == () and gone.notes == (
        "the session's transcript was not found, so no checks or files were read",
    )


def test_claude_config_dir_relocates_the_transcript_looked_up_by_id(tmp_path: Path) -> None:
    relocated = tmp_path / "elsewhere"
    now = time.time()
    session = ClaudeStore(tmp_path, root=relocated).session(SID)
    session.prompt("build it", now - 20)
    check = session.tool("Bash", now - 10, input={"command": "make"})
    session.result(check, now - 9, output="built")
    ref = SessionRef(harness="claude", session_id=SID, path="")
    found = plugin.work_record(
        ref=ref, ctx=make_context(tmp_path, env={"CLAUDE_CONFIG_DIR": str(relocated)}), tool_output=True
    )
    assert found.lines == ("check ran: make — output ends: built",)
    default = plugin.work_record(ref=ref, ctx=make_context(tmp_path), tool_output=True)
    assert default.lines == () and default.notes, "the default root holds no such session"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(JSONISH, max_size=8))
def test_the_transcript_reader_takes_any_records(records: list[Any]) -> None:
    for line in claude_work([r for r in records if isinstance(r, dict)]):
        assert isinstance(line, str)


def test_the_reading_provider_is_the_claude_cli_without_tools_in_plan_mode() -> None:
    provider = plugin.reading_provider()
    assert provider.key == "claude" and provider.executable == "claude" and not provider.summaries
    assert provider.command_line() == (
        "claude -p --output-format text --tools '' --permission-mode plan --strict-mcp-config --no-session-persistence"
    )
    assert provider.default_rank > 0, "the Codex CLI is the default reader of other harnesses' sessions"
