"""The demo simulation walks a live session through every state the board shows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_copilot import plugin
from cargento_harness_copilot.demo import CYCLE_S, CopilotSimulation

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def stopped_at(moment: datetime) -> Callable[[], datetime]:
    """A board clock that always reads *moment*."""
    return lambda: moment


def test_live_session_cycles_through_the_states(tmp_path: Path) -> None:
    sim = CopilotSimulation(tmp_path, START)
    registry = load_registry(entry_points=False, extra=[("copilot", plugin)])
    env = {"HOME": str(tmp_path)}
    seen = []
    for second in (2, 12, 26, 60, 1 + CYCLE_S + 2):
        moment = START + timedelta(seconds=second)
        sim.step(moment)
        builder = BoardBuilder(registry, env=env, home=tmp_path, clock=stopped_at(moment), processes=StaticProcesses())
        live = next(s for s in builder.build(all_sessions=True).sessions if s.project == "work/parser")
        seen.append((live.state, tuple(a.running for a in live.subagents), live.tasks_done))
    assert seen == [
        ("working", (), 0),
        ("needs_input", (), 0),
        ("working", (True,), 0),
        ("idle", (False,), 1),
        ("working", (False,), 0),
    ]
