"""The ``cargento --demo`` simulation: live Cursor CLI chat stores written with the store builders.

At start the demo home holds two finished chats from earlier in the day (one with a finished
subagent) and one live chat, each a ``store.db`` under ``~/.cursor/chats/<md5(workspace)>/``
(found the way the plugin finds it) with its ``meta.json``, written by
:class:`~cargento_harness_cursor.fixtures.CursorChat`.

Every :data:`CYCLE_S` seconds the live chat runs one scripted exchange: a prompt, assistant
messages and tool calls with their results, an ``explore`` subagent in its own store that
works and goes quiet, and a ``Shell`` call held at a permission prompt (a root blob whose
pending message carries ``pendingToolExecutionContracts`` and ``pendingToolCallStartedAtMs``)
answered 20-30 s later by a newer root with the map emptied. Cursor records no turn end and no
tokens, so the chat reads idle once it has been quiet for 90 s, which the cycle leaves time
for; no token rate is simulated because the store has none to read.

The turns run on core's :class:`cargento.demo.Schedule`: everything follows from the start time,
``now`` and a seed. ``step`` never raises on a clock that goes back (nothing is written until
the schedule is reached again) or jumps ahead (the exchange in hand is finished at its scheduled
times and the current cycle resumes; one step does at most two cycles' work). Stores stay
bounded over hours: a live store past :data:`ROTATE_BYTES` is retired at the next prompt and a
new chat starts, and only the newest :data:`KEEP_RETIRED` retired chats and :data:`KEEP_AGENTS`
subagent stores of the live chat are kept.

The store builders wait out the dashboard's board reader, which runs in this same process (see
:mod:`.fixtures`). A write that fails even so (that reader held on for seconds, or the demo
home went while the demo stopped) skips its scripted moment alone, and the exchange in hand may
read oddly until the next cycle.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento.demo import Action, Schedule, require_inside, seeded_uuid
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

from cargento_harness_cursor import locations
from cargento_harness_cursor.fixtures import CursorChat

__all__ = ["CYCLE_S", "KEEP_AGENTS", "KEEP_RETIRED", "ROTATE_BYTES", "CursorDemo", "start"]

#: One scripted exchange plus the quiet that lets the row read idle, in seconds.
CYCLE_S = 200.0
#: The first prompt comes this long after the demo starts.
LEAD_S = 8.0
#: A live store past this size is retired at the next prompt.
ROTATE_BYTES = 1024 * 1024
KEEP_RETIRED = 2
KEEP_AGENTS = 2
#: When the permission prompt opens, seconds into the cycle, and how long it stands.
WAIT_AT_S = 36.0
WAIT_S = (20.0, 30.0)
LIVE_TITLE = "Checkout form polish"
MODEL = "vega"
SUBAGENT_MODEL = "vega-mini"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Job:
    """What one scripted exchange is about."""

    prompt: str
    read: str
    search: str
    command: str
    edit: str
    explore: str


JOBS = (
    Job(
        prompt="The postcode field accepts letters for US addresses; validate it per country",
        read="src/checkout/AddressForm.tsx",
        search="postcode",
        command="npm test -- AddressForm",
        edit="src/checkout/validators.ts",
        explore="Find every address validator and the countries it covers",
    ),
    Job(
        prompt="Show the card error under the field instead of in a toast",
        read="src/checkout/PaymentStep.tsx",
        search="toast.error",
        command="npm test -- PaymentStep",
        edit="src/checkout/PaymentStep.tsx",
        explore="List the places that raise payment errors",
    ),
    Job(
        prompt="Keep the promo code when the user goes back a step",
        read="src/checkout/useCheckoutState.ts",
        search="promo",
        command="npm test -- checkout",
        edit="src/checkout/useCheckoutState.ts",
        explore="Trace how checkout state survives navigation",
    ),
)


def _project(home: Path, rel: str) -> str:
    path = home / "work" / rel
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


def _size(chat: CursorChat) -> int:
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += chat.path.with_name(chat.path.name + suffix).stat().st_size
        except OSError:
            continue
    return total


class CursorDemo:
    """Finished chats from earlier and one live chat cycling through scripted exchanges."""

    def __init__(self, home: Path, ctx: HarnessContext, *, seed: int = 2026, rotate_bytes: int = ROTATE_BYTES) -> None:
        self.home = home
        self.chats, _ = locations.chats(ctx)
        require_inside(self.chats, home, "Cursor")
        self.start = ctx.now
        self.seed = seed
        self.rotate_bytes = rotate_bytes
        self._rng = random.Random(f"cursor-demo:{seed}")
        self.web = _project(home, "acme/web")
        self._finished(home)
        self.live = self._open_live(self.start - timedelta(minutes=14))
        self.retired: deque[CursorChat] = deque()
        self.agents: deque[CursorChat] = deque()
        self.agent: CursorChat | None = None
        self.pending: str | None = None
        self.schedule = Schedule(
            self.start + timedelta(seconds=LEAD_S),
            CYCLE_S,
            self._plan,
            seed=f"cursor-demo:{seed}",
            tolerate=(OSError, sqlite3.Error),
        )

    def _chat(self, workspace: str, at: datetime, *, agent_id: str | None = None) -> CursorChat:
        return CursorChat(
            self.home, workspace=workspace, created_at=at, chats=self.chats, agent_id=agent_id or seeded_uuid(self._rng)
        )

    # -- the picture at start -------------------------------------------------------------

    def _finished(self, home: Path) -> None:
        deploy = _project(home, "infra/deploy")
        t = self.start - timedelta(hours=4, minutes=5)
        chat = self._chat(deploy, t)
        chat.user("bump the terraform aws provider to v6 and fix the plan", at=t)
        chat.rename("Terraform AWS provider v6", at=t + timedelta(seconds=3))
        chat.assistant("I'll check which resources changed shape in v6.", at=t + timedelta(seconds=8), model=MODEL)
        child = chat.subagent("explore", at=t + timedelta(seconds=12), agent_id=seeded_uuid(self._rng))
        child.user("find every aws_s3_bucket resource and its inline blocks", at=t + timedelta(seconds=12))
        call = child.tool_call(
            "Grep", at=t + timedelta(seconds=20), model=SUBAGENT_MODEL, args={"pattern": "aws_s3_bucket"}
        )
        child.tool_result(call, at=t + timedelta(seconds=22), text="modules/storage/main.tf:3")
        child.assistant("Two buckets use inline ACL blocks.", at=t + timedelta(seconds=40), model=SUBAGENT_MODEL)
        call = chat.tool_call("Shell", at=t + timedelta(seconds=60), model=MODEL, args={"command": "terraform plan"})
        chat.tool_result(call, at=t + timedelta(seconds=95), text="Plan: 2 to add, 2 to change, 0 to destroy.")
        chat.assistant(
            "Moved the ACLs to aws_s3_bucket_acl; the plan is clean.", at=t + timedelta(seconds=110), model=MODEL
        )

        t = self.start - timedelta(hours=2, minutes=20)
        chat = self._chat(self.web, t)
        chat.user("the date picker test fails on the first of the month", at=t)
        chat.rename("Flaky date picker test", at=t + timedelta(seconds=3))
        call = chat.tool_call(
            "Read", at=t + timedelta(seconds=9), model=MODEL, args={"path": "src/ui/DatePicker.test.tsx"}
        )
        chat.tool_result(call, at=t + timedelta(seconds=10))
        chat.assistant(
            "The test builds dates in local time; it now pins the clock.", at=t + timedelta(seconds=70), model=MODEL
        )

    def _open_live(self, at: datetime) -> CursorChat:
        """The live chat, with one exchange behind it."""
        chat = self._chat(self.web, at)
        chat.user("tidy up the checkout form labels", at=at)
        chat.rename(LIVE_TITLE, at=at + timedelta(seconds=3))
        chat.assistant("Labels now match the design copy.", at=at + timedelta(seconds=50), model=MODEL)
        return chat

    # -- the live script ------------------------------------------------------------------

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        job = JOBS[cycle % len(JOBS)]
        answer_at = WAIT_AT_S + rng.uniform(*WAIT_S)
        chat_id = seeded_uuid(rng)
        agent_id = seeded_uuid(rng)
        return [
            (0.0, lambda at: self._begin(job, chat_id, at)),
            (3.0, self._say(f"I'll start with {job.read}.")),
            *self._tool(6.0, 2.0, lambda: self.live, "Read", {"path": job.read}, "…", MODEL),
            (12.0, lambda at: self._spawn(job, agent_id, at)),
            (14.0, self._say("Reading how the form state flows.")),
            *self._tool(
                18.0, 2.0, lambda: self.agent, "Grep", {"pattern": job.search}, f"{job.read}:57", SUBAGENT_MODEL
            ),
            *self._tool(20.0, 1.0, lambda: self.live, "Grep", {"pattern": job.search}, f"{job.read}:57", MODEL),
            (26.0, lambda at: self._agent_says("Found the call sites; writing them up.", at)),
            (28.0, self._say("I have a fix; running the tests next.")),
            (34.0, lambda at: self._agent_says("Three validators; only US and CA check digits.", at)),
            (WAIT_AT_S, lambda at: self._wait(job, at)),
            (answer_at, self._answer),
            (answer_at + 1.0, self._result),
            (answer_at + 5.0, self._say("Tests pass; applying the change.")),
            *self._tool(answer_at + 9.0, 2.0, lambda: self.live, "Edit", {"path": job.edit}, "applied", MODEL),
            (answer_at + 16.0, self._say("Done: the change is in and the tests pass.")),
        ]

    def _say(self, text: str) -> Action:
        """An assistant message in the live chat when due."""

        def write(at: datetime) -> None:
            self.live.assistant(text, at, model=MODEL)

        return write

    @staticmethod
    def _tool(
        offset: float,
        takes_s: float,
        target: Callable[[], CursorChat | None],
        name: str,
        args: dict[str, str],
        output: str,
        model: str,
    ) -> list[tuple[float, Action]]:
        """A tool call at *offset* and its result *takes_s* later in *target*'s store
        (resolved when due: a subagent that is not running writes nothing)."""
        calls: list[tuple[CursorChat, str]] = []

        def call(at: datetime) -> None:
            chat = target()
            if chat is not None:
                calls.append((chat, chat.tool_call(name, at, model=model, args=args)))

        def result(at: datetime) -> None:
            for chat, ident in calls:
                chat.tool_result(ident, at, text=output)
            calls.clear()

        return [(offset, call), (offset + takes_s, result)]

    def _begin(self, job: Job, chat_id: str, at: datetime) -> None:
        self.pending = None
        self.agent = None
        fresh = _size(self.live) > self.rotate_bytes
        if fresh:
            self._retire(chat_id, at)
        self.live.user(job.prompt, at)
        if fresh:
            self.live.rename(LIVE_TITLE, at)

    def _retire(self, chat_id: str, at: datetime) -> None:
        """The chat is left as it is and a new one takes over the lane."""
        self.retired.append(self.live)
        while len(self.retired) > KEEP_RETIRED:
            shutil.rmtree(self.retired.popleft().dir, ignore_errors=True)
        for agent in self.agents:
            shutil.rmtree(agent.dir, ignore_errors=True)
        self.agents.clear()
        self.live = self._chat(self.web, at, agent_id=chat_id)

    def _spawn(self, job: Job, agent_id: str, at: datetime) -> None:
        agent = self.live.subagent("explore", at, agent_id=agent_id)
        agent.user(job.explore, at)
        self.agent = agent
        self.agents.append(agent)
        while len(self.agents) > KEEP_AGENTS:
            shutil.rmtree(self.agents.popleft().dir, ignore_errors=True)

    def _agent_says(self, text: str, at: datetime) -> None:
        if self.agent is not None:
            self.agent.assistant(text, at, model=SUBAGENT_MODEL)

    def _wait(self, job: Job, at: datetime) -> None:
        self.pending = self.live.wait("Shell", at, model=MODEL, args={"command": job.command})

    def _answer(self, at: datetime) -> None:
        if self.pending is not None:
            self.live.answer(at)

    def _result(self, at: datetime) -> None:
        if self.pending is not None:
            self.live.tool_result(self.pending, at, text="Tests: 14 passed")
            self.pending = None

    # -- the Simulation protocol ----------------------------------------------------------

    def step(self, now: datetime) -> None:
        """Write what the live chat would have written by *now*."""
        self.schedule.step(now)


def start(home: Path, ctx: HarnessContext) -> CursorDemo:
    """Write the demo store under *home* as of ``ctx.now`` and return it, stepped to then."""
    demo = CursorDemo(home, ctx)
    demo.step(ctx.now)
    return demo
