"""The ``cargento --demo`` simulation for Gemini CLI, seen through the board as a viewer sees it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer, squash
from cargento.testing.demo_contract import DemoContract
from cargento_harness_gemini import plugin
from cargento_harness_gemini.demo import CYCLE_S, KEEP_CHATS, GeminiDemo

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DAYS_ON = 3 * 24 * 3600  # a cycle boundary three days on

Viewer = DemoViewer[GeminiDemo]


def _row(viewer: Viewer, board: Board, worker: int = 0) -> BoardSession:
    return viewer.row_of(board, viewer.demo.workers[worker].chat.session_id)


def _tree(home: Path) -> dict[str, tuple[int | None, str]]:
    """Every file below *home*: its content with the home path taken out, and a chat's mtime
    (the project table is stamped by the wall clock, chats by the demo's)."""
    return {
        str(p.relative_to(home)): (
            p.stat().st_mtime_ns if p.suffix == ".jsonl" else None,
            p.read_bytes().replace(str(home).encode(), b"~").decode(),
        )
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


class TestGeminiDemo(DemoContract[GeminiDemo]):
    plugin = plugin
    key = "gemini"
    demo_type = GeminiDemo
    cycle_s = CYCLE_S
    store_folder = ".gemini"
    start = START
    schedule = (3, 17, 40, 41, 95, 150)
    stepwise_s = 200
    outside_s = 400
    jump_from_s = 30  # mid-turn
    jump_to_s = DAYS_ON + 40
    jump_most = 59_999  # bytes: the turn in progress and part of one new turn, not three days of turns
    relocation = ("GEMINI_CLI_HOME", ".gemini")
    rotate_option = "max_bytes"
    rotation_kept = KEEP_CHATS - 1  # the chats it keeps include the live one
    live_sessions = 2
    rotation_at_s = 30

    def live_id(self, viewer: Viewer) -> str:
        return viewer.demo.workers[0].chat.session_id

    def shape(self, viewer: Viewer) -> object:
        return _tree(viewer.home)

    def written(self, viewer: Viewer) -> int:
        return viewer.demo.workers[0].chat.path.stat().st_size

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        row = _row(viewer, board)
        assert row.state == "working"
        assert row.turn is not None and row.turn.elapsed_s < 40
        assert _row(viewer, viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"
        assert _row(viewer, viewer.at(DAYS_ON + CYCLE_S + 20)).state == "working"

    def test_the_start_is_a_realistic_picture(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        board = viewer.at(0)
        assert len(board.sessions) == 5
        assert {s.project for s in board.sessions} == {"acme/api", "acme/web", "tools/cli"}
        assert all(s.state == "idle" for s in board.sessions)
        assert all(s.title and s.model and s.output_tokens_total for s in board.sessions)
        assert all(s.tasks and s.tasks_done == len(s.tasks) for s in board.sessions)
        old = [s for s in board.sessions if s.last_active_at and START - s.last_active_at > timedelta(hours=1)]
        assert len(old) == 3
        assert any(sub.name == "codebase_investigator" and not sub.running for s in old for sub in s.subagents)
        assert (viewer.home / "work" / "acme" / "api").is_dir()
        assert (viewer.home / ".gemini" / "projects.json").is_file()

    def test_a_live_session_runs_a_whole_turn_and_goes_idle_again(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        seen = []
        for second in range(0, int(CYCLE_S), 2):
            seen.append((second, _row(viewer, viewer.at(second))))
        states = [row.state for _, row in seen]
        # idle -> working -> idle, once, within one cycle
        assert squash(states) == ["idle", "working", "idle"]
        working = [row for _, row in seen if row.state == "working"]
        assert all(row.output_tokens_per_min for row in working)
        # the todo list advances: the previous turn's list, then a new one done one by one
        done = [row.tasks_done for row in working]
        assert 0 in done
        fresh = done[done.index(0) :]
        assert fresh == sorted(fresh) and set(fresh) >= {0, 1, 2}
        assert [t.status for t in working[-1].tasks] == ["completed"] * 3
        assert any([t.status for t in row.tasks] == ["completed", "in_progress", "pending"] for row in working)
        # a subagent comes in running, and leaves finished under its agent name
        assert any(sub.running for row in working for sub in row.subagents)
        last = seen[-1][1]
        assert any(sub.name == "codebase_investigator" and not sub.running for sub in last.subagents)
        # the turn end is recorded: idle at once, not after 90 quiet seconds
        at, first_idle = next((second, row) for second, row in seen if second > 10 and row.state == "idle")
        assert first_idle.last_active_at is not None
        assert (START + timedelta(seconds=at) - first_idle.last_active_at).total_seconds() < 90
        assert last.model == "gemini-2.5-pro"

    def test_the_second_live_session_runs_half_a_cycle_later(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        early = [_row(viewer, viewer.at(s), 1).state for s in range(0, int(CYCLE_S / 2), 5)]
        late = [_row(viewer, viewer.at(s), 1).state for s in range(int(CYCLE_S / 2), int(CYCLE_S), 3)]
        assert set(early) == {"idle"}
        assert "working" in late and late[-1] == "idle"

    def test_the_loop_repeats_with_new_prompts(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        prompts = set()
        for second in range(0, int(3 * CYCLE_S), 5):
            row = _row(viewer, viewer.at(second))
            if row.state == "working" and row.instruction:
                prompts.add(row.instruction.text)
        assert len(prompts) == 3

    def test_chats_roll_over_and_old_ones_are_removed(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home", turns_per_chat=1)
        first = viewer.demo.workers[0].chat.path
        ids = set()
        for cycle in range(KEEP_CHATS + 2):
            viewer.at(cycle * CYCLE_S + 30)
            ids.add(viewer.demo.workers[0].chat.session_id)
        assert len(ids) == KEEP_CHATS + 2
        chats = sorted((viewer.home / ".gemini" / "tmp" / "api" / "chats").glob("session-*.jsonl"))
        assert len(chats) == KEEP_CHATS + 1  # this live session's newest chats and the finished one from earlier
        assert not first.exists()
