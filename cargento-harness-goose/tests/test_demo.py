"""The ``cargento --demo`` simulation: what a board over the demo home shows as it is stepped."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from cargento.board import Board, BoardSession
from cargento.demo import demo_env
from cargento.testing.demo import DemoViewer, board_at, squash
from cargento.testing.demo_contract import DemoContract
from cargento_harness_goose import plugin
from cargento_harness_goose.demo import CYCLE_S, JOBS, KEEP_AGENTS, KEEP_RETIRED, LEAD_S, LIVE_TITLE, GooseDemo

START = datetime(2031, 6, 1, 12, 0, 0, tzinfo=UTC)

Viewer = DemoViewer[GooseDemo]


def _live(viewer: Viewer, board: Board) -> BoardSession:
    [row] = [r for r in board.sessions if r.session_id == viewer.demo.live.id]
    return row


def _count(db: Path, sql: str) -> int:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        (n,) = conn.execute(sql).fetchone()
    assert isinstance(n, int)
    return n


class TestGooseDemo(DemoContract[GooseDemo]):
    plugin = plugin
    key = "goose"
    demo_type = GooseDemo
    cycle_s = CYCLE_S
    store_folder = ".local/share/goose"
    start = START
    schedule = tuple(range(0, 400, 3))
    outside_options: ClassVar[Mapping[str, int]] = {"rotate_messages": 1}
    back_at_s = LEAD_S + 20
    jump_from_s = LEAD_S + 20
    jump_to_s = 10 * 3600 + LEAD_S + 20
    jump_most = 39
    rotate_option = "rotate_messages"
    rotation_kept = KEEP_RETIRED
    rotation_at_s = LEAD_S + 20

    def live_id(self, viewer: Viewer) -> str:
        return viewer.demo.live.id

    relocation = ("XDG_DATA_HOME", ".local")

    def snapshot(self, viewer: Viewer) -> object:
        db = viewer.demo.store.path
        return _count(db, "SELECT count(*) FROM messages"), _count(db, "SELECT count(*) FROM usage_ledger")

    def shape(self, viewer: Viewer) -> object:
        with closing(sqlite3.connect(f"file:{viewer.demo.store.path}?mode=ro", uri=True)) as conn:
            return (
                conn.execute(
                    "SELECT session_id, role, content_json, created_timestamp FROM messages ORDER BY id"
                ).fetchall()
                + conn.execute(
                    "SELECT session_id, output_tokens, created_timestamp FROM usage_ledger ORDER BY id"
                ).fetchall()
            )

    def written(self, viewer: Viewer) -> int:
        """The messages: the exchange in hand finished and the current one begun."""
        return _count(viewer.demo.store.path, "SELECT count(*) FROM messages")

    def check_jump(self, viewer: Viewer, board: Board, before: int) -> None:
        row = _live(viewer, board)
        assert row.state == "working" and row.output_tokens_per_min

    def test_the_start_picture_has_finished_sessions_in_two_projects_and_an_idle_live_one(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        assert viewer.demo.store.path == viewer.home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
        board = viewer.at(0)
        rows = {r.title: r for r in board.sessions}
        assert set(rows) == {LIVE_TITLE, "Release notes for 0.9", "Explain the auth middleware"}
        assert {r.project for r in board.sessions} == {"tools/cli", "acme/api"}
        assert all(r.state == "idle" and r.waiting is None for r in board.sessions)
        assert [(a.name, a.running) for a in rows["Explain the auth middleware"].subagents] == [
            ("route table survey", False)
        ]
        assert rows["Release notes for 0.9"].output_tokens_total == sum(180 + 20 * n for n in range(1, 6))

    def test_a_cycle_goes_idle_working_idle_with_tokens_and_a_subagent(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        rows = [(s, _live(viewer, viewer.at(s))) for s in range(0, int(CYCLE_S + LEAD_S), 2)]
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

    def test_the_database_is_written_where_the_plugin_looks_for_it(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        viewer = self.viewer(home, env=demo_env({}, home) | {"XDG_DATA_HOME": str(home / "data")})
        assert viewer.demo.store.path == home / "data" / "goose" / "sessions" / "sessions.db"
        assert len(viewer.at(0).sessions) == 3

    def test_rotation_keeps_the_database_bounded(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home", rotate_messages=1)
        sim = viewer.demo
        for cycle in range(1, 8):
            viewer.step(LEAD_S + cycle * CYCLE_S + 20)
        db = sim.store.path
        assert _count(db, "SELECT count(*) FROM sessions") <= 3 + KEEP_RETIRED + 1 + KEEP_AGENTS
        kept = _count(db, "SELECT count(*) FROM sessions")
        assert _count(db, "SELECT count(DISTINCT session_id) FROM messages") == kept
        assert _count(db, "SELECT count(*) FROM usage_ledger WHERE session_id NOT IN (SELECT id FROM sessions)") == 0
        board = board_at(viewer.builder, viewer.moment(LEAD_S + 7 * CYCLE_S + 20))
        assert len(board.sessions) == 2 + KEEP_RETIRED + 1
        live = _live(viewer, board)
        assert live.title == LIVE_TITLE and live.state == "working"
