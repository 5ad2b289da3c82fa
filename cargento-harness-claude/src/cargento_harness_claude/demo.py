"""The ``cargento --demo`` simulation: a live Claude Code store written with the store builders.

At start the demo home holds three finished sessions from earlier in the day (titles, task
lists, a finished subagent, output tokens) and one live interactive session, all where Claude
Code writes them (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, resolved the way the plugin
resolves it) and in the shape of the golden stores (:mod:`cargento_harness_claude.fixtures`).

Every :data:`CYCLE_S` seconds the live session runs one scripted turn: a typed prompt,
thinking, a task list created with ``TaskCreate`` and advanced with ``TaskUpdate`` (pending,
in progress, completed), tool calls and their results, output tokens every few seconds, a
background ``Agent`` subagent that runs in its own sidechain transcript and finishes (then the
``<task-notification>`` Claude Code feeds back), and a wait on the human answered 20-40 s
later: a ``Bash`` permission prompt on even cycles, an ``AskUserQuestion`` on odd ones. The turn
then ends (``end_turn`` and ``turn_duration``) and the session idles until the next cycle.

The first turn also force-pushes its branch (:data:`PUSH_AT_S` into the cycle) and hands the
``PostToolUse`` hook body Claude Code would post for it to the demo (``drain_events``), so the
dashboard's irreversible-command report shows up within the demo's first minute, fed through
the event hub as a real hook's post is.

The live session's process is the current one: ``sessions/<pid>.json`` carries this process's
pid and the start time the process table reports for it, so a board reading the real process
table trusts it; its status goes ``busy``, ``waiting`` (with ``waitingFor``) and ``idle`` as
Claude Code writes it.

The turns run on core's :class:`cargento.demo.Schedule`: everything follows from the start time,
``now`` and a seed, so two runs stepped through the same moments write the same schedule.
``step`` never raises on a clock that goes back (it waits for the schedule to be reached again)
or jumps ahead (it finishes the turn in hand at its scheduled times and resumes at the current
cycle, so one step does at most two cycles' work). Files stay bounded over hours: a transcript
past :data:`ROTATE_BYTES` is retired at the next turn (its process exits, removing the pid file,
and a fresh session starts), only the newest :data:`KEEP_RETIRED` retired sessions and
:data:`KEEP_AGENTS` subagent transcripts of the live session are kept, and each turn's task list
is deleted (``TaskUpdate`` ``deleted``) when the next turn writes its own.
"""

from __future__ import annotations

import os
import random
import shutil
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from cargento.demo import Action, Schedule, require_inside, seeded_uuid
from cargento.models import HarnessContext
from cargento.processes import LocalProcesses
from cargento.sharedmethods import shared_methods

from cargento_harness_claude import locations
from cargento_harness_claude.fixtures import AgentTranscript, ClaudeStore, Session, Transcript

__all__ = [
    "CYCLE_S",
    "KEEP_AGENTS",
    "KEEP_RETIRED",
    "PUSH",
    "PUSH_AT_S",
    "ROTATE_BYTES",
    "ClaudeDemo",
    "start",
    "this_process",
]

#: One scripted turn plus its idle tail, in seconds.
CYCLE_S = 180.0
#: The pid an exited process left in a stale pid file: above Linux's default ``pid_max`` range
#: in practice, and recorded with a start time no live process with that pid can share.
EXITED_PID = 4_194_000
#: The first prompt comes this long after the demo starts, so the first board shows it idle.
LEAD_S = 5.0
#: A live transcript past this size is retired at the next turn.
ROTATE_BYTES = 2 * 1024 * 1024
#: Retired live sessions kept on disk (older ones are removed, as ``/clear`` + cleanup would).
KEEP_RETIRED = 2
#: Subagent transcripts of the live session kept on disk.
KEEP_AGENTS = 2
#: When the wait on the human opens, seconds into the cycle, and how long it stands.
WAIT_AT_S = 66.0
WAIT_S = (20.0, 40.0)
#: The first turn's irreversible command, seconds into the cycle (about 25 s into the demo).
PUSH_AT_S = 19.0
PUSH = "git push --force origin orders-pagination"
PUSH_OUTPUT = "To github.com:acme/api.git\n + 3f2c1a9...e81b7d4 orders-pagination -> orders-pagination (forced update)"


