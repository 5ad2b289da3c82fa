"""The board document: the records ``/api/data`` serves and ``cargento --json`` prints.

Field names and meanings are the public contract described in ``docs/api.md``; within one
:data:`SCHEMA` version they only grow.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import attrs

from cargento import serde
from cargento.drift import UnknownRecord
from cargento.models import (
    Evidence,
    HarnessMark,
    Instruction,
    LoopReading,
    RateLimit,
    SpacedockBoot,
    StoreLocation,
    Subagent,
)
from cargento.sharedmethods import shared_methods

__all__ = [
    "SCHEMA",
    "Board",
    "BoardHarness",
    "BoardPlugin",
    "BoardSession",
    "BoardTask",
    "BoardTurn",
    "Counts",
    "Starting",
    "State",
    "Waiting",
    "board_json",
    "count",
]

#: ``starting``: a running harness process with no session store yet (:mod:`.starting`).
State = Literal["working", "needs_input", "idle", "starting"]
#: The document's schema version (``"schema"``).
SCHEMA = 1


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class BoardPlugin:
    """The distribution behind a harness's strip entry and what became of it."""

    name: str | None
    version: str | None
    status: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Starting:
    """A running harness process whose working directory no session of the harness has: it has
    no store yet (or none inside the window)."""

    pid: int
    cwd: str
    started_at: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class BoardHarness:
    """One harness's strip entry: whether its store was found, its count, its fault."""

    key: str
    label: str
    discovered: bool
    sessions: int
    plugin: BoardPlugin
    error: str | None = None
    turn_end_observable: bool = False
    reports_waits: bool = False
    wait_coverage: str = ""
    #: The harness's CLI resumes a session by id (the page offers COPY RESUME).
    resumable: bool = False
    #: Its recorded latest prompt may stand beside NOW where no goal is typed.
    prompt_as_goal: bool = False
    #: How the page draws the harness; ``None``: the page derives a mark from the label.
    mark: HarnessMark | None = None
    locations: tuple[StoreLocation, ...] = ()
    problems: tuple[str, ...] = ()
    #: Running CLI processes with no session in their directory ("starting"), where the
    #: process table can be listed and the harness lets a process be tied to a directory.
    starting: tuple[Starting, ...] = ()
    #: What of its running CLI can be tied to a session, and by what (coverage details).
    process_coverage: str = ""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Waiting:
    """What a session that needs input is waiting on."""

    kind: str
    text: str | None
    since: datetime | None
    source: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class BoardTask:
    subject: str
    status: str
    active_form: str | None = None
    id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    #: Creation to now, or creation to last update when completed; ``None`` without a creation time.
    age_s: float | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class BoardTurn:
    """The running turn of a working session: elapsed time and the estimate."""

    elapsed_s: float
    eta_s: float | None
    long: bool


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class BoardSession:
    """One row of the board."""

    harness: str
    harness_label: str
    session_id: str
    key: str
    display_id: str
    identity: tuple[str, str, str]
    project: str | None
    cwd: str | None
    title: str | None
    state: State
    detail: str
    #: The tool's recorded name when ``detail`` is a renamed tool (an MCP tool's wire string
    #: ``mcp__linear__list_issues`` behind ``Linear · list issues``); ``None`` otherwise.
    last_tool_raw: str | None = None
    waiting: Waiting | None
    subagents: tuple[Subagent, ...]
    tasks: tuple[BoardTask, ...]
    tasks_done: int
    model: str | None
    model_display: str | None
    authority: str | None
    output_tokens_per_min: float | None
    output_tokens_total: int | None
    started_at: datetime | None
    last_active_at: datetime | None
    turn: BoardTurn | None
    resume_command: str | None
    resume_cwd: str | None
    read_by_scanning: bool
    instruction: Instruction | None
    role: str | None
    #: A first officer's newest ``spacedock status --boot`` reading (the stage strips' source).
    spacedock: SpacedockBoot | None = None
    loop: LoopReading | None
    ended: bool
    missing: tuple[str, ...]
    notes: tuple[str, ...]
    faults: tuple[str, ...]
    rate_limits: tuple[RateLimit, ...]
    ai_units: float | None
    #: Where the state came from: ``store`` or the overlay's source (``event``...).
    state_source: str
    #: What the state, wait, detail and model rest on, and what was overruled (see
    #: :class:`cargento.models.Evidence` and :mod:`cargento.board.evidence`).
    evidence: tuple[Evidence, ...] = ()
    #: The harness version the session's store names, where it names one.
    harness_version: str | None = None
    #: Record types and fields in the store this build does not understand (schema drift).
    unknown_records: tuple[UnknownRecord, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Counts:
    sessions: int
    working: int
    needs_input: int
    idle: int
    subagents_running: int
    subagents: int
    #: Rows of a running harness process with no session store yet.
    starting: int = 0


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Board:
    """One snapshot of every harness; ``revision`` moves only when the content does."""

    schema: int
    revision: int
    generated_at: datetime
    as_of: datetime | None
    window_hours: float | None
    all: bool
    counts: Counts
    harnesses: tuple[BoardHarness, ...]
    sessions: tuple[BoardSession, ...]


def count(sessions: list[BoardSession]) -> Counts:
    """The board's totals over its rows."""
    return Counts(
        sessions=len(sessions),
        working=sum(s.state == "working" for s in sessions),
        needs_input=sum(s.state == "needs_input" for s in sessions),
        idle=sum(s.state == "idle" for s in sessions),
        starting=sum(s.state == "starting" for s in sessions),
        subagents_running=sum(a.running for s in sessions for a in s.subagents),
        subagents=sum(len(s.subagents) for s in sessions),
    )


def board_json(board: Board) -> bytes:
    """The board document served as ``/api/data`` and printed by ``cargento --json``."""
    return serde.dumps(board)
