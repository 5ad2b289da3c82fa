"""The ``cargento --demo`` simulation for Antigravity CLI, seen through the board as a viewer sees it."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardSession
from cargento.demo import demo_env
from cargento.errors import HarnessError
from cargento.readers.sqlite import wal_has_frames
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing
from cargento.testing.homes import make_context, snapshot_tree
from cargento_harness_antigravity import plugin
from cargento_harness_antigravity.demo import CYCLE_S, KEEP_CONVERSATIONS, AntigravityDemo
from cargento_harness_antigravity.fixtures import AntigravityStore, LiveConversation

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Viewer(DemoViewer[AntigravityDemo]):
    """The Antigravity demo in a fresh home, and the board over it."""

    def __init__(self, home: Path, **options: int) -> None:
        super().__init__(home, plugin, "antigravity", lambda h, ctx: AntigravityDemo(h, ctx, **options), start=START)

    def row(self, board: Board, run: int = 0) -> BoardSession:
        return self.row_of(board, self.demo.runs[run].conv.id)


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[Viewer]:
    made = Viewer(tmp_path / "home")
    yield made
    made.demo.close()


def _tree(home: Path) -> dict[str, tuple[int, bytes]]:
    """Every store file below *home*: its mtime and content (the logs with the home path taken out)."""
    out = {}
    for p in sorted(home.rglob("*")):
        if p.is_file() and not p.name.endswith("-shm"):
            out[str(p.relative_to(home))] = (p.stat().st_mtime_ns, p.read_bytes().replace(str(home).encode(), b"~"))
    return out


def test_the_plugin_offers_the_demo(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sim = plugin.simulate(home=home, ctx=make_context(home, env=demo_env({}, home), now=START, window_s=None))
    assert isinstance(sim, AntigravityDemo)
    sim.close()


def test_the_start_is_a_realistic_picture(viewer: Viewer) -> None:
    board = viewer.at(0)
    assert len(board.sessions) == 5
    assert {s.project for s in board.sessions} == {"rota/planner", "rota/mobile", "marketing/site"}
    assert all(s.state == "idle" and s.title and s.model_display and s.output_tokens_total for s in board.sessions)
    old = [s for s in board.sessions if s.last_active_at and START - s.last_active_at > timedelta(hours=1)]
    assert len(old) == 3
    assert any(sub.name == "Research Auditor" and not sub.running for s in old for sub in s.subagents)
    root = viewer.home / ".gemini" / "antigravity-cli"
    # finished runs closed their databases; the live ones hold theirs open with WAL frames
    live = {run.conv.path for run in viewer.demo.runs}
    for db in root.glob("conversations/*.db"):
        assert wal_has_frames(db) == (db in live)
    assert len(list(root.glob("log/cli-*.log"))) == 5
    assert (root / "cache" / "last_conversations.json").is_file()


def test_a_live_conversation_goes_idle_working_idle_in_one_cycle(viewer: Viewer) -> None:
    seconds = range(0, int(CYCLE_S), 3)
    seen = [viewer.row(viewer.at(second)) for second in seconds]
    states = [row.state for row in seen]
    changes = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
    assert changes == ["idle", "working", "idle"]
    working = [row for row in seen if row.state == "working"]
    assert all(row.output_tokens_per_min for row in working)
    assert any(row.detail in {"pnpm test", "pnpm lint", "git diff --stat", "src/lib/schedule.ts",
                              "grep -rn useSchedule src", "src/components"} for row in working)
    # a subagent conversation comes in running and is still listed once it stopped
    assert any(sub.running and sub.name == "Research Auditor" for row in working for sub in row.subagents)
    assert [sub.running for sub in seen[-1].subagents] == [False]
    # no turn end is recorded: idle only once every write is 90 s old
    at, first_idle = next((s, row) for s, row in zip(seconds, seen, strict=True)
                          if s > seconds[states.index("working")] and row.state == "idle")
    assert first_idle.last_active_at is not None
    assert (START + timedelta(seconds=at) - first_idle.last_active_at).total_seconds() > 90
    assert first_idle.title == "Show overlapping shifts in red on the week view"
    assert first_idle.model_display == "Gemini 3 Pro (High)"
    assert not first_idle.tasks and first_idle.waiting is None


def test_the_second_live_conversation_runs_half_a_cycle_later(viewer: Viewer) -> None:
    early = [viewer.row(viewer.at(s), 1).state for s in range(0, int(CYCLE_S / 2), 5)]
    late = [viewer.row(viewer.at(s), 1).state for s in range(int(CYCLE_S / 2), int(CYCLE_S / 2) + 40, 5)]
    assert set(early) == {"idle"}
    assert "working" in late


def test_the_loop_repeats_with_new_prompts(viewer: Viewer) -> None:
    titles = set()
    for second in range(0, int(3 * CYCLE_S), 6):
        row = viewer.row(viewer.at(second))
        if row.state == "working" and row.title:
            titles.add(row.title)
    assert len(titles) == 3


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in (3, 17, 40, 41, 95, 150, 400):
        for viewer in (a, b):
            viewer.step(second)
    for viewer in (a, b):
        viewer.demo.close()
    assert _tree(a.home) == _tree(b.home)


def test_steps_in_one_go_or_second_by_second_write_the_same(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in range(1, 300):
        a.step(second)
    b.step(299)
    for viewer in (a, b):
        viewer.demo.close()
    assert _tree(a.home) == _tree(b.home)


def test_a_clock_going_backwards_writes_nothing(viewer: Viewer) -> None:
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(30), lambda: _tree(viewer.home))


def test_a_clock_jumping_ahead_catches_up_boundedly(viewer: Viewer) -> None:
    viewer.at(20)  # mid-turn
    base = 2 * 24 * 3600  # a cycle boundary two days on
    steps_before = len(viewer.demo.runs[0].conv.steps)
    board = viewer.at(base + 30)
    added = len(viewer.demo.runs[0].conv.steps) - steps_before
    assert 0 < added < 30  # the turn in progress and part of one, not two days of turns
    row = viewer.row(board)
    assert row.state == "working" and row.turn is not None and row.turn.elapsed_s < 30
    assert viewer.row(viewer.at(base + CYCLE_S - 5)).state == "idle"


def test_conversations_roll_over_and_old_ones_are_removed(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home", turns_per_conversation=1)
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


def test_a_conversation_past_the_size_limit_rolls_over(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home", max_bytes=1)
    before = viewer.demo.runs[0].conv.id
    viewer.at(20)
    assert viewer.demo.runs[0].conv.id != before
    big = Viewer(tmp_path / "big")
    before = big.demo.runs[0].conv.id
    big.at(20)
    assert big.demo.runs[0].conv.id == before
    viewer.demo.close()
    big.demo.close()


def test_nothing_is_written_outside_the_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "beside").mkdir()
    outside = snapshot_tree(tmp_path)

    def no_scratch(*_a: Any, **_k: Any) -> str:
        raise AssertionError("the demo made a scratch directory outside its home")

    monkeypatch.setattr(tempfile, "mkdtemp", no_scratch)
    home = tmp_path / "home"
    home.mkdir()
    demo = AntigravityDemo(home, make_context(home, env=demo_env({}, home), now=START, window_s=None))
    for second in range(0, 500, 7):
        demo.step(START + timedelta(seconds=second))
    demo.close()
    after = {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")}
    assert after == outside


def test_a_store_resolving_outside_the_home_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**demo_env({}, home), "GEMINI_CLI_HOME": str(tmp_path / "elsewhere")}
    with pytest.raises(HarnessError):
        AntigravityDemo(home, make_context(home, env=env, now=START, window_s=None))
    assert not (tmp_path / "elsewhere").exists()


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
