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
from cargento.processes import LocalProcesses, ProcessTable

__all__ = [
    "Discovery",
    "Gate",
    "HarnessContext",
    "HarnessInfo",
    "HarnessMark",
    "Instruction",
    "LoopReading",
    "McpSession",
    "ModelInfo",
    "RateLimit",
    "SessionReading",
    "SessionRef",
    "Simulation",
    "StoreLocation",
    "Subagent",
    "Task",
    "TaskStatus",
    "TurnEvidence",
    "TurnState",
    "Usage",
]

TaskStatus = Literal["pending", "in_progress", "completed"]
TurnState = Literal["open", "ended", "unknown"]
LocationStatus = Literal["missing", "unreadable", "present"]
MarkShape = Literal["circle", "square", "diamond", "hex", "triangle"]


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
class StoreLocation:
    """One place a plugin searched, for ``--diagnose`` and for the file watcher."""

    path: str
    #: What lives there: ``sessions``, ``tasks``, ``teams``, ``database``, ``config``...
    role: str = "sessions"
    #: Why this path: ``default`` or ``env NAME`` or ``setting NAME``.
    origin: str = "default"
    status: LocationStatus = "missing"
    detail: str | None = None


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
class Discovery:
    """What ``discover`` found: where it looked, and the sessions there."""

    locations: tuple[StoreLocation, ...] = ()
    sessions: tuple[SessionRef, ...] = ()
    #: Problems with parts of the store that were skipped (one line each).
    problems: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class Task:
    """One tracked task, plan step or todo."""

    subject: str
    status: TaskStatus = "pending"
    active_form: str | None = None
    id: str | None = None
    #: Creation time; ``None`` where the harness records none (Codex plan steps).
    created_at: datetime | None = None
    updated_at: datetime | None = None


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
class Instruction:
    """The strongest current instruction attributable to a session."""

    text: str
    #: ``prompt`` (newest operator request), ``earlier prompt`` (the newest was only a
    #: continuation such as "proceed"), or ``agent`` (the agent's own statement of intent).
    source: str = "prompt"
    at: datetime | None = None


@attrs.frozen(kw_only=True)
class LoopReading:
    """A detected failed-tool loop; ``kind`` is ``run``, ``total`` or ``nothing-worked``."""

    kind: str
    failures: int
    successes: int
    note: str


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
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
    loop: LoopReading | None = None
    resume_command: str | None = None
    resume_cwd: str | None = None
    #: The store records that the session itself ended (not only its turn).
    ended: bool = False
    #: "Source not fully read": the readings that are missing (never shown as zero).
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class Gate:
    """A standing wait on the human."""

    #: ``permission``, ``question``, ``plan``, ``command``, ``url``, ``roster``...
    kind: str
    #: What is being asked, where the harness lets us say it; ``None`` otherwise.
    text: str | None = None
    since: datetime | None = None
    #: Which signal said so (``transcript``, ``events.jsonl``, ``roster``, ``pid file``...).
    source: str = "store"


@attrs.frozen(kw_only=True)
class ModelInfo:
    """The model a session uses, exactly as the harness records it."""

    id: str
    display: str | None = None
    #: The provider/allowance the session spends, rendered like ``via Codex · gpt-5.6-sol``.
    authority: str | None = None


@attrs.frozen(kw_only=True)
class RateLimit:
    """One rate-limit window a harness wrote into its own store."""

    name: str
    used_percent: float
    window_minutes: int | None = None
    resets_at: datetime | None = None


@attrs.frozen(kw_only=True)
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


@attrs.frozen(kw_only=True)
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
