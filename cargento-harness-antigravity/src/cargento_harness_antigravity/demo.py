"""The ``cargento --demo`` simulation for Antigravity CLI: finished conversations and live ones.

Everything is written with this package's store builders (:mod:`cargento_harness_antigravity.fixtures`)
into the ``antigravity-cli`` directory the plugin itself resolves for the demo context. Each
conversation is an SQLite database written in place by one connection kept open in WAL mode,
as the running CLI writes it (:class:`~cargento_harness_antigravity.fixtures.LiveConversation`),
and each CLI run has its own glog-style log naming its workspace and the prompts typed;
``cache/last_conversations.json`` maps each workspace to its newest conversation.

At start the home holds three finished conversations from hours ago (their CLI runs ended, so
their databases carry no ``-wal``), one with a finished subagent, and two live conversations,
each idle after an earlier turn. Every :data:`CYCLE_S` seconds each live conversation runs one
turn on its own schedule: a prompt (step 14 and the log lines that carry its text), model
responses carrying output tokens (step 15) every few seconds, tool steps with their summary and
action (step 21), and in the first live conversation, every other turn, a subagent conversation
(a "Research Auditor") that works for a while and stops. Antigravity records no turn end, so a
row reads working while its newest write is under 90 seconds old; the cycle leaves time after
that for the row to be seen idle. Antigravity's store holds no task list and no waits, so the
demo writes none.

The turns run on core's :class:`cargento.demo.Schedule`, a pure function of the cycle number and
a seed. ``step`` never rewrites the past: a clock that goes backwards writes nothing, and a
clock that jumps forward finishes the turn in progress and resumes at the current cycle. A
conversation whose files pass :data:`MAX_BYTES`, or that holds :data:`TURNS_PER_CONVERSATION`
turns, is closed and the work goes on in a new conversation of the same CLI run; the demo keeps
only the newest :data:`KEEP_CONVERSATIONS` conversations of a live run (with their subagents),
so files, rows and pills stay bounded over hours.
"""

from __future__ import annotations

import collections
import os
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from cargento.demo import Action, Schedule, play, require_inside, seeded_uuid
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

from cargento_harness_antigravity import locations
from cargento_harness_antigravity.fixtures import MODEL, AntigravityStore, Conversation, LiveConversation

__all__ = [
    "CYCLE_S",
    "KEEP_CONVERSATIONS",
    "MAX_BYTES",
    "TURNS_PER_CONVERSATION",
    "AntigravityDemo",
    "Job",
    "simulate",
]

#: One live turn, the 90 seconds a quiet row still reads as working, and some idle time.
CYCLE_S = 180.0
MAX_BYTES = 4 * 1024 * 1024
TURNS_PER_CONVERSATION = 12
KEEP_CONVERSATIONS = 3
PRO = "Gemini 3 Pro (High)"
FLASH = MODEL

Script = list[tuple[float, Action]]

#: ``(summary, action)`` of the tool steps a demo turn makes.
_TOOLS: tuple[tuple[str, str], ...] = (
    ("Viewed file", "src/lib/schedule.ts"),
    ("Searched workspace", "grep -rn useSchedule src"),
    ("Listed directory", "src/components"),
    ("Edited file", "src/lib/schedule.ts"),
    ("Ran command", "pnpm test"),
    ("Ran command", "pnpm lint"),
    ("Ran command", "git diff --stat"),
)


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Job:
    """One piece of work a demo turn does: the prompt typed (its first line is the title)."""

    prompt: str


_JOBS: dict[str, tuple[Job, ...]] = {
    "planner": (
        Job("Show overlapping shifts in red on the week view"),
        Job("The schedule export drops the last day of the month"),
        Job("Add keyboard shortcuts to move between weeks"),
    ),
    "mobile": (
        Job("Why does the app log out after backgrounding on Android?"),
        Job("Cache the roster so it opens offline"),
    ),
    "site": (Job("Refresh the pricing page copy from the new plan names"),),
}


def _size(conv: Conversation) -> int:
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += os.stat(str(conv.path) + suffix).st_size
        except OSError:
            pass
    return total


