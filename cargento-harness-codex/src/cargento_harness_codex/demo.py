"""The ``cargento --demo`` simulation: live Codex rollouts written with the store builders."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from cargento_harness_codex.fixtures import CodexSession, CodexStore

__all__ = ["CodexDemo"]

_CYCLE_S = 150


class CodexDemo:
    """A finished session from earlier and a live one that plans, works, spawns and ends turns."""

    def __init__(self, home: Path, start: datetime) -> None:
        self.store = CodexStore(home)
        self.start = start
        old_at = start - timedelta(hours=2)
        old = self.store.session("01a22b40-0000-7000-8000-00000000d001", cwd=str(home / "work/billing"), at=old_at)
        old.turn_start(old_at)
        old.turn_context("gpt-5-codex", old_at)
        old.prompt("Explain the invoice rounding rules", old_at)
        old.agent("Reading the rounding module.", old_at + timedelta(seconds=3))
        old.tokens(420, old_at + timedelta(seconds=40))
        old.end_turn(old_at + timedelta(seconds=45))
        self.live = self.store.session("01a22b41-0000-7000-8000-00000000d002", cwd=str(home / "work/scheduler"), at=start)
        self.child: CodexSession | None = None
        self.done = -1.0
        self.cycle = -1

    def _script(self) -> list[tuple[float, Callable[[datetime], object]]]:
        live = self.live

        def spawn(at: datetime) -> None:
            self.child = live.spawn(nickname="Gibbs", at=at, cwd=str(self.store.home / "work/scheduler"))
            self.child.turn_start(at)
            self.child.turn_context("gpt-5-codex-mini", at)
            self.child.prompt("Review the queue adapter", at)

        def child_tokens(at: datetime) -> None:
            if self.child is not None:
                self.child.tokens(90, at)
                self.child.end_turn(at)

        def begin(at: datetime) -> None:
            live.turn_start(at)
            live.turn_context("gpt-5-codex", at)
            live.prompt("Port the scheduler to the new queue", at)

        return [
            (0, begin),
            (3, lambda at: live.agent("I'll map the jobs first.", at)),
            (6, lambda at: live.plan([("Map jobs", "in_progress"), ("Port workers", "pending"),
                                      ("Backfill", "pending")], at, shape="exec")),
            (10, lambda at: live.tokens(180, at)),
            (14, lambda at: live.tool_output(live.tool("exec_command", at, arguments={"cmd": "rg Job"}), at)),
            (20, spawn),
            (30, lambda at: live.plan([("Map jobs", "completed"), ("Port workers", "in_progress"),
                                       ("Backfill", "pending")], at, shape="exec")),
            (40, lambda at: live.tokens(260, at)),
            (55, child_tokens),
            (70, lambda at: live.tool("exec_command", at, arguments={"cmd": "pytest -q"})),
            (90, lambda at: live.tool_output("call_x", at)),
            (100, lambda at: live.tokens(140, at)),
            (110, lambda at: live.end_turn(at)),
        ]

    def step(self, now: datetime) -> None:
        """Append what the live session would have written by *now* (the script repeats)."""
        elapsed = (now - self.start).total_seconds()
        cycle = max(0, int(self.done // _CYCLE_S))
        while cycle * _CYCLE_S <= elapsed:
            base = self.start + timedelta(seconds=cycle * _CYCLE_S)
            for offset, act in self._script():
                moment = cycle * _CYCLE_S + offset
                if self.done < moment <= elapsed:
                    act(base + timedelta(seconds=offset))
                    self.done = moment
            cycle += 1
