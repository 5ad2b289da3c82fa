"""The ``cargento --demo`` simulation: live Pi session files written with the store builders.

The home holds one finished session from three hours before the start and one live session
that runs a scripted turn every :data:`CYCLE_S` seconds: a prompt, a ``read`` tool call and its
result, a long ``bash`` call and its result, and the closing reply. The turns run on core's
:class:`cargento.demo.Schedule`: a clock that goes back writes nothing, and one that jumps ahead
finishes the turn in hand and resumes at the present cycle instead of replaying every cycle
missed.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

from cargento.demo import Action, Schedule, require_inside

from cargento_harness_pi.fixtures import PiSession, PiStore

__all__ = ["CYCLE_S", "PiDemo"]

#: One scripted turn and the idle time after it, in seconds.
CYCLE_S = 120.0


class PiDemo:
    """A finished session from earlier and a live one cycling through prompt, tool and answer."""

    def __init__(self, home: Path, start: datetime) -> None:
        self.store = PiStore(home)
        require_inside(self.store.root, home, "Pi")
        self.start = start
        old_at = start - timedelta(hours=3)
        old = self.store.session("01a22b30-0000-7000-8000-00000000e001", cwd=str(home / "work/docs"), at=old_at)
        old.model_change("anthropic", "claude-sonnet-5", old_at)
        old.prompt("Tidy the changelog", old_at)
        old.reply("Tidied.", old_at + timedelta(seconds=20), provider="anthropic", model="claude-sonnet-5", output=140)
        old.session_info("Changelog tidy", old_at + timedelta(seconds=21))
        self.live: PiSession = self.store.session(
            "01a22b31-0000-7000-8000-00000000e002", cwd=str(home / "work/api"), at=start
        )
        self.live.model_change("openai-codex", "gpt-5.6-sol", start)
        self.call = ""
        self.schedule = Schedule(start, CYCLE_S, self._script, seed="pi-demo")

    def _script(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        live = self.live

        def read(at: datetime) -> None:
            _, calls = live.assistant(
                at,
                text="Looking at the cursor maths.",
                stop="toolUse",
                calls=[("read", {"path": "src/page.ts"})],
                output=45,
            )
            self.call = calls[0]

        def tool(at: datetime) -> None:
            self.call = live.tool("bash", at, arguments={"command": "npm test"}, output=60)

        return [
            (0, lambda at: live.prompt("Fix the flaky pagination test", at)),
            (4, read),
            (6, lambda at: live.tool_result(self.call, "read", "export function page()", at)),
            (10, tool),
            (70, lambda at: live.tool_result(self.call, "bash", "12 passing", at)),
            (75, lambda at: live.reply("Fixed: the cursor skipped the last row.", at, output=90)),
        ]

    def step(self, now: datetime) -> None:
        """Append what the live session would have written by *now* (the script repeats)."""
        self.schedule.step(now)
