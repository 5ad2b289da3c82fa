"""The demo's stuck session: one request past 15 minutes that keeps failing the same command.

It puts the long-turn warning and a failed-tool loop on the demo board from its first second,
beside :class:`~cargento_harness_claude.demo.ClaudeDemo`'s cycling session: the showroom is
meant to show every state the board can.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.demo import Action, Schedule, seeded_uuid
from cargento.models import HarnessContext, Simulation

from cargento_harness_claude import locations
from cargento_harness_claude.fixtures import ClaudeStore, Session

__all__ = ["RETRY_S", "STUCK_FOR_S", "Showroom", "StuckSession"]

#: The stuck request started this long before the demo, past the 15-minute warning.
STUCK_FOR_S = 17 * 60.0
#: It retries its failing command about this often, so the row stays working and its loop current.
RETRY_S = 20.0
COMMAND = "pytest tests/integration -q"
FAILURE = "FAILED tests/integration/test_ledger.py::test_totals - AssertionError: 1041.20 != 1041.19"


class StuckSession:
    """A Claude Code session retrying a failing test run (the Simulation protocol)."""

    def __init__(self, home: Path, ctx: HarnessContext, *, seed: int = 2026) -> None:
        self.store = ClaudeStore(home, root=locations.store(ctx).root)
        self.start = ctx.now
        rng = random.Random(f"claude-stuck:{seed}")
        cwd = home / "work" / "acme" / "billing"
        cwd.mkdir(parents=True, exist_ok=True)
        self.session: Session = self.store.session(seeded_uuid(rng), cwd=str(cwd))
        began = self.start - timedelta(seconds=STUCK_FOR_S)
        self.session.bookkeeping(began)
        self.session.prompt("Make the invoice integration suite pass against the new ledger", began)
        self.session.title("Invoice suite against the new ledger")
        moment = began + timedelta(seconds=30)
        while moment < self.start - timedelta(seconds=5):
            self._fail(moment)
            moment += timedelta(seconds=RETRY_S * 3)
        self.schedule = Schedule(self.start, RETRY_S, self._plan, seed=f"claude-stuck:{seed}", tolerate=(OSError,))

    def _fail(self, at: datetime) -> None:
        call = self.session.tool(
            "Bash", at, input={"command": COMMAND, "description": "Run the integration suite"}, tokens=60
        )
        self.session.result(call, at + timedelta(seconds=4), output=FAILURE, error=True)

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        return [(rng.uniform(0.0, RETRY_S / 2), self._fail)]

    def step(self, now: datetime) -> None:
        """Write the retries due by *now*."""
        self.schedule.step(now)


class Showroom:
    """The Claude demo's simulations stepped together: the cycling session and the stuck one."""

    def __init__(self, *parts: Simulation) -> None:
        self.parts = parts

    def step(self, now: datetime) -> None:
        """Step every part to *now*."""
        for part in self.parts:
            part.step(now)

    def drain_events(self) -> list[Mapping[str, Any]]:
        """The hook bodies every part produced since the last call (parts without any give none)."""
        out: list[Mapping[str, Any]] = []
        for part in self.parts:
            drain = getattr(part, "drain_events", None)
            if callable(drain):
                out.extend(drain())
        return out

    def close(self) -> None:
        """Close every part that has something to close (the live process's pid file)."""
        for part in self.parts:
            close = getattr(part, "close", None)
            if callable(close):
                close()
