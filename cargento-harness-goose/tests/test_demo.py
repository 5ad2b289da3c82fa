"""The ``cargento --demo`` simulation: what a board over the demo home shows as it is stepped."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardBuilder
from cargento.demo import demo_env
from cargento.testing import snapshot_tree
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing, board_at, squash
from cargento_harness_goose import plugin
from cargento_harness_goose.demo import CYCLE_S, JOBS, KEEP_AGENTS, KEEP_RETIRED, LEAD_S, LIVE_TITLE, GooseDemo

START = datetime(2031, 6, 1, 12, 0, 0, tzinfo=UTC)


def _demo(home: Path, env: dict[str, str] | None = None, **kw: Any) -> tuple[GooseDemo, BoardBuilder]:
    viewer = DemoViewer(home, plugin, "goose", lambda h, ctx: GooseDemo(h, ctx, **kw), start=START, env=env or None)
    viewer.step(0)
    return viewer.demo, viewer.builder


def _live(board: Board, sim: GooseDemo) -> Any:
    [row] = [r for r in board.sessions if r.session_id == sim.live.id]
    return row


def _count(db: Path, sql: str) -> int:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (n,) = conn.execute(sql).fetchone()
    assert isinstance(n, int)
    return n


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def test_the_start_picture_has_finished_sessions_in_two_projects_and_an_idle_live_one(home: Path) -> None:
    sim, builder = _demo(home)
    assert sim.store.path == home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    board = board_at(builder, START)
    rows = {r.title: r for r in board.sessions}
    assert set(rows) == {LIVE_TITLE, "Release notes for 0.9", "Explain the auth middleware"}
    assert {r.project for r in board.sessions} == {"tools/cli", "acme/api"}
    assert all(r.state == "idle" and r.waiting is None for r in board.sessions)
    assert [(a.name, a.running) for a in rows["Explain the auth middleware"].subagents] == [("route table survey", False)]
    assert rows["Release notes for 0.9"].output_tokens_total == sum(180 + 20 * n for n in range(1, 6))


def test_a_cycle_goes_idle_working_idle_with_tokens_and_a_subagent(home: Path) -> None:
    sim, builder = _demo(home)
    rows = []
    for s in range(0, int(CYCLE_S + LEAD_S)):
        at = START + timedelta(seconds=s)
        sim.step(at)
        if s % 2 == 0:
            rows.append((s, _live(board_at(builder, at), sim)))
    assert squash([r.state for _, r in rows]) == ["idle", "working", "idle"]
    assert all(r.waiting is None for _, r in rows), "Goose records no waits; none is simulated"
    working = [r for s, r in rows if r.state == "working" and s > LEAD_S + 4]
    assert all(r.output_tokens_per_min for r in working), "ledger rows stream while the session works"
    pills = [[(p.name, p.running) for p in r.subagents] for _, r in rows]
    agent = JOBS[0].agent
    assert pills[0] == [] and [(agent, True)] in pills and pills[-1] == [(agent, False)]
    assert {"thinking", "developer · shell", f"running 1 subagent: {agent}"} <= {r.detail for _, r in rows}
    idle = [s for s, r in rows if r.state == "idle" and s > LEAD_S]
    assert len(idle) >= 10, "the quiet tail is long enough to read idle for a while"


def test_the_database_is_written_where_the_plugin_looks_for_it(home: Path) -> None:
    env = demo_env({}, home) | {"XDG_DATA_HOME": str(home / "data")}
    sim, builder = _demo(home, env)
    assert sim.store.path == home / "data" / "goose" / "sessions" / "sessions.db"
    assert not (home / ".local").exists()
    assert len(board_at(builder, START).sessions) == 3


def test_rotation_keeps_the_database_bounded(home: Path) -> None:
    sim, builder = _demo(home, rotate_messages=1)
    first = sim.live.id
    sim.step(START + timedelta(seconds=LEAD_S + 1))
    assert sim.live.id != first
    for cycle in range(1, 8):
        sim.step(START + timedelta(seconds=LEAD_S + cycle * CYCLE_S + 20))
    db = sim.store.path
    assert _count(db, "SELECT count(*) FROM sessions") <= 3 + KEEP_RETIRED + 1 + KEEP_AGENTS
    kept = _count(db, "SELECT count(*) FROM sessions")
    assert _count(db, "SELECT count(DISTINCT session_id) FROM messages") == kept
    assert _count(db, "SELECT count(*) FROM usage_ledger WHERE session_id NOT IN (SELECT id FROM sessions)") == 0
    board = board_at(builder, START + timedelta(seconds=LEAD_S + 7 * CYCLE_S + 20))
    assert len(board.sessions) == 2 + KEEP_RETIRED + 1
    live = _live(board, sim)
    assert live.title == LIVE_TITLE and live.state == "working"


def test_a_clock_that_goes_back_writes_nothing_and_a_jump_catches_up_boundedly(home: Path) -> None:
    sim, builder = _demo(home)
    db = sim.store.path

    def rows() -> tuple[int, int]:
        return _count(db, "SELECT count(*) FROM messages"), _count(db, "SELECT count(*) FROM usage_ledger")

    assert_going_back_writes_nothing(sim, START + timedelta(seconds=LEAD_S + 20), rows)
    before = rows()
    later = START + timedelta(hours=10, seconds=LEAD_S + 20)
    sim.step(later)
    grown = _count(db, "SELECT count(*) FROM messages") - before[0]
    assert 0 < grown < 40, "the exchange in hand is finished and the current one begun, nothing between"
    row = _live(board_at(builder, later), sim)
    assert row.state == "working" and row.output_tokens_per_min


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    shapes = []
    for name in ("one", "two"):
        home = tmp_path / name / "home"
        home.mkdir(parents=True)
        sim, _ = _demo(home)
        for s in range(0, 400, 3):
            sim.step(START + timedelta(seconds=s))
        with closing(sqlite3.connect(f"file:{sim.store.path}?mode=ro", uri=True)) as conn:
            shapes.append(
                conn.execute("SELECT session_id, role, content_json, created_timestamp FROM messages ORDER BY id").fetchall()
                + conn.execute("SELECT session_id, output_tokens, created_timestamp FROM usage_ledger ORDER BY id").fetchall()
            )
    assert shapes[0] == shapes[1]


def test_nothing_is_written_outside_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "neighbour.txt").write_text("untouched")
    outside = {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")}
    sim, _ = _demo(home, rotate_messages=1)
    for s in range(0, int(3 * CYCLE_S), 5):
        sim.step(START + timedelta(seconds=s))
    assert {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")} == outside
