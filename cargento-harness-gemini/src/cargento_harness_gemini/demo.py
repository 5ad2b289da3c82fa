"""The ``cargento --demo`` simulation for Gemini CLI: finished chats from earlier and live ones.

Everything is written with this package's store builders (:mod:`cargento_harness_gemini.fixtures`)
into the store the plugin itself resolves for the demo context, so what the board shows is what
it would read from a real Gemini CLI store. At start the home holds three finished sessions
from hours ago (topics, todos, a completed subagent, tokens, models) and two live sessions,
each idle after an earlier turn. Every :data:`CYCLE_S` seconds each live session runs one turn
on its own schedule: a prompt, an ``update_topic``, a ``write_todos`` list advanced as the work
goes (pending, in progress, completed), tool calls that take a few seconds each (the model
message is written first and re-appended with its tool call once it finishes, as the CLI does),
output tokens on every model response, and in the first live session, every other turn, a
subagent (``invoke_agent``) whose own recording runs and completes. The turn ends with a text
reply (how Gemini CLI records a turn's end) and the session stays idle until its next cycle.

The turns run on core's :class:`cargento.demo.Schedule`, a pure function of the cycle number and
a seed, so a replay writes the same store. ``step`` never rewrites the past: a clock that goes
backwards writes nothing, and a clock that jumps forward finishes the turn in progress and
resumes at the current cycle, so one step does at most two cycles of work. A chat file grown
past :data:`MAX_BYTES`, or holding :data:`TURNS_PER_CHAT` turns, is left finished and the work
goes on in a new chat of the same project; only the newest :data:`KEEP_CHATS` chats of a live
session are kept (Gemini CLI's own session retention removes old chats the same way), so files,
rows and pills stay bounded.
"""

from __future__ import annotations

import collections
import random
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from cargento.demo import Action, Schedule, play, require_inside, seeded_uuid
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

from cargento_harness_gemini import locations
from cargento_harness_gemini.fixtures import GeminiChat, GeminiStore, Pending, SubagentRun, ToolCall

__all__ = ["CYCLE_S", "MAX_BYTES", "GeminiDemo", "Job", "simulate"]

#: One live turn and the idle time after it.
CYCLE_S = 120.0
#: A chat file past this size is left finished and the session goes on in a new file.
MAX_BYTES = 4 * 1024 * 1024
#: A live session moves to a new chat file after this many turns (as a user starts a new one).
TURNS_PER_CHAT = 20
#: Chat files a live session keeps; older ones are removed, as Gemini CLI's session retention does.
KEEP_CHATS = 3
PRO = "gemini-2.5-pro"
FLASH = "gemini-2.5-flash"

Script = list[tuple[float, Action]]

#: ``(tool name, display name, args)`` of the tool calls a demo turn makes.
_TOOLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("read_file", "ReadFile", {"file_path": "src/handlers.py"}),
    ("grep_search", "SearchText", {"pattern": "def handle_"}),
    ("glob", "FindFiles", {"pattern": "**/*_test.py"}),
    ("replace", "Edit", {"file_path": "src/handlers.py", "old_string": "...", "new_string": "..."}),
    ("run_shell_command", "Shell", {"command": "pytest -q"}),
    ("run_shell_command", "Shell", {"command": "ruff check ."}),
    ("list_directory", "ReadFolder", {"dir_path": "src"}),
)


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Job:
    """One piece of work a demo turn does: what is typed, the topic, the todos, the answer."""

    prompt: str
    topic: str
    todos: tuple[str, ...]
    summary: str


_JOBS: dict[str, tuple[Job, ...]] = {
    "api": (
        Job(
            "Add pagination to the /orders endpoint",
            "Paginate the orders endpoint",
            ("Read the orders handler", "Add cursor pagination", "Cover it with tests"),
            "The /orders endpoint now pages with an opaque cursor; tests pass.",
        ),
        Job(
            "The refund webhook retries forever on a 409, fix it",
            "Stop refund webhook retry loop",
            ("Reproduce the retry loop", "Treat 409 as final", "Add a regression test"),
            "A 409 from the payment provider is now final; the retry loop is gone.",
        ),
        Job(
            "Rate-limit the login route per IP",
            "Rate-limit login attempts",
            ("Find the login route", "Add the limiter middleware", "Test the lockout"),
            "Login is limited to 10 attempts a minute per IP.",
        ),
    ),
    "cli": (
        Job(
            "Add a --json flag to the status command",
            "JSON output for status",
            ("Add the flag", "Serialise the status table"),
            "`status --json` prints one object per service.",
        ),
        Job(
            "Make the config loader accept TOML",
            "TOML config support",
            ("Parse TOML with tomllib", "Keep YAML working"),
            "Config files may now be TOML; YAML still loads.",
        ),
    ),
    "web": (
        Job(
            "The login test is flaky on CI, find out why",
            "Fix the flaky login test",
            ("Reproduce the flake", "Wait for the session cookie", "Run the suite 20 times"),
            "The test raced the session cookie; it now waits for it. 20/20 green.",
        ),
    ),
}


