"""The demo simulation walks a live session through every state the board shows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_opencode import plugin
from cargento_harness_opencode.demo import CYCLE_S, OpenCodeSimulation

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def stopped_at(moment: datetime) -> Callable[[], datetime]:
    """A board clock that always reads *moment*."""
    return lambda: moment


def test_live_session_cycles_through_the_states(tmp_path: Path) -> None:
    sim = OpenCodeSimulation(tmp_path, START)
    registry = load_registry(entry_points=False, extra=[("opencode", plugin)])
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / ".local/share")}
    seen = []
    for second in (3, 14, 27, 60, 1 + CYCLE_S + 3):
        moment = START + timedelta(seconds=second)
        sim.step(moment)
        builder = BoardBuilder(registry, env=env, home=tmp_path, clock=stopped_at(moment), processes=StaticProcesses())
        live = next(s for s in builder.build(all_sessions=True).sessions if s.project == "work/api")
        seen.append((live.state, tuple(a.running for a in live.subagents), live.tasks_done))
    assert seen == [
        ("working", (), 0),
        ("needs_input", (), 0),
        ("working", (True,), 0),
        ("idle", (False,), 2),
        ("working", (False,), 0),
    ]
