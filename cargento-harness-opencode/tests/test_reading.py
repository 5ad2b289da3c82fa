"""OpenCode behaviour through the plugin hooks and the board, on stores built with the fixtures."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento import HarnessContext, SessionReading
from cargento.board import Board, BoardBuilder
from cargento.cache import HarnessCache
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing import make_context, snapshot_tree
from cargento_harness_opencode import plugin
from cargento_harness_opencode.fixtures import OpenCodeSession, OpenCodeStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def ctx_for(home: Path, now: datetime = NOW, **kw: object) -> HarnessContext:
    return make_context(home, now=now, window_s=None, **kw)  # type: ignore[arg-type]


def readings(ctx: HarnessContext) -> dict[str, SessionReading]:
    found = plugin.discover(ctx=ctx)
    return {r.ref.session_id: r for ref in found.sessions if (r := plugin.read_session(ref=ref, ctx=ctx)) is not None}


def board(home: Path, now: datetime = NOW) -> Board:
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share")}
    registry = load_registry(entry_points=False, extra=[("opencode", plugin)])
    return BoardBuilder(registry, env=env, home=home, clock=lambda: now, processes=StaticProcesses()).build(
        all_sessions=True
    )


def started(home: Path, at: datetime = ago(60), **kw: object) -> tuple[OpenCodeStore, OpenCodeSession]:
    store = OpenCodeStore(home)
    return store, store.session(cwd="/w/proj", at=at, title="Fix login", **kw)  # type: ignore[arg-type]


@contextmanager
def held(path: Path) -> Iterator[None]:
    conn = sqlite3.connect(path, timeout=0)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        yield
    finally:
        conn.rollback()
        conn.close()


# -- rows -----------------------------------------------------------------------------------


def test_rows_title_cwd_and_archived_filtered(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("fix it", at=ago(50))
    gone = store.session(cwd="/w/gone", at=ago(40), title="Gone")
    gone.archive(at=ago(30))
    got = readings(ctx_for(tmp_path))
    assert list(got) == [s.session_id]
    assert got[s.session_id].title == "Fix login" and got[s.session_id].cwd == "/w/proj"


def test_default_title_is_no_title(tmp_path: Path) -> None:
    store = OpenCodeStore(tmp_path)
    s = store.session(cwd="/w/proj", at=ago(60))
    s.prompt("hello", at=ago(50))
    assert readings(ctx_for(tmp_path))[s.session_id].title is None


def test_xdg_data_home_and_suffixed_databases(tmp_path: Path) -> None:
    elsewhere = tmp_path / "xdg"
    store = OpenCodeStore(tmp_path, data_dir=elsewhere / "opencode", name="opencode-dev.db")
    s = store.session(cwd="/w/proj", at=ago(60), title="Dev build")
    s.prompt("hi", at=ago(50))
    ctx = make_context(tmp_path, now=NOW, window_s=None, env={"XDG_DATA_HOME": str(elsewhere)})
    assert list(readings(ctx)) == [s.session_id]
    assert readings(ctx_for(tmp_path)) == {}


def test_prompt_is_the_typed_text_never_an_attachment_or_synthetic_part(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("summarise this file", at=ago(50))
    s.attach("secret-plan.txt", at=ago(50))
    s.synthetic("Called the Read tool with the following input", at=ago(50))
    reading = readings(ctx_for(tmp_path))[s.session_id]
    assert reading.instruction is not None
    assert reading.instruction.text == "summarise this file" and reading.instruction.source == "prompt"
    assert "secret-plan" not in repr(board(tmp_path))


def test_session_message_table_is_never_read(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("the real prompt", at=ago(50))
    store.write(
        "INSERT INTO session_message VALUES ('x', ?, 'user', 1, 0, 0, '{\"text\": \"decoy\"}')", (s.session_id,)
    )
    assert readings(ctx_for(tmp_path))[s.session_id].instruction.text == "the real prompt"  # type: ignore[union-attr]


# -- working / idle ---------------------------------------------------------------------------


def test_unfinished_assistant_message_is_working_past_90_seconds(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(600))
    s.prompt("long build", at=ago(500))
    s.reply(at=ago(499))
    s.tool("bash", at=ago(400), input={"command": "make"})
    row = board(tmp_path).sessions[0]
    assert row.state == "working" and row.detail == "bash"
    assert board(tmp_path, now=NOW + timedelta(minutes=20)).sessions[0].state == "idle"


def test_completed_newest_turn_is_idle_at_once(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("hello", at=ago(10))
    s.reply(at=ago(9))
    s.end_turn(at=ago(5), output_tokens=7)
    row = board(tmp_path).sessions[0]
    assert row.state == "idle"


def test_tool_calls_finish_keeps_the_turn_going(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("hello", at=ago(10))
    s.reply(at=ago(9))
    s.end_turn(at=ago(5), output_tokens=7, finish="tool-calls")
    row = board(tmp_path).sessions[0]
    assert row.state == "working"
    assert board(tmp_path, now=NOW + timedelta(seconds=120)).sessions[0].state == "idle"  # recency fallback


def test_thinking_while_generating_with_no_tool_open(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("hello", at=ago(10))
    s.reply(at=ago(9))
    s.text("partial answer", at=ago(8))
    assert board(tmp_path).sessions[0].detail == "thinking"


def test_turn_estimate_samples_completed_turns(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(600))
    for start in (500, 400):
        s.prompt("again", at=ago(start))
        s.reply(at=ago(start - 1))
        s.end_turn(at=ago(start - 30), output_tokens=5)
    s.prompt("once more", at=ago(10))
    reading = readings(ctx_for(tmp_path))[s.session_id]
    assert reading.turn.completed_s == (30.0, 30.0)
    assert reading.turn.state == "open"


# -- the parked-tool gate ---------------------------------------------------------------------


def test_parked_bash_call_is_a_command_gate(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    s.reply(at=ago(49))
    call = s.wait("bash", at=ago(30), input={"command": "make deploy-prod"})
    b = board(tmp_path)
    row = b.sessions[0]
    assert row.state == "needs_input"
    assert row.waiting is not None and row.waiting.kind == "command" and row.waiting.since == ago(30)
    assert "deploy-prod" not in repr(b)
    s.answer(call, at=ago(5))
    assert board(tmp_path).sessions[0].state == "working"


def test_a_parked_call_counts_only_after_a_few_seconds(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    s.reply(at=ago(49))
    s.wait("edit", at=ago(2))
    assert board(tmp_path).sessions[0].state == "working"
    row = board(tmp_path, now=NOW + timedelta(seconds=4)).sessions[0]
    assert row.state == "needs_input" and row.waiting is not None and row.waiting.kind == "permission"


def test_tools_that_never_ask_are_not_gates(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("search", at=ago(50))
    s.reply(at=ago(49))
    s.wait("grep", at=ago(30))
    assert board(tmp_path).sessions[0].waiting is None


# -- children -------------------------------------------------------------------------------


def test_child_sessions_fold_as_pills_with_their_own_model(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("delegate", at=ago(50))
    s.reply(at=ago(49))
    child = s.subagent("Explore", at=ago(45), agent="explore", model=("openai", "gpt-5-mini"))
    child.prompt("explore", at=ago(45))
    child.reply(at=ago(44))
    child.end_turn(at=ago(40), output_tokens=100)
    other = s.subagent("Check", at=ago(30), agent="general")
    other.prompt("check", at=ago(30))
    other.reply(at=ago(29))
    b = board(tmp_path, now=NOW + timedelta(seconds=100))
    assert len(b.sessions) == 1
    pills = {p.name: p for p in b.sessions[0].subagents}
    assert pills["Explore"].model == "gpt-5-mini" and pills["Explore"].role == "explore"
    assert not pills["Explore"].running and pills["Check"].running
    assert b.sessions[0].model == "claude-sonnet-4-5"


def test_a_child_whose_parent_is_gone_stays_a_row(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("delegate", at=ago(50))
    s.reply(at=ago(49))
    child = s.subagent("Explore", at=ago(45))
    child.prompt("explore", at=ago(45))
    s.archive(at=ago(40))
    b = board(tmp_path)
    assert [r.session_id for r in b.sessions] == [child.session_id]


# -- model ----------------------------------------------------------------------------------


def test_model_from_session_row_else_newest_assistant_message(tmp_path: Path) -> None:
    store = OpenCodeStore(tmp_path)
    s = store.session(cwd="/w/proj", at=ago(60), title="No model column value", model=None)
    s.prompt("hi", at=ago(50))
    s.reply(at=ago(49), model=("openai", "gpt-5.1"))
    s.end_turn(at=ago(45), output_tokens=3)
    s.prompt("again", at=ago(40))
    s.reply(at=ago(39), model=("anthropic", "claude-opus-4"))
    assert board(tmp_path).sessions[0].model == "claude-opus-4"


def test_malformed_model_json_falls_back(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("hi", at=ago(50))
    s.reply(at=ago(49), model=("openai", "gpt-5.1"))
    store.write("UPDATE session SET model = '{broken' WHERE id = ?", (s.session_id,))
    assert board(tmp_path).sessions[0].model == "gpt-5.1"


# -- tasks and tokens -------------------------------------------------------------------------


def test_todos_in_position_order_and_cancelled_dropped(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("plan", at=ago(50))
    s.todos(
        [
            ("Parse", "completed", "high"),
            ("Test", "in_progress", "medium"),
            ("Skip", "cancelled", "low"),
            ("Docs", "pending", "low"),
        ],
        at=ago(40),
    )
    row = board(tmp_path).sessions[0]
    assert [(t.subject, t.status) for t in row.tasks] == [
        ("Parse", "completed"),
        ("Test", "in_progress"),
        ("Docs", "pending"),
    ]
    assert row.tasks_done == 1


def test_tokens_window_total_and_children(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(3600))
    s.prompt("work", at=ago(3600))
    s.reply(at=ago(3599))
    s.end_turn(at=ago(1800), output_tokens=1000, finish="tool-calls")
    s.reply(at=ago(400))
    s.end_turn(at=ago(300), output_tokens=200)
    child = s.subagent("Explore", at=ago(250))
    child.prompt("explore", at=ago(250))
    child.reply(at=ago(249))
    child.end_turn(at=ago(200), output_tokens=50)
    ctx = ctx_for(tmp_path)
    got = readings(ctx)
    parent = plugin.usage(reading=got[s.session_id], ctx=ctx)
    assert parent is not None
    assert parent.output_tokens_window == 200 and parent.output_tokens_total == 1250
    kid = plugin.usage(reading=got[child.session_id], ctx=ctx)
    assert kid is not None and kid.output_tokens_window == 50 and kid.output_tokens_total == 50
    row = board(tmp_path).sessions[0]
    assert row.output_tokens_per_min == pytest.approx(25.0)  # (200 + 50) / 10


def test_no_completed_response_is_unmeasured(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("hi", at=ago(50))
    s.reply(at=ago(49))
    assert board(tmp_path).sessions[0].output_tokens_total is None


# -- damaged, locked and shifted databases ------------------------------------------------------


@pytest.mark.parametrize("content", [b"", os.urandom(4096), b"SQLite format 3\x00" + os.urandom(300)])
def test_broken_database_is_skipped_with_a_problem(tmp_path: Path, content: bytes) -> None:
    store, s = started(tmp_path)
    s.prompt("hi", at=ago(50))
    (store.data_dir / "opencode-bad.db").write_bytes(content)
    before = snapshot_tree(tmp_path)
    found = plugin.discover(ctx=ctx_for(tmp_path))
    assert [r.session_id for r in found.sessions] == [s.session_id]
    assert len(found.problems) == 1 and found.problems[0].startswith(f"{store.data_dir / 'opencode-bad.db'}: ")
    b = board(tmp_path)
    assert len(b.sessions) == 1 and not b.sessions[0].faults
    assert snapshot_tree(tmp_path) == before


def test_reading_a_cleanly_closed_wal_database_creates_nothing(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("hi", at=ago(50))
    assert store.path.read_bytes()[18] == 2  # WAL mode, -wal/-shm gone after close
    before = snapshot_tree(tmp_path)
    board(tmp_path)
    assert snapshot_tree(tmp_path) == before


def test_locked_database_keeps_the_rows_and_names_what_is_missing(tmp_path: Path) -> None:
    store = OpenCodeStore(tmp_path, wal=False)
    s = store.session(cwd="/w/proj", at=ago(60), title="Fix login")
    s.prompt("hi", at=ago(50))
    s.reply(at=ago(49))
    s.todos([("Parse", "in_progress", "high")], at=ago(48))
    cache = HarnessCache()
    cache.set("keep", True)  # make_context replaces an empty (falsy) cache
    ctx = make_context(tmp_path, now=NOW, window_s=None, cache=cache)
    assert readings(ctx)[s.session_id].tasks
    s.text("more", at=ago(10))  # the database changed, so the next pass must read it again
    with held(store.path):
        found = plugin.discover(ctx=ctx)
        assert found.problems and "locked" in found.problems[0]
        reading = plugin.read_session(ref=found.sessions[0], ctx=ctx)
    assert reading is not None
    assert reading.title == "Fix login" and reading.cwd == "/w/proj"
    assert set(reading.missing) >= {"tasks", "token rate", "turn"}
    assert plugin.usage(reading=reading, ctx=ctx) is None
    assert readings(ctx)[s.session_id].missing == ()


def test_locked_database_on_the_first_pass_has_no_rows_but_a_problem(tmp_path: Path) -> None:
    store = OpenCodeStore(tmp_path, wal=False)
    s = store.session(cwd="/w/proj", at=ago(60), title="Fix login")
    s.prompt("hi", at=ago(50))
    with held(store.path):
        found = plugin.discover(ctx=ctx_for(tmp_path))
    assert found.sessions == () and "locked" in found.problems[0]


def test_missing_optional_columns_still_read(tmp_path: Path) -> None:
    path = tmp_path / ".local/share/opencode/opencode.db"
    path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(
            "CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, title TEXT, time_updated INTEGER);"
            "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, "
            "time_updated INTEGER, data TEXT);"
        )
        ms = int(ago(30).timestamp() * 1000)
        conn.execute("INSERT INTO session VALUES ('ses_1', '/w/old', 'Old build', ?)", (ms,))
        conn.execute(
            "INSERT INTO message VALUES ('msg_1', 'ses_1', ?, ?, ?)",
            (ms, ms, json.dumps({"role": "assistant", "modelID": "m1", "time": {"created": ms}})),
        )
        conn.commit()
    row = board(tmp_path).sessions[0]
    assert (row.title, row.cwd, row.model, row.state) == ("Old build", "/w/old", "m1", "working")
    assert row.missing == ()


def test_missing_required_column_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / ".local/share/opencode/opencode.db"
    path.parent.mkdir(parents=True)
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT)")
        conn.commit()
    found = plugin.discover(ctx=ctx_for(tmp_path))
    assert found.sessions == () and "time_updated" in found.problems[0]


def test_todo_table_missing_a_column_names_tasks(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("hi", at=ago(50))
    with closing(sqlite3.connect(store.path)) as conn:
        conn.executescript("DROP TABLE todo; CREATE TABLE todo (session_id TEXT, content TEXT, time_updated INTEGER);")
    assert readings(ctx_for(tmp_path))[s.session_id].missing == ("tasks",)


def test_malformed_json_columns_read_as_absent(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("hi", at=ago(50))
    s.reply(at=ago(49))
    store.write("UPDATE message SET data = '{not json'")
    store.write("UPDATE part SET data = '[1, 2'")
    row = board(tmp_path).sessions[0]
    assert not row.faults and row.missing == ()
    assert row.instruction is None and row.title == "Fix login"


# -- incremental reading ----------------------------------------------------------------------


def test_unchanged_database_is_not_queried_again_and_changes_are_seen(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("first", at=ago(50))
    cache = HarnessCache()
    cache.set("keep", True)
    ctx = make_context(tmp_path, now=NOW, window_s=None, cache=cache)
    first = plugin.discover(ctx=ctx).sessions[0].fingerprint
    snap = cache.get(next(k for k in cache if k.startswith("snapshot:")))
    assert plugin.discover(ctx=ctx).sessions[0].fingerprint == first
    assert cache.get(next(k for k in cache if k.startswith("snapshot:"))) is snap
    s.reply(at=ago(40))
    s.text("working on it", at=ago(30))
    assert plugin.discover(ctx=ctx).sessions[0].fingerprint != first


def _finished_turns(s: OpenCodeSession, count: int) -> None:
    """*count* finished turns, ten seconds apart, from 2,900 s ago."""
    for i in range(count):
        s.prompt(f"step {i}", at=ago(2900 - i * 10))
        s.reply(at=ago(2899 - i * 10))
        s.end_turn(at=ago(2898 - i * 10), output_tokens=5)


def test_a_long_sessions_stamp_follows_its_newest_rows_without_fetching_every_row(tmp_path: Path) -> None:
    """A reply streaming into its own row moves the session's fingerprint at 80 messages as
    at three; the stamp reads the newest STAMPED_MESSAGES rows and the count through the
    index, so a message further back rewritten in place is read at the session's next write."""
    from cargento_harness_opencode.store import STAMPED_MESSAGES

    store, s = started(tmp_path, at=ago(3000))
    _finished_turns(s, 40)
    ctx = make_context(tmp_path, now=NOW, window_s=None, cache=HarnessCache())
    first = plugin.discover(ctx=ctx).sessions[0].fingerprint
    s.prompt("one more", at=ago(20))
    s.reply(at=ago(19))
    streaming = plugin.discover(ctx=ctx).sessions[0].fingerprint
    assert streaming != first, "a new message moves it"
    s.text("still writing", at=ago(10))  # the newest message's parts move
    s._message(s.assistant_id, {**s._assistant, "tokens": {"output": 3}}, at=ago(9), created=ago(19))  # type: ignore[arg-type]
    assert plugin.discover(ctx=ctx).sessions[0].fingerprint != streaming, "the reply's own row moved"

    # The trade, as designed: a message far back rewritten in place (not OpenCode's way of
    # writing) does not move the stamp; the session's next write reads it.
    moved = plugin.discover(ctx=ctx).sessions[0].fingerprint
    with closing(sqlite3.connect(store.path)) as conn:
        oldest = conn.execute(
            "SELECT id FROM message WHERE session_id = ? ORDER BY time_created LIMIT 1", (s.session_id,)
        ).fetchone()[0]
        conn.execute("UPDATE message SET time_updated = ? WHERE id = ?", (int(ago(5).timestamp() * 1000), oldest))
        conn.commit()
    assert STAMPED_MESSAGES < 80
    assert plugin.discover(ctx=ctx).sessions[0].fingerprint == moved


def test_a_refresh_parses_only_the_messages_that_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cargento_harness_opencode import records

    _, s = started(tmp_path, at=ago(3000))
    _finished_turns(s, 30)
    ctx = make_context(tmp_path, now=NOW, window_s=None, cache=HarnessCache())
    parsed: list[object] = []
    parse = records.parse_message

    def counted(ident: object, *rest: object) -> records.Message:
        parsed.append(ident)
        return parse(ident, *rest)

    monkeypatch.setattr(records, "parse_message", counted)
    first = readings(ctx)[s.session_id]
    assert len(parsed) == 60
    parsed.clear()
    s.prompt("one more", at=ago(20))
    s.reply(at=ago(19))
    again = readings(ctx)[s.session_id]
    assert len(parsed) == 2, f"{len(parsed)} messages parsed for two new ones"
    assert again.turn is not None and first.turn is not None
    assert (first.turn.state, again.turn.state) == ("ended", "open")
    s.end_turn(at=ago(10), output_tokens=7)
    parsed.clear()
    done = readings(ctx)[s.session_id]
    assert parsed == [s.assistant_id], "the reply that completed, alone"
    assert done.turn is not None and done.turn.state == "ended"