class _Worker:
    """One Gemini CLI session in one project, writing turns (and rolling its chat file over)."""

    def __init__(
        self,
        store: GeminiStore,
        cwd: str,
        project: str,
        seed: str,
        at: datetime,
        *,
        model: str,
        subagent: bool,
        max_bytes: int = MAX_BYTES,
        turns_per_chat: int = TURNS_PER_CHAT,
    ) -> None:
        self.store = store
        self.cwd = cwd
        self.project = project
        self.seed = seed
        self.model = model
        self.subagent = subagent
        self.max_bytes = max_bytes
        self.turns_per_chat = turns_per_chat
        self.files = 0
        self.turns = 0
        self.kept: collections.deque[GeminiChat] = collections.deque()
        self.chat = self._open(at)
        self._pending: Pending | None = None
        self._run: SubagentRun | None = None

    def _open(self, at: datetime) -> GeminiChat:
        """A new chat file (a new session) in this worker's project; the oldest beyond
        :data:`KEEP_CHATS` is removed with its subagent recordings."""
        rng = random.Random(f"{self.seed}:file:{self.files}")
        self.files += 1
        self.turns = 0
        chat = self.store.session(seeded_uuid(rng), cwd=self.cwd, at=at)
        self.kept.append(chat)
        while len(self.kept) > KEEP_CHATS:
            old = self.kept.popleft()
            old.path.unlink(missing_ok=True)
            shutil.rmtree(old.path.parent / old.session_id, ignore_errors=True)
        return chat

    def _roll(self, at: datetime) -> None:
        """Before a turn: a chat grown past the size or turn limit is left and a new one started."""
        try:
            size = self.chat.path.stat().st_size
        except OSError:
            size = self.max_bytes + 1
        if size > self.max_bytes or self.turns >= self.turns_per_chat:
            self._pending = None
            self._run = None
            self.chat = self._open(at)
        self.turns += 1

    # -- one turn ----------------------------------------------------------------------

    def turn(self, n: int, rng: random.Random, *, lead_s: float = 4.0) -> Script:
        """The events of turn *n*, as ``(seconds after the cycle start, action)`` pairs, drawn from *rng*."""
        jobs = _JOBS[self.project]
        job = jobs[n % len(jobs)]
        out: Script = [(0.0, self._roll)]
        t = lead_s + rng.uniform(0.0, 3.0)
        out.append((t, self._prompt(job.prompt)))
        t += rng.uniform(1.5, 3.0)
        out.append(
            (
                t,
                self._call(
                    "update_topic", "Update Topic Context", {"title": job.topic, "strategic_intent": job.prompt}, 40
                ),
            )
        )
        t += rng.uniform(1.5, 3.0)
        out.append((t, self._todos(job, 0)))
        for k in range(len(job.todos)):
            for _ in range(2):
                name, display, args = _TOOLS[rng.randrange(len(_TOOLS))]
                tokens = rng.randint(60, 420)
                took = rng.uniform(2.0, 6.0)
                t += rng.uniform(1.5, 3.5)
                out.append((t, self._begin(tokens)))
                t += took
                out.append((t, self._finish(name, display, args)))
            if self.subagent and k == 0 and n % 2 == 0:
                t = self._subagent(out, t, rng, job)
            t += rng.uniform(1.0, 2.5)
            out.append((t, self._todos(job, k + 1)))
        t += rng.uniform(2.0, 4.0)
        out.append((t, self._reply(job.summary, rng.randint(150, 380))))
        return out

    def _prompt(self, text: str) -> Action:
        def act(at: datetime) -> None:
            self.chat.prompt(text, at)

        return act

    def _reply(self, text: str, tokens: int) -> Action:
        """The closing text reply: how Gemini CLI records the end of a turn."""

        def act(at: datetime) -> None:
            self.chat.reply(text, at, output_tokens=tokens, model=self.model)

        return act

    def _call(self, name: str, display: str, args: dict[str, Any], tokens: int) -> Action:
        """A quick tool call, asked for and finished at once."""

        def act(at: datetime) -> None:
            pending = self.chat.wait("", at, output_tokens=tokens, model=self.model)
            self.chat.answer(pending, [ToolCall(name, args, display_name=display)], at)

        return act

    def _begin(self, tokens: int) -> Action:
        def act(at: datetime) -> None:
            self._pending = self.chat.wait("", at, output_tokens=tokens, model=self.model)

        return act

    def _finish(self, name: str, display: str, args: dict[str, Any]) -> Action:
        def act(at: datetime) -> None:
            if self._pending is not None:
                self.chat.answer(self._pending, [ToolCall(name, args, display_name=display)], at)
                self._pending = None

        return act

    def _todos(self, job: Job, stage: int) -> Action:
        """``write_todos`` with the first *stage* rows completed and the next one in progress."""
        rows = [
            (d, "completed" if i < stage else "in_progress" if i == stage else "pending")
            for i, d in enumerate(job.todos)
        ]
        return self._call(
            "write_todos",
            "WriteTodos",
            {"todos": [{"description": d, "status": s} for d, s in rows]},
            30 + 12 * len(rows),
        )

    def _subagent(self, out: Script, t: float, rng: random.Random, job: Job) -> float:
        """An ``invoke_agent`` run: its recording works for a while, then completes its task."""
        child_id = seeded_uuid(rng)
        prompt = f"Investigate the code paths involved in: {job.prompt}"

        def start(at: datetime) -> None:
            self._run = self.chat.subagent("codebase_investigator", prompt, at, session_id=child_id, model=self.model)

        t += rng.uniform(1.0, 2.0)
        out.append((t, start))
        for _ in range(3):
            name, display, args = _TOOLS[rng.randrange(3)]
            tokens = rng.randint(80, 300)
            t += rng.uniform(3.0, 6.0)
            out.append((t, self._child_tool(name, display, args, tokens)))
        t += rng.uniform(2.0, 4.0)
        tokens = rng.randint(60, 160)

        def complete(at: datetime) -> None:
            if self._run is not None:
                self._run.complete(f"Mapped the code paths for: {job.topic}.", at, output_tokens=tokens)
                self._run = None

        out.append((t, complete))
        return t

    def _child_tool(self, name: str, display: str, args: dict[str, Any], tokens: int) -> Action:
        def act(at: datetime) -> None:
            if self._run is not None:
                child = self._run.child
                pending = child.wait("", at, output_tokens=tokens, model=FLASH)
                child.answer(pending, [ToolCall(name, args, display_name=display)], at)

        return act


