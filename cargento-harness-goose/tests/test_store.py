"""Goose store behaviour: rows, pills, activity, prompts, the ledger rate, and damaged databases."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento import HarnessContext, SessionReading
from cargento.board import Board, BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing import make_context, snapshot_tree
from cargento_harness_goose import plugin
from cargento_harness_goose.fixtures import GooseStore, recipe_idle, recipe_working

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def ctx_for(home: Path, **kw: object) -> HarnessContext:
    return make_context(home, now=NOW, **kw)  # type: ignore[arg-type]


def readings(ctx: HarnessContext) -> dict[str, SessionReading]:
    found = plugin.discover(ctx=ctx)
    out = {}
    for ref in found.sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is not None:
            out[ref.session_id] = reading
    return out


def board(home: Path, now: datetime = NOW) -> Board:
    registry = load_registry(entry_points=False, extra=[("goose", plugin)])
    builder = BoardBuilder(
        registry, env={"HOME": str(home)}, home=home, clock=lambda: now, processes=StaticProcesses(), platform="linux"
    )
    return builder.build(all_sessions=True)


# -- rows ---------------------------------------------------------------------------------


def test_archived_and_infrastructure_sessions_are_never_shown(tmp_path: Path) -> None:
    _, lead, child = recipe_working(tmp_path, NOW)
    ids = {ref.session_id for ref in plugin.discover(ctx=ctx_for(tmp_path)).sessions}
    assert ids == {lead.id, child.id}


def test_subagent_folds_into_its_parent_as_a_pill(tmp_path: Path) -> None:
    _, lead, child = recipe_working(tmp_path, NOW)
    got = readings(ctx_for(tmp_path))
    assert got[child.id].parent_id == lead.id
    assert got[child.id].agent_name == "reviewer"
    assert got[lead.id].parent_id is None
    rows = board(tmp_path).sessions
    assert [r.session_id for r in rows] == [lead.id]
    (pill,) = rows[0].subagents
    assert pill.name == "reviewer" and pill.running
    assert rows[0].state == "working"
    assert rows[0].cwd == "/w/proj" and rows[0].project == "w/proj"
    assert rows[0].title == "fix the parser"


def test_sub_agent_spelling_is_a_subagent_too(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    lead = store.session(working_dir="/w/p", created_at=ago(50), name="lead")
    lead.prompt("go", at=ago(50))
    child = store.session(working_dir="/w/p", created_at=ago(20), name="helper", session_type="sub_agent", parent=lead)
    child.prompt("help", at=ago(20))
    assert readings(ctx_for(tmp_path))[child.id].parent_id == lead.id


def test_child_whose_parent_is_not_on_the_board_stays_a_row(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    lead = store.session(working_dir="/w/p", created_at=ago(50), name="lead")
    lead.prompt("go", at=ago(50))
    child = lead.subagent("helper", at=ago(20))
    child.prompt("help", at=ago(20))
    lead.archive(at=ago(10))
    rows = board(tmp_path).sessions
    assert [r.session_id for r in rows] == [child.id]


# -- activity -----------------------------------------------------------------------------


def test_activity_is_the_rows_updated_at_not_the_shared_file_mtime(tmp_path: Path) -> None:
    store, _lead = recipe_idle(tmp_path, NOW)
    # The shared file was written a second ago by some other session's activity.
    os.utime(store.path, (NOW.timestamp() - 1, NOW.timestamp() - 1))
    (row,) = board(tmp_path).sessions
    assert row.state == "idle"
    assert row.last_active_at == ago(7200)
    # ...and a fresh row reads working although the file itself is old.
    fresh = tmp_path / "fresh"
    store2, _lead2, _ = recipe_working(fresh, NOW)
    os.utime(store2.path, (NOW.timestamp() - 86000, NOW.timestamp() - 86000))
    assert board(fresh).sessions[0].state == "working"


def test_idle_row_reads_idle_with_no_turn_claim(tmp_path: Path) -> None:
    recipe_idle(tmp_path, NOW)
    (reading,) = readings(ctx_for(tmp_path)).values()
    assert reading.turn.state == "unknown"
    assert reading.turn.completed_s == (100.0,)
    assert board(tmp_path).sessions[0].state == "idle"


# -- prompts and turns --------------------------------------------------------------------


def test_tool_response_is_not_a_prompt_and_tool_is_the_detail(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(100), name="t")
    s.prompt("please run the tests", at=ago(100))
    s.tool("developer__shell", at=ago(90))
    s.tool_result(at=ago(80), text="THIS IS TOOL OUTPUT")
    s.tool("developer__text_editor", at=ago(30))
    reading = readings(ctx_for(tmp_path))[s.id]
    assert reading.instruction is not None
    assert reading.instruction.text == "please run the tests"
    assert reading.instruction.at == ago(100)
    assert reading.last_tool == "developer · text editor"
    assert not reading.thinking
    assert reading.turn.started_at == ago(100)
    assert board(tmp_path).sessions[0].detail == "developer · text editor"


def test_after_a_tool_result_the_model_holds_the_turn(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(100), name="t")
    s.prompt("go", at=ago(100))
    s.tool("developer__shell", at=ago(90))
    s.tool_result(at=ago(20))
    assert readings(ctx_for(tmp_path))[s.id].thinking
    assert board(tmp_path).sessions[0].detail == "thinking"


def test_continuation_prompt_names_the_earlier_request(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(100), name="t")
    s.prompt("migrate the config loader", at=ago(100))
    s.reply("shall I?", at=ago(90))
    s.prompt("proceed", at=ago(50))
    instruction = readings(ctx_for(tmp_path))[s.id].instruction
    assert instruction is not None
    assert (instruction.text, instruction.source) == ("migrate the config loader", "earlier prompt")


def test_invisible_user_message_is_not_a_prompt(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(100), name="t")
    s.prompt("the real request", at=ago(100))
    store.add_message(s.id, "user", [{"type": "text", "text": "summarised context"}], ago(50), visible=False)
    instruction = readings(ctx_for(tmp_path))[s.id].instruction
    assert instruction is not None and instruction.text == "the real request"


# -- usage --------------------------------------------------------------------------------


def test_token_rate_comes_from_the_ledger_not_messages_tokens(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(1000), name="t")
    s.prompt("go", at=ago(1000))
    s.tokens(1000, at=ago(900))  # outside the ten-minute window
    s.tokens(300, at=ago(100))
    s.tokens(200, at=ago(5))
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("UPDATE messages SET tokens = 999999")
    ctx = ctx_for(tmp_path)
    reading = readings(ctx)[s.id]
    usage = plugin.usage(reading=reading, ctx=ctx)
    assert usage is not None
    assert usage.output_tokens_window == 500
    assert usage.output_tokens_total == 1500
    assert board(tmp_path).sessions[0].output_tokens_per_min == 50.0


def test_ledger_in_milliseconds_is_read(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(100), name="t")
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute(
            "INSERT INTO usage_ledger (session_id, output_tokens, created_timestamp) VALUES (?, ?, ?)",
            (s.id, 70, int(ago(30).timestamp() * 1000)),
        )
    ctx = ctx_for(tmp_path)
    usage = plugin.usage(reading=readings(ctx)[s.id], ctx=ctx)
    assert usage is not None and usage.output_tokens_window == 70


def test_no_ledger_means_no_rate_and_says_so(tmp_path: Path) -> None:
    store = GooseStore(tmp_path, usage_ledger=False)
    s = store.session(working_dir="/w/p", created_at=ago(100), name="t")
    s.prompt("go", at=ago(100))
    s.tokens(300, at=ago(50))
    ctx = ctx_for(tmp_path)
    reading = readings(ctx)[s.id]
    assert "token rate" in reading.missing
    usage = plugin.usage(reading=reading, ctx=ctx)
    assert usage is not None and usage.output_tokens_window is None and usage.output_tokens_total == 300
    row = board(tmp_path).sessions[0]
    assert row.output_tokens_per_min is None
    assert "token rate" in row.missing


def test_a_session_with_no_ledger_rows_in_window_is_a_measured_zero(tmp_path: Path) -> None:
    recipe_idle(tmp_path, NOW)
    ctx = ctx_for(tmp_path)
    (reading,) = readings(ctx).values()
    usage = plugin.usage(reading=reading, ctx=ctx)
    assert usage is not None and usage.output_tokens_window == 0


# -- schema shifts ------------------------------------------------------------------------


def test_missing_parent_column_falls_back_and_child_stays_a_row(tmp_path: Path) -> None:
    _, lead, child = recipe_working(tmp_path, NOW, omit={"sessions": {"parent_session_id"}})
    got = readings(ctx_for(tmp_path))
    assert got[child.id].parent_id is None
    assert got[child.id].agent_role == "subagent"
    assert got[lead.id].title == "fix the parser"
    assert {r.session_id for r in board(tmp_path).sessions} == {lead.id, child.id}


def test_oldest_schema_without_name_or_type_reads_description_as_title(tmp_path: Path) -> None:
    store = GooseStore(
        tmp_path,
        omit={
            "sessions": {"name", "session_type", "accumulated_output_tokens"},
            "messages": {"metadata_json", "message_id"},
        },
    )
    s = store.session(working_dir="/w/p", created_at=ago(30), description="legacy title")
    s.prompt("hello", at=ago(30))
    reading = readings(ctx_for(tmp_path))[s.id]
    assert reading.title == "legacy title"
    assert reading.instruction is not None and reading.instruction.text == "hello"


def test_missing_messages_table_names_the_missing_readings(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    s = store.session(working_dir="/w/p", created_at=ago(30), name="t")
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("DROP TABLE messages")
    reading = readings(ctx_for(tmp_path))[s.id]
    assert reading.title == "t"
    assert "prompts" in reading.missing
    assert reading.instruction is None


# -- broken and locked databases ----------------------------------------------------------


@pytest.mark.parametrize("content", [b"", os.urandom(4096), b"SQLite format 3\x00" + os.urandom(4000)])
def test_zero_byte_and_random_databases_are_skipped_with_a_reason(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / ".local/share/goose/sessions/sessions.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(content)
    before = snapshot_tree(tmp_path)
    found = plugin.discover(ctx=ctx_for(tmp_path))
    assert found.sessions == ()
    # The reason is a problem line, or (when the header already gives it away) the location's.
    unreadable = [loc for loc in found.locations if loc.status == "unreadable" and loc.path.endswith("sessions.db")]
    assert (found.problems and "sessions.db" in found.problems[0]) or (unreadable and unreadable[0].detail)
    assert snapshot_tree(tmp_path) == before
    assert board(tmp_path).sessions == ()


@contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("UPDATE sessions SET name = name")
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def test_locked_database_is_skipped_for_the_pass_and_the_rows_say_so(tmp_path: Path) -> None:
    _, lead = recipe_idle(tmp_path, NOW, wal=False)
    ctx = ctx_for(tmp_path)
    first = readings(ctx)
    assert first[lead.id].missing == ()
    with exclusive_lock(GooseStore(tmp_path).path):
        found = plugin.discover(ctx=ctx)
        assert any("locked" in p for p in found.problems)
        (ref,) = found.sessions
        assert ref.fingerprint is None  # re-read, so the row is marked
        reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert reading.title == "old task"
    assert {"prompts", "token rate"} <= set(reading.missing)
    assert any("locked" in n for n in reading.notes)


def test_locked_database_on_first_sight_reports_the_problem(tmp_path: Path) -> None:
    recipe_idle(tmp_path, NOW, wal=False)
    with exclusive_lock(GooseStore(tmp_path).path):
        found = plugin.discover(ctx=ctx_for(tmp_path))
    assert found.sessions == ()
    assert any("locked" in p for p in found.problems)


# A live writer must be another process: SQLite shares one -shm mapping between the
# connections of a process, so an in-process writer would lend the reader its write access.
WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA wal_autocheckpoint = 0")
for sql in sys.argv[2:]:
    conn.execute(sql)
print("ready", flush=True)
sys.stdin.readline()
"""


