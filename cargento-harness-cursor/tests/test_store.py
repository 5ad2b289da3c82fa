"""Cursor store behaviour: meta, workspace, model, subagents, the gate, and damaged stores."""

from __future__ import annotations

import hashlib
import json
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
from cargento_harness_cursor import plugin
from cargento_harness_cursor.fixtures import CursorChat, recipe_gate, recipe_working

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def ago(seconds: float) -> datetime:
    return NOW - timedelta(seconds=seconds)


def ctx_for(home: Path, now: datetime = NOW, **kw: object) -> HarnessContext:
    return make_context(home, now=now, **kw)  # type: ignore[arg-type]


def readings(ctx: HarnessContext) -> dict[str, SessionReading]:
    out = {}
    for ref in plugin.discover(ctx=ctx).sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is not None:
            out[ref.session_id] = reading
    return out


def board(home: Path, now: datetime = NOW, *, all_sessions: bool = True) -> Board:
    registry = load_registry(entry_points=False, extra=[("cursor", plugin)])
    builder = BoardBuilder(
        registry, env={"HOME": str(home)}, home=home, clock=lambda: now, processes=StaticProcesses(), platform="linux"
    )
    return builder.build(all_sessions=all_sessions)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


# -- meta, workspace, model ---------------------------------------------------------------


def test_title_workspace_and_model_of_a_chat(home: Path) -> None:
    chat, _ = recipe_working(home, NOW, home / "w" / "proj")
    reading = readings(ctx_for(home))[chat.id]
    assert reading.title == "Refactor the parser"
    assert reading.cwd == str(home / "w" / "proj")
    assert reading.started_at == ago(120)
    assert reading.last_active_at == ago(10)
    ctx = ctx_for(home)
    info = plugin.model(reading=reading, ctx=ctx)
    assert info is not None and info.id == "vega"  # the codename, verbatim


def test_plain_json_meta_is_read_as_well_as_hex(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="plain", created_at=ago(30), hex_meta=False)
    assert readings(ctx_for(home))[chat.id].title == "plain"


def test_the_encryption_key_is_never_kept(home: Path) -> None:
    chat, _ = recipe_working(home, NOW, home / "w" / "proj")
    key = chat.payload["blobEncryptionKey"]
    ctx = ctx_for(home)
    reading = readings(ctx)[chat.id]
    plugin.model(reading=reading, ctx=ctx)
    kept = repr([ctx.cache.get(k) for k in ctx.cache]) + repr(reading)
    assert key not in kept and "blobEncryptionKey" not in kept


@pytest.mark.parametrize("spelling", ["bare", "file"])
def test_workspace_accepted_bare_or_file_url_only_when_it_exists(home: Path, spelling: str) -> None:
    real = home / "w" / "real project"
    real.mkdir(parents=True)
    cwd = str(real) if spelling == "bare" else "file://" + str(real).replace(" ", "%20")
    chat = CursorChat(home, workspace=cwd, name="x", created_at=ago(30))
    reading = readings(ctx_for(home))[chat.id]
    assert reading.cwd == str(real)
    (row,) = board(home).sessions
    assert row.project == "w/real project"


def test_missing_workspace_reads_cursor(home: Path) -> None:
    chat = CursorChat(home, workspace="/does/not/exist", name="x", created_at=ago(30))
    reading = readings(ctx_for(home))[chat.id]
    assert reading.cwd is None
    assert board(home).sessions[0].project == "cursor"


def test_payload_workspace_key_is_the_fallback_beneath_meta_json(home: Path) -> None:
    (home / "w" / "p").mkdir(parents=True)
    chat = CursorChat(home, workspace=None, name="x", created_at=ago(30), meta_json=False)
    chat.payload["workspacePath"] = str(home / "w" / "p")
    chat.rename("x", at=ago(20))
    assert readings(ctx_for(home))[chat.id].cwd == str(home / "w" / "p")


def test_model_is_the_newest_message_that_names_one(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(100))
    chat.assistant("old", at=ago(90), model="last-week-model")
    chat.user("switch", at=ago(80))
    chat.assistant("new", at=ago(70), model="vega")
    call = chat.tool_call("Read", at=ago(60), model=None)
    chat.tool_result(call, at=ago(50))
    ctx = ctx_for(home)
    info = plugin.model(reading=readings(ctx)[chat.id], ctx=ctx)
    assert info is not None and info.id == "vega"


def test_no_model_rather_than_an_old_one_past_the_probe(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(100))
    chat.assistant("old", at=ago(90), model="vega")
    for i in range(14):
        chat.user(f"turn {i}", at=ago(80 - i))
    ctx = ctx_for(home)
    assert plugin.model(reading=readings(ctx)[chat.id], ctx=ctx) is None


def test_encrypted_blobs_report_no_model(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(100))
    data = bytes(range(256)) * 8  # bytes that do not read as a message
    blob_id = hashlib.sha256(data).hexdigest()
    with closing(sqlite3.connect(chat.path)) as conn, conn:
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (blob_id, data))
    chat.messages.append(blob_id)
    chat.rename("x", at=ago(50))
    ctx = ctx_for(home)
    reading = readings(ctx)[chat.id]
    assert plugin.model(reading=reading, ctx=ctx) is None
    assert reading.title == "x"


