"""Copilot behaviour through the plugin hooks and the board, on stores built with the fixtures."""

from __future__ import annotations

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
from cargento.rates import KEEP_S, tokens_in_window
from cargento.testing import make_context, snapshot_tree
from cargento_harness_copilot import plugin
from cargento_harness_copilot.fixtures import CopilotSession, CopilotStore
from cargento_harness_copilot.records import SessionSummary
from hypothesis import given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def ctx_for(home: Path, now: datetime = NOW, **kw: object) -> HarnessContext:
    return make_context(home, now=now, window_s=None, **kw)  # type: ignore[arg-type]


def read_one(ctx: HarnessContext) -> SessionReading:
    found = plugin.discover(ctx=ctx)
    readings = [r for ref in found.sessions if (r := plugin.read_session(ref=ref, ctx=ctx)) is not None]
    assert len(readings) == 1, readings
    return readings[0]


def board(home: Path, now: datetime = NOW, env: dict[str, str] | None = None) -> Board:
    full = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share")}
    full.update(env or {})
    registry = load_registry(entry_points=False, extra=[("copilot", plugin)])
    builder = BoardBuilder(registry, env=full, home=home, clock=lambda: now, processes=StaticProcesses())
    return builder.build(all_sessions=True)


def started(home: Path, at: datetime = ago(60)) -> tuple[CopilotStore, CopilotSession]:
    store = CopilotStore(home)
    session = store.session("aaaaaaaa-0000-4000-8000-000000000001", cwd="/w/proj", at=at)
    return store, session


# -- discovery ------------------------------------------------------------------------------