@contextmanager
def writer_process(db: Path, *statements: str) -> Iterator[None]:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), *statements], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield
    finally:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(timeout=10)


def test_open_write_transaction_in_wal_mode_does_not_block_and_is_not_seen(tmp_path: Path) -> None:
    store, lead = recipe_idle(tmp_path, NOW)
    with writer_process(
        store.path, "BEGIN IMMEDIATE", f"UPDATE sessions SET name = 'uncommitted' WHERE id = '{lead.id}'"
    ):
        before = snapshot_tree(tmp_path)
        got = readings(ctx_for(tmp_path))
        assert got[lead.id].title == "old task"
        assert snapshot_tree(tmp_path) == before


def test_content_only_in_the_wal_is_read_without_writing_the_shm(tmp_path: Path) -> None:
    store, lead = recipe_idle(tmp_path, NOW)
    update = f"UPDATE sessions SET name = 'renamed in wal', updated_at = '2026-11-30 11:59:55' WHERE id = '{lead.id}'"
    with writer_process(store.path, update):
        assert os.path.getsize(str(store.path) + "-wal") > 32
        before = snapshot_tree(tmp_path)
        reading = readings(ctx_for(tmp_path))[lead.id]
        assert reading.title == "renamed in wal"
        assert reading.last_active_at == ago(5)
        board(tmp_path)
        assert snapshot_tree(tmp_path) == before


