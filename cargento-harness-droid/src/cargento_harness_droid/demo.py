"""The ``cargento --demo`` simulation for Factory Droid: finished sessions and live ones.

Everything is written with this package's store builder (:class:`~cargento_harness_droid.fixtures.DroidSession`)
into the ``.factory`` directory the plugin itself resolves for the demo context, in the
``sessions/<slugified cwd>/`` layout of Droid 0.202.0. At start the home holds three finished
sessions from hours ago and two live sessions, each idle after an earlier turn. Every
:data:`CYCLE_S` seconds each live session runs one turn on its own schedule: a prompt, a
thinking block, tool calls (``tool_use``) answered a few seconds later by their results, and a
closing text reply; the sibling ``<id>.settings.json`` is rewritten with the model and the
session's token usage at the end of each turn, as Droid keeps it.

What the board can show is what the plugin reads: Droid records no turn end, no waits, no tasks
the plugin reads, no subagents, and its token usage lives only in ``settings.json``, which is
never read. So a live row is working while its records are under 90 seconds old and idle after,
its rate is unmeasured (never a fake zero), and the demo writes no waits, task lists or
subagents that the board could not show.

The turns run on core's :class:`cargento.demo.Schedule`, a pure function of the cycle number and
a seed. ``step`` never rewrites the past: a clock that goes backwards writes nothing, and a
clock that jumps forward finishes the turn in progress and resumes at the current cycle. A
session file past :data:`MAX_BYTES`, or holding :data:`TURNS_PER_SESSION` turns, is left
finished and the work goes on in a new session in the same project; a live session keeps only
its newest :data:`KEEP_SESSIONS` files, so files and rows stay bounded over hours.
"""

from __future__ import annotations

import collections
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from cargento.demo import Action, Schedule, play, require_inside, seeded_uuid
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

from cargento_harness_droid import locations
from cargento_harness_droid.fixtures import DroidSession

__all__ = ["CYCLE_S", "KEEP_SESSIONS", "MAX_BYTES", "TURNS_PER_SESSION", "DroidDemo", "Job", "simulate"]

#: One live turn, the 90 seconds a quiet row still reads as working, and some idle time.
CYCLE_S = 180.0
MAX_BYTES = 4 * 1024 * 1024
TURNS_PER_SESSION = 15
KEEP_SESSIONS = 3
SONNET = "claude-sonnet-4-5-20250929"
CODEX = "gpt-5-codex"

Script = list[tuple[float, Action]]

#: ``(tool name, input)`` of the tool calls a demo turn makes.
_TOOLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Read", {"file_path": "src/index.ts"}),
    ("Grep", {"pattern": "export function", "path": "src"}),
    ("Glob", {"patterns": ["**/*.test.ts"]}),
    ("LS", {"directory_path": "src"}),
    ("Edit", {"file_path": "src/index.ts", "old_str": "...", "new_str": "..."}),
    ("Execute", {"command": "npm test"}),
    ("Execute", {"command": "npm run lint"}),
)


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Job:
    """One piece of work a demo turn does: the prompt, the thinking, the answer."""

    prompt: str
    thought: str
    summary: str


_JOBS: dict[str, tuple[Job, ...]] = {
    "storefront": (
        Job(
            "The cart badge shows the wrong count after a refresh",
            "The count is probably read before hydration.",
            "The badge now reads the persisted cart after hydration; added a test.",
        ),
        Job(
            "Add a loading skeleton to the product grid",
            "A skeleton per card while the query is pending.",
            "The grid shows skeleton cards while products load.",
        ),
        Job(
            "Upgrade the router and fix what breaks",
            "Check the changelog for renamed hooks first.",
            "Router upgraded; two renamed hooks updated, tests green.",
        ),
    ),
    "infra": (
        Job(
            "Why does the deploy job time out on staging?",
            "Look at the health check timings.",
            "The health check waited on a cold cache; its grace period is now 60 s.",
        ),
        Job(
            "Tag every bucket with its cost centre",
            "The buckets are in three modules.",
            "All 14 buckets carry a cost-centre tag.",
        ),
    ),
    "docs": (
        Job(
            "Write the upgrade guide for v3",
            "Collect the breaking changes from the changelog.",
            "docs/upgrade-v3.md covers the five breaking changes.",
        ),
    ),
}
_TITLES = {
    "storefront": "Storefront fixes",
    "infra": "Staging deploy",
    "docs": "v3 upgrade guide",
}


