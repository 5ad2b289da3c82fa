"""The ``cargento --demo`` simulation: what a board over the demo home shows as it is stepped."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardBuilder
from cargento.demo import demo_env
from cargento.processes import LocalProcesses, ProcessInfo, StaticProcesses
from cargento.testing import make_context, snapshot_tree
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing, board_at, squash
from cargento_harness_claude import demo, pidfile, plugin
from cargento_harness_claude.demo import CYCLE_S, KEEP_AGENTS, KEEP_RETIRED, LEAD_S, WAIT_AT_S, ClaudeDemo

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
PID = 4242
PROC_START = START - timedelta(minutes=30)
LIVE_TITLE = "Orders API work"


def _demo(home: Path, **kw: Any) -> tuple[ClaudeDemo, BoardBuilder]:
    table = StaticProcesses({PID: ProcessInfo(pid=PID, started_at=PROC_START.timestamp())})
    viewer = DemoViewer(home, plugin, "claude", lambda h, ctx: ClaudeDemo(h, ctx, process=(PID, PROC_START), **kw),
                        start=START, processes=table)
    viewer.step(0)
    return viewer.demo, viewer.builder


def _live(board: Board) -> Any:
    [row] = [r for r in board.sessions if r.title == LIVE_TITLE]
    return row


def _run(sim: ClaudeDemo, builder: BoardBuilder, seconds: int, every: int = 2) -> list[tuple[float, Any]]:
    rows = []
    for s in range(0, seconds + 1):
        at = START + timedelta(seconds=s)
        sim.step(at)
        if s % every == 0:
            rows.append((float(s), _live(board_at(builder, at))))
    return rows


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def test_the_start_picture_has_finished_sessions_in_three_projects_and_an_idle_live_one(home: Path) -> None:
    _, builder = _demo(home)
    board = board_at(builder, START)
    rows = {r.title: r for r in board.sessions}
    assert set(rows) == {LIVE_TITLE, "Postgres driver bump", "Settings page on the form kit", "Duplicate --verbose output"}
    assert {r.project for r in board.sessions} == {"acme/api", "acme/web", "tools/cli"}
    assert all(r.state == "idle" for r in board.sessions)
    settings = rows["Settings page on the form kit"]
    assert [t.status for t in settings.tasks] == ["completed"] * 3
    assert settings.model == "claude-opus-5-5" and settings.output_tokens_total and settings.output_tokens_total > 2000
    assert [(a.name, a.running) for a in rows["Duplicate --verbose output"].subagents] == [("Trace the logging setup", False)]
    for row in board.sessions:
        assert row.cwd is not None and Path(row.cwd).is_dir()
        assert row.last_active_at is not None and row.last_active_at <= START


def test_a_cycle_goes_idle_working_waiting_working_idle_with_tasks_tokens_and_a_subagent(home: Path) -> None:
    sim, builder = _demo(home)
    rows = _run(sim, builder, int(CYCLE_S) + int(LEAD_S))
    assert squash([r.state for _, r in rows]) == ["idle", "working", "needs_input", "working", "idle"]
    working = [r for _, r in rows if r.state == "working"]
    assert all(r.output_tokens_per_min for r in working[2:]), "tokens stream while the turn works"
    gate = [r.waiting for _, r in rows if r.state == "needs_input"]
    assert gate[0] is not None and gate[0].kind == "permission" and "Bash" in (gate[0].text or "")
    waited = [s for s, r in rows if r.state == "needs_input"]
    assert 18 <= waited[-1] - waited[0] <= 42
    assert abs(waited[0] - (LEAD_S + WAIT_AT_S)) <= 2
    seen = {(t.subject, t.status) for _, r in rows for t in r.tasks}
    for subject, _ in demo.JOBS[0].tasks:
        assert {(subject, "pending"), (subject, "in_progress"), (subject, "completed")} <= seen
    details = {r.detail for _, r in rows}
    assert {active for _, active in demo.JOBS[0].tasks} <= details, "the in-progress task is the detail line"
    pills = [[(p.name, p.running) for p in r.subagents] for _, r in rows]
    description = demo.JOBS[0].agent[0]
    assert [(description, True)] in pills and [(description, False)] in pills
    first_running = pills.index([(description, True)])
    assert pills.index([(description, False)]) > first_running, "the subagent comes in, runs, and finishes"
    assert rows[-1][1].state == "idle" and rows[-1][1].waiting is None


def test_the_next_cycle_asks_a_question_and_the_pid_file_tracks_the_status(home: Path) -> None:
    sim, builder = _demo(home)
    status_file = sim.store.root / "sessions" / f"{PID}.json"
    statuses = []
    gates = []
    for s in range(0, int(2 * CYCLE_S + LEAD_S)):
        at = START + timedelta(seconds=s)
        sim.step(at)
        statuses.append(json.loads(status_file.read_text())["status"])
        if s > CYCLE_S and s % 3 == 0:
            row = _live(board_at(builder, at))
            if row.waiting is not None:
                gates.append((row.waiting.kind, row.waiting.text))
    assert squash(statuses) == ["idle", "busy", "waiting", "busy", "idle", "busy", "waiting", "busy", "idle"]
    assert gates and set(gates) == {("question", demo.JOBS[1].question)}


def test_the_turn_end_is_recorded_so_idle_comes_at_once(home: Path) -> None:
    sim, builder = _demo(home)
    rows = _run(sim, builder, int(CYCLE_S), every=1)
    working = [s for s, r in rows if r.state == "working"]
    last_write = max(r.last_active_at for _, r in rows if r.last_active_at is not None)
    assert working[-1] <= (last_write - START).total_seconds() + 1, "idle the moment the turn ends, not 90 s later"


def test_the_simulate_hook_writes_a_pid_file_the_real_process_table_confirms(home: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("only /proc reports process start times")
    env = demo_env({}, home)
    sim = plugin.simulate(home=home, ctx=make_context(home, env=env, now=START, window_s=None))
    assert sim is not None
    [found] = pidfile.scan(home / ".claude" / "sessions")
    assert found.pid == os.getpid()
    assert pidfile.verify(found, LocalProcesses())


def test_relocated_store_is_written_where_the_plugin_reads_it(home: Path) -> None:
    env = demo_env({}, home) | {"CLAUDE_CONFIG_DIR": str(home / "cfg" / "claude")}
    ClaudeDemo(home, make_context(home, env=env, now=START, window_s=None), process=(PID, PROC_START))
    assert not (home / ".claude").exists()
    assert list((home / "cfg" / "claude" / "projects").glob("*/*.jsonl"))


def test_rotation_retires_the_session_removes_its_pid_file_and_keeps_files_bounded(home: Path) -> None:
    sim, builder = _demo(home, rotate_bytes=1)
    first = sim.live.session_id
    sim.step(START + timedelta(seconds=LEAD_S + 1))
    assert sim.live.session_id != first, "a transcript past the bound is retired at the next turn"
    [found] = pidfile.scan(sim.store.root / "sessions")
    assert found.session_id == sim.live.session_id, "the exited process's pid file is gone; the new one names the new session"
    for cycle in range(1, 8):
        sim.step(START + timedelta(seconds=LEAD_S + cycle * CYCLE_S + 100))
    transcripts = list((sim.store.root / "projects").glob("*/*.jsonl"))
    assert len(transcripts) == 3 + KEEP_RETIRED + 1
    agents = list((sim.store.root / "projects").glob("*/*/subagents/agent-*.jsonl"))
    assert len(agents) <= 1 + KEEP_AGENTS * (KEEP_RETIRED + 1), "the finished session's agent, and each kept session's newest"
    task_files = [p for p in (sim.store.root / "tasks").rglob("*.json")]
    assert len(task_files) <= 3 + 3 * (KEEP_RETIRED + 1)
    board = board_at(builder, START + timedelta(seconds=LEAD_S + 7 * CYCLE_S + 100))
    assert len(board.sessions) == 3 + KEEP_RETIRED + 1
    assert sum(1 for r in board.sessions if r.state != "idle") == 1


def test_a_clock_that_goes_back_writes_nothing_and_a_jump_catches_up_boundedly(home: Path) -> None:
    sim, builder = _demo(home)
    at_prompt = START + timedelta(seconds=LEAD_S + WAIT_AT_S + 5)  # standing at the permission prompt
    assert_going_back_writes_nothing(sim, at_prompt, lambda: snapshot_tree(home))
    size = sim.live.path.stat().st_size
    later = START + timedelta(hours=10, seconds=LEAD_S + 30)
    sim.step(later)
    grown = sim.live.path.stat().st_size - size
    assert 0 < grown < 3 * 40_000, "the turn in hand is finished and the current one begun, nothing between"
    row = _live(board_at(builder, later))
    assert row.state == "working" and row.waiting is None
    lines = [json.loads(line) for line in sim.live.path.read_text().splitlines()]
    stamps = [line["timestamp"] for line in lines if line.get("type") in ("user", "assistant")]
    assert stamps[-1].startswith("2026-11-30T22:00:"), "the current cycle's records carry their own times"
    status = json.loads((sim.store.root / "sessions" / f"{PID}.json").read_text())
    assert status["status"] == "busy"


def _shape(home: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted((home / ".claude" / "projects").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            out.append((str(path.relative_to(home)), f"{record.get('type')}@{record.get('timestamp')}"))
    return out


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    shapes = []
    for name in ("one", "two"):
        home = tmp_path / name / "home"
        home.mkdir(parents=True)
        sim, _ = _demo(home)
        for s in range(0, 400, 3):
            sim.step(START + timedelta(seconds=s))
        shapes.append([(p.replace(name, "x"), r) for p, r in _shape(home)])
    assert shapes[0] == shapes[1]


def test_nothing_is_written_outside_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "neighbour.txt").write_text("untouched")
    outside = {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")}
    sim, _ = _demo(home, rotate_bytes=1)
    for s in range(0, int(3 * CYCLE_S), 5):
        sim.step(START + timedelta(seconds=s))
    assert {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")} == outside


def test_closing_the_demo_exits_the_live_process_and_removes_its_pid_file(home: Path) -> None:
    sim, builder = _demo(home)
    sim.step(START + timedelta(seconds=LEAD_S + 20))
    assert _live(board_at(builder, START + timedelta(seconds=LEAD_S + 20))).state == "working"
    sim.close()
    assert list(pidfile.scan(sim.store.root / "sessions")) == []
