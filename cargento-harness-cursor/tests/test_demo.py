"""The ``cargento --demo`` simulation: what a board over the demo home shows as it is stepped."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer, board_at, squash
from cargento.testing.demo_contract import DemoContract
from cargento_harness_cursor import plugin
from cargento_harness_cursor.demo import CYCLE_S, KEEP_AGENTS, KEEP_RETIRED, LEAD_S, LIVE_TITLE, WAIT_AT_S, CursorDemo

#: Later than any real clock the tests run under, so a -wal file's real mtime never outranks
#: the simulated write times.
START = datetime(2031, 6, 1, 12, 0, 0, tzinfo=UTC)

Viewer = DemoViewer[CursorDemo]


def _live(board: Board) -> BoardSession:
    [row] = [r for r in board.sessions if r.title == LIVE_TITLE]
    return row


def _count(db: Path, sql: str) -> int:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (n,) = conn.execute(sql).fetchone()
    assert isinstance(n, int)
    return n


def _newest_blob(db: Path) -> bytes:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (data,) = conn.execute("SELECT data FROM blobs ORDER BY rowid DESC LIMIT 1").fetchone()
    assert isinstance(data, bytes)
    return data


class TestCursorDemo(DemoContract[CursorDemo]):
    plugin = plugin
    key = "cursor"
    demo_type = CursorDemo
    cycle_s = CYCLE_S
    store_folder = ".cursor"
    start = START
    schedule = tuple(range(0, 420, 3))
    outside_options: ClassVar[Mapping[str, int]] = {"rotate_bytes": 1}
    back_at_s = LEAD_S + WAIT_AT_S + 5
    jump_from_s = LEAD_S + WAIT_AT_S + 5
    jump_to_s = 10 * 3600 + LEAD_S + 20
    jump_most = 59
    rotate_option = "rotate_bytes"
    rotation_kept = KEEP_RETIRED
    rotation_at_s = LEAD_S + 40

    def live_id(self, viewer: Viewer) -> str:
        return viewer.demo.live.id

    def shape(self, viewer: Viewer) -> object:
        shape = []
        for db in sorted((viewer.home / ".cursor" / "chats").glob("*/*/store.db")):
            shape.append((db.parent.name, _count(db, "SELECT count(*) FROM blobs"), db.stat().st_mtime_ns))
        return sorted(shape)

    def written(self, viewer: Viewer) -> int:
        """The blobs of the live chat: the exchange in hand finished and the current one begun."""
        return _count(viewer.demo.live.path, "SELECT count(*) FROM blobs")

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        row = _live(board)
        assert row.state == "working" and row.waiting is None

    def test_the_start_picture_has_finished_chats_in_two_projects_and_an_idle_live_one(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        board = viewer.at(0)
        rows = {r.title: r for r in board.sessions}
        assert set(rows) == {LIVE_TITLE, "Flaky date picker test", "Terraform AWS provider v6"}
        assert {r.project for r in board.sessions} == {"acme/web", "infra/deploy"}
        assert all(r.state == "idle" and r.model == "vega" for r in board.sessions)
        assert [(a.name, a.running, a.model) for a in rows["Terraform AWS provider v6"].subagents] == [
            ("explore", False, "vega-mini")
        ]
        assert all(r.output_tokens_per_min is None for r in board.sessions), (
            "Cursor records no tokens: unmeasured, not zero"
        )

    def test_a_cycle_goes_idle_working_waiting_working_idle_with_a_subagent(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        rows = [(s, _live(viewer.at(s))) for s in range(0, int(CYCLE_S + LEAD_S), 2)]
        assert squash([r.state for _, r in rows]) == ["idle", "working", "needs_input", "working", "idle"]
        waiting = [(s, r.waiting) for s, r in rows if r.state == "needs_input"]
        assert all(w is not None and w.kind == "permission" and w.text is None for _, w in waiting)
        assert abs(waiting[0][0] - (LEAD_S + WAIT_AT_S)) <= 2 and 18 <= waiting[-1][0] - waiting[0][0] <= 32
        assert waiting[0][1] is not None and waiting[0][1].since == START + timedelta(seconds=LEAD_S + WAIT_AT_S)
        pills = [[(p.name, p.running) for p in r.subagents] for _, r in rows]
        assert pills[0] == [] and [("explore", True)] in pills and pills[-1] == [("explore", False)]
        idle = [s for s, r in rows if r.state == "idle" and s > LEAD_S + WAIT_AT_S]
        assert len(idle) >= 10, "the quiet tail is long enough to read idle for a while"

    def test_the_wait_is_recorded_as_cursor_records_it(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        viewer.step(LEAD_S + WAIT_AT_S + 1)
        blob = _newest_blob(viewer.demo.live.path)
        assert re.search(rb'"pendingToolExecutionContracts":\{"call_', blob)
        stamp = re.search(rb'"pendingToolCallStartedAtMs":(\d+)', blob)
        assert stamp and int(stamp.group(1)) == int((START + timedelta(seconds=LEAD_S + WAIT_AT_S)).timestamp() * 1000)
        viewer.step(LEAD_S + WAIT_AT_S + 30.5)
        blob = _newest_blob(viewer.demo.live.path)
        assert b'"pendingToolExecutionContracts"' not in blob or b'"pendingToolExecutionContracts":{}' in blob

    def test_rotation_keeps_the_chats_folder_bounded(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home", rotate_bytes=1)
        sim = viewer.demo
        for cycle in range(1, 8):
            viewer.step(LEAD_S + cycle * CYCLE_S + 40)
        stores = list((viewer.home / ".cursor" / "chats").glob("*/*/store.db"))
        assert len(stores) <= 3 + KEEP_RETIRED + 1 + KEEP_AGENTS
        board = board_at(viewer.builder, viewer.moment(LEAD_S + 7 * CYCLE_S + 40))
        assert len(board.sessions) == 2 + KEEP_RETIRED + 1
        [live] = [r for r in board.sessions if r.session_id == sim.live.id]
        assert live.title == LIVE_TITLE and live.state == "needs_input"