class _Worker:
    """One Droid session in one project, writing turns (and moving to a new session file)."""

    def __init__(
        self,
        home: Path,
        cwd: str,
        project: str,
        seed: str,
        at: datetime,
        *,
        model: str,
        max_bytes: int = MAX_BYTES,
        turns_per_session: int = TURNS_PER_SESSION,
    ) -> None:
        self.home = home
        self.cwd = cwd
        self.project = project
        self.seed = seed
        self.model = model
        self.max_bytes = max_bytes
        self.turns_per_session = turns_per_session
        self.files = 0
        self.turns = 0
        self.output_tokens = 0
        self.kept: collections.deque[DroidSession] = collections.deque()
        self.session = self._open(at)
        self._call = ""

    def _open(self, at: datetime) -> DroidSession:
        """A new session file in this worker's project; the oldest beyond :data:`KEEP_SESSIONS`
        is removed with its settings file."""
        rng = random.Random(f"{self.seed}:file:{self.files}")
        self.files += 1
        self.turns = 0
        self.output_tokens = 0
        session = DroidSession.create(self.home, seeded_uuid(rng), cwd=self.cwd, at=at, title=_TITLES[self.project])
        self.kept.append(session)
        while len(self.kept) > KEEP_SESSIONS:
            old = self.kept.popleft()
            old.path.unlink(missing_ok=True)
            old.path.with_name(f"{old.session_id}.settings.json").unlink(missing_ok=True)
        return session

    def _roll(self, at: datetime) -> None:
        """Before a turn: a session past the size or turn limit is left and a new one started."""
        try:
            size = self.session.path.stat().st_size
        except OSError:
            size = self.max_bytes + 1
        if size > self.max_bytes or self.turns >= self.turns_per_session:
            self.session = self._open(at)
        self.turns += 1

    def turn(self, n: int, rng: random.Random, *, lead_s: float = 4.0) -> Script:
        """The events of turn *n*, as ``(seconds after the cycle start, action)`` pairs, drawn from *rng*."""
        jobs = _JOBS[self.project]
        job = jobs[n % len(jobs)]
        out: Script = [(0.0, self._roll)]
        t = lead_s + rng.uniform(0.0, 3.0)
        out.append((t, self._prompt(job.prompt)))
        t += rng.uniform(2.0, 4.0)
        out.append((t, self._think(job.thought)))
        for _ in range(rng.randint(4, 6)):
            name, args = _TOOLS[rng.randrange(len(_TOOLS))]
            t += rng.uniform(1.5, 3.5)
            out.append((t, self._use(name, args)))
            t += rng.uniform(2.0, 6.0)
            out.append((t, self._result()))
        t += rng.uniform(2.0, 4.0)
        out.append((t, self._reply(job.summary, rng.randint(900, 2400))))
        return out

    def _prompt(self, text: str) -> Action:
        def act(at: datetime) -> None:
            self.session.prompt(text, at)

        return act

    def _think(self, text: str) -> Action:
        def act(at: datetime) -> None:
            self.session.think(text, at)

        return act

    def _use(self, name: str, args: dict[str, Any]) -> Action:
        def act(at: datetime) -> None:
            self._call = self.session.tool(name, at, input=args)

        return act

    def _result(self) -> Action:
        def act(at: datetime) -> None:
            if self._call:
                self.session.tool_result(self._call, at, output="ok")
                self._call = ""

        return act

    def _reply(self, text: str, tokens: int) -> Action:
        """The closing reply, and ``settings.json`` with the session's usage so far."""

        def act(at: datetime) -> None:
            self.session.reply(text, at)
            self.output_tokens += tokens
            self.session.settings(
                at,
                model=self.model,
                reasoningEffort="medium",
                tokenUsage={
                    "inputTokens": 14 * self.output_tokens,
                    "outputTokens": self.output_tokens,
                    "cacheCreationTokens": 2 * self.output_tokens,
                    "cacheReadTokens": 40 * self.output_tokens,
                    "thinkingTokens": self.output_tokens // 3,
                },
            )

        return act


class DroidDemo:
    """The demo store: finished sessions from earlier and two live sessions stepped by the clock."""

    def __init__(
        self,
        home: Path,
        ctx: HarnessContext,
        *,
        seed: int = 11,
        max_bytes: int = MAX_BYTES,
        turns_per_session: int = TURNS_PER_SESSION,
    ) -> None:
        root = locations.root(ctx).path
        require_inside(root, home, "Droid")
        self.home = home
        self.start = ctx.now
        work = home / "work"
        cwds = {
            "storefront": work / "shop" / "storefront",
            "infra": work / "shop" / "infra",
            "docs": work / "oss" / "docs",
        }
        for path in cwds.values():
            path.mkdir(parents=True, exist_ok=True)
        for index, (project, hours, model) in enumerate(
            (("docs", 6.0, SONNET), ("infra", 2.7, CODEX), ("storefront", 1.3, SONNET))
        ):
            at = self.start - timedelta(hours=hours)
            worker = _Worker(root.parent, str(cwds[project]), project, f"{seed}:old:{index}", at, model=model)
            for n in range(2):
                play(worker.turn(n, random.Random(f"{worker.seed}:{n}"), lead_s=1.0), at + timedelta(minutes=3 * n))
        self.workers: list[_Worker] = []
        self.schedules: list[Schedule] = []
        for index, (project, model) in enumerate((("storefront", SONNET), ("infra", CODEX))):
            warmup = self.start - timedelta(minutes=6 + 4 * index)
            worker = _Worker(
                root.parent,
                str(cwds[project]),
                project,
                f"{seed}:live:{index}",
                warmup,
                model=model,
                max_bytes=max_bytes,
                turns_per_session=turns_per_session,
            )
            phase = timedelta(seconds=index * CYCLE_S / 2)
            schedule = Schedule(self.start + phase, CYCLE_S, worker.turn, seed=f"{worker.seed}:turn")
            play(worker.turn(-1, schedule.rng(-1), lead_s=0.5), warmup)
            self.workers.append(worker)
            self.schedules.append(schedule)

    def step(self, now: datetime) -> None:
        """Append what the live sessions would have written by *now*."""
        for schedule in self.schedules:
            schedule.step(now)


def simulate(home: Path, ctx: HarnessContext) -> DroidDemo:
    """The ``simulate`` hook's work: write the demo store under *home* and return it live."""
    return DroidDemo(home, ctx)