def test_directory_without_events_is_not_a_row(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("hello", at=ago(50))
    (store.root / "session-state" / "bbbbbbbb-0000-4000-8000-000000000002").mkdir()
    (store.root / "session-state" / "bbbbbbbb-0000-4000-8000-000000000002" / "workspace.yaml").write_text("name: x\n")
    found = plugin.discover(ctx=ctx_for(tmp_path))
    assert [r.session_id for r in found.sessions] == [s.session_id]


def test_legacy_folder_is_read_and_the_newest_copy_wins(tmp_path: Path) -> None:
    store = CopilotStore(tmp_path)
    sid = "cccccccc-0000-4000-8000-000000000003"
    old = store.session(sid, cwd="/w/old", at=ago(7200), legacy=True)
    old.prompt("the legacy copy", at=ago(7200))
    new = store.session(sid, cwd="/w/new", at=ago(60))
    new.prompt("the current copy", at=ago(59))
    reading = read_one(ctx_for(tmp_path))
    assert reading.cwd == "/w/new"
    assert reading.instruction is not None and reading.instruction.text == "the current copy"
    only_legacy = CopilotStore(tmp_path / "h2")
    only_legacy.session(sid, cwd="/w/old", at=ago(100), legacy=True).prompt("legacy only", at=ago(99))
    assert read_one(ctx_for(tmp_path / "h2")).cwd == "/w/old"


# -- title, prompts, cwd --------------------------------------------------------------------


def test_title_prompt_and_cwd(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("fix the login bug\nthe form posts twice", at=ago(50))
    s.prompt("now add a test", at=ago(40))
    reading = read_one(ctx_for(tmp_path))
    assert reading.cwd == "/w/proj"
    assert reading.title == "fix the login bug"
    assert reading.instruction is not None
    assert reading.instruction.text == "now add a test" and reading.instruction.source == "prompt"


def test_user_named_workspace_title_wins_and_continuations_name_the_earlier_prompt(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("port the parser to rust", at=ago(50))
    s.prompt("proceed", at=ago(40))
    s.write_workspace(cwd="/w/proj", at=ago(39), name="Rust port", user_named=True)
    reading = read_one(ctx_for(tmp_path))
    assert reading.title == "Rust port"
    assert reading.instruction is not None
    assert reading.instruction.text == "port the parser to rust"
    assert reading.instruction.source == "earlier prompt"


def test_subagent_prompt_is_not_the_session_prompt(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("delegate the search", at=ago(50))
    agent = s.subagent_start("finder", at=ago(45))
    s.emit("user.message", {"content": "SUBTASK: search", "source": "agent-x"}, ago(44), agent_id=agent)
    reading = read_one(ctx_for(tmp_path))
    assert reading.instruction is not None and reading.instruction.text == "delegate the search"


# -- turns and state ------------------------------------------------------------------------


def test_turn_end_with_no_later_turn_start_reads_idle_at_once(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("hello", at=ago(10))
    s.tokens(5, at=ago(9))
    s.end_turn(at=ago(8))
    row = board(tmp_path).sessions[0]
    assert row.state == "idle"
    assert not row.ended


def test_turn_end_followed_by_turn_start_keeps_working(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("hello", at=ago(10))
    s.end_turn(at=ago(8))
    s.turn_start(at=ago(8))
    row = board(tmp_path).sessions[0]
    assert row.state == "working"
    assert row.turn is not None and row.turn.elapsed_s == pytest.approx(10.0)


def test_task_complete_and_shutdown(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("hello", at=ago(10))
    s.task_complete(at=ago(5))
    assert board(tmp_path).sessions[0].state == "idle"
    s.prompt("again", at=ago(4))
    assert board(tmp_path).sessions[0].state == "working"
    s.shutdown(at=ago(3))
    row = board(tmp_path).sessions[0]
    assert row.state == "idle" and row.ended


def test_open_tool_is_the_detail_and_no_tool_is_thinking(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(20))
    s.prompt("run the tests", at=ago(10))
    assert board(tmp_path).sessions[0].detail == "thinking"
    s.tool("bash", at=ago(5))
    row = board(tmp_path).sessions[0]
    assert row.state == "working" and row.detail == "bash"


def test_quiet_open_turn_falls_back_to_recency(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(400))
    s.prompt("hello", at=ago(300))
    assert board(tmp_path).sessions[0].state == "idle"


# -- the permission gate --------------------------------------------------------------------


def test_unanswered_permission_is_a_gate_naming_only_the_kind(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    call = s.tool("bash", at=ago(30))
    s.wait(at=ago(30), kind="shell", call=call, detail="rm -rf build && make deploy")
    b = board(tmp_path)
    row = b.sessions[0]
    assert row.state == "needs_input"
    assert row.waiting is not None and row.waiting.kind == "command" and row.waiting.text is None
    assert row.waiting.since == ago(30)
    assert "make deploy" not in repr(b)


def test_url_and_other_permission_kinds(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("read the docs", at=ago(50))
    s.wait(at=ago(20), kind="url", detail="https://example.invalid/secret")
    b = board(tmp_path)
    assert b.sessions[0].waiting is not None and b.sessions[0].waiting.kind == "url"
    assert "example.invalid" not in repr(b)
    _, t = started(tmp_path / "h2")
    t.prompt("edit", at=ago(50))
    t.wait(at=ago(20), kind="write", detail="src/app.py")
    assert board(tmp_path / "h2").sessions[0].waiting.kind == "permission"  # type: ignore[union-attr]


def test_a_request_counts_only_after_two_seconds(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    s.wait(at=ago(1), kind="shell")
    assert board(tmp_path).sessions[0].state == "working"
    assert board(tmp_path, now=NOW + timedelta(seconds=2)).sessions[0].state == "needs_input"


def test_an_answer_clears_the_gate(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    request = s.wait(at=ago(30))
    s.answer(request, at=ago(10), approved=False)
    row = board(tmp_path).sessions[0]
    assert row.state == "working" and row.waiting is None


def test_only_the_matching_request_id_answers(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    first = s.wait(at=ago(30), kind="url")
    s.wait(at=ago(25), kind="shell")
    s.answer(first, at=ago(20))
    row = board(tmp_path).sessions[0]
    assert row.waiting is not None and row.waiting.kind == "command"


def test_a_later_prompt_clears_a_dead_request_but_a_subagent_prompt_does_not(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    s.wait(at=ago(40))
    agent = s.subagent_start("helper", at=ago(35))
    s.emit("user.message", {"content": "SUBTASK"}, ago(34), agent_id=agent)
    assert board(tmp_path).sessions[0].state == "needs_input"
    s.prompt("never mind, do something else", at=ago(20))
    assert board(tmp_path).sessions[0].state == "working"


def test_headless_auto_denial_never_reads_as_a_wait(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(10))
    request = s.wait(at=ago(5))
    s.answer(request, at=ago(5) + timedelta(milliseconds=1), approved=False)
    assert board(tmp_path).sessions[0].waiting is None


def test_shutdown_clears_a_standing_request(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("deploy", at=ago(50))
    s.wait(at=ago(40))
    s.shutdown(at=ago(30))
    assert board(tmp_path).sessions[0].state == "idle"


# -- subagents ------------------------------------------------------------------------------


def test_subagents_keyed_on_agent_id_with_model_from_started(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("fan out", at=ago(50))
    a = s.subagent_start("reader", at=ago(40), agent_type="explore", model="gpt-5-mini")
    b = s.subagent_start("writer", at=ago(39), agent_type="general-purpose", model="claude-haiku-4.5")
    c = s.subagent_start("checker", at=ago(38))
    s.subagent_finish(a, at=ago(30))
    s.subagent_finish(c, at=ago(29), failed=True)
    reading = read_one(ctx_for(tmp_path))
    pills = {p.session_id: p for p in reading.subagents}
    assert pills[a].name == "reader" and pills[a].role == "explore" and pills[a].model == "gpt-5-mini"
    assert not pills[a].running and not pills[c].running
    assert pills[b].running and pills[b].model == "claude-haiku-4.5"
    row = board(tmp_path, now=NOW + timedelta(seconds=200)).sessions[0]
    assert row.state == "working"  # a running subagent keeps the row working past 90 s
    assert row.detail.startswith("running 1 subagent: writer")


def test_an_unfinished_subagent_of_a_silent_session_stops_counting(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("fan out", at=ago(50))
    s.subagent_start("reader", at=ago(40))
    later = NOW + timedelta(minutes=20)
    row = board(tmp_path, now=later).sessions[0]
    assert row.state == "idle"
    assert not row.subagents[0].running


def test_subagent_activity_is_session_activity(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(600))
    s.prompt("fan out", at=ago(500))
    a = s.subagent_start("reader", at=ago(400))
    s.tool("grep", at=ago(10), agent_id=a)
    reading = read_one(ctx_for(tmp_path))
    assert reading.last_active_at == ago(10)
    assert reading.last_tool is None or reading.last_tool != "grep"


# -- tasks ----------------------------------------------------------------------------------


def test_todos_in_store_order_with_statuses(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("plan", at=ago(50))
    s.todos(
        [("b", "Second", "pending"), ("a", "First", "in_progress"), ("c", "Third", "done"), ("d", "Fourth", "blocked")],
        at=ago(40),
    )
    reading = read_one(ctx_for(tmp_path))
    assert [(t.id, t.subject, t.status) for t in reading.tasks] == [
        ("b", "Second", "pending"),
        ("a", "First", "in_progress"),
        ("c", "Third", "completed"),
        ("d", "Fourth", "pending"),
    ]
    assert reading.tasks[0].created_at == ago(40)
    assert board(tmp_path).sessions[0].detail == "First"


@contextmanager
def held(path: Path) -> Iterator[None]:
    conn = sqlite3.connect(path, timeout=0)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        yield
    finally:
        conn.rollback()
        conn.close()


def test_locked_session_db_names_tasks_as_missing(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("plan", at=ago(50))
    s.todos([("a", "First", "in_progress")], at=ago(40))
    with held(s.folder / "session.db"):
        reading = read_one(ctx_for(tmp_path))
    assert reading.tasks == ()
    assert reading.missing == ("tasks",)
    assert reading.instruction is not None  # the rest still reads
    assert read_one(ctx_for(tmp_path)).tasks[0].subject == "First"


@pytest.mark.parametrize("content", [b"", os.urandom(3000), b"SQLite format 3\x00" + b"\x00" * 200])
def test_broken_session_db_is_skipped_with_the_reading_named(tmp_path: Path, content: bytes) -> None:
    _, s = started(tmp_path)
    s.prompt("plan", at=ago(50))
    (s.folder / "session.db").write_bytes(content)
    before = snapshot_tree(tmp_path)
    reading = read_one(ctx_for(tmp_path))
    assert reading.missing == ("tasks",) and reading.tasks == ()
    assert snapshot_tree(tmp_path) == before


def test_todos_table_missing_a_column(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("plan", at=ago(50))
    with closing(sqlite3.connect(s.folder / "session.db")) as conn:
        conn.execute("CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT)")
        conn.commit()
    assert read_one(ctx_for(tmp_path)).missing == ("tasks",)
    with closing(sqlite3.connect(s.folder / "session.db")) as conn:
        conn.execute("ALTER TABLE todos ADD COLUMN status TEXT")
        conn.execute("INSERT INTO todos VALUES ('x', 'Only the basics', 'in_progress')")
        conn.commit()
    reading = read_one(ctx_for(tmp_path))
    assert reading.missing == () and reading.tasks[0].subject == "Only the basics"
    assert reading.tasks[0].created_at is None


# -- usage: tokens and AI Units ---------------------------------------------------------------


def test_output_tokens_total_and_window(tmp_path: Path) -> None:
    _, s = started(tmp_path, at=ago(3600))
    s.prompt("work", at=ago(3600))
    s.tokens(1000, at=ago(1800))
    s.tokens(300, at=ago(300))
    a = s.subagent_start("helper", at=ago(200))
    s.tokens(50, at=ago(100), agent_id=a)
    ctx = ctx_for(tmp_path)
    reading = read_one(ctx)
    got = plugin.usage(reading=reading, ctx=ctx)
    assert got is not None
    assert got.output_tokens_total == 1350
    assert got.output_tokens_window == 350


@settings(max_examples=60, deadline=None, database=None)
@given(
    gaps=st.lists(st.integers(-90, 400), min_size=1, max_size=120),
    counts=st.lists(st.integers(0, 5000), min_size=120, max_size=120),
    behind=st.integers(0, 300),
)
def test_token_window_of_a_long_session_keeps_a_quarter_hour(gaps: list[int], counts: list[int], behind: int) -> None:
    """Responses over hours (a negative gap is a clock stepping back): the window's sum is every
    response inside it, for a board clock up to five minutes behind the newest one, and what the
    summary keeps is about a quarter hour of them, not the session."""
    summary = SessionSummary()
    at = ago(3 * 3600)
    events: list[tuple[datetime, int]] = []
    for gap, count in zip(gaps, counts, strict=False):
        at += timedelta(seconds=gap)
        events.append((at, count))
        summary.feed(
            {"type": "session.usage_record", "data": {"usage": {"outputTokens": count}}, "timestamp": at.isoformat()}
        )
    newest = max(when for when, _ in events)
    now = newest - timedelta(seconds=behind)
    assert summary.tokens.in_window(now) == tokens_in_window(events, now)
    assert summary.tokens_total == sum(counts[: len(gaps)])
    recent = sum(1 for when, _ in events if when >= newest - timedelta(seconds=KEEP_S))
    stepped_back = sum(1 for gap in gaps if gap < 0)
    assert len(summary.tokens) <= recent + 64 + stepped_back


def test_no_usage_record_is_unmeasured_not_zero(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("hello", at=ago(30))
    ctx = ctx_for(tmp_path)
    assert plugin.usage(reading=read_one(ctx), ctx=ctx) is None


def test_ai_units_windowed_from_the_ledger(tmp_path: Path) -> None:
    store, s = started(tmp_path, at=ago(3 * 86400))
    s.prompt("work", at=ago(60))
    store.ledger_row(s.session_id, at=ago(2 * 86400), nano_aiu=9_000_000_000)
    store.ledger_row(s.session_id, at=ago(50), nano_aiu=1_500_000_000)
    store.ledger_row(s.session_id, at=ago(40), nano_aiu=250_000_000, agent_id="sidekick-x")
    store.ledger_row("someone-else", at=ago(40), nano_aiu=7_000_000_000)
    before = snapshot_tree(tmp_path)
    ctx = make_context(tmp_path, now=NOW)  # 24 h display window
    got = plugin.usage(reading=read_one(ctx), ctx=ctx)
    assert got is not None and got.ai_units == pytest.approx(1.75)
    everything = ctx_for(tmp_path)
    assert plugin.usage(reading=read_one(everything), ctx=everything).ai_units == pytest.approx(10.75)  # type: ignore[union-attr]
    assert snapshot_tree(tmp_path) == before  # no -wal/-shm created beside the closed WAL ledger


def test_ai_units_unknown_when_a_row_is_absent_or_unreadable(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("work", at=ago(60))
    store.ledger_row(s.session_id, at=ago(50), nano_aiu=None)
    ctx = ctx_for(tmp_path)
    assert plugin.usage(reading=read_one(ctx), ctx=ctx) is None
    store.ledger_row(s.session_id, at=ago(45), nano_aiu=1_000_000_000)
    ctx = ctx_for(tmp_path)
    assert plugin.usage(reading=read_one(ctx), ctx=ctx) is None
    with closing(sqlite3.connect(store.root / "session-store.db")) as conn:
        conn.execute("UPDATE assistant_usage_events SET total_nano_aiu = 'lots'")
        conn.commit()
    ctx = ctx_for(tmp_path)
    assert plugin.usage(reading=read_one(ctx), ctx=ctx) is None


def test_ai_units_withheld_when_the_bounded_read_never_crosses_the_window_edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cargento_harness_copilot import ledger

    store, s = started(tmp_path)
    s.prompt("work", at=ago(60))
    for i in range(4):
        store.ledger_row(s.session_id, at=ago(50 - i), nano_aiu=1_000_000_000)
    monkeypatch.setattr(ledger, "MAX_ROWS", 3)
    ctx = make_context(tmp_path, now=NOW)
    assert plugin.usage(reading=read_one(ctx), ctx=ctx) is None
    store.ledger_row(s.session_id, at=ago(2 * 86400), nano_aiu=1_000_000_000)
    monkeypatch.setattr(ledger, "MAX_ROWS", 5)
    ctx = make_context(tmp_path, now=NOW)
    assert plugin.usage(reading=read_one(ctx), ctx=ctx).ai_units == pytest.approx(4.0)  # type: ignore[union-attr]


def test_locked_ledger_names_ai_units_as_missing(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("work", at=ago(60))
    store.ledger_row(s.session_id, at=ago(50), nano_aiu=1_000_000_000)
    ledger_file = store.root / "session-store.db"
    with closing(sqlite3.connect(ledger_file)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    with held(ledger_file):
        b = board(tmp_path)
    row = b.sessions[0]
    assert row.missing == ("AI Units",)
    assert row.ai_units is None
    assert row.instruction is not None


@pytest.mark.parametrize("content", [b"", os.urandom(5000)])
def test_broken_ledger(tmp_path: Path, content: bytes) -> None:
    store, s = started(tmp_path)
    s.prompt("work", at=ago(60))
    s.tokens(10, at=ago(55))
    (store.root / "session-store.db").write_bytes(content)
    row = board(tmp_path).sessions[0]
    assert row.missing == ("AI Units",)
    assert row.ai_units is None and row.output_tokens_total == 10
    assert not row.faults


def test_ledger_missing_its_unit_column(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("work", at=ago(60))
    store.root.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(store.root / "session-store.db")) as conn:
        conn.execute("CREATE TABLE assistant_usage_events (id INTEGER PRIMARY KEY, session_id TEXT, created_at TEXT)")
        conn.commit()
    assert board(tmp_path).sessions[0].missing == ("AI Units",)


def test_model_from_events_else_the_ledger(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("work", at=ago(60))
    s.emit("session.model_change", {"newModel": "gpt-5.2"}, ago(55))
    a = s.subagent_start("helper", at=ago(50), model="haiku")
    s.emit("session.model_change", {"newModel": "haiku"}, ago(49), agent_id=a)
    assert board(tmp_path).sessions[0].model == "gpt-5.2"
    bare = tmp_path / "bare"
    events = bare / ".copilot" / "session-state" / "dddddddd-0000-4000-8000-000000000004" / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_text('{"type":"user.message","timestamp":"2026-11-30T11:59:00Z","data":{"content":"hi"}}\n')
    CopilotStore(bare).ledger_row("dddddddd-0000-4000-8000-000000000004", at=ago(50), model="o4")
    assert board(bare).sessions[0].model == "o4"


# -- incremental reading ----------------------------------------------------------------------


def test_refresh_reads_only_appended_records_and_survives_truncation(tmp_path: Path) -> None:
    _, s = started(tmp_path)
    s.prompt("first", at=ago(50))
    cache = HarnessCache()
    cache.set("keep", True)  # make_context replaces an empty (falsy) cache
    ctx = make_context(tmp_path, now=NOW, window_s=None, cache=cache)
    assert read_one(ctx).instruction.text == "first"  # type: ignore[union-attr]
    state = next(cache.get(k) for k in cache if k.startswith("log:"))
    offset = state.follower.offset
    s.prompt("second", at=ago(40))
    assert read_one(ctx).instruction.text == "second"  # type: ignore[union-attr]
    assert state.follower.offset > offset
    with open(s.events, "a", encoding="utf-8") as fh:
        fh.write('{"type":"user.message","timestamp":"2026-11-30T11:59:30Z","data":{"content":"half')
    assert read_one(ctx).instruction.text == "second"  # type: ignore[union-attr]
    with open(s.events, "a", encoding="utf-8") as fh:
        fh.write(' written"}}\n')
    assert read_one(ctx).instruction.text == "half written"  # type: ignore[union-attr]
    s.events.write_text('{"type":"user.message","timestamp":"2026-11-30T11:59:40Z","data":{"content":"new file"}}\n')
    reading = read_one(ctx)
    assert reading.instruction.text == "new file"  # type: ignore[union-attr]
    assert reading.title == "new file"  # the old summary (first prompt "first") was thrown away
    assert reading.started_at is None


def test_fingerprint_changes_with_every_file_a_reading_depends_on(tmp_path: Path) -> None:
    store, s = started(tmp_path)
    s.prompt("first", at=ago(50))
    ctx = ctx_for(tmp_path)

    def fingerprint() -> str | None:
        return plugin.discover(ctx=ctx).sessions[0].fingerprint

    seen = {fingerprint()}
    s.prompt("second", at=ago(40))
    seen.add(fingerprint())
    s.todos([("a", "A", "pending")], at=ago(30))
    seen.add(fingerprint())
    store.ledger_row(s.session_id, at=ago(20), nano_aiu=1)
    seen.add(fingerprint())
    s.write_workspace(cwd="/w/proj", at=ago(10), name="renamed", user_named=True)
    seen.add(fingerprint())
    assert len(seen) == 5


def test_garbage_events_file_is_not_a_row(tmp_path: Path) -> None:
    events = tmp_path / ".copilot" / "session-state" / "eeeeeeee-0000-4000-8000-000000000005" / "events.jsonl"
    events.parent.mkdir(parents=True)
    events.write_bytes(b"\xff\xfe garbage\n[1,2]\n")
    b = board(tmp_path)
    assert b.sessions == ()
