"""The ``cargento --demo`` simulation: what a board over the demo home shows as it is stepped."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from cargento.board import Board, BoardBuilder, BoardSession
from cargento.demo import demo_env
from cargento.models import HarnessContext
from cargento.plugins import load_registry
from cargento.processes import LocalProcesses, ProcessInfo, ProcessTable, StaticProcesses
from cargento.testing import make_context
from cargento.testing.demo import DemoViewer, board_at, squash
from cargento.testing.demo_contract import DemoContract
from cargento_harness_claude import demo, pidfile, plugin
from cargento_harness_claude.demo import CYCLE_S, EXITED_PID, KEEP_AGENTS, KEEP_RETIRED, LEAD_S, WAIT_AT_S, ClaudeDemo
from cargento_harness_claude.stuck import Showroom

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
PID = 4242
PROC_START = START - timedelta(minutes=30)
LIVE_TITLE = "Orders API work"
LATER = 10 * 3600 + LEAD_S + 30  # ten hours on, mid-turn

Viewer = DemoViewer[ClaudeDemo]


def _live(board: Board) -> BoardSession:
    [row] = [r for r in board.sessions if r.title == LIVE_TITLE]
    return row


def _run(viewer: Viewer, seconds: int, every: int = 2) -> list[tuple[float, BoardSession]]:
    rows = []
    for s in range(0, seconds + 1):
        viewer.step(s)
        if s % every == 0:
            rows.append((float(s), _live(viewer.at(s))))
    return rows


class TestClaudeDemo(DemoContract[ClaudeDemo]):
    plugin = plugin
    key = "claude"
    demo_type = ClaudeDemo
    offered_type = Showroom
    cycle_s = CYCLE_S
    store_folder = ".claude"
    start = START
    schedule = tuple(range(0, 400, 3))
    outside_options: ClassVar[Mapping[str, int]] = {"rotate_bytes": 1}
    back_at_s = LEAD_S + WAIT_AT_S + 5  # standing at the permission prompt
    jump_from_s = LEAD_S + WAIT_AT_S + 5
    jump_to_s = LATER
    jump_most = 3 * 40_000 - 1
    rotate_option = "rotate_bytes"
    rotation_kept = KEEP_RETIRED
    rotation_at_s = LEAD_S + 100

    def live_id(self, viewer: Viewer) -> str:
        return viewer.demo.live.session_id

    relocation = ("CLAUDE_CONFIG_DIR", ".claude")

    def make_demo(self, home: Path, ctx: HarnessContext, **options: Any) -> ClaudeDemo:
        return ClaudeDemo(home, ctx, process=(PID, PROC_START), **options)

    def processes(self) -> ProcessTable:
        return StaticProcesses({PID: ProcessInfo(pid=PID, started_at=PROC_START.timestamp())})

    def shape(self, viewer: Viewer) -> object:
        home = viewer.home
        slug = "".join(
            c if c.isascii() and c.isalnum() else "-" for c in str(home)
        )  # the project folders name the home
        out = []
        for path in sorted((home / ".claude" / "projects").rglob("*.jsonl")):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                out.append(
                    (str(path.relative_to(home)).replace(slug, "~"), f"{record.get('type')}@{record.get('timestamp')}")
                )
        return out

    def written(self, viewer: Viewer) -> int:
        """The live transcript's bytes: the turn in hand finished and the current one begun."""
        return viewer.demo.live.path.stat().st_size

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        row = _live(board)
        assert row.state == "working" and row.waiting is None
        sim = viewer.demo
        lines = [json.loads(line) for line in sim.live.path.read_text().splitlines()]
        stamps = [line["timestamp"] for line in lines if line.get("type") in ("user", "assistant")]
        assert stamps[-1].startswith("2026-11-30T22:00:"), "the current cycle's records carry their own times"
        status = json.loads((sim.store.root / "sessions" / f"{PID}.json").read_text())
        assert status["status"] == "busy"

    def test_the_start_picture_has_finished_sessions_in_three_projects_and_an_idle_live_one(
        self, tmp_path: Path
    ) -> None:
        viewer = self.viewer(tmp_path / "home")
        board = viewer.at(0)
        rows = {r.title: r for r in board.sessions}
        assert set(rows) == {
            LIVE_TITLE,
            "Postgres driver bump",
            "Settings page on the form kit",
            "Duplicate --verbose output",
        }
        assert {r.project for r in board.sessions} == {"acme/api", "acme/web", "tools/cli"}
        assert all(r.state == "idle" for r in board.sessions)
        settings = rows["Settings page on the form kit"]
        assert [t.status for t in settings.tasks] == ["completed"] * 3
        assert (
            settings.model == "claude-opus-5-5" and settings.output_tokens_total and settings.output_tokens_total > 2000
        )
        assert [(a.name, a.running) for a in rows["Duplicate --verbose output"].subagents] == [
            ("Trace the logging setup", False)
        ]
        for row in board.sessions:
            assert row.cwd is not None and Path(row.cwd).is_dir()
            assert row.last_active_at is not None and row.last_active_at <= START

    def test_a_cycle_goes_idle_working_waiting_working_idle_with_tasks_tokens_and_a_subagent(
        self, tmp_path: Path
    ) -> None:
        rows = _run(self.viewer(tmp_path / "home"), int(CYCLE_S) + int(LEAD_S))
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

    def test_the_next_cycle_asks_a_question_and_the_pid_file_tracks_the_status(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        status_file = viewer.demo.store.root / "sessions" / f"{PID}.json"
        statuses = []
        gates = []
        for s in range(0, int(2 * CYCLE_S + LEAD_S)):
            viewer.step(s)
            statuses.append(json.loads(status_file.read_text())["status"])
            if s > CYCLE_S and s % 3 == 0:
                row = _live(viewer.at(s))
                if row.waiting is not None:
                    gates.append((row.waiting.kind, row.waiting.text))
        assert squash(statuses) == ["idle", "busy", "waiting", "busy", "idle", "busy", "waiting", "busy", "idle"]
        assert gates and set(gates) == {("question", demo.JOBS[1].question)}

    def test_the_turn_end_is_recorded_so_idle_comes_at_once(self, tmp_path: Path) -> None:
        rows = _run(self.viewer(tmp_path / "home"), int(CYCLE_S), every=1)
        working = [s for s, r in rows if r.state == "working"]
        last_write = max(r.last_active_at for _, r in rows if r.last_active_at is not None)
        assert working[-1] <= (last_write - START).total_seconds() + 1, "idle the moment the turn ends, not 90 s later"

    def test_the_simulate_hook_writes_a_pid_file_the_real_process_table_confirms(self, tmp_path: Path) -> None:
        if not sys.platform.startswith("linux"):
            pytest.skip("only /proc reports process start times")
        home = tmp_path / "home"
        home.mkdir()
        sim = plugin.simulate(home=home, ctx=make_context(home, env=demo_env({}, home), now=START, window_s=None))
        assert sim is not None
        [found] = [p for p in pidfile.scan(home / ".claude" / "sessions") if p.pid != EXITED_PID]
        assert found.pid == os.getpid()
        assert pidfile.verify(found, LocalProcesses())

    def test_rotation_retires_the_session_removes_its_pid_file_and_keeps_files_bounded(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home", rotate_bytes=1)
        viewer.step(0)
        sim = viewer.demo
        first = sim.live.session_id
        viewer.step(LEAD_S + 1)
        assert sim.live.session_id != first, "a transcript past the bound is retired at the next turn"
        [found] = [p for p in pidfile.scan(sim.store.root / "sessions") if p.pid != EXITED_PID]
        assert found.session_id == sim.live.session_id, (
            "the exited process's pid file is gone; the new one names the new session"
        )
        for cycle in range(1, 8):
            viewer.step(LEAD_S + cycle * CYCLE_S + 100)
        transcripts = list((sim.store.root / "projects").glob("*/*.jsonl"))
        assert len(transcripts) == 3 + KEEP_RETIRED + 1
        agents = list((sim.store.root / "projects").glob("*/*/subagents/agent-*.jsonl"))
        assert len(agents) <= 1 + KEEP_AGENTS * (KEEP_RETIRED + 1), (
            "the finished session's agent, and each kept session's newest"
        )
        task_files = [p for p in (sim.store.root / "tasks").rglob("*.json")]
        assert len(task_files) <= 3 + 3 * (KEEP_RETIRED + 1)
        board = board_at(viewer.builder, viewer.moment(LEAD_S + 7 * CYCLE_S + 100))
        assert len(board.sessions) == 3 + KEEP_RETIRED + 1
        assert sum(1 for r in board.sessions if r.state != "idle") == 1

    def test_closing_the_demo_exits_the_live_process_and_removes_its_pid_file(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        assert _live(viewer.at(LEAD_S + 20)).state == "working"
        viewer.demo.close()
        assert [p.pid for p in pidfile.scan(viewer.demo.store.root / "sessions")] == [EXITED_PID], (
            "the live process's pid file is gone; the one an earlier killed process left stays"
        )


def test_the_demo_shows_a_wait_overruled_because_its_process_exited(tmp_path: Path) -> None:
    """The Postgres session's terminal was killed at a prompt: its pid file still says waiting,
    the process table says that process is gone, and the row's evidence names both sides."""
    home = tmp_path / "home"
    home.mkdir()
    sim = plugin.simulate(home=home, ctx=make_context(home, env=demo_env({}, home), now=START, window_s=None))
    assert sim is not None
    registry = load_registry(entry_points=False, extra=[("claude", plugin)])
    builder = BoardBuilder(registry, env=demo_env({}, home), home=home, clock=lambda: START, processes=LocalProcesses())
    [row] = [s for s in builder.build(all_sessions=True).sessions if s.title == "Postgres driver bump"]
    assert row.state == "idle" and row.waiting is None
    [overrule] = [e for e in row.evidence if e.overruled is not None]
    assert overrule.reading == "wait" and overrule.signal == "process table"
    assert overrule.overruled is not None and overrule.overruled.signal == "store record"
    assert "waiting (permission prompt)" in overrule.overruled.said
    assert overrule.overruled.source.startswith("~/.claude/sessions/")
