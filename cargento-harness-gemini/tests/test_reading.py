"""What the Gemini CLI plugin reads from its store, behaviour by behaviour."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import Board, BoardBuilder
from cargento.models import HarnessContext, SessionReading
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.homes import make_context
from cargento_harness_gemini import plugin
from cargento_harness_gemini.accounts import HISTORY_NOTE
from cargento_harness_gemini.fixtures import GeminiStore, ToolCall

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=10)
SID = "5e55a000-1111-4222-8333-444455556666"


def read_all(ctx: HarnessContext) -> dict[str, SessionReading]:
    out = {}
    for ref in plugin.discover(ctx=ctx).sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is not None:
            out[ref.session_id] = reading
    return out


def board(home: Path, now: datetime = NOW, env: dict[str, str] | None = None, all_sessions: bool = True) -> Board:
    registry = load_registry(entry_points=False, extra=[("gemini", plugin)])
    builder = BoardBuilder(
        registry, env={"HOME": str(home), **(env or {})}, home=home, clock=lambda: now, processes=StaticProcesses()
    )
    result = builder.build(all_sessions=all_sessions)
    assert not registry.faults, registry.faults
    return result


def ctx_of(home: Path, now: datetime = NOW) -> HarnessContext:
    return make_context(home, now=now)


# -- where and who ----------------------------------------------------------------------


def test_the_full_id_comes_from_line_one_not_the_file_name(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("hi", at=T0)
    assert chat.path.name.endswith(f"-{SID[:8]}.jsonl")
    chat.path.rename(chat.path.with_name("session-2026-11-30T11-50-ffffffff.jsonl"))
    assert list(read_all(ctx_of(tmp_path))) == [SID]


def test_files_that_are_not_main_sessions_are_skipped(tmp_path: Path) -> None:
    store = GeminiStore(tmp_path)
    store.session(SID, cwd="/w/a", at=T0).prompt("hi", at=T0)
    chats = store.root / "tmp" / "a" / "chats"
    (chats / "session-2026-01-01T00-00-legacy00.json").write_text(json.dumps({"sessionId": "legacy", "messages": []}))
    (chats / "session-2026-01-01T00-00-nosessid.jsonl").write_text('{"projectHash": "x"}\n')
    (chats / "session-2026-01-01T00-00-subagent.jsonl").write_text('{"sessionId": "sub-1", "kind": "subagent"}\n')
    found = plugin.discover(ctx=ctx_of(tmp_path))
    assert [r.session_id for r in found.sessions] == [SID]
    assert any("nosessid" in p for p in found.problems)


# -- messages ---------------------------------------------------------------------------


def test_reappended_messages_count_once_and_the_last_copy_wins(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("go", at=T0)
    pending = chat.wait("", at=T0 + timedelta(seconds=1), output_tokens=40)
    chat.answer(pending, [ToolCall("read_file", {"path": "a"})], at=T0 + timedelta(seconds=2))
    chat.reply("done", at=T0 + timedelta(seconds=3), output_tokens=10)
    ctx = ctx_of(tmp_path, T0 + timedelta(seconds=30))
    reading = read_all(ctx)[SID]
    usage = plugin.usage(reading=reading, ctx=ctx)
    assert usage is not None
    assert usage.output_tokens_total == 50
    assert usage.output_tokens_window == 50
    assert reading.last_tool == "ReadFile"  # only the second copy carries the tool call


def test_a_resume_snapshot_replaces_the_message_list(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("first", at=T0)
    chat.reply("one", at=T0 + timedelta(seconds=1), output_tokens=10)
    chat.resume(at=T0 + timedelta(seconds=60))
    chat.prompt("second", at=T0 + timedelta(seconds=61))
    chat.reply("two", at=T0 + timedelta(seconds=62), output_tokens=5)
    ctx = ctx_of(tmp_path)
    reading = read_all(ctx)[SID]
    assert reading.instruction is not None and reading.instruction.text == "second"
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 15  # type: ignore[union-attr]
    assert reading.turn.completed_s == (1.0, 1.0)


def test_rewind_drops_the_message_and_everything_after(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("keep me", at=T0)
    chat.reply("kept", at=T0 + timedelta(seconds=1), output_tokens=10)
    gone = chat.prompt("drop me", at=T0 + timedelta(seconds=2))
    chat.todos([("Dropped task", "pending")], at=T0 + timedelta(seconds=3))
    chat.reply("dropped", at=T0 + timedelta(seconds=4), output_tokens=99)
    chat.rewind(gone, at=T0 + timedelta(seconds=5))
    ctx = ctx_of(tmp_path)
    reading = read_all(ctx)[SID]
    assert reading.instruction is not None and reading.instruction.text == "keep me"
    assert reading.tasks == ()
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 10  # type: ignore[union-attr]


def test_tool_replies_and_the_cli_preamble_are_not_prompts(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("the real ask", at=T0)
    chat.tool("run_shell_command", at=T0 + timedelta(seconds=1), args={"command": "ls"})
    reading = read_all(ctx_of(tmp_path))[SID]
    assert reading.instruction is not None and reading.instruction.text == "the real ask"
    assert reading.title is None  # Gemini published no title; no prompt stands in for one


def test_display_content_is_what_the_human_typed(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.message(
        {
            "id": "u1",
            "timestamp": "2026-11-30T11:50:00Z",
            "type": "user",
            "content": [{"text": "expanded @file contents ..."}],
            "displayContent": "explain @a.py",
        },
        T0,
    )
    assert read_all(ctx_of(tmp_path))[SID].instruction.text == "explain @a.py"  # type: ignore[union-attr]


def test_tasks_come_from_the_newest_write_todos_and_the_title_from_update_topic(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("plan", at=T0)
    chat.topic("Old title", at=T0 + timedelta(seconds=1))
    chat.todos([("A", "in_progress"), ("B", "pending")], at=T0 + timedelta(seconds=2))
    chat.topic("Parser plan", at=T0 + timedelta(seconds=3))
    chat.todos([("A", "completed"), ("B", "in_progress"), ("C", "cancelled")], at=T0 + timedelta(seconds=4))
    reading = read_all(ctx_of(tmp_path))[SID]
    assert reading.title == "Parser plan"
    assert [(t.subject, t.status) for t in reading.tasks] == [
        ("A", "completed"),
        ("B", "in_progress"),
        ("C", "completed"),
    ]
    assert all(t.created_at is None for t in reading.tasks)  # todos carry no timestamps


def test_model_is_what_the_messages_name_and_absent_otherwise(tmp_path: Path) -> None:
    store = GeminiStore(tmp_path)
    chat = store.session(SID, cwd="/w/a", at=T0)
    chat.prompt("go", at=T0)
    chat.reply("ok", at=T0, model="gemini-x-pro")
    quiet = store.session("quiet-0000", cwd="/w/b", at=T0)
    quiet.prompt("go", at=T0)
    ctx = ctx_of(tmp_path)
    readings = read_all(ctx)
    assert plugin.model(reading=readings[SID], ctx=ctx).id == "gemini-x-pro"  # type: ignore[union-attr]
    assert plugin.model(reading=readings["quiet-0000"], ctx=ctx) is None
    assert plugin.usage(reading=readings["quiet-0000"], ctx=ctx) is None  # unmeasured, not zero


def test_rate_counts_only_the_last_ten_minutes(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=NOW - timedelta(minutes=30))
    chat.prompt("go", at=NOW - timedelta(minutes=30))
    chat.reply("old", at=NOW - timedelta(minutes=20), output_tokens=500)
    chat.prompt("again", at=NOW - timedelta(minutes=2))
    chat.reply("new", at=NOW - timedelta(minutes=1), output_tokens=60)
    ctx = ctx_of(tmp_path)
    usage = plugin.usage(reading=read_all(ctx)[SID], ctx=ctx)
    assert usage is not None and usage.output_tokens_window == 60 and usage.output_tokens_total == 560


# -- project ----------------------------------------------------------------------------


def test_cwd_from_directories_then_projects_json_then_the_folder(tmp_path: Path) -> None:
    store = GeminiStore(tmp_path)
    a = store.session("a-0000", cwd="/w/one", at=T0, directories_on_line1=True)
    a.prompt("a", at=T0)
    b = store.session("b-0000", cwd="/w/two", at=T0)
    b.prompt("b", at=T0)
    b.directories(["/w/two-moved", "/w/lib"], at=T0)
    c = store.session("c-0000", cwd="/w/three", at=T0)
    c.prompt("c", at=T0)
    hashed = store.root / "tmp" / ("9af0" * 16) / "chats"
    hashed.mkdir(parents=True)
    d_path = hashed / "session-2026-11-30T11-50-d0000000.jsonl"
    d_path.write_text('{"sessionId":"d-0000","kind":"main"}\n{"id":"u","type":"user","content":"hi"}\n')
    (store.root / "tmp" / "three" / ".project_root").unlink()  # projects.json alone still maps it
    readings = read_all(ctx_of(tmp_path))
    assert readings["a-0000"].cwd == "/w/one"
    assert readings["b-0000"].cwd == "/w/two-moved"
    assert readings["c-0000"].cwd == "/w/three"
    assert readings["d-0000"].cwd is None and readings["d-0000"].project == "9af0" * 16
    (store.root / "projects.json").unlink()
    fresh = read_all(ctx_of(tmp_path))
    assert fresh["c-0000"].cwd is None and fresh["c-0000"].project == "three"
    assert read_all(ctx_of(tmp_path))["a-0000"].cwd == "/w/one"


def test_project_root_file_is_the_fallback_for_projects_json(tmp_path: Path) -> None:
    store = GeminiStore(tmp_path)
    store.session("a-0000", cwd="/w/one", at=T0).prompt("a", at=T0)
    (store.root / "projects.json").unlink()
    assert read_all(ctx_of(tmp_path))["a-0000"].cwd == "/w/one"


# -- state and turns --------------------------------------------------------------------


def test_a_final_reply_ends_the_turn_at_once(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=NOW - timedelta(seconds=20))
    chat.prompt("hi", at=NOW - timedelta(seconds=20))
    chat.reply("Hello.", at=NOW - timedelta(seconds=10))
    (row,) = board(tmp_path).sessions
    assert row.state == "idle" and row.last_active_at == NOW - timedelta(seconds=10)


def test_a_running_turn_reads_working_with_its_detail(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=NOW - timedelta(seconds=60))
    chat.prompt("go", at=NOW - timedelta(seconds=60))
    chat.tool("run_shell_command", at=NOW - timedelta(seconds=50), args={"command": "make"})
    (row,) = board(tmp_path).sessions
    assert row.state == "working" and row.detail == "thinking"  # tool reply handed back: the model holds it
    assert row.turn is not None and row.turn.elapsed_s == 60.0
    chat.wait("", at=NOW - timedelta(seconds=5))
    (row,) = board(tmp_path).sessions
    assert row.state == "working" and row.detail == "running a tool call"


def test_a_tool_announced_with_text_reads_as_a_finished_turn(tmp_path: Path) -> None:
    """The recorded limit (golden D1): until the call is written, text + no tool call is what a
    finished turn looks like; the hook lane is what can tell them apart."""
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=NOW - timedelta(seconds=30))
    chat.prompt("write a file", at=NOW - timedelta(seconds=30))
    pending = chat.wait("I'll write the file.", at=NOW - timedelta(seconds=20))
    assert board(tmp_path).sessions[0].state == "idle"
    chat.answer(pending, [ToolCall("write_file", {"path": "hi.txt"})], at=NOW - timedelta(seconds=2))
    (row,) = board(tmp_path).sessions
    assert row.state == "working" and row.detail == "thinking"


def test_turn_samples_and_reopening_after_an_end(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("one", at=T0)
    chat.reply("a", at=T0 + timedelta(seconds=30))
    chat.prompt("two", at=T0 + timedelta(seconds=100))
    chat.reply("b", at=T0 + timedelta(seconds=110))
    reading = read_all(ctx_of(tmp_path))[SID]
    assert reading.turn.state == "ended"
    assert reading.turn.completed_s == (30.0, 10.0)


# -- subagents --------------------------------------------------------------------------


def test_a_running_subagent_is_a_pill_that_keeps_the_parent_working(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=NOW - timedelta(minutes=5))
    chat.prompt("delegate", at=NOW - timedelta(minutes=5))
    run = chat.subagent("generalist", "SUBTASK: dig", at=NOW - timedelta(minutes=4))
    run.child.reply("digging", at=NOW - timedelta(seconds=20), output_tokens=600)
    (row,) = board(tmp_path).sessions
    assert row.session_id == SID
    (pill,) = row.subagents
    assert pill.session_id == run.child.session_id
    assert pill.name == f"subagent {run.child.session_id[:8]}"  # named by the parent only once it finishes
    # The child's reply is text with no tool call, but a subagent ends with complete_task.
    assert row.state == "working"
    assert pill.running
    # The child's 600 tokens in the window join the parent's own 38 through core's fold.
    assert row.output_tokens_per_min == 63.8
    run.complete("found it", at=NOW - timedelta(seconds=10))
    chat.reply("all done", at=NOW - timedelta(seconds=5))
    (row,) = board(tmp_path).sessions
    (pill,) = row.subagents
    assert pill.name == "generalist" and not pill.running
    assert row.state == "idle"


def test_subagent_tokens_count_in_the_parent_total(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("delegate", at=T0)
    run = chat.subagent("generalist", "SUBTASK", at=T0)
    run.complete("ok", at=T0 + timedelta(seconds=5), output_tokens=13)
    chat.reply("done", at=T0 + timedelta(seconds=6), output_tokens=8)
    (row,) = board(tmp_path).sessions
    assert row.output_tokens_total == 38 + 13 + 8


def test_a_subagent_without_its_parent_stays_a_row(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    run = chat.subagent("generalist", "SUBTASK: orphan", at=T0)
    chat.path.unlink()
    (row,) = board(tmp_path).sessions
    assert row.session_id == run.child.session_id
    assert row.title == "SUBTASK: orphan"


# -- history ----------------------------------------------------------------------------


def test_consumer_era_sessions_are_marked_history_and_live_ones_are_not(tmp_path: Path) -> None:
    store = GeminiStore(tmp_path)
    old_at = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
    old = store.session("old-0000", cwd="/w/old", at=old_at)
    old.prompt("hello", at=old_at)
    live = store.session("live-0000", cwd="/w/live", at=NOW - timedelta(seconds=30))
    live.prompt("hello", at=NOW - timedelta(seconds=30))
    rows = {s.session_id: s for s in board(tmp_path).sessions}
    assert rows["old-0000"].notes == (HISTORY_NOTE,)
    assert rows["old-0000"].state == "idle" and not rows["old-0000"].faults
    assert rows["live-0000"].notes == () and rows["live-0000"].state == "working"
    window = {s.session_id for s in board(tmp_path, all_sessions=False).sessions}
    assert window == {"live-0000"}  # history needs ?all=1


# -- incremental reading ----------------------------------------------------------------


def test_refresh_reads_only_appended_lines(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("one", at=T0)
    ctx = ctx_of(tmp_path)
    assert read_all(ctx)[SID].instruction.text == "one"  # type: ignore[union-attr]
    follower = ctx.cache.get(f"chat:{chat.path}").follower
    before = follower.offset
    chat.append(b'{"id":"x","timestamp":"2026-11-30T11:55:00Z","type":"user","content":"tw', T0)
    assert read_all(ctx)[SID].instruction.text == "one"  # type: ignore[union-attr]
    assert follower.offset == before
    chat.append(b'o"}\n', T0)
    assert read_all(ctx)[SID].instruction.text == "two"  # type: ignore[union-attr]


def test_a_model_named_only_inside_a_resume_snapshot_is_still_the_sessions_model(tmp_path: Path) -> None:
    """The shape is Gemini CLI's own (google-gemini/gemini-cli
    ``packages/core/src/services/chatRecordingService.ts`` at
    016443b5e7bf36fc40313db8a901f639a4426a14): a resume appends ``{"$set": {"sessionId"}}``;
    ``updateMessagesFromHistory`` writes the thread as ``{"$set": {"messages", "lastUpdated"}}``
    whose records are the existing ones (``{...existing, content}``, so a gemini message keeps
    ``model``) and, for a turn new to the history such as a compression summary, a fresh record
    of ``id``, ``timestamp``, ``type`` and ``content`` only (no ``model``)."""
    chat = GeminiStore(tmp_path).session(SID, cwd="/w/a", at=T0)
    chat.prompt("first", at=T0)
    chat.reply("one", at=T0 + timedelta(seconds=1), output_tokens=10, model="gemini-3-pro")
    chat.resume(at=T0 + timedelta(seconds=60))  # $set.sessionId, then the $set.messages snapshot
    lines = chat.path.read_text().splitlines()
    header, resumed, snapshot = lines[0], lines[-2], lines[-1]
    assert json.loads(resumed) == {"$set": {"sessionId": SID}}
    assert '"$set"' in snapshot and "gemini-3-pro" in snapshot
    # Compression writes the context again as a snapshot whose messages name no model, then
    # the session goes on with a prompt: the model is recorded only inside the first snapshot.
    compressed = {
        "$set": {
            "messages": [{"id": "c1", "timestamp": "2026-11-30T11:51:05.000Z", "type": "user", "content": "summary"}]
        }
    }
    prompt = {"id": "p2", "timestamp": "2026-11-30T11:51:10.000Z", "type": "user", "content": [{"text": "go on"}]}
    chat.path.write_text("\n".join([header, resumed, snapshot, json.dumps(compressed), json.dumps(prompt)]) + "\n")
    ctx = ctx_of(tmp_path)
    reading = read_all(ctx)[SID]
    model = plugin.model(reading=reading, ctx=ctx)
    assert model is not None and model.id == "gemini-3-pro"
    assert reading.unknown_records == (), "a resume's $set.sessionId is the CLI's own patch, not drift"
