"""What the Antigravity plugin reads from its store, behaviour by behaviour."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import Board, BoardBuilder
from cargento.errors import HarnessError
from cargento.models import HarnessContext, SessionReading
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.homes import make_context, snapshot_tree
from cargento_harness_antigravity import database, plugin
from cargento_harness_antigravity.fixtures import MODEL, AntigravityStore, step_metadata

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=8)
ROOT = "4c1d0000-0000-4000-8000-000000000001"
CHILD = "7e2a0000-0000-4000-8000-000000000002"
GRAND = "9f3b0000-0000-4000-8000-000000000003"


def read_all(ctx: HarnessContext) -> dict[str, SessionReading]:
    """The readings of every discovered session that reads (one that reads ``None`` is left out)."""
    out: dict[str, SessionReading] = {}
    for ref in plugin.discover(ctx=ctx).sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is not None:
            out[ref.session_id] = reading
    return out


def board(home: Path, now: datetime = NOW, env: dict[str, str] | None = None) -> tuple[Board, object]:
    registry = load_registry(entry_points=False, extra=[("antigravity", plugin)])
    builder = BoardBuilder(
        registry, env={"HOME": str(home), **(env or {})}, home=home, clock=lambda: now, processes=StaticProcesses()
    )
    return builder.build(all_sessions=True), registry


def family(tmp_path: Path) -> tuple[AntigravityStore, object, object, object]:
    store = AntigravityStore(tmp_path)
    store.start_cli(["/w/proj", "/w/lib"], T0)
    root = store.conversation(ROOT, at=T0, workspace="/w/proj", wal_held=True)
    root.prompt("show open issues\nsecond line", at=T0 + timedelta(seconds=5))
    root.tool("Ran gh issue list", "gh issue list", at=T0 + timedelta(seconds=20))
    root.respond(at=T0 + timedelta(seconds=30), output_tokens=120)
    child = store.conversation(
        CHILD, at=NOW - timedelta(seconds=60), parent=root, role="Research Auditor", kind="research"
    )
    child.respond(at=NOW - timedelta(seconds=50), output_tokens=300)
    grand = store.conversation(GRAND, at=NOW - timedelta(seconds=40), parent=child, kind="explore")
    grand.respond(at=NOW - timedelta(seconds=30), output_tokens=60)
    return store, root, child, grand


# -- discovery --------------------------------------------------------------------------


def test_one_session_per_database_and_junk_is_named(tmp_path: Path) -> None:
    store, *_ = family(tmp_path)
    (store.root / "conversations" / "junk.db").write_bytes(b"not sqlite at all")
    found = plugin.discover(ctx=make_context(tmp_path, now=NOW))
    assert sorted(r.session_id for r in found.sessions) == sorted([ROOT, CHILD, GRAND])
    assert any("junk.db" in p for p in found.problems)
    assert {loc.status for loc in found.locations} == {"present"}


def test_activity_includes_a_non_empty_wal(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, wal_held=True)
    conv.respond(at=T0, output_tokens=10)
    os.utime(conv.path, ((T0 - timedelta(hours=1)).timestamp(),) * 2)
    wal = Path(str(conv.path) + "-wal")
    os.utime(wal, ((NOW - timedelta(seconds=10)).timestamp(),) * 2)
    (ref,) = plugin.discover(ctx=make_context(tmp_path, now=NOW)).sessions
    assert ref.modified_at == NOW - timedelta(seconds=10)
    wal.write_bytes(b"")  # an empty WAL says nothing
    os.utime(wal, ((NOW - timedelta(seconds=5)).timestamp(),) * 2)
    (ref,) = plugin.discover(ctx=make_context(tmp_path, now=NOW)).sessions
    assert ref.modified_at == T0 - timedelta(hours=1)


# -- the database -----------------------------------------------------------------------


def test_wal_held_steps_are_read_and_nothing_is_written(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, wal_held=True)
    conv.respond(at=T0, output_tokens=10)
    conv.respond(at=T0 + timedelta(seconds=1), output_tokens=7)  # this one sits in the -wal only
    assert os.path.getsize(str(conv.path) + "-wal") > 32
    raw = sqlite3.connect(f"file:{conv.path}?immutable=1", uri=True)
    assert raw.execute("SELECT count(*) FROM steps").fetchone()[0] == 1  # the main file alone is stale
    raw.close()
    before = snapshot_tree(tmp_path)
    ctx = make_context(tmp_path, now=NOW)
    reading = read_all(ctx)[ROOT]
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 17  # type: ignore[union-attr]
    assert snapshot_tree(tmp_path) == before


def test_a_failed_open_while_the_wal_holds_frames_is_skipped_not_read_stale(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, wal_held=True)
    conv.respond(at=T0, output_tokens=10)
    conv.respond(at=T0 + timedelta(seconds=1), output_tokens=7)
    with open(conv.path, "r+b") as fh:  # a torn main file under a WAL with frames
        fh.truncate(1024)
    ctx = make_context(tmp_path, now=NOW)
    (ref,) = plugin.discover(ctx=ctx).sessions
    with pytest.raises(HarnessError, match="skipped rather than read stale"):
        plugin.read_session(ref=ref, ctx=ctx)
    result, registry = board(tmp_path)
    assert result.sessions == ()
    faults = registry.faults["antigravity"]  # type: ignore[attr-defined]
    assert faults and all(f.kind == "expected" for f in faults)


def test_steps_give_turns_tools_and_thinking(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, workspace="/w/proj")
    conv.prompt("one", at=T0)
    conv.respond(at=T0 + timedelta(seconds=40), output_tokens=5)
    conv.prompt("two", at=NOW - timedelta(seconds=30))
    conv.tool("Read the README", "cat README.md", at=NOW - timedelta(seconds=20))
    reading = read_all(make_context(tmp_path, now=NOW))[ROOT]
    assert reading.turn.state == "unknown"  # prompts are recorded, turn ends are not
    assert reading.turn.started_at == NOW - timedelta(seconds=30)
    assert reading.turn.completed_s == (40.0,)
    assert reading.last_tool == "cat README.md"
    assert not reading.thinking
    conv.prompt("three", at=NOW - timedelta(seconds=5))
    assert read_all(make_context(tmp_path, now=NOW))[ROOT].thinking


def test_model_is_the_framed_display_name_of_the_newest_row(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0)
    conv.model("Gemini 3.x Pro (Low)", at=T0)
    bare = store.conversation("bare-0", at=T0, model=None)
    ctx = make_context(tmp_path, now=NOW)
    readings = read_all(ctx)
    model = plugin.model(reading=readings[ROOT], ctx=ctx)
    assert model is not None and model.id == "Gemini 3.x Pro (Low)" and model.id != MODEL
    assert plugin.model(reading=readings[bare.id], ctx=ctx) is None


def test_a_broken_protobuf_is_reported_missing_not_raised(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0)
    conv.respond(at=T0, output_tokens=10)
    conv.step(15, step_metadata(T0, output_tokens=99)[:-1] + b"\xff", at=T0 + timedelta(seconds=1))
    ctx = make_context(tmp_path, now=NOW)
    reading = read_all(ctx)[ROOT]
    assert reading.missing == ("metadata of 1 step",)
    # The unreadable usage is named missing; what was read is still shown.
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 10  # type: ignore[union-attr]
    (row,) = board(tmp_path)[0].sessions
    assert row.missing == ("metadata of 1 step",)


def test_a_database_without_the_steps_table_measures_nothing(tmp_path: Path) -> None:
    folder = tmp_path / ".gemini" / "antigravity-cli" / "conversations"
    folder.mkdir(parents=True)
    conn = sqlite3.connect(folder / "odd-0.db")
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()
    ctx = make_context(tmp_path, now=NOW)
    reading = read_all(ctx)["odd-0"]
    assert reading.missing[0].startswith("steps")
    assert plugin.usage(reading=reading, ctx=ctx) is None


def test_many_steps_are_folded_once_and_read_incrementally(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0)
    conv.steps = [(i, 15, 3, step_metadata(T0, output_tokens=2)) for i in range(1, 1001)]
    conv.flush(T0)
    ctx = make_context(tmp_path, now=NOW)
    reading = read_all(ctx)[ROOT]
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 2000  # type: ignore[union-attr]
    state = ctx.cache.get(f"conversation:{conv.path}")[1]
    assert state.settled_rows == 1000 - database.DETAIL_STEPS and len(state.steps) == database.DETAIL_STEPS
    conv.respond(at=T0 + timedelta(seconds=1), output_tokens=5)
    reading = read_all(ctx)[ROOT]
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 2005  # type: ignore[union-attr]
    assert ctx.cache.get(f"conversation:{conv.path}")[1].settled_rows == 1001 - database.DETAIL_STEPS
    conv.steps = conv.steps[500:]  # rows below the fold changed: everything is read again
    conv.flush(T0 + timedelta(seconds=2))
    reading = read_all(ctx)[ROOT]
    assert plugin.usage(reading=reading, ctx=ctx).output_tokens_total == 1005  # type: ignore[union-attr]


# -- workspace and prompt ---------------------------------------------------------------


def test_workspace_from_the_cache_then_the_logs_and_the_prompt_from_the_logs(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    store.start_cli(["/w/proj", "/w/lib"], T0)
    cached = store.conversation(ROOT, at=T0, workspace="/w/cached")
    cached.prompt("fix the flaky test\nit fails on CI", at=T0)
    logged = store.conversation("logged-0", at=T0)
    logged.prompt("a", at=T0)
    logged.prompt("b", at=T0 + timedelta(seconds=1))
    readings = read_all(make_context(tmp_path, now=NOW))
    assert readings[ROOT].cwd == "/w/cached"  # the cache is the primary source
    assert readings["logged-0"].cwd == "/w/proj"  # the log's first workspace dir
    assert readings[ROOT].title == "fix the flaky test"
    cached_instruction = readings[ROOT].instruction
    assert cached_instruction is not None
    assert cached_instruction.text == "fix the flaky test it fails on CI"
    assert cached_instruction.at == T0
    logged_instruction = readings["logged-0"].instruction
    assert logged_instruction is not None and logged_instruction.text == "b"


def test_without_cache_or_logs_nothing_is_guessed(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0)
    conv.prompt("hi", at=T0)
    reading = read_all(make_context(tmp_path, now=NOW))[ROOT]
    assert reading.cwd is None and reading.title is None and reading.instruction is None


# -- subagents and state ----------------------------------------------------------------


def test_subagents_at_every_depth_fold_into_the_root_with_labels(tmp_path: Path) -> None:
    family(tmp_path)
    result, registry = board(tmp_path)
    assert not registry.faults  # type: ignore[attr-defined]
    (row,) = result.sessions
    assert row.session_id == ROOT
    pills = {p.session_id: p for p in row.subagents}
    assert set(pills) == {CHILD, GRAND}
    assert (pills[CHILD].name, pills[CHILD].role) == ("Research Auditor", "research")
    assert (pills[GRAND].name, pills[GRAND].role) == ("explore", "explore")
    assert pills[GRAND].running and pills[CHILD].running
    # Descendant activity keeps the root working although its own steps are minutes old.
    assert row.state == "working"
    assert row.detail.startswith("running 2 subagents")
    # Root 120 tokens 7.5 min ago, descendants 300 + 60: all inside the ten-minute window.
    assert row.output_tokens_per_min == 48.0
    assert row.cwd == "/w/proj" and row.title == "show open issues"
    assert row.model == MODEL
    assert not row.read_by_scanning


def test_a_subagent_whose_root_is_gone_takes_an_ancestor_workspace(tmp_path: Path) -> None:
    _, root, _, _ = family(tmp_path)
    root.path.unlink()  # type: ignore[attr-defined]
    for suffix in ("-wal", "-shm"):
        Path(str(root.path) + suffix).unlink()  # type: ignore[attr-defined]
    result, _ = board(tmp_path)
    (row,) = result.sessions  # the child stands as its own row, the grandchild folds into it
    assert row.session_id == CHILD
    assert row.cwd == "/w/proj"  # the cache names only the root; the child inherits its workspace
    assert [p.session_id for p in row.subagents] == [GRAND]


def test_stale_conversations_read_idle(tmp_path: Path) -> None:
    family(tmp_path)
    result, _ = board(tmp_path, now=NOW + timedelta(minutes=10))
    (row,) = result.sessions
    assert row.state == "idle"
    assert all(not p.running for p in row.subagents)


def test_a_conversation_deleted_after_discovery_has_no_row_and_no_fault(tmp_path: Path) -> None:
    """The CLI (or the demo's rotation) deletes a conversation between discovery and the read:
    the session is gone, not a store that could not be read. A name left at the path that
    cannot be opened (here a dangling link) is still a fault."""
    store = AntigravityStore(tmp_path)
    store.start_cli(["/w/proj"], T0)
    kept, gone = (
        store.conversation(f"4c1d0000-0000-4000-8000-00000000000{n}", at=T0, workspace="/w/proj") for n in (1, 2)
    )
    for conv in (kept, gone):
        conv.prompt("show open issues", at=T0 + timedelta(seconds=1))
    ctx = make_context(tmp_path, now=T0 + timedelta(seconds=10))
    refs = {Path(ref.path).stem: ref for ref in plugin.discover(ctx=ctx).sessions}
    gone.path.unlink()
    assert plugin.read_session(ref=refs[gone.id], ctx=ctx) is None
    assert plugin.read_session(ref=refs[kept.id], ctx=ctx) is not None
    kept.path.unlink()
    kept.path.symlink_to(tmp_path / "nowhere.db")
    with pytest.raises(HarnessError):
        plugin.read_session(ref=refs[kept.id], ctx=ctx)
