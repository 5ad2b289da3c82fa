"""The ``cargento --demo`` simulation: a live Goose ``sessions.db`` written with the store builders.

At start the demo home holds the shared database Goose keeps (found the way the plugin finds
it: ``$XDG_DATA_HOME/goose/sessions/sessions.db``, or the Windows data folder) with two
finished sessions from earlier in the day (one with a finished subagent session) and one live
session, written by :class:`~cargento_harness_goose.fixtures.GooseStore`.

Every :data:`CYCLE_S` seconds the live session runs one scripted exchange: a prompt, extension
tool requests (``developer__shell``, ``developer__text_editor``) and their responses, a
``usage_ledger`` row every few seconds (so the token rate shows), a subagent session
(``session_type`` ``subagent`` with ``parent_session_id``) that works and replies, and the
final assistant reply. Goose records no turn end and no wait on the human, so the row reads
idle once its ``updated_at`` is 90 s old, which the cycle leaves time for, and no wait is
simulated.

The turns run on core's :class:`cargento.demo.Schedule`: everything follows from the start time,
``now`` and a seed. ``step`` never raises on a clock that goes back (nothing is written until
the schedule is reached again) or jumps ahead (the exchange in hand is finished at its scheduled
times and the current cycle resumes; one step does at most two cycles' work). The database stays
bounded over hours: after :data:`ROTATE_MESSAGES` messages the live session is retired at the
next prompt and a new one starts, and only the newest :data:`KEEP_RETIRED` retired sessions and
:data:`KEEP_AGENTS` subagent sessions of the live one are kept (older ones are removed as
``goose session remove`` would).

The store builders wait out the dashboard's board reader, which runs in this same process (see
:mod:`.fixtures`). A write that fails even so (that reader held on for seconds, or the demo
home went while the demo stopped) skips its scripted moment alone, and the exchange in hand may
read oddly until the next cycle.
"""

from __future__ import annotations

import random
import sqlite3
from collections import deque
from collections.abc import Callable
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento.demo import Action, Schedule, require_inside
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

from cargento_harness_goose import locations
from cargento_harness_goose.fixtures import GooseSession, GooseStore

__all__ = ["CYCLE_S", "KEEP_AGENTS", "KEEP_RETIRED", "ROTATE_MESSAGES", "GooseDemo", "start"]

#: One scripted exchange plus the quiet that lets the row read idle, in seconds.
CYCLE_S = 180.0
#: The first prompt comes this long after the demo starts.
LEAD_S = 6.0
#: The live session is retired at the next prompt once it holds this many messages.
ROTATE_MESSAGES = 600
KEEP_RETIRED = 2
KEEP_AGENTS = 2
LIVE_TITLE = "Config loader migration"
#: The model Goose records in ``model_config_json`` and on each ``usage_ledger`` row.
MODEL = "goose-demo-model"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Job:
    """What one scripted exchange is about."""

    prompt: str
    search: str
    path: str
    command: str
    agent: str
    agent_prompt: str


JOBS = (
    Job(
        prompt="Move the remaining commands onto the new config loader",
        search="rg -n 'load_legacy_config' src",
        path="src/commands/sync.rs",
        command="cargo test -p cli",
        agent="config audit",
        agent_prompt="List every config key the commands read and whether the new loader knows it",
    ),
    Job(
        prompt="Make --profile override the environment, not the other way round",
        search="rg -n 'PROFILE' src",
        path="src/config/precedence.rs",
        command="cargo test -p cli precedence",
        agent="precedence check",
        agent_prompt="Write down the current precedence order from the code and the docs",
    ),
    Job(
        prompt="Print a helpful error when the config file has a typo",
        search="rg -n 'toml::from_str' src",
        path="src/config/load.rs",
        command="cargo test -p cli errors",
        agent="error wording review",
        agent_prompt="Collect the config error messages we print today",
    ),
)


def _project(home: Path, rel: str) -> str:
    path = home / "work" / rel
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


