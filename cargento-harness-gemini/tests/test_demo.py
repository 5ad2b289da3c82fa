"""The ``cargento --demo`` simulation for Gemini CLI, seen through the board as a viewer sees it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import Board, BoardSession
from cargento.demo import demo_env
from cargento.errors import HarnessError
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing, squash
from cargento.testing.homes import make_context, snapshot_tree
from cargento_harness_gemini import plugin
from cargento_harness_gemini.demo import CYCLE_S, KEEP_CHATS, GeminiDemo

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Viewer(DemoViewer[GeminiDemo]):
    """The Gemini demo in a fresh home, and the board over it."""

    def __init__(self, home: Path, **options: int) -> None:
        super().__init__(home, plugin, "gemini", lambda h, ctx: GeminiDemo(h, ctx, **options), start=START)

    def row(self, board: Board, worker: int = 0) -> BoardSession:
        return self.row_of(board, self.demo.workers[worker].chat.session_id)


def test_the_plugin_offers_the_demo(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sim = plugin.simulate(home=home, ctx=make_context(home, env=demo_env({}, home), now=START, window_s=None))
    assert isinstance(sim, GeminiDemo)


def test_the_start_is_a_realistic_picture(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
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


def test_a_live_session_runs_a_whole_turn_and_goes_idle_again(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    seen = []
    for second in range(0, int(CYCLE_S), 2):
        seen.append((second, viewer.row(viewer.at(second))))
    states = [row.state for _, row in seen]
    # idle -> working -> idle, once, within one cycle
    assert squash(states) == ["idle", "working", "idle"]
    working = [row for _, row in seen if row.state == "working"]
    assert all(row.output_tokens_per_min for row in working)
    # the todo list advances: the previous turn's list, then a new one done one by one
    done = [row.tasks_done for row in working]
    assert 0 in done
    fresh = done[done.index(0):]
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


def test_the_second_live_session_runs_half_a_cycle_later(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    early = [viewer.row(viewer.at(s), 1).state for s in range(0, int(CYCLE_S / 2), 5)]
    late = [viewer.row(viewer.at(s), 1).state for s in range(int(CYCLE_S / 2), int(CYCLE_S), 3)]
    assert set(early) == {"idle"}
    assert "working" in late and late[-1] == "idle"


def test_the_loop_repeats_with_new_prompts(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    prompts = set()
    for second in range(0, int(3 * CYCLE_S), 5):
        row = viewer.row(viewer.at(second))
        if row.state == "working" and row.instruction:
            prompts.add(row.instruction.text)
    assert len(prompts) == 3


def _tree(home: Path) -> dict[str, tuple[int | None, str]]:
    """Every file below *home*: its content with the home path taken out, and a chat's mtime
    (the project table is stamped by the wall clock, chats by the demo's)."""
    return {
        str(p.relative_to(home)): (p.stat().st_mtime_ns if p.suffix == ".jsonl" else None,
                                   p.read_bytes().replace(str(home).encode(), b"~").decode())
        for p in sorted(home.rglob("*")) if p.is_file()
    }


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in (3, 17, 40, 41, 95, 150):
        for viewer in (a, b):
            viewer.step(second)
    assert _tree(a.home) == _tree(b.home)


def test_steps_in_one_go_or_second_by_second_write_the_same(tmp_path: Path) -> None:
    a, b = Viewer(tmp_path / "a"), Viewer(tmp_path / "b")
    for second in range(1, 200):
        a.step(second)
    b.demo.step(START + timedelta(seconds=199))
    assert _tree(a.home) == _tree(b.home)


def test_a_clock_going_backwards_writes_nothing(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(50), lambda: _tree(viewer.home))


def test_a_clock_jumping_ahead_catches_up_boundedly(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home")
    viewer.at(30)  # mid-turn
    chat = viewer.demo.workers[0].chat.path
    size = chat.stat().st_size
    base = 3 * 24 * 3600  # a cycle boundary three days on
    board = viewer.at(base + 40)
    grown = chat.stat().st_size - size
    assert 0 < grown < 60_000  # the turn in progress and part of one new turn, not three days of turns
    row = viewer.row(board)
    assert row.state == "working"
    assert row.turn is not None and row.turn.elapsed_s < 40
    assert viewer.row(viewer.at(base + CYCLE_S - 5)).state == "idle"
    assert viewer.row(viewer.at(base + CYCLE_S + 20)).state == "working"


def test_chats_roll_over_and_old_ones_are_removed(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home", turns_per_chat=1)
    first = viewer.demo.workers[0].chat.path
    ids = set()
    for cycle in range(KEEP_CHATS + 2):
        viewer.at(cycle * CYCLE_S + 30)
        ids.add(viewer.demo.workers[0].chat.session_id)
    assert len(ids) == KEEP_CHATS + 2
    chats = sorted((viewer.home / ".gemini" / "tmp" / "api" / "chats").glob("session-*.jsonl"))
    assert len(chats) == KEEP_CHATS + 1  # this live session's newest chats and the finished one from earlier
    assert not first.exists()


def test_a_chat_past_the_size_limit_rolls_over(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home", max_bytes=1)
    before = viewer.demo.workers[0].chat.session_id
    viewer.at(30)
    assert viewer.demo.workers[0].chat.session_id != before
    big = Viewer(tmp_path / "big")
    before = big.demo.workers[0].chat.session_id
    big.at(30)
    assert big.demo.workers[0].chat.session_id == before


def test_nothing_is_written_outside_the_home(tmp_path: Path) -> None:
    (tmp_path / "beside").mkdir()
    outside = {k: v for k, v in snapshot_tree(tmp_path).items()}
    viewer = Viewer(tmp_path / "home")
    for second in range(0, 400, 7):
        viewer.step(second)
    after = {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")}
    assert after == outside


def test_the_store_follows_the_relocation_variable_inside_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**demo_env({}, home), "GEMINI_CLI_HOME": str(home / "gcli")}
    GeminiDemo(home, make_context(home, env=env, now=START, window_s=None))
    assert list((home / "gcli" / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
    assert not (home / ".gemini").exists()


def test_a_store_resolving_outside_the_home_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**demo_env({}, home), "GEMINI_CLI_HOME": str(tmp_path / "elsewhere")}
    with pytest.raises(HarnessError):
        GeminiDemo(home, make_context(home, env=env, now=START, window_s=None))
    assert not (tmp_path / "elsewhere").exists()
