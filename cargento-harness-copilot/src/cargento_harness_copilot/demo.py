"""The ``cargento --demo`` store for Copilot CLI: finished sessions and one live session.

The live session repeats a scripted :data:`CYCLE_S`-second turn, written with the same builders
the tests use: a prompt, tokens, a shell call that stops at a permission dialog for fifteen
seconds and is answered, a subagent that comes and goes, todos advancing, and the end of the
turn; then it stays idle until the next cycle.

The turns run on core's :class:`cargento.demo.Schedule`, so a clock that goes back writes
nothing until it passes the latest moment seen again, and a clock that jumps ahead finishes the
turn in hand at its scheduled times and then resumes in the present cycle: one step does at
most about two cycles' work, however far the clock jumped.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

from cargento.demo import Action, Schedule, require_inside, seeded_uuid

from cargento_harness_copilot.fixtures import CopilotSession, CopilotStore

__all__ = ["CYCLE_S", "LEAD_S", "CopilotSimulation"]

#: One scripted turn plus its idle tail, in seconds.
CYCLE_S = 90.0
#: The first prompt comes this long after the demo starts.
LEAD_S = 1.0
_TODOS = [("plan", "Plan the parser work"), ("write", "Write the parser"), ("test", "Add unit tests")]


class CopilotSimulation:
    """Appends what a live Copilot session would have written by each ``step(now)``."""

    def __init__(self, home: Path, start: datetime, *, seed: int = 2026) -> None:
        self.store = CopilotStore(home)
        require_inside(self.store.root, home, "Copilot CLI")
        rng = random.Random(f"copilot-demo:{seed}")
        earlier = start - timedelta(hours=2)
        done = self.store.session(seeded_uuid(rng), cwd=str(home / "work" / "docs-site"), at=earlier)
        done.prompt("Update the changelog for the release", at=earlier + timedelta(seconds=1))
        done.tokens(420, at=earlier + timedelta(seconds=30))
        # The AI Units the CLI records per model request, so the capacity strip has some.
        self.store.ledger_row(
            done.session_id, at=earlier + timedelta(seconds=30), output_tokens=420, nano_aiu=3_000_000_000
        )
        done.end_turn(at=earlier + timedelta(seconds=31))
        done.shutdown(at=earlier + timedelta(seconds=40))
        self.live: CopilotSession = self.store.session(seeded_uuid(rng), cwd=str(home / "work" / "parser"), at=start)
        self.start = start
        self.schedule = Schedule(start + timedelta(seconds=LEAD_S), CYCLE_S, self._plan, seed=f"copilot-demo:{seed}")

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        """One turn: the prompt at offset 0, the permission dialog from 5 s to 20 s, the
        subagent from 22 s to 40 s and the turn end at 46 s."""
        s = self.live
        ids: dict[str, str] = {}

        def todos(stage: int) -> Action:
            def write(at: datetime) -> None:
                rows = [
                    (i, t, "done" if k < stage else "in_progress" if k == stage else "pending")
                    for k, (i, t) in enumerate(_TODOS)
                ]
                s.todos(rows, at)

            return write

        def tool(at: datetime) -> None:
            ids["call"] = s.tool("bash", at, arguments={"command": "pytest -q"})

        def wait(at: datetime) -> None:
            ids["request"] = s.wait(at, kind="shell", call=ids.get("call"), detail="pytest -q")

        def answer(at: datetime) -> None:
            if "request" in ids:
                s.answer(ids["request"], at)

        def tool_done(at: datetime) -> None:
            if "call" in ids:
                s.tool_done(ids["call"], at)

        def sub_start(at: datetime) -> None:
            ids["agent"] = s.subagent_start("explorer", at, agent_type="explore", model="claude-haiku-4.5")

        def sub_tokens(at: datetime) -> None:
            if "agent" in ids:
                s.tokens(sub_n, at, agent_id=ids["agent"])

        def sub_finish(at: datetime) -> None:
            if "agent" in ids:
                s.subagent_finish(ids["agent"], at)

        first_n, sub_n, last_n = rng.randint(80, 160), rng.randint(40, 90), rng.randint(220, 380)
        return [
            (0.0, lambda at: s.prompt(f"Refactor the parser, step {cycle + 1}", at)),
            (1.0, todos(0)),
            (3.0, lambda at: s.tokens(first_n, at)),
            (4.0, tool),
            (5.0, wait),
            (20.0, answer),
            (21.0, tool_done),
            (22.0, sub_start),
            (30.0, sub_tokens),
            (40.0, sub_finish),
            (41.0, todos(1)),
            (45.0, lambda at: s.tokens(last_n, at)),
            (45.5, lambda at: self.store.ledger_row(s.session_id, at=at, output_tokens=last_n, nano_aiu=1_000_000_000)),
            (46.0, s.end_turn),
        ]

    def step(self, now: datetime) -> None:
        """Write everything scheduled up to *now* (see :class:`cargento.demo.Schedule` for a
        clock that goes back or jumps ahead)."""
        self.schedule.step(now)