class GeminiDemo:
    """The demo store: finished sessions from earlier and two live sessions stepped by the clock."""

    def __init__(
        self,
        home: Path,
        ctx: HarnessContext,
        *,
        seed: int = 7,
        max_bytes: int = MAX_BYTES,
        turns_per_chat: int = TURNS_PER_CHAT,
    ) -> None:
        root = locations.root(ctx).path
        require_inside(root, home, "Gemini CLI")
        self.home = home
        self.start = ctx.now
        self.store = GeminiStore(home, gemini_cli_home=root.parent)
        work = home / "work"
        cwds = {"api": work / "acme" / "api", "web": work / "acme" / "web", "cli": work / "tools" / "cli"}
        for path in cwds.values():
            path.mkdir(parents=True, exist_ok=True)
        earlier: list[tuple[str, float, str, bool]] = [
            ("web", 5.2, PRO, False),
            ("cli", 3.5, FLASH, True),
            ("api", 1.6, PRO, False),
        ]
        for index, (project, hours, model, sub) in enumerate(earlier):
            at = self.start - timedelta(hours=hours)
            worker = _Worker(
                self.store, str(cwds[project]), project, f"{seed}:old:{index}", at, model=model, subagent=sub
            )
            play(worker.turn(2 * index, random.Random(worker.seed), lead_s=1.0), at)
        self.workers: list[_Worker] = []
        self.schedules: list[Schedule] = []
        for index, (project, model, sub) in enumerate((("api", PRO, True), ("cli", FLASH, False))):
            warmup = self.start - timedelta(minutes=7 + 4 * index)
            worker = _Worker(
                self.store,
                str(cwds[project]),
                project,
                f"{seed}:live:{index}",
                warmup,
                model=model,
                subagent=sub,
                max_bytes=max_bytes,
                turns_per_chat=turns_per_chat,
            )
            phase = timedelta(seconds=index * CYCLE_S / 2)
            schedule = Schedule(self.start + phase, CYCLE_S, worker.turn, seed=f"{worker.seed}:turn")
            play(worker.turn(-1 - index, schedule.rng(-1 - index), lead_s=0.5), warmup)
            self.workers.append(worker)
            self.schedules.append(schedule)

    def step(self, now: datetime) -> None:
        """Append what the live sessions would have written by *now*."""
        for schedule in self.schedules:
            schedule.step(now)


def simulate(home: Path, ctx: HarnessContext) -> GeminiDemo:
    """The ``simulate`` hook's work: write the demo store under *home* and return it live."""
    return GeminiDemo(home, ctx)