class GooseDemo:
    """Finished sessions from earlier and one live session cycling through scripted exchanges."""

    def __init__(
        self, home: Path, ctx: HarnessContext, *, seed: int = 2026, rotate_messages: int = ROTATE_MESSAGES
    ) -> None:
        root = locations.roots(ctx)[0]
        require_inside(root.database, home, "Goose")
        self.store = GooseStore(home, database=root.database)
        self.start = ctx.now
        self.seed = seed
        self.rotate_messages = rotate_messages
        self.cli = _project(home, "tools/cli")
        self._finished(home)
        self.live = self._open_live(self.start - timedelta(minutes=16))
        self.live_messages = self._messages_of(self.live)
        self.retired: deque[GooseSession] = deque()
        self.agents: deque[GooseSession] = deque()
        self.agent: GooseSession | None = None
        self.schedule = Schedule(
            self.start + timedelta(seconds=LEAD_S),
            CYCLE_S,
            self._plan,
            seed=f"goose-demo:{seed}",
            tolerate=(OSError, sqlite3.Error),
        )

    # -- the picture at start -------------------------------------------------------------

    def _finished(self, home: Path) -> None:
        api = _project(home, "acme/api")
        t = self.start - timedelta(hours=6, minutes=30)
        s = self.store.session(working_dir=api, created_at=t, name="Explain the auth middleware", model=MODEL)
        s.prompt("How does the auth middleware decide which routes are public?", at=t)
        s.tool("developer__shell", at=t + timedelta(seconds=4), arguments={"command": "rg -n 'public_routes' src"})
        s.tool_result(at=t + timedelta(seconds=5), text="src/auth/middleware.py:18")
        child = s.subagent("route table survey", at=t + timedelta(seconds=9))
        child.prompt("List every route and whether it is marked public", at=t + timedelta(seconds=9))
        child.tokens(310, at=t + timedelta(seconds=30))
        child.reply("14 routes, 3 public: /health, /login, /docs.", at=t + timedelta(seconds=31))
        s.tokens(520, at=t + timedelta(seconds=50))
        s.reply("Public routes come from a decorator that fills a set at import time.", at=t + timedelta(seconds=51))

        t = self.start - timedelta(hours=3, minutes=15)
        s = self.store.session(working_dir=self.cli, created_at=t, name="Release notes for 0.9", model=MODEL)
        s.prompt("Draft the 0.9 release notes from the merged PRs", at=t)
        s.tool("developer__shell", at=t + timedelta(seconds=3), arguments={"command": "git log --oneline v0.8..HEAD"})
        s.tool_result(at=t + timedelta(seconds=4), text="42 commits")
        for n in range(1, 6):
            s.tokens(180 + 20 * n, at=t + timedelta(seconds=10 * n))
        s.tool(
            "developer__text_editor",
            at=t + timedelta(seconds=62),
            arguments={"command": "write", "path": "CHANGELOG.md"},
        )
        s.tool_result(at=t + timedelta(seconds=63))
        s.reply("Drafted CHANGELOG.md with 9 features and 14 fixes.", at=t + timedelta(seconds=70))

    def _open_live(self, at: datetime) -> GooseSession:
        """The live session, with one exchange behind it."""
        s = self.store.session(working_dir=self.cli, created_at=at, name=LIVE_TITLE, model=MODEL)
        s.prompt("Which commands still use the legacy config loader?", at=at)
        s.tool(
            "developer__shell", at=at + timedelta(seconds=3), arguments={"command": "rg -n 'load_legacy_config' src"}
        )
        s.tool_result(at=at + timedelta(seconds=4), text="src/commands/sync.rs:12\nsrc/commands/push.rs:9")
        s.tokens(240, at=at + timedelta(seconds=20))
        s.reply("Two: sync and push.", at=at + timedelta(seconds=21))
        return s

    # -- the live script ------------------------------------------------------------------

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        job = JOBS[cycle % len(JOBS)]
        events: list[tuple[float, Action]] = [
            (0.0, lambda at: self._begin(job, at)),
            *self._tool(4.0, 3.0, lambda: self.live, "developer__shell", {"command": job.search}, f"{job.path}:12"),
            (12.0, lambda at: self._spawn(job, at)),
            *self._tool(
                14.0, 2.0, lambda: self.live, "developer__text_editor", {"command": "view", "path": job.path}, "…"
            ),
            *self._tool(
                16.0, 2.0, lambda: self.agent, "developer__text_editor", {"command": "view", "path": "README.md"}, "…"
            ),
            *self._tool(
                24.0,
                2.0,
                lambda: self.live,
                "developer__text_editor",
                {"command": "str_replace", "path": job.path},
                "The file was edited.",
            ),
            (30.0, lambda at: self._agent_reply(at)),
            *self._tool(
                36.0, 8.0, lambda: self.live, "developer__shell", {"command": job.command}, "test result: ok. 31 passed"
            ),
            (52.0, lambda at: self._reply("Done: the change is in and the tests pass.", at)),
        ]
        for offset in (16.5, 22.5, 28.5):
            events.append((offset, self._tokens(lambda: self.agent, rng.randint(40, 140))))
        offset = 2.0
        while offset < 51.0:
            events.append((offset, self._tokens(lambda: self.live, rng.randint(60, 220))))
            offset += 4.0
        return events

    def _messages_of(self, session: GooseSession) -> int:
        with closing(sqlite3.connect(self.store.path)) as conn:
            (n,) = conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (session.id,)).fetchone()
        return int(n)

    def _count(self, session: GooseSession, n: int = 1) -> None:
        if session is self.live:
            self.live_messages += n

    @staticmethod
    def _tokens(target: Callable[[], GooseSession | None], n: int) -> Action:
        """One model response's usage for *target* when due."""

        def write(at: datetime) -> None:
            session = target()
            if session is not None:
                session.tokens(n, at)

        return write

    def _tool(
        self,
        offset: float,
        takes_s: float,
        target: Callable[[], GooseSession | None],
        name: str,
        arguments: dict[str, str],
        output: str,
    ) -> list[tuple[float, Action]]:
        """A tool request at *offset* and its response *takes_s* later in *target*
        (resolved when due: a subagent that is not running writes nothing)."""
        calls: list[tuple[GooseSession, str]] = []

        def call(at: datetime) -> None:
            session = target()
            if session is not None:
                calls.append((session, session.tool(name, at, arguments)))
                self._count(session)

        def result(at: datetime) -> None:
            for session, ident in calls:
                session.tool_result(at, text=output, call_id=ident)
                self._count(session)
            calls.clear()

        return [(offset, call), (offset + takes_s, result)]

    def _begin(self, job: Job, at: datetime) -> None:
        self.agent = None
        if self.live_messages >= self.rotate_messages:
            self._retire(at)
        self.live.prompt(job.prompt, at)
        self._count(self.live)

    def _retire(self, at: datetime) -> None:
        """The session is left as it is and a new one takes over the lane."""
        self.retired.append(self.live)
        while len(self.retired) > KEEP_RETIRED:
            self.store.remove(self.retired.popleft().id)
        for agent in self.agents:
            self.store.remove(agent.id)
        self.agents.clear()
        self.live = self.store.session(working_dir=self.cli, created_at=at, name=LIVE_TITLE, model=MODEL)
        self.live_messages = 0

    def _spawn(self, job: Job, at: datetime) -> None:
        agent = self.live.subagent(job.agent, at)
        agent.prompt(job.agent_prompt, at)
        self.agent = agent
        self.agents.append(agent)
        while len(self.agents) > KEEP_AGENTS:
            self.store.remove(self.agents.popleft().id)

    def _agent_reply(self, at: datetime) -> None:
        if self.agent is not None:
            self.agent.reply("Summary written; nothing blocks the change.", at)

    def _reply(self, text: str, at: datetime) -> None:
        self.live.reply(text, at)
        self._count(self.live)

    # -- the Simulation protocol ----------------------------------------------------------

    def step(self, now: datetime) -> None:
        """Write what the live session would have written by *now*."""
        self.schedule.step(now)


def start(home: Path, ctx: HarnessContext) -> GooseDemo:
    """Write the demo store under *home* as of ``ctx.now`` and return it, stepped to then."""
    demo = GooseDemo(home, ctx)
    demo.step(ctx.now)
    return demo