def test_store_without_blobs_keeps_its_title_and_names_what_is_missing(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="older schema", created_at=ago(30), blobs_table=False)
    ctx = ctx_for(home)
    reading = readings(ctx)[chat.id]
    assert reading.title == "older schema"
    assert {"model", "permission gate"} <= set(reading.missing)
    assert plugin.model(reading=reading, ctx=ctx) is None
    assert plugin.gate_state(reading=reading, ctx=ctx) is None
    row = board(home).sessions[0]
    assert not row.faults and "model" in row.missing


# -- subagents ----------------------------------------------------------------------------


def test_subagent_folds_as_a_pill_labelled_by_type_with_its_own_model(home: Path) -> None:
    chat, child = recipe_working(home, NOW, home / "w" / "proj")
    got = readings(ctx_for(home))
    assert got[child.id].parent_id == chat.id
    assert got[child.id].title == "New Agent"
    assert got[child.id].cwd is None
    (row,) = board(home).sessions
    assert row.session_id == chat.id
    (pill,) = row.subagents
    assert (pill.name, pill.model, pill.running) == ("explore", "vega-mini", True)


def test_child_whose_parent_is_not_on_the_board_stays_a_row(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="orphan's parent", created_at=ago(30))
    child = CursorChat(home, workspace=str(home), created_at=ago(20), subagent_of="someone-else", type_name="explore")
    child.user("look", at=ago(10))
    ids = {r.session_id for r in board(home).sessions}
    assert ids == {chat.id, child.id}


def test_a_childs_gate_is_not_read(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="lead", created_at=ago(60))
    chat.user("go", at=ago(60))
    child = chat.subagent("shell", at=ago(40))
    child.wait("Shell", at=ago(20))
    (row,) = board(home).sessions
    assert row.state == "working" and row.waiting is None


# -- the gate -----------------------------------------------------------------------------


def test_live_gate_reads_needs_input_with_its_start_and_nothing_asked(home: Path) -> None:
    chat = recipe_gate(home, NOW, home / "w" / "migrate")
    (row,) = board(home).sessions
    assert row.session_id == chat.id
    assert row.state == "needs_input"
    assert row.waiting is not None
    assert row.waiting.kind == "permission" and row.waiting.since == ago(30) and row.waiting.text is None
    assert "migrate" not in row.detail and "Shell" not in row.detail


def test_answering_clears_the_gate(home: Path) -> None:
    chat = recipe_gate(home, NOW, home / "w" / "migrate")
    chat.answer(at=ago(5))
    (row,) = board(home).sessions
    assert row.state == "working" and row.waiting is None


def test_gate_on_an_older_blob_is_not_read(home: Path) -> None:
    chat = recipe_gate(home, NOW, home / "w" / "migrate")
    chat.answer(at=ago(20))
    chat.tool_result("call", at=ago(15))
    chat.assistant("done", at=ago(10))
    assert board(home).sessions[0].waiting is None


def test_stale_gate_is_not_published_once_the_row_is_not_fresh(home: Path) -> None:
    recipe_gate(home, NOW, home / "w" / "migrate")
    later = NOW + timedelta(hours=29.4)
    rows = board(home, later).sessions
    assert rows and rows[0].state == "idle" and rows[0].waiting is None
    # ...and inside the window the abandoned gate still reads, as specified.
    assert board(home, NOW + timedelta(hours=2)).sessions[0].state == "needs_input"


def test_gate_stamp_much_older_than_the_last_write_is_dropped(home: Path) -> None:
    chat = recipe_gate(home, NOW, home / "w" / "migrate")
    chat.touch(ago(1))  # the store was written long after the stamp: not what froze it
    assert board(home).sessions[0].waiting is None
    chat.touch(ago(25))  # within the slack of the stamp: believed
    assert board(home).sessions[0].state == "needs_input"


def test_gate_without_a_stamp_is_not_published(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(60))
    chat.wait("Shell", at=ago(30))
    raw = chat.pending[0].replace(b'"pendingToolCallStartedAtMs"', b'"somethingElse"')
    chat.pending = [raw]
    chat.assistant("x", at=ago(30))
    assert board(home).sessions[0].waiting is None


def test_a_message_quoting_the_key_is_not_a_gate(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(60))
    chat.user('what does "pendingToolExecutionContracts":{"a":1} mean?', at=ago(10))
    with closing(sqlite3.connect(chat.path)) as conn, conn:
        # Make that message blob the newest by rowid.
        (data,) = conn.execute("SELECT data FROM blobs WHERE id = ?", (chat.messages[-1],)).fetchone()
        conn.execute("DELETE FROM blobs WHERE id = ?", (chat.messages[-1],))
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (chat.messages[-1], data))
    chat.touch(ago(10))
    assert board(home).sessions[0].waiting is None


