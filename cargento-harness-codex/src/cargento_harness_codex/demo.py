"""The ``cargento --demo`` simulation: live Codex rollouts written with the store builders.

The home holds one finished session from two hours before the start and one live session that
runs a scripted turn every :data:`CYCLE_S` seconds: a prompt, an agent message, an
``update_plan`` advanced as the work goes, tool calls and their output, tokens, a spawned
subagent thread that works and finishes its own turn (only the newest :data:`KEEP_AGENTS`
subagent rollouts are kept, so pills and files stay bounded), and the turn end. The turns run on
core's :class:`cargento.demo.Schedule`: a clock that goes back writes nothing, and one that
jumps ahead finishes the turn in hand and resumes at the present cycle instead of replaying
every cycle missed.
"""

from __future__ import annotations

import random
from collections import deque
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.demo import Action, Schedule, require_inside

from cargento_harness_codex.fixtures import CodexSession, CodexStore

__all__ = ["CYCLE_S", "KEEP_AGENTS", "CodexDemo"]

#: One scripted turn and the idle time after it, in seconds.
CYCLE_S = 150.0
#: Subagent rollouts of the live session kept on disk; older ones are removed.
KEEP_AGENTS = 2


class CodexDemo:
    """A finished session from earlier and a live one that plans, works, spawns and ends turns."""

    def __init__(self, home: Path, start: datetime) -> None:
        self.store = CodexStore(home)
        require_inside(self.store.root, home, "Codex")
        self.start = start
        old_at = start - timedelta(hours=2)
        old = self.store.session("01a22b40-0000-7000-8000-00000000d001", cwd=str(home / "work/billing"), at=old_at)
        old.turn_start(old_at)
        old.turn_context("gpt-5-codex", old_at)
        old.prompt("Explain the invoice rounding rules", old_at)
        old.agent("Reading the rounding module.", old_at + timedelta(seconds=3))
        old.tokens(420, old_at + timedelta(seconds=40))
        old.end_turn(old_at + timedelta(seconds=45))
        self.live = self.store.session(
            "01a22b41-0000-7000-8000-00000000d002", cwd=str(home / "work/scheduler"), at=start
        )
        self.child: CodexSession | None = None
        self.children: deque[CodexSession] = deque()
        self.call = ""
        self.schedule = Schedule(start, CYCLE_S, self._script, seed="codex-demo")

    def _script(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        live = self.live

        def spawn(at: datetime) -> None:
            self.child = live.spawn(nickname="Gibbs", at=at, cwd=str(self.store.home / "work/scheduler"))
            self.child.turn_start(at)
            self.child.turn_context("gpt-5-codex-mini", at)
            self.child.prompt("Review the queue adapter", at)
            self.children.append(self.child)
            while len(self.children) > KEEP_AGENTS:
                self.children.popleft().path.unlink(missing_ok=True)

        def child_tokens(at: datetime) -> None:
            if self.child is not None:
                self.child.tokens(90, at)
                self.child.end_turn(at)

        def begin(at: datetime) -> None:
            live.turn_start(at)
            live.turn_context("gpt-5-codex", at)
            live.prompt("Port the scheduler to the new queue", at)

        def run_tests(at: datetime) -> None:
            self.call = live.tool("exec_command", at, arguments={"cmd": "pytest -q"})

        def tests_done(at: datetime) -> None:
            if self.call:
                live.tool_output(self.call, at)
                self.call = ""

        return [
            (0, begin),
            (3, lambda at: live.agent("I'll map the jobs first.", at)),
            (
                6,
                lambda at: live.plan(
                    [("Map jobs", "in_progress"), ("Port workers", "pending"), ("Backfill", "pending")],
                    at,
                    shape="exec",
                ),
            ),
            (10, lambda at: live.tokens(180, at, limits=self.limits(at))),
            (14, lambda at: live.tool_output(live.tool("exec_command", at, arguments={"cmd": "rg Job"}), at)),
            (20, spawn),
            (
                30,
                lambda at: live.plan(
                    [("Map jobs", "completed"), ("Port workers", "in_progress"), ("Backfill", "pending")],
                    at,
                    shape="exec",
                ),
            ),
            (40, lambda at: live.tokens(260, at, limits=self.limits(at))),
            (55, child_tokens),
            (70, run_tests),
            (90, tests_done),
            (100, lambda at: live.tokens(140, at, limits=self.limits(at))),
            (110, lambda at: live.end_turn(at)),
        ]

    def limits(self, at: datetime) -> dict[str, Any]:
        """The account's rate-limit windows as Codex writes them beside a token count: the
        five-hour window a little over half spent with two-fifths of its time gone, the weekly
        one at 74 percent (so the capacity strip and quota pressure have something to show)."""

        def resets(first_s: float, length_s: float) -> int:
            reset = self.start + timedelta(seconds=first_s)
            while reset <= at:
                reset += timedelta(seconds=length_s)
            return int(reset.timestamp())

        return {
            "limit_id": "codex",
            "primary": {"used_percent": 52.0, "window_minutes": 300, "resets_at": resets(3 * 3600, 5 * 3600)},
            "secondary": {"used_percent": 74.0, "window_minutes": 10080, "resets_at": resets(2 * 86400, 7 * 86400)},
        }

    def step(self, now: datetime) -> None:
        """Append what the live session would have written by *now* (the script repeats)."""
        self.schedule.step(now)