def this_process(fallback: datetime) -> tuple[int, datetime]:
    """This process's pid and start time as the process table reports it (*fallback* where
    the platform reports none; the pid file is then not trusted, as for any unverifiable pid)."""
    pid = os.getpid()
    info = LocalProcesses().get(pid)
    if info is not None and info.started_at is not None:
        return pid, datetime.fromtimestamp(info.started_at, UTC)
    return pid, fallback


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Job:
    """What one scripted turn is about."""

    prompt: str
    title: str
    tasks: tuple[tuple[str, str], ...]
    reads: tuple[str, str]
    agent: tuple[str, str]
    command: str
    question: str


JOBS = (
    Job(
        prompt="Add cursor pagination to GET /orders and keep the old offset param working",
        title="Cursor pagination for /orders",
        tasks=(
            ("Add the cursor codec", "Adding the cursor codec"),
            ("Paginate the orders query", "Paginating the orders query"),
            ("Cover both params with tests", "Covering both params with tests"),
        ),
        reads=("src/api/orders.py", "def list_orders"),
        agent=("Find other paginated endpoints", "List every endpoint that paginates and how it does it."),
        command="pytest -q tests/api/test_orders.py",
        question="Should an invalid cursor return 400 or fall back to the first page?",
    ),
    Job(
        prompt="The webhook retries hammer the billing service; add jittered backoff",
        title="Jittered webhook backoff",
        tasks=(
            ("Write the backoff policy", "Writing the backoff policy"),
            ("Use it in the webhook worker", "Wiring the webhook worker"),
            ("Test the retry schedule", "Testing the retry schedule"),
        ),
        reads=("src/api/webhooks/worker.py", "retry_after"),
        agent=("Audit retry call sites", "Find every place that retries an HTTP call and report the policy used."),
        command="pytest -q tests/webhooks",
        question="Cap the backoff at 5 minutes or 15 minutes?",
    ),
    Job(
        prompt="Rate-limit the public search endpoint per API key",
        title="Per-key rate limit on search",
        tasks=(
            ("Add the token bucket", "Adding the token bucket"),
            ("Key it by API key", "Keying it by API key"),
            ("Return 429 with Retry-After", "Returning 429 with Retry-After"),
        ),
        reads=("src/api/search.py", "def search"),
        agent=("Check the Redis client setup", "How is Redis configured in this service, and is there a pool?"),
        command="pytest -q tests/api/test_search.py -k limit",
        question="Which limit should anonymous keys get: 10 or 30 requests per minute?",
    ),
)
TOOL_OUTPUT = "12 passed in 3.41s"


def _ago(at: datetime, **kw: float) -> datetime:
    return at - timedelta(**kw)


def _agent_id(rng: random.Random) -> str:
    return "a" + "".join(rng.choice("0123456789abcdef") for _ in range(16))


def _project(home: Path, rel: str) -> str:
    path = home / "work" / rel
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


