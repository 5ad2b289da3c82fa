"""What the Droid plugin reads from its store, behaviour by behaviour."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import BoardBuilder
from cargento.models import HarnessContext, SessionReading
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.homes import make_context
from cargento_harness_droid import plugin
from cargento_harness_droid.fixtures import DroidSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=10)


def read_all(ctx: HarnessContext) -> dict[str, SessionReading]:
    found = plugin.discover(ctx=ctx)
    out = {}
    for ref in found.sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is not None:
            out[ref.session_id] = reading
    return out


def board(home: Path, now: datetime = NOW):  # type: ignore[no-untyped-def]
    registry = load_registry(entry_points=False, extra=[("droid", plugin)])
    return BoardBuilder(
        registry, env={"HOME": str(home)}, home=home, clock=lambda: now, processes=StaticProcesses()
    ).build(all_sessions=True)


def test_both_roots_and_the_flat_layout_are_searched(tmp_path: Path) -> None:
    DroidSession.create(tmp_path, "new-layout", cwd="/w/a", at=T0).prompt("a", at=T0)
    DroidSession.create(tmp_path, "old-layout", cwd="/w/b", at=T0, layout="projects", project="b").prompt("b", at=T0)
    DroidSession.create(tmp_path, "flat-layout", cwd="/w/c", at=T0, layout="flat").prompt("c", at=T0)
    ctx = make_context(tmp_path, now=NOW)
    found = plugin.discover(ctx=ctx)
    assert {r.session_id for r in found.sessions} == {"new-layout", "old-layout", "flat-layout"}
    paths = {loc.path for loc in found.locations}
    assert paths == {str(tmp_path / ".factory" / "sessions"), str(tmp_path / ".factory" / "projects")}
    assert all(loc.status == "present" for loc in found.locations)


def test_missing_store_reports_where_it_looked(tmp_path: Path) -> None:
    found = plugin.discover(ctx=make_context(tmp_path, now=NOW))
    assert found.sessions == ()
    assert {loc.status for loc in found.locations} == {"missing"}


def test_id_comes_from_session_start_not_the_file_name(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "real-id", cwd="/w/a", at=T0)
    s.prompt("hi", at=T0)
    s.path.rename(s.path.with_name("renamed.jsonl"))
    found = plugin.discover(ctx=make_context(tmp_path, now=NOW))
    assert [r.session_id for r in found.sessions] == ["real-id"]


def test_id_falls_back_to_the_stem_without_session_start(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "stem-id", cwd=None, at=T0, header=False)
    s.prompt("hi", at=T0)
    readings = read_all(make_context(tmp_path, now=NOW))
    assert list(readings) == ["stem-id"]
    assert readings["stem-id"].title == "hi"


def test_a_non_json_file_is_skipped_and_named(tmp_path: Path) -> None:
    folder = tmp_path / ".factory" / "sessions" / "-w-a"
    folder.mkdir(parents=True)
    (folder / "junk.jsonl").write_bytes(b"not json at all\n{}\n")
    found = plugin.discover(ctx=make_context(tmp_path, now=NOW))
    assert found.sessions == ()
    assert any("junk.jsonl" in p for p in found.problems)


def test_header_title_cwd_and_newest_real_prompt(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "s1", cwd="/w/proj/app", title="Fix login", at=T0)
    s.prompt("first ask", at=T0)
    call = s.tool("Execute", at=T0 + timedelta(seconds=3), input={"command": "ls"})
    s.prompt("second ask", at=T0 + timedelta(seconds=4))
    s.tool_result(call, at=T0 + timedelta(seconds=5), output="a.txt")
    r = read_all(make_context(tmp_path, now=NOW))["s1"]
    assert r.title == "Fix login"
    assert r.cwd == "/w/proj/app"
    assert r.instruction is not None
    assert r.instruction.text == "second ask"  # the tool_result carrier after it is not a prompt
    assert r.instruction.at == T0 + timedelta(seconds=4)
    assert r.last_tool == "Execute"


def test_title_prefers_session_title_then_title_then_first_prompt(tmp_path: Path) -> None:
    a = DroidSession.create(tmp_path, "a", cwd="/w/a", at=T0)
    a.append({"type": "session_start", "id": "b", "title": "Plain title", "cwd": "/w/b"}, T0)  # not line 1
    a.prompt("x" * 200, at=T0)
    b_dir = tmp_path / ".factory" / "sessions" / "-w-b"
    b_dir.mkdir(parents=True)
    (b_dir / "b.jsonl").write_text('{"type":"session_start","id":"b","title":"Plain title","cwd":"/w/b"}\n')
    readings = read_all(make_context(tmp_path, now=NOW))
    assert readings["b"].title == "Plain title"
    title = readings["a"].title
    assert title is not None and len(title) <= 80 and title.startswith("xxx")


def test_project_falls_back_to_the_folder_without_cwd(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "p", cwd=None, at=T0, layout="projects", project="my-proj")
    s.prompt("hi", at=T0)
    r = read_all(make_context(tmp_path, now=NOW))["p"]
    assert r.cwd is None
    assert r.project == "my-proj"


def test_settings_json_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = DroidSession.create(tmp_path, "s", cwd="/w/a", at=T0)
    s.prompt("hi", at=T0)
    settings = s.settings(at=T0, model="secret-model", sessionTitle="from settings")
    opened: list[str] = []
    real_open = open
    real_os_open = os.open

    def spy(file, *a, **k):  # type: ignore[no-untyped-def]
        if not isinstance(file, int):
            opened.append(os.fspath(file))
        return real_open(file, *a, **k)

    def os_spy(file, *a, **k):  # type: ignore[no-untyped-def]
        opened.append(os.fspath(file))
        return real_os_open(file, *a, **k)

    monkeypatch.setattr("builtins.open", spy)
    monkeypatch.setattr(os, "open", os_spy)  # the readers open through os.open (regular files only)
    readings = read_all(make_context(tmp_path, now=NOW))
    assert list(readings) == ["s"]
    assert any(path.endswith(".jsonl") for path in opened), "the spy sees the reads"
    assert readings["s"].title == "hi"
    assert str(settings) not in opened


def test_state_is_recency_and_the_row_is_read_by_scanning(tmp_path: Path) -> None:
    fresh = DroidSession.create(tmp_path, "fresh", cwd="/w/a", at=NOW - timedelta(seconds=30))
    fresh.prompt("go", at=NOW - timedelta(seconds=30))
    fresh.tool("Execute", at=NOW - timedelta(seconds=20))
    stale = DroidSession.create(tmp_path, "stale", cwd="/w/b", at=NOW - timedelta(hours=1))
    stale.prompt("go", at=NOW - timedelta(hours=1))
    stale.reply("done", at=NOW - timedelta(hours=1))
    rows = {s.session_id: s for s in board(tmp_path).sessions}
    assert rows["fresh"].state == "working"
    assert rows["fresh"].detail == "Execute"
    assert rows["stale"].state == "idle"
    assert rows["fresh"].read_by_scanning and rows["stale"].read_by_scanning
    assert rows["fresh"].project == "w/a"
    assert rows["fresh"].turn is not None and rows["fresh"].turn.elapsed_s == 30.0


def test_a_fresh_prompt_reads_thinking(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "t", cwd="/w/a", at=NOW - timedelta(seconds=5))
    s.prompt("go", at=NOW - timedelta(seconds=5))
    r = read_all(make_context(tmp_path, now=NOW))["t"]
    assert r.thinking
    (row,) = board(tmp_path).sessions
    assert row.detail == "thinking"


def test_turns_start_at_prompts_and_never_claim_an_end(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "t", cwd="/w/a", at=T0)
    s.prompt("one", at=T0)
    s.reply("ok", at=T0 + timedelta(seconds=40))
    s.prompt("two", at=T0 + timedelta(seconds=100))
    s.reply("ok", at=T0 + timedelta(seconds=130))
    turn = read_all(make_context(tmp_path, now=NOW))["t"].turn
    assert turn.state == "unknown"
    assert turn.started_at == T0 + timedelta(seconds=100)
    assert turn.completed_s == (40.0,)


def test_only_appended_records_are_read_on_refresh(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "inc", cwd="/w/a", at=T0)
    s.prompt("one", at=T0)
    ctx = make_context(tmp_path, now=NOW)
    assert read_all(ctx)["inc"].instruction.text == "one"  # type: ignore[union-attr]
    follower = ctx.cache.get(f"file:{s.path}").follower
    offset = follower.offset
    s.append(b'{"type":"message","timestamp":"2026-11-30T11:55:00Z","message":{"role":"user","content":"tw', T0)
    assert read_all(ctx)["inc"].instruction.text == "one"  # type: ignore[union-attr]
    assert follower.offset == offset  # the half-written line is left for later
    s.append(b'o"}}\n', T0 + timedelta(seconds=1))
    assert read_all(ctx)["inc"].instruction.text == "two"  # type: ignore[union-attr]


def test_a_rewritten_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    s = DroidSession.create(tmp_path, "rw", cwd="/w/a", at=T0)
    s.prompt("one", at=T0)
    s.prompt("two", at=T0)
    ctx = make_context(tmp_path, now=NOW)
    assert read_all(ctx)["rw"].instruction.text == "two"  # type: ignore[union-attr]
    s2 = DroidSession.create(tmp_path, "rw", cwd="/w/a", at=T0)  # truncates and rewrites
    s2.prompt("only", at=T0)
    r = read_all(ctx)["rw"]
    assert r.instruction is not None and r.instruction.text == "only"
    assert r.title == "only"


def test_no_model_or_usage_is_claimed() -> None:
    assert not hasattr(plugin, "usage")
    assert not hasattr(plugin, "model")
    assert not hasattr(plugin, "gate_state")
    assert plugin.harness_info().turn_end_observable is False
