"""The ``cargento --demo`` simulation: what a board over the demo home shows as it is stepped."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardBuilder
from cargento.testing import snapshot_tree
from cargento.testing.demo import DemoViewer, assert_going_back_writes_nothing, board_at, squash
from cargento_harness_cursor import plugin
from cargento_harness_cursor.demo import CYCLE_S, KEEP_AGENTS, KEEP_RETIRED, LEAD_S, LIVE_TITLE, WAIT_AT_S, CursorDemo

#: Later than any real clock the tests run under, so a -wal file's real mtime never outranks
#: the simulated write times.
START = datetime(2031, 6, 1, 12, 0, 0, tzinfo=UTC)


def _demo(home: Path, **kw: Any) -> tuple[CursorDemo, BoardBuilder]:
    viewer = DemoViewer(home, plugin, "cursor", lambda h, ctx: CursorDemo(h, ctx, **kw), start=START)
    viewer.step(0)
    return viewer.demo, viewer.builder


def _live(board: Board) -> Any:
    [row] = [r for r in board.sessions if r.title == LIVE_TITLE]
    return row


def _newest_blob(db: Path) -> bytes:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (data,) = conn.execute("SELECT data FROM blobs ORDER BY rowid DESC LIMIT 1").fetchone()
    assert isinstance(data, bytes)
    return data


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def test_the_start_picture_has_finished_chats_in_two_projects_and_an_idle_live_one(home: Path) -> None:
    _, builder = _demo(home)
    board = board_at(builder, START)
    rows = {r.title: r for r in board.sessions}
    assert set(rows) == {LIVE_TITLE, "Flaky date picker test", "Terraform AWS provider v6"}
    assert {r.project for r in board.sessions} == {"acme/web", "infra/deploy"}
    assert all(r.state == "idle" and r.model == "vega" for r in board.sessions)
    assert [(a.name, a.running, a.model) for a in rows["Terraform AWS provider v6"].subagents] == [("explore", False, "vega-mini")]
    assert all(r.output_tokens_per_min is None for r in board.sessions), "Cursor records no tokens: unmeasured, not zero"


def test_a_cycle_goes_idle_working_waiting_working_idle_with_a_subagent(home: Path) -> None:
    sim, builder = _demo(home)
    rows = []
    for s in range(0, int(CYCLE_S + LEAD_S)):
        at = START + timedelta(seconds=s)
        sim.step(at)
        if s % 2 == 0:
            rows.append((s, _live(board_at(builder, at))))
    assert squash([r.state for _, r in rows]) == ["idle", "working", "needs_input", "working", "idle"]
    waiting = [(s, r.waiting) for s, r in rows if r.state == "needs_input"]
    assert all(w is not None and w.kind == "permission" and w.text is None for _, w in waiting)
    assert abs(waiting[0][0] - (LEAD_S + WAIT_AT_S)) <= 2 and 18 <= waiting[-1][0] - waiting[0][0] <= 32
    assert waiting[0][1] is not None and waiting[0][1].since == START + timedelta(seconds=LEAD_S + WAIT_AT_S)
    pills = [[(p.name, p.running) for p in r.subagents] for _, r in rows]
    assert pills[0] == [] and [("explore", True)] in pills and pills[-1] == [("explore", False)]
    idle = [s for s, r in rows if r.state == "idle" and s > LEAD_S + WAIT_AT_S]
    assert len(idle) >= 10, "the quiet tail is long enough to read idle for a while"


def test_the_wait_is_recorded_as_cursor_records_it(home: Path) -> None:
    sim, _ = _demo(home)
    sim.step(START + timedelta(seconds=LEAD_S + WAIT_AT_S + 1))
    blob = _newest_blob(sim.live.path)
    assert re.search(rb'"pendingToolExecutionContracts":\{"call_', blob)
    stamp = re.search(rb'"pendingToolCallStartedAtMs":(\d+)', blob)
    assert stamp and int(stamp.group(1)) == int((START + timedelta(seconds=LEAD_S + WAIT_AT_S)).timestamp() * 1000)
    sim.step(START + timedelta(seconds=LEAD_S + WAIT_AT_S + 30.5))
    blob = _newest_blob(sim.live.path)
    assert b'"pendingToolExecutionContracts"' not in blob or b'"pendingToolExecutionContracts":{}' in blob


def test_rotation_keeps_the_chats_folder_bounded(home: Path) -> None:
    sim, builder = _demo(home, rotate_bytes=1)
    first = sim.live.id
    sim.step(START + timedelta(seconds=LEAD_S + 1))
    assert sim.live.id != first
    for cycle in range(1, 8):
        sim.step(START + timedelta(seconds=LEAD_S + cycle * CYCLE_S + 40))
    stores = list((home / ".cursor" / "chats").glob("*/*/store.db"))
    assert len(stores) <= 3 + KEEP_RETIRED + 1 + KEEP_AGENTS
    board = board_at(builder, START + timedelta(seconds=LEAD_S + 7 * CYCLE_S + 40))
    assert len(board.sessions) == 2 + KEEP_RETIRED + 1
    [live] = [r for r in board.sessions if r.session_id == sim.live.id]
    assert live.title == LIVE_TITLE and live.state == "needs_input"


def test_a_clock_that_goes_back_writes_nothing_and_a_jump_catches_up_boundedly(home: Path) -> None:
    sim, builder = _demo(home)
    assert_going_back_writes_nothing(sim, START + timedelta(seconds=LEAD_S + WAIT_AT_S + 5), lambda: snapshot_tree(home))
    later = START + timedelta(hours=10, seconds=LEAD_S + 20)
    with closing(sqlite3.connect(f"file:{sim.live.path}?mode=ro", uri=True)) as conn:
        (blobs_before,) = conn.execute("SELECT count(*) FROM blobs").fetchone()
    sim.step(later)
    with closing(sqlite3.connect(f"file:{sim.live.path}?mode=ro", uri=True)) as conn:
        (blobs_after,) = conn.execute("SELECT count(*) FROM blobs").fetchone()
    assert 0 < blobs_after - blobs_before < 60, "the exchange in hand is finished and the current one begun, nothing between"
    row = _live(board_at(builder, later))
    assert row.state == "working" and row.waiting is None


def test_the_schedule_is_deterministic(tmp_path: Path) -> None:
    shapes = []
    for name in ("one", "two"):
        home = tmp_path / name / "home"
        home.mkdir(parents=True)
        sim, _ = _demo(home)
        for s in range(0, 420, 3):
            sim.step(START + timedelta(seconds=s))
        shape = []
        for db in sorted((home / ".cursor" / "chats").glob("*/*/store.db")):
            with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
                (count,) = conn.execute("SELECT count(*) FROM blobs").fetchone()
            shape.append((db.parent.name, count, db.stat().st_mtime_ns))
        shapes.append(sorted(shape))
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
