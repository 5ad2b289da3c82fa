"""The OpenCode demo as a showroom: a question wait shows within the board's first minute."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_opencode import plugin
from cargento_harness_opencode.demo import LEAD_S, OpenCodeSimulation

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def stopped_at(moment: datetime) -> Callable[[], datetime]:
    """A board clock that always reads *moment*."""
    return lambda: moment


def test_a_question_and_a_command_wait_both_stand_within_the_first_minute(tmp_path: Path) -> None:
    sim = OpenCodeSimulation(tmp_path, START)
    registry = load_registry(entry_points=False, extra=[("opencode", plugin)])
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / ".local/share")}
    kinds: dict[str, float] = {}
    for second in range(0, 60):
        moment = START + timedelta(seconds=second)
        sim.step(moment)
        builder = BoardBuilder(registry, env=env, home=tmp_path, clock=stopped_at(moment), processes=StaticProcesses())
        live = next(s for s in builder.build(all_sessions=True).sessions if s.project == "work/api")
        if live.waiting is not None:
            kinds.setdefault(live.waiting.kind, second)
    assert set(kinds) == {"command", "question"}
    assert kinds["question"] < 60 and kinds["question"] >= LEAD_S + 39
