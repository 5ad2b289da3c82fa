"""The ``cargento --demo`` store for OpenCode: a finished session and one live session.

The live session repeats a scripted 90-second turn, written with the same builders the tests
use: a prompt, an assistant message with a bash call parked at a permission prompt for fifteen
seconds and then answered, a child session (a subagent pill) that runs and finishes, todos
advancing, and the completed turn; then it stays idle until the next cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from cargento_harness_opencode.fixtures import OpenCodeSession, OpenCodeStore

__all__ = ["CYCLE_S", "OpenCodeSimulation"]

CYCLE_S = 90.0
_TODOS = ["Read the failing test", "Fix the date parser", "Run the suite"]


def _ignore(_value: object) -> None:
    """Drop a builder's return value so every scheduled write has one signature."""


class OpenCodeSimulation:
    """Appends what a live OpenCode session would have written by each ``step(now)``."""

    def __init__(self, home: Path, start: datetime) -> None:
        self.store = OpenCodeStore(home)
        earlier = start - timedelta(hours=3)
        done = self.store.session(cwd=str(home / "work" / "blog"), at=earlier, title="Draft the release notes")
        done.prompt("Draft the release notes", at=earlier + timedelta(seconds=1))
        done.reply(at=earlier + timedelta(seconds=2))
        done.end_turn(at=earlier + timedelta(seconds=40), output_tokens=380)
        self.live: OpenCodeSession = self.store.session(cwd=str(home / "work" / "api"), at=start,
                                                        title="Fix the date parser")
        self.start = start
        self.cycle = 0
        self._pending: list[tuple[datetime, Callable[[], None]]] = []
        self._call = ""
        self._child: OpenCodeSession | None = None

    def _schedule(self, base: datetime) -> None:
        s = self.live
        n = self.cycle

        def at(sec: float) -> datetime:
            return base + timedelta(seconds=sec)

        def todos(stage: int, when: float) -> Callable[[], None]:
            def write() -> None:
                rows = [(t, "completed" if k < stage else "in_progress" if k == stage else "pending",
                         "high" if k == 0 else "medium") for k, t in enumerate(_TODOS)]
                s.todos(rows, at(when))
            return write

        def ask() -> None:
            self._call = s.wait("bash", at(4), input={"command": "npm test", "description": "Run the tests"})

        def child_start() -> None:
            self._child = s.subagent("Explore the parser", at(22), agent="explore")
            self._child.prompt("Explore the parser", at(22))
            self._child.reply(at(23))

        def child_text() -> None:
            if self._child is not None:
                self._child.text("Reading src/parse.ts", at(30))

        def child_end() -> None:
            if self._child is not None:
                self._child.end_turn(at(38), output_tokens=90)

        self._pending = [
            (at(0), lambda: _ignore(s.prompt(f"Fix the date parser (pass {n + 1})", at(0)))),
            (at(1), lambda: _ignore(s.reply(at(1)))),
            (at(2), todos(0, 2)),
            (at(4), ask),
            (at(19), lambda: s.answer(self._call, at(19))),
            (at(21), lambda: s.tool_done(self._call, at(21), output="3 passed")),
            (at(22), child_start),
            (at(30), child_text),
            (at(38), child_end),
            (at(40), todos(2, 40)),
            (at(44), lambda: s.text("The parser now accepts ISO weeks.", at(44))),
            (at(46), lambda: s.end_turn(at(46), output_tokens=420)),
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
