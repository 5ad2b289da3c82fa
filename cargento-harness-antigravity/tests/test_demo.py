"""The ``cargento --demo`` simulation for Antigravity CLI, seen through the board as a viewer sees it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import Board, BoardSession
from cargento.readers.sqlite import wal_has_frames
from cargento.testing.demo import DemoViewer, squash
from cargento.testing.demo_contract import DemoContract
from cargento.testing.homes import make_context
from cargento_harness_antigravity import plugin
from cargento_harness_antigravity.demo import CYCLE_S, KEEP_CONVERSATIONS, AntigravityDemo
from cargento_harness_antigravity.fixtures import AntigravityStore, LiveConversation

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
DAYS_ON = 2 * 24 * 3600  # a cycle boundary two days on

Viewer = DemoViewer[AntigravityDemo]


def _row(viewer: Viewer, board: Board, run: int = 0) -> BoardSession:
    return viewer.row_of(board, viewer.demo.runs[run].conv.id)


class TestAntigravityDemo(DemoContract[AntigravityDemo]):
    plugin = plugin
    key = "antigravity"
    demo_type = AntigravityDemo
    cycle_s = CYCLE_S
    start = START
    stepwise_s = 300
    outside_s = 500
    back_at_s = 30
    jump_from_s = 20  # mid-turn
    jump_to_s = DAYS_ON + 30
    jump_most = 29  # steps: the turn in progress and part of one, not two days of turns
    store_folder = ".gemini/antigravity-cli"
    relocation = ("GEMINI_CLI_HOME", ".gemini")
    rotate_option = "max_bytes"
    rotation_kept = KEEP_CONVERSATIONS - 1  # the conversations it keeps include the live one
    live_sessions = 2

    def live_id(self, viewer: Viewer) -> str:
        return viewer.demo.runs[0].conv.id

    def written(self, viewer: Viewer) -> int:
        return len(viewer.demo.runs[0].conv.steps)

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        row = _row(viewer, board)
        assert row.state == "working" and row.turn is not None and row.turn.elapsed_s < 30
        assert _row(viewer, viewer.at(DAYS_ON + CYCLE_S - 5)).state == "idle"

    @pytest.fixture
    def live(self, tmp_path: Path) -> Iterator[Viewer]:
        """A fresh demo, closed after the test as an exiting CLI closes its databases."""
        made = self.viewer(tmp_path / "home")
        yield made
        made.demo.close()

    def test_the_start_is_a_realistic_picture(self, live: Viewer) -> None:
        board = live.at(0)
        assert len(board.sessions) == 5
        assert {s.project for s in board.sessions} == {"rota/planner", "rota/mobile", "marketing/site"}
        assert all(s.state == "idle" and s.title and s.model_display and s.output_tokens_total for s in board.sessions)
        old = [s for s in board.sessions if s.last_active_at and START - s.last_active_at > timedelta(hours=1)]
        assert len(old) == 3
        assert any(sub.name == "Research Auditor" and not sub.running for s in old for sub in s.subagents)
        root = live.home / ".gemini" / "antigravity-cli"
        # finished runs closed their databases; the live ones hold theirs open with WAL frames
        held = {run.conv.path for run in live.demo.runs}
        for db in root.glob("conversations/*.db"):
            assert wal_has_frames(db) == (db in held)
        assert len(list(root.glob("log/cli-*.log"))) == 5
        assert (root / "cache" / "last_conversations.json").is_file()

    def test_a_live_conversation_goes_idle_working_idle_in_one_cycle(self, live: Viewer) -> None:
        seconds = range(0, int(CYCLE_S), 3)
        seen = [_row(live, live.at(second)) for second in seconds]
        states = [row.state for row in seen]
        assert squash(states) == ["idle", "working", "idle"]
        working = [row for row in seen if row.state == "working"]
        assert all(row.output_tokens_per_min for row in working)
        assert any(
            row.detail
            in {
                "pnpm test",
                "pnpm lint",
                "git diff --stat",
                "src/lib/schedule.ts",
                "grep -rn useSchedule src",
                "src/components",
            }
            for row in working
        )
        # a subagent conversation comes in running and is still listed once it stopped
        assert any(sub.running and sub.name == "Research Auditor" for row in working for sub in row.subagents)
        assert [sub.running for sub in seen[-1].subagents] == [False]
        # no turn end is recorded: idle only once every write is 90 s old
        at, first_idle = next(
            (s, row)
            for s, row in zip(seconds, seen, strict=True)
            if s > seconds[states.index("working")] and row.state == "idle"
        )
        assert first_idle.last_active_at is not None
        assert (START + timedelta(seconds=at) - first_idle.last_active_at).total_seconds() > 90
        assert first_idle.title == "Show overlapping shifts in red on the week view"
        assert first_idle.model_display == "Gemini 3 Pro (High)"
        assert not first_idle.tasks and first_idle.waiting is None

    def test_the_second_live_conversation_runs_half_a_cycle_later(self, live: Viewer) -> None:
        early = [_row(live, live.at(s), 1).state for s in range(0, int(CYCLE_S / 2), 5)]
        late = [_row(live, live.at(s), 1).state for s in range(int(CYCLE_S / 2), int(CYCLE_S / 2) + 40, 5)]
        assert set(early) == {"idle"}
        assert "working" in late

    def test_the_loop_repeats_with_new_prompts(self, live: Viewer) -> None:
        titles = set()
        for second in range(0, int(3 * CYCLE_S), 6):
            row = _row(live, live.at(second))
            if row.state == "working" and row.title:
                titles.add(row.title)
        assert len(titles) == 3

    def test_conversations_roll_over_and_old_ones_are_removed(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home", turns_per_conversation=1)
        first = viewer.demo.runs[0].conv.path
        ids = set()
        for cycle in range(KEEP_CONVERSATIONS + 2):
            viewer.at(cycle * CYCLE_S + 20)
            ids.add(viewer.demo.runs[0].conv.id)
        viewer.demo.close()
        assert len(ids) == KEEP_CONVERSATIONS + 2
        assert not first.exists() and not Path(str(first) + "-wal").exists()
        # a closed conversation was checkpointed: no WAL left beside it
        kept = [conv for conv, _ in viewer.demo.runs[0].kept]
        assert len(kept) == KEEP_CONVERSATIONS and not any(wal_has_frames(c.path) for c in kept)


def test_a_live_conversation_reads_while_its_writer_holds_it_open(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    store.start_cli(["/w/proj"], START)
    conv = store.conversation("4c1d0000-0000-4000-8000-0000000000aa", at=START, workspace="/w/proj", live=True)
    assert isinstance(conv, LiveConversation)
    conv.prompt("show open issues", at=START + timedelta(seconds=1))
    conv.respond(at=START + timedelta(seconds=5), output_tokens=120)
    conv.tool("Ran gh issue list", "gh issue list", at=START + timedelta(seconds=8))
    assert wal_has_frames(conv.path)
    ctx = make_context(tmp_path, now=START + timedelta(seconds=10))
    ref = plugin.discover(ctx=ctx).sessions[0]
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None and reading.last_tool == "gh issue list" and reading.cwd == "/w/proj"
    usage = plugin.usage(reading=reading, ctx=ctx)
    assert usage is not None and usage.output_tokens_total == 120
    conv.respond(at=START + timedelta(seconds=12), output_tokens=30)
    later = make_context(tmp_path, now=START + timedelta(seconds=13))
    again = plugin.read_session(ref=plugin.discover(ctx=later).sessions[0], ctx=later)
    assert again is not None
    usage = plugin.usage(reading=again, ctx=later)
    assert usage is not None and usage.output_tokens_total == 150
    conv.close(START + timedelta(seconds=20))
    assert not Path(str(conv.path) + "-wal").exists()
    assert conv.path.stat().st_mtime == (START + timedelta(seconds=20)).timestamp()
