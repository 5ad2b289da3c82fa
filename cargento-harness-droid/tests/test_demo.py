"""The ``cargento --demo`` simulation for Factory Droid, seen through the board as a viewer sees it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer, squash
from cargento.testing.demo_contract import DemoContract
from cargento_harness_droid import plugin
from cargento_harness_droid.demo import CYCLE_S, KEEP_SESSIONS, DroidDemo
from cargento_harness_droid.fixtures import slugify

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DAYS_ON = 2 * 24 * 3600  # a cycle boundary two days on

Viewer = DemoViewer[DroidDemo]


def _row(viewer: Viewer, board: Board, worker: int = 0) -> BoardSession:
    return viewer.row_of(board, viewer.demo.workers[worker].session.session_id)


def _tree(home: Path) -> dict[str, tuple[int, str]]:
    """Every file below *home*: its mtime and its content with the home path taken out."""
    return {
        str(p.relative_to(home)).replace(slugify(str(home)), "~"): (
            p.stat().st_mtime_ns,
            p.read_bytes().replace(str(home).encode(), b"~").decode(),
        )
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


class TestDroidDemo(DemoContract[DroidDemo]):
    plugin = plugin
    key = "droid"
    demo_type = DroidDemo
    cycle_s = CYCLE_S
    store_folder = ".factory"
    start = START
    stepwise_s = 300
    outside_s = 500
    back_at_s = 30
    jump_from_s = 20  # mid-turn
    jump_to_s = DAYS_ON + 30
    jump_most = 19_999  # bytes: the turn in progress and part of one, not two days
    rotate_option = "max_bytes"
    rotation_kept = KEEP_SESSIONS - 1  # the sessions it keeps include the live one
    live_sessions = 2

    def live_id(self, viewer: Viewer) -> str:
        return viewer.demo.workers[0].session.session_id

    def shape(self, viewer: Viewer) -> object:
        return _tree(viewer.home)

    def written(self, viewer: Viewer) -> int:
        return viewer.demo.workers[0].session.path.stat().st_size

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        row = _row(viewer, board)
        assert row.state == "working" and row.turn is not None and row.turn.elapsed_s < 30
        assert _row(viewer, viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"

    def test_the_start_is_a_realistic_picture(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        board = viewer.at(0)
        assert len(board.sessions) == 5
        assert {s.project for s in board.sessions} == {"shop/storefront", "shop/infra", "oss/docs"}
        assert all(s.state == "idle" and s.title and s.instruction for s in board.sessions)
        old = [s for s in board.sessions if s.last_active_at and START - s.last_active_at > timedelta(hours=1)]
        assert len(old) == 3
        # the Droid 0.202.0 layout, with the settings file Droid keeps beside each session
        files = sorted((viewer.home / ".factory" / "sessions").glob("*/*.jsonl"))
        assert len(files) == 5
        cwds = [viewer.home / "work" / p for p in ("shop/storefront", "shop/infra", "oss/docs")]
        assert {f.parent.name for f in files} == {slugify(str(c)) for c in cwds}
        settings = json.loads(files[0].with_name(files[0].stem + ".settings.json").read_text())
        assert settings["tokenUsage"]["outputTokens"] > 0
        assert (viewer.home / "work" / "shop" / "storefront").is_dir()

    def test_a_live_session_goes_idle_working_idle_in_one_cycle(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        seconds = range(0, int(CYCLE_S), 3)
        seen = [_row(viewer, viewer.at(second)) for second in seconds]
        states = [row.state for row in seen]
        assert squash(states) == ["idle", "working", "idle"]
        working = [row for row in seen if row.state == "working"]
        assert {row.detail for row in working} >= {"thinking"}
        assert any(row.detail in {"Read", "Grep", "Glob", "LS", "Edit", "Execute"} for row in working)
        # Droid records no turn end: the row reads working until its records are 90 s old
        at, first_idle = next(
            (s, row)
            for s, row in zip(seconds, seen, strict=True)
            if s > seconds[states.index("working")] and row.state == "idle"
        )
        assert first_idle.last_active_at is not None
        assert (START + timedelta(seconds=at) - first_idle.last_active_at).total_seconds() > 90
        assert all(row.read_by_scanning for row in seen)

    def test_what_the_store_cannot_tell_stays_absent(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        for second in (20, 40):
            row = _row(viewer, viewer.at(second))
            assert row.state == "working"
            assert row.output_tokens_per_min is None  # unmeasured, never a fake zero
            assert row.model is None and not row.tasks and not row.subagents and row.waiting is None

    def test_the_second_live_session_runs_half_a_cycle_later(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        early = [_row(viewer, viewer.at(s), 1).state for s in range(0, int(CYCLE_S / 2), 5)]
        late = [_row(viewer, viewer.at(s), 1).state for s in range(int(CYCLE_S / 2), int(CYCLE_S / 2) + 40, 5)]
        assert set(early) == {"idle"}
        assert "working" in late

    def test_the_loop_repeats_with_new_prompts(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        prompts = set()
        for second in range(0, int(3 * CYCLE_S), 6):
            row = _row(viewer, viewer.at(second))
            if row.state == "working" and row.instruction:
                prompts.add(row.instruction.text)
        assert len(prompts) == 3

    def test_sessions_roll_over_and_old_ones_are_removed(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home", turns_per_session=1)
        first = viewer.demo.workers[0].session.path
        ids = set()
        for cycle in range(KEEP_SESSIONS + 2):
            viewer.at(cycle * CYCLE_S + 20)
            ids.add(viewer.demo.workers[0].session.session_id)
        assert len(ids) == KEEP_SESSIONS + 2
        assert not first.exists() and not first.with_name(first.stem + ".settings.json").exists()
        folder = first.parent
        assert len(list(folder.glob("*.jsonl"))) == KEEP_SESSIONS + 1  # and the finished one from earlier