class _Run:
    """One Antigravity CLI run in one workspace: its log and its conversations, turn by turn."""

    def __init__(
        self,
        gemini_home: Path,
        workspace: str,
        project: str,
        seed: str,
        at: datetime,
        *,
        model: str,
        subagent: bool,
        max_bytes: int = MAX_BYTES,
        turns_per_conversation: int = TURNS_PER_CONVERSATION,
    ) -> None:
        self.store = AntigravityStore(gemini_home, gemini_cli_home=gemini_home)
        self.store.start_cli([workspace], at)
        self.workspace = workspace
        self.project = project
        self.seed = seed
        self.model = model
        self.subagent = subagent
        self.max_bytes = max_bytes
        self.turns_per_conversation = turns_per_conversation
        self.opened = 0
        self.turns = 0
        #: Each kept conversation with the subagent conversations it spawned.
        self.kept: collections.deque[tuple[LiveConversation, list[LiveConversation]]] = collections.deque()
        self.conv = self._open(at)
        self._child: LiveConversation | None = None

    def _live(self, conv: Conversation) -> LiveConversation:
        assert isinstance(conv, LiveConversation)
        return conv

    def _open(self, at: datetime) -> LiveConversation:
        """A new conversation in this run; the oldest beyond :data:`KEEP_CONVERSATIONS` is removed
        with its subagents."""
        rng = random.Random(f"{self.seed}:conversation:{self.opened}")
        self.opened += 1
        self.turns = 0
        conv = self._live(
            self.store.conversation(seeded_uuid(rng), at=at, workspace=self.workspace, model=self.model, live=True)
        )
        self.kept.append((conv, []))
        while len(self.kept) > KEEP_CONVERSATIONS:
            old, children = self.kept.popleft()
            for gone in (old, *children):
                gone.close(at)
                for suffix in ("", "-wal", "-shm"):
                    Path(str(gone.path) + suffix).unlink(missing_ok=True)
        return conv

    def close(self, at: datetime) -> None:
        """The CLI exits: every open database is checkpointed and closed."""
        for conv, children in self.kept:
            for each in (conv, *children):
                each.close(at)

    def _roll(self, at: datetime) -> None:
        """Before a turn: a conversation past the size or turn limit is closed and a new one opened."""
        if _size(self.conv) > self.max_bytes or self.turns >= self.turns_per_conversation:
            self.conv.close(at)
            self.conv = self._open(at)
        self.turns += 1

    # -- one turn ----------------------------------------------------------------------

    def turn(self, n: int, rng: random.Random, *, lead_s: float = 4.0) -> Script:
        """The events of turn *n*, as ``(seconds after the cycle start, action)`` pairs, drawn from *rng*."""
        jobs = _JOBS[self.project]
        job = jobs[n % len(jobs)]
        out: Script = [(0.0, self._roll)]
        t = lead_s + rng.uniform(0.0, 3.0)
        out.append((t, self._prompt(job.prompt)))
        steps = rng.randint(4, 6)
        for k in range(steps):
            t += rng.uniform(2.0, 4.0)
            out.append((t, self._respond(rng.randint(80, 420))))
            summary, action = _TOOLS[rng.randrange(len(_TOOLS))]
            t += rng.uniform(2.0, 5.0)
            out.append((t, self._tool(summary, action)))
            if self.subagent and k == 1 and n % 2 == 0:
                t = self._subagent(out, t, rng)
        t += rng.uniform(2.0, 4.0)
        out.append((t, self._respond(rng.randint(150, 500))))
        return out

    def _prompt(self, text: str) -> Action:
        def act(at: datetime) -> None:
            self.conv.prompt(text, at)

        return act

    def _respond(self, tokens: int) -> Action:
        def act(at: datetime) -> None:
            self.conv.respond(at, output_tokens=tokens)

        return act

    def _tool(self, summary: str, action: str) -> Action:
        def act(at: datetime) -> None:
            self.conv.tool(summary, action, at)

        return act

    def _subagent(self, out: Script, t: float, rng: random.Random) -> float:
        """A subagent conversation: created by this one, it works for a while and stops."""
        child_id = seeded_uuid(rng)

        def start(at: datetime) -> None:
            child = self._live(
                self.store.conversation(
                    child_id, at=at, parent=self.conv, role="Research Auditor", kind="research", model=FLASH, live=True
                )
            )
            self.kept[-1][1].append(child)
            self._child = child

        t += rng.uniform(1.0, 2.0)
        out.append((t, start))
        for _ in range(3):
            summary, action = _TOOLS[rng.randrange(3)]
            t += rng.uniform(2.0, 4.0)
            out.append((t, self._child_step(summary, action, rng.randint(60, 260))))
        t += rng.uniform(1.0, 2.0)

        def stop(at: datetime) -> None:
            if self._child is not None:
                self._child.close(at)
                self._child = None

        out.append((t, stop))
        return t

    def _child_step(self, summary: str, action: str, tokens: int) -> Action:
        def act(at: datetime) -> None:
            if self._child is not None:
                self._child.tool(summary, action, at)
                self._child.respond(at, output_tokens=tokens)

        return act