def test_reading_a_wal_database_creates_no_wal_or_shm(tmp_path: Path) -> None:
    store, _ = recipe_idle(tmp_path, NOW)
    assert not Path(str(store.path) + "-wal").exists()
    before = snapshot_tree(tmp_path)
    board(tmp_path)
    assert snapshot_tree(tmp_path) == before


# -- model ----------------------------------------------------------------------------------


def test_model_is_the_session_rows_model_configuration_and_a_pill_carries_its_own(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    lead = store.session(working_dir="/w/p", created_at=ago(50), name="lead", model="claude-sonnet-4-5")
    lead.prompt("go", at=ago(50))
    child = store.session(
        working_dir="/w/p", created_at=ago(20), name="helper", session_type="subagent", parent=lead, model="gpt-5-mini"
    )
    child.prompt("help", at=ago(20))
    bare = store.session(working_dir="/w/q", created_at=ago(30), name="bare", model=None)
    bare.prompt("hi", at=ago(30))
    with closing(sqlite3.connect(store.path)) as conn, conn:
        # Goose's own ModelConfig carries more than the name; only model_name is read.
        conn.execute(
            "UPDATE sessions SET model_config_json = ? WHERE id = ?",
            (
                '{"model_name": "claude-sonnet-4-5", "context_limit": 200000, "temperature": null, "toolshim": false}',
                lead.id,
            ),
        )
    rows = {r.session_id: r for r in board(tmp_path).sessions}
    assert rows[lead.id].model == "claude-sonnet-4-5"
    (pill,) = rows[lead.id].subagents
    assert pill.model == "gpt-5-mini"
    assert rows[bare.id].model is None  # no configuration recorded: no model, never a guess


@pytest.mark.parametrize("raw", ["", "not json", "[1, 2]", '{"model_name": 7}', '{"model_name": "  "}', "{" * 20000])
def test_a_model_configuration_that_names_no_model_reads_as_none(raw: str) -> None:
    from cargento_harness_goose.sessions import model_of_config

    assert model_of_config(raw) is None
