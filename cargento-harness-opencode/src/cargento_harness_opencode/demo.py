"""The ``cargento --demo`` store for OpenCode: a finished session and one live session.

The live session repeats a scripted :data:`CYCLE_S`-second turn, written with the same builders
the tests use: a prompt, an assistant message with a bash call parked at a permission prompt for
fifteen seconds and then answered, a child session (a subagent pill) that runs and finishes,
todos advancing, and the completed turn; then it stays idle until the next cycle.

The turns run on core's :class:`cargento.demo.Schedule`, so a clock that goes back writes
nothing until it passes the latest moment seen again, and a clock that jumps ahead finishes the
turn in hand at its scheduled times and then resumes in the present cycle: one step does at
most about two cycles' work, however far the clock jumped.

The store builders wait out the dashboard's board reader, which runs in this same process (see
:mod:`.fixtures`). A write that fails even so (that reader held on for seconds, or the demo
home went while the demo stopped) skips its scripted moment, and the turn in hand may read
oddly until the next cycle, as in the Goose and Cursor demos: the first such failure used to
end OpenCode's simulation for the rest of the run, the live session frozen where it stood and
its question never asked again.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from cargento.demo import Action, Schedule, require_inside

from cargento_harness_opencode.fixtures import OpenCodeSession, OpenCodeStore

__all__ = ["CYCLE_S", "LEAD_S", "OpenCodeSimulation"]

#: One scripted turn plus its idle tail, in seconds.
CYCLE_S = 90.0
#: The first prompt comes this long after the demo starts.
LEAD_S = 1.0
_TODOS = ["Read the failing test", "Fix the date parser", "Run the suite"]


class OpenCodeSimulation:
    """Appends what a live OpenCode session would have written by each ``step(now)``."""

    def __init__(self, home: Path, start: datetime, *, seed: int = 2026) -> None:
        self.store = OpenCodeStore(home, seed=seed)
        require_inside(self.store.data_dir, home, "OpenCode")
        earlier = start - timedelta(hours=3)
        done = self.store.session(cwd=str(home / "work" / "blog"), at=earlier, title="Draft the release notes")
        done.prompt("Draft the release notes", at=earlier + timedelta(seconds=1))
        done.reply(at=earlier + timedelta(seconds=2))
        done.end_turn(at=earlier + timedelta(seconds=40), output_tokens=380)
        self.live: OpenCodeSession = self.store.session(
            cwd=str(home / "work" / "api"), at=start, title="Fix the date parser"
        )
        self.start = start
        self.schedule = Schedule(
            start + timedelta(seconds=LEAD_S),
            CYCLE_S,
            self._plan,
            seed=f"opencode-demo:{seed}",
            tolerate=(OSError, sqlite3.Error),
        )

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        """One turn: the prompt at offset 0, the permission prompt from 4 s to 19 s, the child
        session from 22 s to 38 s, a question from 39 s to 55 s (shown once it has stood for
        the reader's few seconds, and then for at least the live board's slow timer, which is
        what notices a wait aging in when nothing else writes) and the completed turn at 58 s."""
        s = self.live
        call: list[str] = []
        child: list[OpenCodeSession] = []

        def todos(stage: int) -> Action:
            def write(at: datetime) -> None:
                rows = [
                    (
                        t,
                        "completed" if k < stage else "in_progress" if k == stage else "pending",
                        "high" if k == 0 else "medium",
                    )
                    for k, t in enumerate(_TODOS)
                ]
                s.todos(rows, at)

            return write

        def ask(at: datetime) -> None:
            call.append(s.wait("bash", at, input={"command": "npm test", "description": "Run the tests"}))

        def answer(at: datetime) -> None:
            for ident in call:
                s.answer(ident, at)

        asked: list[str] = []

        def question(at: datetime) -> None:
            asked.append(
                s.wait(
                    "question",
                    at,
                    input={
                        "questions": [
                            {
                                "question": "Accept ISO week dates (2026-W49) too?",
                                "header": "ISO weeks",
                                "options": [{"label": "Yes"}, {"label": "No"}],
                            }
                        ]
                    },
                )
            )

        def question_answered(at: datetime) -> None:
            for ident in asked:
                s.answer(ident, at)
                s.tool_done(ident, at, output="Yes")

        def tool_done(at: datetime) -> None:
            for ident in call:
                s.tool_done(ident, at, output="3 passed")

        def child_start(at: datetime) -> None:
            sub = s.subagent("Explore the parser", at, agent="explore")
            sub.prompt("Explore the parser", at)
            child.append(sub)

        def child_reply(at: datetime) -> None:
            for sub in child:
                sub.reply(at)

        def child_text(at: datetime) -> None:
            for sub in child:
                sub.text("Reading src/parse.ts", at)

        def child_end(at: datetime) -> None:
            for sub in child:
                sub.end_turn(at, output_tokens=child_tokens)

        child_tokens, tokens = rng.randint(60, 120), rng.randint(300, 520)
        return [
            (0.0, lambda at: s.prompt(f"Fix the date parser (pass {cycle + 1})", at)),
            (1.0, lambda at: s.reply(at)),
            (2.0, todos(0)),
            (4.0, ask),
            (19.0, answer),
            (21.0, tool_done),
            (22.0, child_start),
            (23.0, child_reply),
            (30.0, child_text),
            (38.0, child_end),
            (39.0, question),
            (55.0, question_answered),
            (56.0, todos(2)),
            (57.0, lambda at: s.text("The parser now accepts ISO weeks.", at)),
            (58.0, lambda at: s.end_turn(at, output_tokens=tokens)),
        ]

    def step(self, now: datetime) -> None:
        """Write everything scheduled up to *now* (see :class:`cargento.demo.Schedule` for a
        clock that goes back or jumps ahead)."""
        self.schedule.step(now)
