"""The ``cargento --demo`` store for Copilot CLI: finished sessions and one live session.

The live session repeats a scripted 90-second turn, written with the same builders the
tests use: a prompt, tokens, a shell call that stops at a permission dialog for fifteen
seconds and is answered, a subagent that comes and goes, todos advancing, and the end of
the turn; then it stays idle until the next cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from cargento_harness_copilot.fixtures import CopilotSession, CopilotStore

__all__ = ["CYCLE_S", "CopilotSimulation"]

CYCLE_S = 90.0
_TODOS = [("plan", "Plan the parser work"), ("write", "Write the parser"), ("test", "Add unit tests")]


class CopilotSimulation:
    """Appends what a live Copilot session would have written by each ``step(now)``."""

    def __init__(self, home: Path, start: datetime) -> None:
        self.store = CopilotStore(home)
        earlier = start - timedelta(hours=2)
        done = self.store.session(cwd=str(home / "work" / "docs-site"), at=earlier)
        done.prompt("Update the changelog for the release", at=earlier + timedelta(seconds=1))
        done.tokens(420, at=earlier + timedelta(seconds=30))
        done.end_turn(at=earlier + timedelta(seconds=31))
        done.shutdown(at=earlier + timedelta(seconds=40))
        self.live = self.store.session(cwd=str(home / "work" / "parser"), at=start)
        self.start = start
        self.cycle = 0
        self.done_until = start
        self._pending: list[tuple[datetime, Callable[[], None]]] = []
        self._agent = ""
        self._call = ""
        self._request = ""

    def _schedule(self, base: datetime) -> None:
        s: CopilotSession = self.live
        n = self.cycle

        def at(sec: float) -> datetime:
            return base + timedelta(seconds=sec)

        def todos(stage: int) -> Callable[[], None]:
            def write() -> None:
                rows = [(i, t, "done" if k < stage else "in_progress" if k == stage else "pending")
                        for k, (i, t) in enumerate(_TODOS)]
                s.todos(rows, at(0 if stage == 0 else 40 + stage))
            return write

        def tool() -> None:
            self._call = s.tool("bash", at(4), arguments={"command": "pytest -q"})

        def wait() -> None:
            self._request = s.wait(at(5), kind="shell", call=self._call, detail="pytest -q")

        def sub() -> None:
            self._agent = s.subagent_start("explorer", at(22), agent_type="explore", model="claude-haiku-4.5")

        self._pending = [
            (at(0), lambda: s.prompt(f"Refactor the parser, step {n + 1}", at(0))),
            (at(1), todos(0)),
            (at(3), lambda: s.tokens(120, at(3))),
            (at(4), tool),
            (at(5), wait),
            (at(20), lambda: s.answer(self._request, at(20))),
            (at(21), lambda: s.tool_done(self._call, at(21))),
            (at(22), sub),
            (at(30), lambda: s.tokens(60, at(30), agent_id=self._agent)),
            (at(40), lambda: s.subagent_finish(self._agent, at(40))),
            (at(41), todos(1)),
            (at(45), lambda: s.tokens(300, at(45))),
            (at(46), lambda: s.end_turn(at(46))),
        ]

    def step(self, now: datetime) -> None:
        """Write everything scheduled up to *now*, starting new cycles as they come due."""
        while True:
            if not self._pending:
                base = self.start + timedelta(seconds=1 + self.cycle * CYCLE_S)
                if base > now:
                    return
                self._schedule(base)
                self.cycle += 1
            while self._pending and self._pending[0][0] <= now:
                _, write = self._pending.pop(0)
                write()
            if self._pending:
                return
