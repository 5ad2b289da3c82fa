"""Finding sessions: ids, roots, metadata-only files, children, task-only sessions, cost."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.testing import make_context, snapshot_tree
from cargento.testing.unprivileged import discover_unprivileged
from cargento_harness_claude import heads, plugin
from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()
SID = "11111111-1111-4111-8111-111111111111"


def test_sessions_keyed_on_the_full_id_and_metadata_files_are_not_sessions(store: ClaudeStore, read_all: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 10)
    store.metadata_only("22222222-2222-4222-8222-222222222222", at=T0 - 10)
    reads = read_all(store.home)
    assert list(reads) == [SID]


def test_every_searched_path_is_reported(home: Path) -> None:
    found = plugin.discover(ctx=make_context(home, now=NOW))
    assert {loc.role for loc in found.locations} == {"sessions", "tasks", "teams", "status"}
    assert all(loc.status == "missing" for loc in found.locations)


def test_modern_teammate_folds_into_its_lead(store: ClaudeStore, board: Any) -> None:
    lead = store.session(SID, cwd="/w/proj")
    lead.prompt("start a reviewer", T0 - 100)
    lead.end_turn(T0 - 95)
    mate = store.session(
        "22222222-2222-4222-8222-222222222222", cwd="/w/proj", agent_name="reviewer", team_name=f"session-{SID[:8]}"
    )
    mate.prompt("review", T0 - 90)
    mate.tokens(120, T0 - 20)
    [row] = board(store.home).sessions
    assert row.session_id == SID
    [pill] = row.subagents
    assert pill.name == "reviewer" and pill.running
    assert row.state == "working", "child writes are the parent's activity"
    assert row.output_tokens_per_min == 13.0, "the lead's 10 tokens and the teammate's 120, over ten minutes"


def test_bare_agent_name_is_a_standalone_session(store: ClaudeStore, board: Any) -> None:
    solo = store.session(SID, agent_name="planner")
    solo.prompt("plan", T0 - 30)
    [row] = board(store.home).sessions
    assert row.session_id == SID and row.subagents == ()
    assert row.resume_command == f"claude --resume {SID}"


def test_teammate_whose_lead_is_missing_stays_a_row_with_a_note(store: ClaudeStore, read_all: Any) -> None:
    mate = store.session("22222222-2222-4222-8222-222222222222", agent_name="reviewer", team_name="session-99999999")
    mate.prompt("review", T0 - 30)
    [read] = read_all(store.home).values()
    assert read.reading.parent_id is None
    assert read.reading.notes and "lead session was not found" in read.reading.notes[0]


def test_task_folder_without_transcript_is_a_task_only_session(store: ClaudeStore, read_all: Any) -> None:
    store.task(SID, "1", "Orphaned work", status="in_progress", active_form="Working", at=T0 - 30)
    store.task(
        "session-" + "44444444-4444-4444-8444-444444444444",
        "1",
        "Older layout",
        at=T0 - 30,
        folder="session-44444444-4444-4444-8444-444444444444",
    )
    reads = read_all(store.home)
    assert sorted(reads) == [SID, "44444444-4444-4444-8444-444444444444"]
    assert [t.subject for t in reads[SID].reading.tasks] == ["Orphaned work"]
    assert reads[SID].reading.notes
    assert reads[SID].model is None and reads[SID].usage is None


def test_heads_are_read_once_then_only_stat(store: ClaudeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(5):
        s = store.session(f"{i}1111111-1111-4111-8111-111111111111")
        s.prompt("go", T0 - 10)
    calls: list[str] = []
    real = heads._classify

    def counting(path: str) -> tuple[heads.Head, bytes]:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(heads, "_classify", counting)
    ctx = make_context(store.home, now=NOW)
    plugin.discover(ctx=ctx)
    assert len(calls) == 5
    plugin.discover(ctx=ctx)
    assert len(calls) == 5, "nothing changed: no head is read again"
    s.tokens(5, T0 - 5)
    plugin.discover(ctx=ctx)
    assert len(calls) == 5, "a conclusive head is not re-read when the file grows"


def test_fingerprint_changes_with_any_file_the_reading_depends_on(store: ClaudeStore) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 7200)
    ctx = make_context(store.home, now=NOW)
    [before] = plugin.discover(ctx=ctx).sessions
    [same] = plugin.discover(ctx=ctx).sessions
    assert before.fingerprint == same.fingerprint
    store.task(SID, "1", "A task", at=T0 - 7000)
    [after] = plugin.discover(ctx=ctx).sessions
    assert after.fingerprint != before.fingerprint
    s.subagent("a1", at=T0 - 6000).prompt("x", T0 - 6000)
    [third] = plugin.discover(ctx=ctx).sessions
    assert third.fingerprint != after.fingerprint
    assert third.modified_at == datetime.fromtimestamp(T0 - 6000, UTC)


def test_unreadable_project_folder_is_a_problem_not_a_crash(unprivileged_home: Path) -> None:
    # Discovery runs in a child that drops to nobody when the suite runs as root, so the
    # folder's permissions hold for it; the readable run first proves it can read the store.
    s = ClaudeStore(unprivileged_home).session(SID)
    s.prompt("go", T0 - 10)
    readable = discover_unprivileged(plugin, unprivileged_home, now=NOW)
    assert (readable.session_ids, readable.problems) == ((SID,), ())
    assert readable.uid != 0
    s.path.parent.chmod(0)
    try:
        found = discover_unprivileged(plugin, unprivileged_home, now=NOW)
    finally:
        s.path.parent.chmod(0o755)
    assert found.session_ids == ()
    assert any(s.path.parent.name in problem for problem in found.problems), found.problems


def test_discovery_and_reading_write_nothing(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 10)
    s.subagent("a1", at=T0 - 5).prompt("x", T0 - 5)
    store.task(SID, "1", "A task", at=T0 - 5)
    before = snapshot_tree(store.home)
    board(store.home)
    assert snapshot_tree(store.home) == before