class AntigravityDemo:
    """The demo store: finished conversations from earlier and two live ones stepped by the clock."""

    def __init__(
        self,
        home: Path,
        ctx: HarnessContext,
        *,
        seed: int = 5,
        max_bytes: int = MAX_BYTES,
        turns_per_conversation: int = TURNS_PER_CONVERSATION,
    ) -> None:
        root = locations.root(ctx).path
        require_inside(root, home, "Antigravity")
        gemini_home = root.parent.parent
        self.home = home
        self.start = ctx.now
        work = home / "work"
        workspaces = {
            "planner": work / "rota" / "planner",
            "mobile": work / "rota" / "mobile",
            "site": work / "marketing" / "site",
        }
        for path in workspaces.values():
            path.mkdir(parents=True, exist_ok=True)
        for index, (project, hours, model, sub) in enumerate(
            (("site", 7.0, FLASH, False), ("mobile", 4.5, PRO, True), ("planner", 2.2, PRO, False))
        ):
            at = self.start - timedelta(hours=hours)
            run = _Run(
                gemini_home, str(workspaces[project]), project, f"{seed}:old:{index}", at, model=model, subagent=sub
            )
            play(run.turn(2 * index, random.Random(run.seed), lead_s=1.0), at)
            run.close(at + timedelta(minutes=3))
        self.last = self.start
        self.events: list[dict[str, Any]] = []
        self.pushed: dict[str, dict[str, Any]] | None = None
        self.runs: list[_Run] = []
        self.schedules: list[Schedule] = []
        for index, (project, model, sub) in enumerate((("planner", PRO, True), ("mobile", FLASH, False))):
            warmup = self.start - timedelta(minutes=6 + 4 * index)
            run = _Run(
                gemini_home,
                str(workspaces[project]),
                project,
                f"{seed}:live:{index}",
                warmup,
                model=model,
                subagent=sub,
                max_bytes=max_bytes,
                turns_per_conversation=turns_per_conversation,
            )
            phase = timedelta(seconds=index * CYCLE_S / 2)
            schedule = Schedule(self.start + phase, CYCLE_S, run.turn, seed=f"{run.seed}:turn")
            play(run.turn(-1, schedule.rng(-1), lead_s=0.5), warmup)
            self.runs.append(run)
            self.schedules.append(schedule)

    def step(self, now: datetime) -> None:
        """Append what the live conversations would have written by *now*."""
        for schedule in self.schedules:
            schedule.step(now)
        self.last = max(self.last, now)
        block = quota_block(self.start, now)
        if block != self.pushed:
            self.pushed = block
            self.events.append({"hook_event_name": "StatusLine", "quota": block})

    def drain_events(self) -> list[dict[str, Any]]:
        """The status-line pushes the steps so far produced (the quota block alone, as
        ``statusline_hook.py`` sends it), each handed over once."""
        out, self.events = self.events, []
        return out

    def close(self) -> None:
        """Close every database the live runs hold open, as exiting CLIs do (the demo's end)."""
        for run in self.runs:
            run.close(self.last)


def _next_reset(start: datetime, first_s: float, length_s: float, now: datetime) -> datetime:
    reset = start + timedelta(seconds=first_s)
    while reset <= now:
        reset += timedelta(seconds=length_s)
    return reset


def quota_block(start: datetime, now: datetime) -> dict[str, dict[str, Any]]:
    """The quota block the demo's status line pushes: Gemini's five-hour window two-thirds
    spent with four-fifths of its time gone, and its weekly window half spent a day in (a pace
    that spends it days before the reset). Resets are anchored at the demo's start and roll on
    by the window's length, so the block changes only at a rollover."""
    five = _next_reset(start, 3600.0, 5 * 3600.0, now)
    week = _next_reset(start, 6 * 86400.0, 7 * 86400.0, now)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return {
        "gemini-5h": {"remaining_fraction": 0.35, "reset_time": five.strftime(stamp)},
        "3p-5h": {"remaining_fraction": 0.9, "reset_time": five.strftime(stamp)},
        "gemini-weekly": {"remaining_fraction": 0.5, "reset_time": week.strftime(stamp)},
        "3p-weekly": {"remaining_fraction": 0.8, "reset_time": week.strftime(stamp)},
    }


def simulate(home: Path, ctx: HarnessContext) -> AntigravityDemo:
    """The ``simulate`` hook's work: write the demo store under *home* and return it live."""
    return AntigravityDemo(home, ctx)
