"""The data a harness plugin hands to core, and the context core hands to it.

Every model is ``@attrs.frozen(kw_only=True)``; timestamps are aware UTC datetimes.
Plugins build these from their own native records and never return dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import attrs

from cargento.cache import HarnessCache
from cargento.drift import UnknownRecord
from cargento.processes import LocalProcesses, ProcessTable
from cargento.sharedmethods import shared_methods

__all__ = [
    "Discovery",
    "Dispatchable",
    "Evidence",
    "EvidenceReading",
    "EvidenceSignal",
    "Gate",
    "HarnessContext",
    "HarnessInfo",
    "HarnessMark",
    "Instruction",
    "LoopReading",
    "McpSession",
    "ModelInfo",
    "Overruled",
    "ProcessTie",
    "QuotaEndpoint",
    "QuotaWindow",
    "RateLimit",
    "ReadingProvider",
    "SessionReading",
    "SessionRef",
    "Simulation",
    "SpacedockBoot",
    "StoreLocation",
    "Subagent",
    "Task",
    "TaskStatus",
    "TurnEvidence",
    "TurnState",
    "Usage",
    "WorkRecord",
]

TaskStatus = Literal["pending", "in_progress", "completed"]
TurnState = Literal["open", "ended", "unknown"]
LocationStatus = Literal["missing", "unreadable", "present"]
MarkShape = Literal["circle", "square", "diamond", "hex", "triangle"]
#: The kind of signal a reading rests on.
EvidenceSignal = Literal["hook event", "store record", "process table", "telemetry", "clock rule"]
#: Which published reading an evidence item backs.
EvidenceReading = Literal["state", "wait", "detail", "model"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Overruled:
    """The losing side of an overrule: a signal that said otherwise, and why it lost."""

    signal: EvidenceSignal
    #: Where it came from: a file, a table, a route.
    source: str
    observed_at: datetime | None = None
    #: What it said, in plain words and without any clock-relative wording.
    said: str
    #: Why the winning item outranks it (``the session's own transcript write came after it``).
    why: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Evidence:
    """One signal a published reading rests on: what kind, from where, when, and what it said.

    Nothing is read to make one: a reader or core's derivation records what it already
    decided. ``said`` never carries clock-relative words (``5 min ago``), so an unchanged
    store keeps unchanged evidence and the board's revision stands still.
    """

    reading: EvidenceReading
    signal: EvidenceSignal
    #: Where it came from: a file path, a table (``sessions.db · sessions.updated_at``), a
    #: route (``POST /api/events/<harness>``) or the rule's name.
    source: str
    observed_at: datetime | None = None
    said: str
    #: What this item overruled, when it did.
    overruled: Overruled | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class HarnessMark:
    """How the page draws a harness: a short monogram on a shape in a hue of its own.

    Drawn by the page itself (never a vendor's logo). A plugin that declares none gets a mark
    derived from its label.
    """

    #: One to three characters (``CC``, ``π``).
    monogram: str
    #: The hue, 0-359 degrees.
    hue: int
    shape: MarkShape = "circle"


ProcessTieKind = Literal["cwd", "pid file", "command line"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ProcessTie:
    """How a harness's running CLI is found in the process table and tied to a session.

    Core lists the processes (through psutil, on every platform) and matches *names* against
    the basename of the executable, or of the script an interpreter such as ``node`` runs.
    With ``cwd`` in *ties*, a session whose working directory no running process of the
    harness has is not shown working or waiting on a live person; with ``cwd`` or ``pid file``,
    a running process in whose directory no session of the harness has written since it
    started appears as starting (:mod:`cargento.board.starting`).
    """

    names: tuple[str, ...]
    ties: tuple[ProcessTieKind, ...] = ("cwd",)
    #: One sentence for coverage details: what can and cannot be tied, and by what.
    coverage: str = ""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class McpSession:
    """How a harness names the session that started a stdio MCP server: the variable it puts
    in that server's environment (the ask lane's ``cargento-ask`` reads it to say which
    session asks)."""

    #: The variable holding the session id, as the board knows the session.
    variable: str
    #: A regular expression the value must match in full to be taken as this harness's id
    #: (for a variable whose name another program might also set); ``None`` takes any value.
    pattern: str | None = None
    #: A variable holding the session's project directory, when the harness passes one.
    project_variable: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class HarnessInfo:
    """Who a harness is and what its store can and cannot tell.

    ``key`` must equal the plugin's entry-point name.
    """

    key: str
    label: str
    #: True where the harness has turn-end hooks, so a quiet row can be told apart from a
    #: finished turn once events are installed (Claude Code, Codex, Gemini CLI, Antigravity).
    turn_end_observable: bool = False
    #: True where the harness can report that it waits on the human at all.
    reports_waits: bool = False
    #: One sentence naming the conditions under which waits are (not) reported.
    wait_coverage: str = "This harness cannot report that it waits on you."
    #: The harness's own CLI accepts the session id to resume (Claude Code, Codex).
    resumable: bool = False
    #: The latest prompt this harness records is the operator's own words, so where no goal is
    #: typed the board may show it beside NOW and a reading may adopt it (Claude Code, Codex).
    prompt_as_goal: bool = False
    #: The page's mark for this harness; ``None`` lets the page derive one from the label.
    mark: HarnessMark | None = None
    #: The environment variables that relocate this harness's store (``CLAUDE_CONFIG_DIR``).
    #: ``--demo`` clears every declared one so no plugin reads the user's real store, and
    #: ``--diagnose`` prints those that are set.
    relocation_variables: tuple[str, ...] = ()
    #: What the harness passes a stdio MCP server it starts to name the session
    #: (:class:`McpSession`); ``None`` when it passes nothing that does, so a question asked
    #: through the ask lane from it is unattributed rather than guessed.
    mcp_session: McpSession | None = None
    #: How its running CLI is recognised and tied to a session; ``None``: it is not.
    process: ProcessTie | None = None
    #: The readings this harness's store does not record at all (of ``found``, ``title``,
    #: ``model``, ``state``, ``waits``, ``subagents``, ``tasks``, ``tokens``, ``cwd``, ``eta``):
    #: the maturity table calls them absent, and a test checks none is ever published.
    absent_readings: tuple[str, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class StoreLocation:
    """One place a plugin searched, for ``--diagnose`` and for the file watcher."""

    path: str
    #: What lives there: ``sessions``, ``tasks``, ``teams``, ``database``, ``config``...
    role: str = "sessions"
    #: Why this path: ``default`` or ``env NAME`` or ``setting NAME``.
    origin: str = "default"
    status: LocationStatus = "missing"
    detail: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class SessionRef:
    """A session found by ``discover``: enough to read it later, and nothing more."""

    harness: str
    session_id: str
    #: The primary store file or directory of this session.
    path: str
    #: The :class:`StoreLocation` path this session was found under.
    location: str = ""
    #: The newest modification time among the session's own files, a cheap freshness hint
    #: core uses to apply the display window before reading anything.
    modified_at: datetime | None = None
    #: A string that changes whenever anything the reading depends on changes (for example
    #: sizes and mtimes of every file involved). When set, core re-uses the previous
    #: :class:`SessionReading` while it is unchanged. ``None`` means "always re-read".
    fingerprint: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Discovery:
    """What ``discover`` found: where it looked, and the sessions there."""

    locations: tuple[StoreLocation, ...] = ()
    sessions: tuple[SessionRef, ...] = ()
    #: Problems with parts of the store that were skipped (one line each).
    problems: tuple[str, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Task:
    """One tracked task, plan step or todo."""

    subject: str
    status: TaskStatus = "pending"
    active_form: str | None = None
    id: str | None = None
    #: Creation time; ``None`` where the harness records none (Codex plan steps).
    created_at: datetime | None = None
    updated_at: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Subagent:
    """A subagent, teammate or child session shown as a named pill on its parent's row."""

    name: str
    running: bool
    model: str | None = None
    #: A role or type label (``Explore``, ``researcher``, ``general``...).
    role: str | None = None
    session_id: str | None = None
    started_at: datetime | None = None
    last_active_at: datetime | None = None
    output_tokens_per_min: float | None = None
    #: The teammate that spawned this subagent, when it was not the lead.
    spawned_by: str | None = None
    #: Freshness bound: core reads ``running`` as false once ``last_active_at`` is older than
    #: this many seconds at board time, so a cached reading does not keep a quiet subagent
    #: running. Set it whenever ``running`` is derived from recency.
    stale_after_s: float | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Instruction:
    """The strongest current instruction attributable to a session."""

    text: str
    #: ``prompt`` (newest operator request), ``earlier prompt`` (the newest was only a
    #: continuation such as "proceed"), or ``agent`` (the agent's own statement of intent).
    source: str = "prompt"
    at: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class LoopReading:
    """A detected failed-tool loop; ``kind`` is ``run``, ``total`` or ``nothing-worked``."""

    kind: str
    failures: int
    successes: int
    note: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TurnEvidence:
    """What the store itself records about the current turn.

    ``state`` is ``ended`` when the store records that the turn ended (the row reads Idle at
    once), ``open`` when a turn started and has not ended, ``unknown`` when the store
    records no turn boundaries at all (core falls back to the 90-second recency rule).
    """

    state: TurnState = "unknown"
    #: Start of the current turn's generation clock (already re-anchored after quiet gaps).
    started_at: datetime | None = None
    #: Generation seconds banked before a quiet gap over five minutes re-anchored the clock.
    banked_s: float = 0.0
    ended_at: datetime | None = None
    #: The plugin asserts the session is working until this moment whatever its recency
    #: (for example Pi's ``toolUse`` leaf, up to 15 minutes).
    busy_until: datetime | None = None
    #: Durations in seconds of this session's completed turns, the sample for the ETA.
    completed_s: tuple[float, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Dispatchable:
    """One entity a Spacedock boot listed as ready to move (a snapshot at boot)."""

    slug: str
    current: str | None = None
    next: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class SpacedockBoot:
    """What a first officer's ``spacedock status --boot`` command output named: absolute
    workflow and entity-state directories, and the dispatchable snapshot (see
    :mod:`cargento.spacedock`)."""

    workflow_dirs: tuple[str, ...] = ()
    entity_dirs: tuple[str, ...] = ()
    dispatchable: tuple[Dispatchable, ...] = ()
    #: When the boot output was written, where the store says.
    at: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class SessionReading:
    """Everything a plugin read about one session."""

    ref: SessionRef
    title: str | None = None
    cwd: str | None = None
    #: A project label to use when no cwd is known (for example a harness's own folder name).
    project: str | None = None
    started_at: datetime | None = None
    #: Newest plausible activity of the session itself and its children.
    last_active_at: datetime | None = None
    turn: TurnEvidence = TurnEvidence()
    #: The model holds the turn with no tool call open.
    thinking: bool = False
    #: Display name of the newest tool call (MCP tools as ``Service · tool``).
    last_tool: str | None = None
    #: The tool's name as the harness recorded it, when ``last_tool`` renames it (an MCP tool's
    #: wire string such as ``mcp__linear__list_issues``); ``None`` when the two are the same.
    #: The page shows it in the tooltip of the row's now column.
    last_tool_raw: str | None = None
    #: A plugin-chosen working detail that outranks the generic order (``running bash``).
    detail: str | None = None
    tasks: tuple[Task, ...] = ()
    subagents: tuple[Subagent, ...] = ()
    #: When set, this session is a child: core folds it onto the row of that session id of
    #: the same harness as a pill, and keeps it as its own row when the parent is absent.
    parent_id: str | None = None
    #: The pill label used when this session is folded into its parent.
    agent_name: str | None = None
    agent_role: str | None = None
    instruction: Instruction | None = None
    #: A role badge such as ``spacedock:first-officer``.
    role: str | None = None
    #: The newest ``spacedock status --boot`` command output the session recorded.
    spacedock: SpacedockBoot | None = None
    loop: LoopReading | None = None
    resume_command: str | None = None
    resume_cwd: str | None = None
    #: The store records that the session itself ended (not only its turn).
    ended: bool = False
    #: "Source not fully read": the readings that are missing (never shown as zero).
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: What the reader decided and on which record (a turn end, a pid file's status, a gate
    #: it dropped and why): core adds these to the row's ``evidence`` before its own items.
    #: Only clock-independent facts belong here, since a reading is cached by fingerprint.
    evidence: tuple[Evidence, ...] = ()
    #: The harness version the store names (``copilotVersion``, ``cli_version``...), if any.
    harness_version: str | None = None
    #: What the reader skipped as unknown (schema drift, see :mod:`cargento.drift`).
    unknown_records: tuple[UnknownRecord, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Gate:
    """A standing wait on the human."""

    #: ``permission``, ``question``, ``plan``, ``command``, ``url``, ``roster``...
    kind: str
    #: What is being asked, where the harness lets us say it; ``None`` otherwise.
    text: str | None = None
    since: datetime | None = None
    #: Which signal said so (``transcript``, ``events.jsonl``, ``roster``, ``pid file``...).
    source: str = "store"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ModelInfo:
    """The model a session uses, exactly as the harness records it."""

    id: str
    display: str | None = None
    #: The provider/allowance the session spends, rendered like ``via Codex · gpt-5.6-sol``.
    authority: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class RateLimit:
    """One rate-limit window a harness wrote into its own store."""

    name: str
    used_percent: float
    window_minutes: int | None = None
    resets_at: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class QuotaWindow:
    """One allowance window a harness's side published: read from its vendor's usage reply, or
    from a quota block its status line pushed (see the ``read_quota`` hookspec)."""

    #: The window's name as the capacity strip says it (``5h``, ``weekly``, ``weekly · Opus``,
    #: ``monthly``); unique among one reading's windows.
    name: str
    #: Share of the allowance spent, 0 to 100 (a vendor may report past 100).
    used_percent: float
    #: The window's length in seconds, when it has one that starts when the last one reset;
    #: ``None`` for a level with no clock (a billing cycle published with an end and no start).
    window_s: float | None = None
    resets_at: datetime | None = None
    #: One more fact the strip shows beside the figures (``$0.18 of $20.00``).
    detail: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class QuotaEndpoint:
    """Where a harness's vendor publishes its allowance, and where the harness keeps the login
    that asks (see the ``quota_endpoint`` hookspec). Declaring one reads and sends nothing:
    the dashboard asks it only after the reader consents, at most once per five minutes."""

    #: ``GET`` or ``POST``, to an ``https://`` URL.
    method: str
    url: str
    #: Request headers besides ``Authorization`` (which carries the login as a bearer token).
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes | None = None
    #: The macOS Keychain generic-password service that holds the login, on macOS.
    keychain_service: str | None = None
    #: The file that holds the login, on other platforms.
    credential_file: Path | None = None
    #: Where the token sits in the stored JSON document (``("claudeAiOauth", "accessToken")``);
    #: empty when the stored value is the token itself.
    token_field: tuple[str, ...] = ()
    #: Where the login's expiry (epoch milliseconds) sits in that document, if it records one.
    expires_field: tuple[str, ...] | None = None
    #: Why the login cannot be read on this platform (nothing is then read or asked).
    unavailable: str | None = None


#: The most work lines a :class:`WorkRecord` carries, and the most characters of each.
WORK_LINES = 400
WORK_LINE_CHARS = 800


def _bounded_lines(lines: tuple[str, ...]) -> tuple[str, ...]:
    kept = lines[-WORK_LINES:]
    return tuple(line if len(line) <= WORK_LINE_CHARS else line[: WORK_LINE_CHARS - 1] + "…" for line in kept)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class WorkRecord:
    """What a session demonstrably did, as a drift reading may quote it (see the
    ``work_record`` hookspec): the checks it ran with the end of what they printed, the files it
    wrote, the results its tools returned. Facts as the store recorded them, never verdicts."""

    #: What this harness's work record holds, in words for a disclosure ("the checks the
    #: session ran ..."); said before anything is read.
    describes: str
    #: One line per piece of work, oldest first; at most :data:`WORK_LINES` (the newest are
    #: kept), each at most :data:`WORK_LINE_CHARS` characters. Not yet redacted.
    lines: tuple[str, ...] = attrs.field(default=(), converter=_bounded_lines)
    #: Why some or all of the work could not be read ("the session's transcript was not found").
    notes: tuple[str, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ReadingProvider:
    """A command-line program installed beside a harness that can read a session's account
    for a drift reading, non-interactively and without tools (see the ``reading_provider``
    hookspec). The dashboard prints :meth:`command_line` in its disclosure and docs."""

    #: The provider's id (consent is kept per provider): ``claude``, ``codex``.
    key: str
    #: Its display name ("Codex CLI").
    label: str
    #: The program's name, looked up on ``PATH``.
    executable: str
    #: The arguments after the executable; the prompt arrives on standard input.
    arguments: tuple[str, ...]
    #: Where the text it reads goes, in the disclosure's words.
    destination: str
    #: Its place among the providers for a harness that declares none of its own (lowest
    #: first; ties in key order).
    default_rank: int = 100
    #: Whether it also offers goal summaries (``--observer-model``), which keep a consent of
    #: their own.
    summaries: bool = False

    def command(self, path: str) -> list[str]:
        """The argv to run, with the executable found at *path*."""
        return [path, *self.arguments]

    def command_line(self) -> str:
        """The command as a user would type it (for the disclosure and the docs)."""
        return " ".join([self.executable, *(f"'{a}'" if a == "" or " " in a else a for a in self.arguments)])


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Usage:
    """Measured consumption; ``None`` fields are unmeasured, never zero."""

    #: Output tokens generated in the last ``window_s`` seconds (core divides by minutes).
    output_tokens_window: int | None = None
    window_s: float = 600.0
    #: Total output tokens of the session. A plugin that folds its children's own totals in
    #: says so in its README; core adds children's *rates* to a parent row, never totals.
    output_tokens_total: int | None = None
    rate_limits: tuple[RateLimit, ...] = ()
    #: Copilot's per-session AI Units (never converted to money nor summed across harnesses).
    ai_units: float | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class HarnessContext:
    """What core hands to every hook call: the clock, the environment, a private cache.

    Plugins take the time from ``now`` and never from ``time.time()``, so a board can be
    evaluated as of any moment (``cargento --as-of``).
    """

    now: datetime
    env: Mapping[str, str]
    home: Path
    #: ``linux``, ``darwin`` or ``win32``.
    platform: str
    #: The display window in seconds; ``None`` shows everything (``?all=1``).
    window_s: float | None = 24 * 3600.0
    #: A per-harness cache that survives between board builds (evicted by core).
    cache: HarnessCache = attrs.field(factory=HarnessCache, eq=False, repr=False)
    #: Running processes, for checking that a pid a store recorded is still its writer.
    processes: ProcessTable = attrs.field(factory=LocalProcesses, eq=False, repr=False)
    #: Paths a file watcher reported changed under this harness's store since the previous
    #: build, so ``discover`` may re-examine only those; ``None`` when unknown (scan all).
    changed_paths: frozenset[str] | None = attrs.field(default=None, eq=False, repr=False)
    extra: Mapping[str, Any] = attrs.field(factory=dict, eq=False, repr=False)

    def in_window(self, moment: datetime | None) -> bool:
        """True when *moment* falls inside the display window (always true with ``?all=1``)."""
        if self.window_s is None:
            return True
        if moment is None:
            return False
        return (self.now - moment).total_seconds() <= self.window_s


@runtime_checkable
class Simulation(Protocol):
    """A live demo store: ``step`` appends what the harness would have written by *now*.

    Optionally ``drain_events()`` returns the hook bodies the steps produced since its last
    call, for the demo to forward to the event hub (see the ``simulate`` hookspec)."""

    def step(self, now: datetime) -> None: ...