class ClaudeDemo:
    """Finished sessions from earlier and one live session cycling through scripted turns."""

    def __init__(
        self,
        home: Path,
        ctx: HarnessContext,
        *,
        seed: int = 2026,
        rotate_bytes: int = ROTATE_BYTES,
        process: tuple[int, datetime] | None = None,
    ) -> None:
        root = locations.store(ctx).root
        require_inside(root, home, "Claude Code")
        self.store = ClaudeStore(home, root=root)
        self.start = ctx.now
        self.seed = seed
        self.rotate_bytes = rotate_bytes
        self.pid, self.process_started = process or this_process(ctx.now)
        self._rng = random.Random(f"claude-demo:{seed}")
        self.api = _project(home, "acme/api")
        self._finished(home)
        self.live = self._open_live(self.start - timedelta(minutes=25))
        self.retired: deque[Session] = deque()
        self.agents: deque[AgentTranscript] = deque()
        self.agent: AgentTranscript | None = None
        self.task_ids: list[str] = []
        self.next_task = 1
        self.pending: str | None = None
        #: Hook bodies written since the last :meth:`drain_events`.
        self.events: list[dict[str, Any]] = []
        self.schedule = Schedule(
            self.start + timedelta(seconds=LEAD_S), CYCLE_S, self._plan, seed=f"claude-demo:{seed}", tolerate=(OSError,)
        )

    # -- the picture at start -------------------------------------------------------------

    def _finished(self, home: Path) -> None:
        """Three sessions that ended hours ago, in two other projects and this one."""
        web = _project(home, "acme/web")
        cli = _project(home, "tools/cli")
        t = _ago(self.start, hours=3, minutes=10)
        s = self.store.session(seeded_uuid(self._rng), cwd=web)
        s.bookkeeping(t)
        s.prompt("Move the settings page onto the new form kit", t)
        s.title("Settings page on the form kit")
        ids = s.respond(
            t + timedelta(seconds=6),
            text="I'll split this into three steps.",
            tokens=180,
            tools=[
                ("TaskCreate", {"subject": subject, "description": subject, "activeForm": active})
                for subject, active in (
                    ("Port the profile form", "Porting the profile form"),
                    ("Port the notifications form", "Porting the notifications form"),
                    ("Delete the old form helpers", "Deleting the old form helpers"),
                )
            ],
        )
        for n, (call, subject) in enumerate(
            zip(
                ids,
                ("Port the profile form", "Port the notifications form", "Delete the old form helpers"),
                strict=True,
            ),
            start=1,
        ):
            s.result(
                call,
                t + timedelta(seconds=7),
                tool_result={"task": {"id": str(n), "subject": subject, "description": subject}},
            )
            self.store.task(s.session_id, str(n), subject, status="completed", at=t + timedelta(minutes=4 * n))
        for minute in range(1, 12):
            s.tokens(220 + 13 * minute, t + timedelta(minutes=minute))
        edit = s.tool(
            "Edit", t + timedelta(minutes=12), input={"file_path": f"{web}/src/settings/Profile.tsx"}, tokens=340
        )
        s.result(edit, t + timedelta(minutes=12, seconds=2))
        s.end_turn(
            t + timedelta(minutes=13), text="All three forms are on the kit; the old helpers are gone.", tokens=96
        )

        t = _ago(self.start, hours=5, minutes=40)
        s = self.store.session(seeded_uuid(self._rng), cwd=cli)
        s.bookkeeping(t)
        s.prompt("Why does --verbose print every line twice?", t)
        s.title("Duplicate --verbose output")
        call = s.tool(
            "Agent",
            t + timedelta(seconds=5),
            tokens=75,
            input={
                "description": "Trace the logging setup",
                "subagent_type": "Explore",
                "prompt": "Find where log handlers are attached and whether any are added twice.",
            },
        )
        agent = s.subagent(
            _agent_id(self._rng),
            agent_type="Explore",
            description="Trace the logging setup",
            at=t + timedelta(seconds=6),
        )
        s.result(
            call,
            t + timedelta(seconds=6),
            output="Async agent launched successfully.",
            tool_result={
                "isAsync": True,
                "status": "async_launched",
                "agentId": agent.agent_id,
                "description": "Trace the logging setup",
            },
        )
        agent.prompt("Find where log handlers are attached and whether any are added twice.", t + timedelta(seconds=6))
        grep = agent.tool("Grep", t + timedelta(seconds=10), input={"pattern": "addHandler"}, tokens=40)
        agent.result(grep, t + timedelta(seconds=11), output="cli/log.py:14\ncli/main.py:31")
        agent.end_turn(t + timedelta(seconds=40), text="main.py attaches a second stream handler.", tokens=120)
        agent.finish(t + timedelta(seconds=40))
        s.notification(f"<task-id>{agent.agent_id}</task-id>\n<status>completed</status>", t + timedelta(seconds=41))
        s.tokens(260, t + timedelta(seconds=60))
        s.end_turn(t + timedelta(seconds=90), text="main.py adds a second handler; I removed it.", tokens=140)

        t = _ago(self.start, hours=1, minutes=45)
        s = self.store.session(seeded_uuid(self._rng), cwd=self.api)
        s.bookkeeping(t)
        s.prompt("Bump the Postgres driver and fix whatever breaks", t)
        s.title("Postgres driver bump")
        for minute in range(1, 6):
            call = s.tool("Bash", t + timedelta(minutes=minute), input={"command": "pytest -q"}, tokens=150 + minute)
            s.result(
                call,
                t + timedelta(minutes=minute, seconds=20),
                output="3 failed" if minute < 5 else TOOL_OUTPUT,
                error=minute < 5,
            )
        s.end_turn(t + timedelta(minutes=6), text="Driver bumped; two queries needed explicit casts.", tokens=210)
        # Its terminal was closed at a permission prompt a minute later: the pid file the
        # killed process left behind still says waiting. Its process is gone, so the wait is
        # not believed, and the row's evidence shows the overrule (the process table over the
        # pid file's claim).
        self.store.pid_file(
            s,
            EXITED_PID,
            status="waiting",
            at=t + timedelta(minutes=7),
            started_at=t - timedelta(minutes=1),
            waiting_for="permission prompt",
        )

    def _open_live(self, at: datetime) -> Session:
        """A new live session with two completed turns behind it (so the turn has an estimate)."""
        s = self.store.session(seeded_uuid(self._rng), cwd=self.api)
        s.bookkeeping(at)
        for n, (length, text) in enumerate(
            ((95.0, "Read the orders module and summarise it"), (130.0, "Now list the endpoints that have no tests"))
        ):
            begin = at + timedelta(minutes=9 * n)
            s.prompt(text, begin)
            if n == 0:
                s.title("Orders API work")
            s.tokens(240, begin + timedelta(seconds=length / 2))
            s.end_turn(begin + timedelta(seconds=length), text="Done.", tokens=80)
        ended = at + timedelta(minutes=9, seconds=130)
        self.store.pid_file(s, self.pid, status="idle", at=ended, started_at=self.process_started)
        return s

    # -- the live script ------------------------------------------------------------------

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        job = JOBS[cycle % len(JOBS)]
        ask = cycle % 2 == 1
        answer_at = WAIT_AT_S + rng.uniform(*WAIT_S)
        agent_id = _agent_id(rng)
        session_id = seeded_uuid(rng)
        thought = rng.randint(8, 30)
        events: list[tuple[float, Action]] = [
            (0.0, lambda at: self._begin(job, session_id, at)),
            (2.0, lambda at: self.live.think(at, tokens=thought)),
            (5.0, lambda at: self._create_tasks(job, at)),
            (7.0, lambda at: self._advance(job, 0, at)),
            *self._tool(10.0, 3.0, lambda: self.live, "Read", {"file_path": job.reads[0]}, "…"),
            *self._tool(17.0, 1.0, lambda: self.live, "Grep", {"pattern": job.reads[1]}, f"{job.reads[0]}:42"),
            (24.0, lambda at: self._spawn(job, agent_id, at)),
            (40.0, lambda at: self._advance(job, 1, at)),
            *self._tool(44.0, 2.0, lambda: self.live, "Edit", {"file_path": job.reads[0]}, "The file was updated."),
            (WAIT_AT_S, lambda at: self._wait(job, ask, at)),
            (answer_at, lambda at: self._answer(ask, at)),
            (answer_at + 2.0, lambda at: self._advance(job, 2, at)),
            *self._tool(answer_at + 6.0, 5.0, lambda: self.live, "Bash", {"command": job.command}, TOOL_OUTPUT),
            (answer_at + 20.0, lambda at: self._advance(job, 3, at)),
            (answer_at + 24.0, lambda at: self._end(at)),
        ]
        if cycle == 0:
            events.extend(self._push(PUSH_AT_S))
        # The subagent's own script, while the lead goes on with its work.
        for offset, n in ((30.0, 60), (42.0, 90), (50.0, 140)):
            events.append((offset, self._tokens(lambda: self.agent, n)))
        events.extend(
            self._tool(36.0, 1.0, lambda: self.agent, "Grep", {"pattern": "paginate"}, "src/api/orders.py:40")
        )
        events.append((56.0, self._agent_done))
        events.append((58.0, self._notify))
        # Output tokens every 4 s while the turn is working (none while it waits).
        offset = 3.5
        while offset < answer_at + 22.0:
            if not WAIT_AT_S - 3.0 <= offset <= answer_at + 1.0:
                events.append((offset, self._tokens(lambda: self.live, rng.randint(30, 160))))
            offset += 4.0
        return events

    @staticmethod
    def _tokens(target: Callable[[], Transcript | None], n: int) -> Action:
        """*n* output tokens streamed into *target*'s transcript when due."""

        def write(at: datetime) -> None:
            where = target()
            if where is not None:
                where.tokens(n, at)

        return write

    @staticmethod
    def _tool(
        offset: float,
        takes_s: float,
        target: Callable[[], Transcript | None],
        name: str,
        given: dict[str, str],
        output: str,
    ) -> list[tuple[float, Action]]:
        """A tool call at *offset* and its result *takes_s* later, in *target*'s transcript
        (resolved when due: a subagent that is not running writes nothing)."""
        calls: list[tuple[Transcript, str]] = []

        def call(at: datetime) -> None:
            where = target()
            if where is not None:
                calls.append((where, where.tool(name, at, input=given, tokens=40)))

        def result(at: datetime) -> None:
            for where, ident in calls:
                where.result(ident, at, output=output)
            calls.clear()

        return [(offset, call), (offset + takes_s, result)]

    def _push(self, offset: float) -> list[tuple[float, Action]]:
        """The force-push: its ``Bash`` call and result in the transcript, and the
        ``PostToolUse`` body Claude Code's hook posts once the command has run."""
        given = {"command": PUSH, "description": "Push the rebased branch"}
        calls: list[tuple[Session, str]] = []

        def call(at: datetime) -> None:
            calls.append((self.live, self.live.tool("Bash", at, input=given, tokens=30)))

        def result(at: datetime) -> None:
            for session, ident in calls:
                session.result(ident, at, output=PUSH_OUTPUT)
                self.events.append(
                    {
                        "session_id": session.session_id,
                        "transcript_path": str(session.path),
                        "cwd": self.api,
                        "permission_mode": "default",
                        "hook_event_name": "PostToolUse",
                        "tool_name": "Bash",
                        "tool_input": dict(given),
                        "tool_response": {"stdout": "", "stderr": PUSH_OUTPUT, "interrupted": False, "isImage": False},
                        "tool_use_id": ident,
                    }
                )
            calls.clear()

        return [(offset, call), (offset + 2.0, result)]

    def _status(self, status: str, at: datetime, waiting_for: str | None = None) -> None:
        self.store.pid_file(
            self.live, self.pid, status=status, at=at, started_at=self.process_started, waiting_for=waiting_for
        )

    def _begin(self, job: Job, session_id: str, at: datetime) -> None:
        self.pending = None
        if self.live.path.stat().st_size > self.rotate_bytes:
            self._retire(session_id, at)
        for task_id in self.task_ids:
            self.store.delete_task(self.live.session_id, task_id)
        self.task_ids = []
        self.live.bookkeeping(at)
        self.live.prompt(job.prompt, at)
        self.live.last_prompt(job.prompt, at)
        self._status("busy", at)

    def _retire(self, session_id: str, at: datetime) -> None:
        """The process exits (its pid file goes) and a fresh session takes over the lane."""
        self.store.remove_pid_file(self.pid)
        self.retired.append(self.live)
        while len(self.retired) > KEEP_RETIRED:
            old = self.retired.popleft()
            old.path.unlink(missing_ok=True)
            shutil.rmtree(old.path.with_suffix(""), ignore_errors=True)
            shutil.rmtree(self.store.root / "tasks" / old.session_id, ignore_errors=True)
        self.agents.clear()
        self.live = self.store.session(session_id, cwd=self.api)
        self.live.title("Orders API work")
        self.task_ids = []

    def _create_tasks(self, job: Job, at: datetime) -> None:
        calls = self.live.respond(
            at,
            text="Here is the plan.",
            tokens=64,
            tools=[
                ("TaskCreate", {"subject": subject, "description": subject, "activeForm": active})
                for subject, active in job.tasks
            ],
        )
        for call, (subject, active) in zip(calls, job.tasks, strict=True):
            task_id = str(self.next_task)
            self.next_task += 1
            self.task_ids.append(task_id)
            self.live.result(
                call, at, tool_result={"task": {"id": task_id, "subject": subject, "description": subject}}
            )
            self.store.task(self.live.session_id, task_id, subject, active_form=active, at=at)

    def _advance(self, job: Job, index: int, at: datetime) -> None:
        """Complete task *index - 1* and start task *index* (either may be past the list)."""
        for n, status in ((index - 1, "completed"), (index, "in_progress")):
            if 0 <= n < len(self.task_ids):
                task_id = self.task_ids[n]
                call = self.live.tool("TaskUpdate", at, input={"taskId": task_id, "status": status}, tokens=18)
                subject, active = job.tasks[n]
                self.store.task(self.live.session_id, task_id, subject, status=status, active_form=active, at=at)
                self.live.result(
                    call, at, tool_result={"success": True, "taskId": task_id, "updatedFields": ["status"]}
                )

    def _spawn(self, job: Job, agent_id: str, at: datetime) -> None:
        description, prompt = job.agent
        call = self.live.tool(
            "Agent", at, tokens=70, input={"description": description, "subagent_type": "Explore", "prompt": prompt}
        )
        agent = self.live.subagent(agent_id, agent_type="Explore", description=description, at=at)
        self.live.result(
            call,
            at,
            output="Async agent launched successfully.",
            tool_result={"isAsync": True, "status": "async_launched", "agentId": agent_id, "description": description},
        )
        agent.prompt(prompt, at)
        self.agent = agent
        self.agents.append(agent)
        while len(self.agents) > KEEP_AGENTS:
            old = self.agents.popleft()
            old.path.unlink(missing_ok=True)
            old.meta_path.unlink(missing_ok=True)

    def _agent_done(self, at: datetime) -> None:
        if self.agent is None:
            return
        self.agent.end_turn(at, text="Found three call sites; summary above.", tokens=110)
        self.agent.finish(at)

    def _notify(self, at: datetime) -> None:
        if self.agent is not None:
            self.live.notification(f"<task-id>{self.agent.agent_id}</task-id>\n<status>completed</status>", at)
            self.agent = None

    def _wait(self, job: Job, ask: bool, at: datetime) -> None:
        if ask:
            self.pending = self.live.wait(job.question, at)
            self._status("waiting", at, "input needed")
        else:
            self.pending = self.live.tool(
                "Bash", at, input={"command": job.command, "description": "Run the tests"}, tokens=35
            )
            self._status("waiting", at, "permission prompt")

    def _answer(self, ask: bool, at: datetime) -> None:
        if self.pending is None:
            return
        if ask:
            self.live.answer(self.pending, at, text="the first option")
        else:
            self.live.result(self.pending, at, output=TOOL_OUTPUT)
        self.pending = None
        self._status("busy", at)

    def _end(self, at: datetime) -> None:
        self.live.end_turn(at, text="Done: all three steps are in and the tests pass.", tokens=120)
        self._status("idle", at)

    # -- the Simulation protocol ----------------------------------------------------------

    def step(self, now: datetime) -> None:
        """Append what the live session would have written by *now*."""
        self.schedule.step(now)

    def drain_events(self) -> list[dict[str, Any]]:
        """The hook bodies the steps so far produced, each handed over once."""
        out, self.events = self.events, []
        return out

    def close(self) -> None:
        """The demo stops: the live process exits cleanly, so its pid file goes."""
        self.store.remove_pid_file(self.pid)


def start(home: Path, ctx: HarnessContext) -> ClaudeDemo:
    """Write the demo store under *home* as of ``ctx.now`` and return it, stepped to then."""
    demo = ClaudeDemo(home, ctx)
    demo.step(ctx.now)
    return demo
