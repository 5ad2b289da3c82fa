"""Quota the harnesses write into their own stores, read through the whole board: Codex's
rate-limit snapshots from a real recorded Codex store and from its store builder; and the
working time measured from the boards a dashboard sees."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.golden import golden_board
from cargento_harness_codex import plugin as codex
from cargento_harness_codex.fixtures import CodexStore
from cargento_web.capacity.pace import assess
from cargento_web.capacity.rows import store_windows
from cargento_web.capacity.worktime import WorkTime

Golden = Callable[[str], tuple[Path, dict[str, Any]]]


def test_a_real_codex_store_that_wrote_no_window_publishes_none_never_a_zero(golden: Golden) -> None:
    home, truth = golden("codex-0.171.0/B-plan")
    board = golden_board(codex, "codex", home, truth)
    assert board.sessions and all(s.rate_limits == () for s in board.sessions)
    # Codex 0.171.0 wrote its token_count with primary and secondary null: no window to show.
    assert store_windows(board.sessions, board.generated_at) == []


def test_codex_windows_read_from_its_session_file(tmp_path: Path) -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    store = CodexStore(tmp_path)
    session = store.session(cwd=str(tmp_path / "work"), at=now - timedelta(minutes=5))
    session.turn_start(now - timedelta(minutes=5))
    session.prompt("Port the scheduler", now - timedelta(minutes=5))
    limits = {
        "limit_id": "codex",
        "primary": {
            "used_percent": 66.0,
            "window_minutes": 300,
            "resets_at": int((now + timedelta(hours=3)).timestamp()),
        },
        "secondary": {
            "used_percent": 20.0,
            "window_minutes": 10080,
            "resets_at": int((now + timedelta(days=5)).timestamp()),
        },
    }
    session.tokens(200, now - timedelta(minutes=1), limits=limits)
    session.end_turn(now - timedelta(seconds=50))
    registry = load_registry(entry_points=False, extra=[("codex", codex)])
    env = {"HOME": str(tmp_path)}
    builder = BoardBuilder(registry, env=env, home=tmp_path, clock=lambda: now, processes=StaticProcesses())
    board = builder.build()
    windows = {w.name: w for w in store_windows(board.sessions, board.generated_at)}
    assert set(windows) == {"5h", "weekly"}
    five = assess(windows["5h"], now)
    # 66 % spent with 2 of 5 hours gone: pace 1.65, clay, and it runs out before the reset.
    assert five.pace is not None and abs(five.pace - 1.65) < 1e-6 and five.tone == "clay" and five.pressure
    weekly = assess(windows["weekly"], now)
    assert weekly.tone == "accent" and abs(weekly.pace - 0.7) < 1e-6 and not weekly.pressure  # type: ignore[operator]


def _board(at: datetime, *states: tuple[str, str, str]) -> Any:
    sessions = [SimpleNamespace(key=k, state=s, project=p) for k, s, p in states]
    return SimpleNamespace(sessions=sessions, as_of=None, generated_at=at)


def test_working_time_counts_only_intervals_seen_to_open_and_close() -> None:
    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    work = WorkTime(t0)
    assert work.observe(_board(t0, ("a", "working", "billing"), ("b", "idle", "scheduler"))) is False
    assert (
        work.observe(_board(t0 + timedelta(minutes=1), ("a", "idle", "billing"), ("b", "working", "scheduler")))
        is False
    )
    assert work.most() is None, "a's start was never seen; b has not closed"
    assert work.observe(_board(t0 + timedelta(minutes=11), ("a", "idle", "billing"), ("b", "idle", "scheduler")))
    assert work.observe(_board(t0 + timedelta(minutes=12), ("a", "working", "billing"))) is False
    assert work.observe(_board(t0 + timedelta(minutes=13))) is False, "gone mid-interval: not seen to close"
    most = work.most()
    assert most is not None and most.project == "scheduler" and most.seconds == 600 and most.intervals == 1