# -- broken and locked stores -------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", os.urandom(4096)])
def test_zero_byte_and_random_store_is_not_a_session_and_writes_nothing(home: Path, content: bytes) -> None:
    db = home / ".cursor/chats/abc/agent-1/store.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(content)
    before = snapshot_tree(home)
    ctx = ctx_for(home)
    assert readings(ctx) == {}
    assert any("agent-1" in p for p in plugin.discover(ctx=ctx).problems)
    assert board(home).sessions == ()
    assert snapshot_tree(home) == before


def test_corrupt_sqlite_body_keeps_the_row_and_says_what_is_missing(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(30))
    data = bytearray(chat.path.read_bytes())
    data[100:] = os.urandom(len(data) - 100)
    chat.path.write_bytes(bytes(data))
    chat.touch(ago(20))
    got = readings(ctx_for(home))
    if chat.id in got:  # SQLite may reject the header outright; either way nothing raises
        assert "title" in got[chat.id].missing


def test_bad_hex_meta_is_not_a_session(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(30))
    with closing(sqlite3.connect(chat.path)) as conn, conn:
        conn.execute("UPDATE meta SET value = 'zz-not-hex'")
    assert readings(ctx_for(home)) == {}


@contextmanager
def locked(db: Path) -> Iterator[None]:
    """Hold an exclusive write lock from another process (rollback journal, so readers block)."""
    script = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA journal_mode=DELETE')\n"
        "c.execute('BEGIN EXCLUSIVE')\n"
        'c.execute("UPDATE meta SET key = key")\n'
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield
    finally:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(timeout=10)


def test_locked_store_is_skipped_for_the_pass_with_the_reason(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="x", created_at=ago(30))
    with closing(sqlite3.connect(chat.path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    chat.touch(ago(20))
    ctx = ctx_for(home)
    with locked(chat.path):
        reading = readings(ctx)[chat.id]
        assert {"title", "model", "permission gate"} <= set(reading.missing)
        assert any("locked" in n for n in reading.notes)
        assert plugin.gate_state(reading=reading, ctx=ctx) is None
    assert any("locked" in p for p in plugin.discover(ctx=ctx).problems)
    assert readings(ctx)[chat.id].title == "x"
    assert not any("locked" in p for p in plugin.discover(ctx=ctx).problems)


def test_wal_frames_are_read_and_neither_wal_nor_shm_is_written(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home), name="before", created_at=ago(30))
    payload = dict(chat.payload, name="after")
    value = json.dumps(payload).encode().hex()
    script = (
        "import sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA wal_autocheckpoint = 0')\n"
        "c.execute(\"UPDATE meta SET value = ? WHERE key = '0'\", (sys.argv[2],))\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(chat.path), value], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        assert Path(str(chat.path) + "-wal").stat().st_size > 32
        before = snapshot_tree(home)
        assert readings(ctx_for(home))[chat.id].title == "after"
        board(home)
        assert snapshot_tree(home) == before
    finally:
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.close()
        proc.wait(timeout=10)


def test_a_subagent_whose_messages_name_no_model_carries_its_own_stores_last_used_model(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home / "w"), name="lead", created_at=ago(60))
    chat.user("look around", at=ago(60))
    chat.assistant("On it.", at=ago(55), model="vega")
    child = chat.subagent("explore", at=ago(40))
    child.payload["lastUsedModel"] = "vega-mini"
    child.user("explore the parser", at=ago(40))
    child.assistant("Reading.", at=ago(5), model=None)  # the subagent's own messages name no model
    (row,) = board(home).sessions
    assert row.model == "vega"
    (pill,) = row.subagents
    assert (pill.name, pill.model) == ("explore", "vega-mini")


def test_a_parent_whose_messages_name_no_model_does_not_fall_back_to_its_meta(home: Path) -> None:
    chat = CursorChat(home, workspace=str(home / "w"), name="lead", created_at=ago(60))
    chat.user("hi", at=ago(60))
    chat.assistant("Hello.", at=ago(55), model=None)
    assert board(home).sessions[0].model is None


def test_a_model_named_only_on_the_content_blocks_is_the_messages_model(home: Path) -> None:
    """The shape third-party readers recorded from real cursor-agent stores (Cursor CLI is
    closed source; no real Cursor store is in this repository's test data): an assistant
    message's ``providerOptions.cursor.modelName`` sits on its content blocks (a ``reasoning``
    block), the message level holding only a ``requestId`` — yashas-salankimatt/sidecar
    ``docs/plans/cursor-cli-adapter.md`` at 4b2305721b2f6f672368bbc0483e41b0fae8d6f4. Read
    that way, a subagent's pill carries the model its own messages name, not its meta's."""
    chat = CursorChat(home, workspace=str(home / "w"), name="lead", created_at=ago(60))
    chat.user("look around", at=ago(60))
    chat.reasoned("On it.", at=ago(55), model="claude-4.5-opus-high-thinking")
    child = chat.subagent("explore", at=ago(40))
    child.payload["lastUsedModel"] = "an-older-pick"
    child.user("explore the parser", at=ago(40))
    child.reasoned("Reading.", at=ago(5), model="gemini-3-flash")
    (row,) = board(home).sessions
    assert row.model == "claude-4.5-opus-high-thinking"
    (pill,) = row.subagents
    assert (pill.name, pill.model) == ("explore", "gemini-3-flash")
