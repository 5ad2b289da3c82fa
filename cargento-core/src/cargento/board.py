"""The board: every harness aggregated into one snapshot, shared by the CLI and the web app.

Core derives everything that must be the same for every harness here, from the facts the
plugins read: the state and its precedence, the detail line, the turn estimate, the project
label, subagent folding, display ids, ordering, redaction and the revision.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import attrs

from cargento import serde
from cargento.cache import HarnessCache
from cargento.labels import project_label
from cargento.models import (
    Gate,
    HarnessContext,
    HarnessInfo,
    HarnessMark,
    Instruction,
    LoopReading,
    ModelInfo,
    RateLimit,
    SessionReading,
    SessionRef,
    StoreLocation,
    Subagent,
    Task,
    Usage,
)
from cargento.plugins import Fault, Ok, Registry
from cargento.processes import LocalProcesses, ProcessTable
from cargento.rates import per_minute
from cargento.redact import redact
from cargento.timestamps import newest_plausible
from cargento.turns import estimate

__all__ = [
    "WORKING_WINDOW_S",
    "Board",
    "BoardBuilder",
    "BoardHarness",
    "BoardSession",
    "Overlay",
    "State",
    "ago",
]

State = Literal["working", "needs_input", "idle"]
SCHEMA = 1
#: Activity newer than this reads Working where the store records no turn boundary.
WORKING_WINDOW_S = 90.0
#: How long a clean session's clock-dependent hook answers (gate, usage) are reused.
DERIVED_REUSE_S = 1.0
_STATE_ORDER = {"needs_input": 0, "working": 1, "idle": 2}


@attrs.frozen(kw_only=True)
class Overlay:
    """State asserted by a live lifecycle event rather than read from the store."""

    state: State
    at: datetime
    source: str = "event"
    detail: str | None = None
    gate: Gate | None = None
    #: The overlay lapses at this moment and the store reading applies again.
    until: datetime | None = None


@attrs.frozen(kw_only=True)
class BoardPlugin:
    name: str | None
    version: str | None
    status: str


@attrs.frozen(kw_only=True)
class BoardHarness:
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
    #: How the page draws the harness; ``None``: the page derives a mark from the label.
    mark: HarnessMark | None = None
    locations: tuple[StoreLocation, ...] = ()
    problems: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class Waiting:
    kind: str
    text: str | None
    since: datetime | None
    source: str


@attrs.frozen(kw_only=True)
class BoardTask:
    subject: str
    status: str
    active_form: str | None = None
    id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    #: Creation to now, or creation to last update when completed; ``None`` without a creation time.
    age_s: float | None = None


@attrs.frozen(kw_only=True)
class BoardTurn:
    elapsed_s: float
    eta_s: float | None
    long: bool


@attrs.frozen(kw_only=True)
class BoardSession:
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
    loop: LoopReading | None
    ended: bool
    missing: tuple[str, ...]
    notes: tuple[str, ...]
    faults: tuple[str, ...]
    rate_limits: tuple[RateLimit, ...]
    ai_units: float | None
    #: Where the state came from: ``store`` or the overlay's source (``event``...).
    state_source: str


@attrs.frozen(kw_only=True)
class Counts:
    sessions: int
    working: int
    needs_input: int
    idle: int
    subagents_running: int
    subagents: int


@attrs.frozen(kw_only=True)
class Board:
    schema: int
    revision: int
    generated_at: datetime
    as_of: datetime | None
    window_hours: float | None
    all: bool
    counts: Counts
    harnesses: tuple[BoardHarness, ...]
    sessions: tuple[BoardSession, ...]


def ago(seconds: float | None) -> str:
    """Render an age as ``just now``, ``42 s ago``, ``5 min ago``, ``3 h ago``, ``2 d ago``."""
    if seconds is None:
        return "unknown"
    s = max(0.0, seconds)
    if s < 5:
        return "just now"
    if s < 60:
        return f"{int(s)} s ago"
    if s < 3600:
        return f"{int(s // 60)} min ago"
    if s < 86400:
        return f"{int(s // 3600)} h ago"
    return f"{int(s // 86400)} d ago"


@attrs.define
class _Row:
    info: HarnessInfo
    reading: SessionReading
    gate: Gate | None = None
    model: ModelInfo | None = None
    usage: Usage | None = None
    faults: list[str] = attrs.Factory(list)
    children: list[_Row] = attrs.Factory(list)
    last_active: datetime | None = None
    rate: float | None = None


def _platform() -> str:
    if sys.platform.startswith("win"):
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def default_home(env: Mapping[str, str]) -> Path:
    value = env.get("HOME") or env.get("USERPROFILE")
    return Path(value) if value else Path.home()


class BoardBuilder:
    """Builds successive boards over one registry, keeping plugin caches and the revision."""

    def __init__(
        self,
        registry: Registry,
        *,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
        platform: str | None = None,
        window_hours: float = 24.0,
        clock: Callable[[], datetime] | None = None,
        processes: ProcessTable | None = None,
    ) -> None:
        self.registry = registry
        self.env: Mapping[str, str] = dict(os.environ) if env is None else env
        self.home = home or default_home(self.env)
        self.platform = platform or _platform()
        self.window_hours = window_hours
        self.clock = clock or (lambda: datetime.now(UTC))
        self.processes: ProcessTable = processes or LocalProcesses()
        self.caches: dict[str, HarnessCache] = {}
        self._readings: dict[tuple[str, str], tuple[str, SessionReading | None]] = {}
        #: Per session: the reading the gate/model/usage answers were computed for, when, and
        #: the answers. Clock-dependent answers (gate, usage) are reused for at most
        #: DERIVED_REUSE_S of real time; the model is reused while the reading is unchanged.
        self._derived: dict[tuple[str, str], tuple[SessionReading, float, dict[str, Any]]] = {}
        #: Idle rows whose inputs and "last active … ago" text are unchanged are reused whole.
        self._rows: dict[tuple[str, str], tuple[tuple[Any, ...], str, BoardSession]] = {}
        self.revision = 0
        self._content: int | None = None
        self.last_discovery: dict[str, Any] = {}
        self._last_all: dict[str, bool] = {}
        self._widened: tuple[frozenset[tuple[str, str, str]], dict[str, str]] = (frozenset(), {})
        #: Per harness, after a build that read nothing new: until when (monotonic) its rows may
        #: stand unchanged, the overlays and window they were derived with, the board time of
        #: that evaluation, its strip row and its rows. Clean harnesses are re-evaluated against
        #: the clock at most every DERIVED_REUSE_S, like their hook answers.
        self._row_hashes: dict[int, tuple[BoardSession, int]] = {}
        self._settled: dict[str, tuple[float, tuple[Any, ...], bool, datetime, BoardHarness, tuple[BoardSession, ...]]] = {}

    def _widen(self, sessions: list[BoardSession]) -> list[BoardSession]:
        """Display ids, recomputed only when the set of rows changes."""
        ident = frozenset((s.harness, s.project or "", s.session_id) for s in sessions)
        if ident != self._widened[0]:
            widened = _widen_display_ids(sessions)
            self._widened = (ident, {s.key: s.display_id for s in widened if s.display_id != s.session_id[:8]})
        wide = self._widened[1]
        if not wide:
            return sessions
        return [attrs.evolve(s, display_id=wide[s.key]) if s.key in wide else s for s in sessions]

    def _content_key(self, board: Board) -> int:
        """The revision's content hash; a row object that stood unchanged keeps its hash."""
        known = self._row_hashes
        fresh: dict[int, tuple[BoardSession, int]] = {}
        parts = []
        for s in board.sessions:
            hit = known.get(id(s))
            digest = hit[1] if hit is not None and hit[0] is s else hash(_session_key(s))
            fresh[id(s)] = (s, digest)
            parts.append(digest)
        self._row_hashes = fresh
        harnesses = tuple(
            (h.key, h.label, h.discovered, h.sessions, h.plugin, h.error, h.locations, h.problems) for h in board.harnesses
        )
        return hash((board.window_hours, board.all, harnesses, tuple(parts)))

    def harness_for_path(self, path: str) -> str | None:
        """The harness whose store (as last discovered) holds *path*, for a file watcher."""
        best: tuple[int, str] | None = None
        for key, discovery in self.last_discovery.items():
            for loc in discovery.locations:
                root = loc.path.rstrip("/\\")
                inside = bool(root) and (path == root or path.startswith((root + os.sep, root + "/")))
                if inside and (best is None or len(root) > best[0]):
                    best = (len(root), key)
        return best[1] if best else None

    def context(
        self,
        harness: str,
        *,
        now: datetime,
        all_sessions: bool = False,
        changed_paths: frozenset[str] | None = None,
    ) -> HarnessContext:
        cache = self.caches.setdefault(harness, HarnessCache())
        return HarnessContext(
            now=now,
            env=self.env,
            home=self.home,
            platform=self.platform,
            window_s=None if all_sessions else self.window_hours * 3600.0,
            cache=cache,
            processes=self.processes,
            changed_paths=changed_paths,
        )

    # -- collection ---------------------------------------------------------------------

    def build(
        self,
        *,
        now: datetime | None = None,
        all_sessions: bool = False,
        overlays: Mapping[tuple[str, str], Overlay] | None = None,
        as_of: bool = False,
        changes: Mapping[str, frozenset[str]] | None = None,
    ) -> Board:
        """Evaluate the board at *now*.

        *changes*, when given, says which harnesses' stores changed since the previous build
        (harness id -> the changed paths a file watcher reported): the others are not
        re-discovered and their unchanged sessions are not re-read, though their state is still
        evaluated against the clock. ``None`` means "unknown": everything is rescanned.
        """
        moment = now or self.clock()
        overlays = overlays or {}
        harness_rows: list[BoardHarness] = []
        sessions: list[BoardSession] = []
        tick = time.monotonic()
        for key in self.registry.loaded():
            info = self.registry.harnesses[key]
            record = self.registry.records[key]
            clean = (
                changes is not None
                and key not in changes
                and key in self.last_discovery
                and self._last_all.get(key) == all_sessions
            )
            mine_overlays = tuple(sorted(((sid, o) for (h, sid), o in overlays.items() if h == key), key=lambda x: x[0]))
            settled = self._settled.get(key)
            if (
                clean
                and settled is not None
                and tick < settled[0]
                and settled[1] == mine_overlays
                and settled[2] == all_sessions
                and timedelta(0) <= moment - settled[3] < timedelta(seconds=DERIVED_REUSE_S)
            ):
                # Nothing of this harness changed and it was evaluated against the clock less
                # than DERIVED_REUSE_S ago: its rows stand as they were.
                harness_rows.append(settled[4])
                sessions.extend(settled[5])
                continue
            ctx = self.context(
                key, now=moment, all_sessions=all_sessions,
                changed_paths=None if changes is None else changes.get(key, frozenset()),
            )
            plugin = BoardPlugin(name=record.dist or record.module, version=record.version, status=record.status)
            found: Ok | Fault = Ok(self.last_discovery[key]) if clean else self.registry.call(key, "discover", ctx=ctx)
            if isinstance(found, Fault):
                self._settled.pop(key, None)
                harness_rows.append(
                    BoardHarness(
                        key=key, label=info.label, discovered=False, sessions=0, plugin=plugin,
                        error=found.message, turn_end_observable=info.turn_end_observable,
                        reports_waits=info.reports_waits, wait_coverage=info.wait_coverage,
                        resumable=info.resumable, mark=info.mark,
                    )
                )
                continue
            discovery = found.value
            self.last_discovery[key] = discovery
            self._last_all[key] = all_sessions
            mine = self._read_harness(key, info, discovery.sessions, ctx, all_sessions, reuse=clean)
            row = BoardHarness(
                key=key,
                label=info.label,
                discovered=any(loc.status == "present" for loc in discovery.locations) or bool(discovery.sessions),
                sessions=0,
                plugin=plugin,
                error=None,
                turn_end_observable=info.turn_end_observable,
                reports_waits=info.reports_waits,
                wait_coverage=info.wait_coverage,
                resumable=info.resumable,
                mark=info.mark,
                locations=discovery.locations,
                problems=discovery.problems,
            )
            harness_rows.append(row)
            # Children fold only onto a parent of their own harness, so each harness's rows
            # are derived on their own.
            derived = [self._session(r, moment, overlays) for r in self._fold(mine, moment)]
            sessions.extend(derived)
            faulted = any(r.faults for r in mine) or bool(self.registry.faults.get(key))
            if faulted:
                self._settled.pop(key, None)
            else:
                self._settled[key] = (tick + DERIVED_REUSE_S, mine_overlays, all_sessions, moment, row, tuple(derived))
        if not all_sessions:
            limit = self.window_hours * 3600.0
            sessions = [
                s for s in sessions
                if s.state != "idle" or (s.last_active_at is not None and (moment - s.last_active_at).total_seconds() <= limit)
            ]
        sessions = self._widen(sessions)
        sessions.sort(key=_order)
        per_harness: dict[str, int] = {}
        for s in sessions:
            per_harness[s.harness] = per_harness.get(s.harness, 0) + 1
        harness_rows = [attrs.evolve(h, sessions=per_harness.get(h.key, 0), error=h.error or _fault_line(self.registry, h.key)) for h in harness_rows]
        for name, rec in self.registry.records.items():
            if rec.status != "loaded" and name not in self.registry.harnesses:
                harness_rows.append(
                    BoardHarness(
                        key=rec.name, label=rec.name, discovered=False, sessions=0,
                        plugin=BoardPlugin(name=rec.dist or rec.module, version=rec.version, status=rec.status),
                        error=rec.error,
                    )
                )
        harness_rows = [_redact_harness(h) for h in harness_rows]
        counts = Counts(
            sessions=len(sessions),
            working=sum(s.state == "working" for s in sessions),
            needs_input=sum(s.state == "needs_input" for s in sessions),
            idle=sum(s.state == "idle" for s in sessions),
            subagents_running=sum(a.running for s in sessions for a in s.subagents),
            subagents=sum(len(s.subagents) for s in sessions),
        )
        board = Board(
            schema=SCHEMA,
            revision=self.revision,
            generated_at=moment,
            as_of=moment if as_of else None,
            window_hours=None if all_sessions else self.window_hours,
            all=all_sessions,
            counts=counts,
            harnesses=tuple(harness_rows),
            sessions=tuple(sessions),
        )
        content = self._content_key(board)
        if content != self._content:
            self._content = content
            self.revision += 1
        return attrs.evolve(board, revision=self.revision)

    def _read_harness(
        self,
        key: str,
        info: HarnessInfo,
        refs: tuple[SessionRef, ...],
        ctx: HarnessContext,
        all_sessions: bool,
        *,
        reuse: bool = False,
    ) -> list[_Row]:
        out: list[_Row] = []
        seen: set[tuple[str, str]] = set()
        for ref in refs:
            if ref.harness != key:
                self.registry._fault(key, "discover", "contract", f"session {ref.session_id} carries harness {ref.harness!r}", None)
                continue
            if not all_sessions and ref.modified_at is not None and not ctx.in_window(ref.modified_at):
                continue
            ident = (key, ref.session_id)
            seen.add(ident)
            cached = self._readings.get(ident)
            if cached is not None and ((reuse and not ref.fingerprint) or (ref.fingerprint is not None and cached[0] == ref.fingerprint)):
                reading = cached[1]
            else:
                result = self.registry.call(key, "read_session", ref=ref, ctx=ctx)
                if isinstance(result, Fault):
                    self._readings.pop(ident, None)
                    continue
                reading = result.value
                self._readings[ident] = (ref.fingerprint or "", reading)
            if reading is None:
                continue
            row = _Row(info=info, reading=reading)
            memo = self._derived.get(ident)
            fresh = memo is not None and memo[0] is reading and time.monotonic() - memo[1] < DERIVED_REUSE_S
            for hook in ("gate_state", "model", "usage"):
                if not self.registry.implements(key, hook):
                    continue
                attr = "gate" if hook == "gate_state" else hook
                if memo is not None and memo[0] is reading and (fresh or hook == "model"):
                    setattr(row, attr, memo[2][attr])
                    continue
                got = self.registry.call(key, hook, reading=reading, ctx=ctx)
                if isinstance(got, Fault):
                    row.faults.append(f"{hook}: {got.message}")
                    continue
                setattr(row, attr, got.value)
            if not fresh and not row.faults:
                self._derived[ident] = (reading, time.monotonic(), {"gate": row.gate, "model": row.model, "usage": row.usage})
            out.append(row)
        for ident in [i for i in self._readings if i[0] == key and i not in seen]:
            del self._readings[ident]
            self._derived.pop(ident, None)
            self._rows.pop(ident, None)
        return out

    # -- derivation ---------------------------------------------------------------------

    def _fold(self, rows: list[_Row], now: datetime) -> list[_Row]:
        for row in rows:
            row.last_active = newest_plausible(now, row.reading.last_active_at)
            row.rate = per_minute(row.usage.output_tokens_window if row.usage else None)
        by_id = {(r.info.key, r.reading.ref.session_id): r for r in rows}

        def root_of(row: _Row) -> _Row | None:
            hops = 0
            current = row
            while current.reading.parent_id and hops < 32:
                parent = by_id.get((current.info.key, current.reading.parent_id))
                if parent is None or parent is row:
                    return None if current is row else current
                current = parent
                hops += 1
            return current if current is not row else None

        top: list[_Row] = []
        for row in rows:
            root = root_of(row) if row.reading.parent_id else None
            if root is None:
                top.append(row)
            else:
                root.children.append(row)
        for row in top:
            for child in row.children:
                row.last_active = newest_plausible(now, row.last_active, child.last_active)
                if child.rate is not None:
                    row.rate = round((row.rate or 0.0) + child.rate, 1)
        return top

    def _session(self, row: _Row, now: datetime, overlays: Mapping[tuple[str, str], Overlay]) -> BoardSession:
        reading = row.reading
        info = row.info
        sid = reading.ref.session_id
        subagents = list(reading.subagents)
        for child in row.children:
            name = child.reading.agent_name or child.reading.title or child.reading.ref.session_id[:8]
            subagents.extend(attrs.evolve(sub, spawned_by=sub.spawned_by or name) for sub in child.reading.subagents)
            subagents.append(
                Subagent(
                    name=name,
                    running=_is_working(child, now, None)[0],
                    model=child.model.id if child.model else None,
                    role=child.reading.agent_role,
                    session_id=child.reading.ref.session_id,
                    started_at=child.reading.started_at,
                    last_active_at=child.last_active,
                    output_tokens_per_min=child.rate,
                )
            )
        subagents = [_age_subagent(sub, now) for sub in subagents]
        for sub in subagents:
            if sub.last_active_at is not None:
                row.last_active = newest_plausible(now, row.last_active, sub.last_active_at)
        overlay = overlays.get((info.key, sid))
        if overlay is not None and overlay.until is not None and overlay.until <= now:
            overlay = None
        gate = row.gate
        state_source = "store"
        working, _ = _is_working(row, now, subagents)
        state: State = "working" if working else "idle"
        if overlay is not None and (row.last_active is None or overlay.at >= row.last_active or overlay.gate):
            state = overlay.state
            state_source = overlay.source
            if overlay.gate is not None and gate is None:
                gate = overlay.gate
        if gate is not None:
            state = "needs_input"
            state_source = gate.source
        idle_for = (now - row.last_active).total_seconds() if row.last_active else None
        memo_inputs: tuple[Any, ...] | None = None
        if state == "idle" and not any(t.created_at is not None and t.status != "completed" for t in reading.tasks):
            memo_inputs = (reading, row.gate, row.model, row.usage, overlay, row.rate, row.last_active,
                           *(c.reading for c in row.children), *(c.model for c in row.children))
            memo = self._rows.get((info.key, sid))
            if (
                memo is not None
                and len(memo[0]) == len(memo_inputs)
                and all(a is b or a == b for a, b in zip(memo[0], memo_inputs, strict=True))
                and memo[1] == ago(idle_for)
            ):
                return memo[2]
        tasks = tuple(_task(t, now) for t in reading.tasks)
        running_subs = [s for s in subagents if s.running]
        if state == "needs_input" and gate is not None:
            detail = gate.text or {"permission": "waiting for a permission answer", "question": "asking you a question",
                                   "plan": "waiting for plan approval", "command": "asking to run a command",
                                   "url": "asking to open a URL", "roster": "a teammate has not started"}.get(gate.kind, "waiting on you")
        elif state == "working":
            active = next((t.active_form or t.subject for t in tasks if t.status == "in_progress"), None)
            if overlay is not None and state_source != "store" and overlay.detail:
                detail = overlay.detail
            elif active:
                detail = active
            elif running_subs:
                names = ", ".join(s.name for s in running_subs[:3])
                more = f" (+{len(running_subs) - 3})" if len(running_subs) > 3 else ""
                detail = f"running {len(running_subs)} subagent{'s' if len(running_subs) != 1 else ''}: {names}{more}"
            elif reading.detail:
                detail = reading.detail
            elif reading.thinking:
                detail = "thinking"
            elif reading.last_tool:
                detail = reading.last_tool
            else:
                detail = "generating…"
        elif reading.ended:
            detail = f"session ended · last active {ago(idle_for)}"
        else:
            detail = f"last active {ago(idle_for)}"
        figures = estimate(reading.turn, now) if state == "working" else None
        project = project_label(reading.cwd, str(self.home)) or reading.project
        made = _redact_session(BoardSession(
            harness=info.key,
            harness_label=info.label,
            session_id=sid,
            key=f"{info.key}:{sid}",
            display_id=sid[:8],
            identity=(info.key, project or "", sid),
            project=project,
            cwd=reading.cwd,
            title=reading.title,
            state=state,
            detail=detail,
            waiting=Waiting(kind=gate.kind, text=gate.text, since=gate.since, source=gate.source) if gate else None,
            subagents=tuple(subagents),
            tasks=tasks,
            tasks_done=sum(t.status == "completed" for t in tasks),
            model=row.model.id if row.model else None,
            model_display=(row.model.display or row.model.id) if row.model else None,
            authority=row.model.authority if row.model else None,
            output_tokens_per_min=row.rate,
            output_tokens_total=row.usage.output_tokens_total if row.usage else None,
            started_at=reading.started_at,
            last_active_at=row.last_active,
            turn=BoardTurn(elapsed_s=figures.elapsed_s, eta_s=figures.eta_s, long=figures.long) if figures else None,
            resume_command=reading.resume_command if info.resumable else None,
            resume_cwd=reading.resume_cwd if info.resumable else None,
            read_by_scanning=not info.turn_end_observable,
            instruction=reading.instruction,
            role=reading.role,
            loop=reading.loop,
            ended=reading.ended,
            missing=reading.missing,
            notes=reading.notes,
            faults=tuple(row.faults),
            rate_limits=row.usage.rate_limits if row.usage else (),
            ai_units=row.usage.ai_units if row.usage else None,
            state_source=state_source,
        ))
        if memo_inputs is not None:
            self._rows[(info.key, sid)] = (memo_inputs, ago(idle_for), made)
        else:
            self._rows.pop((info.key, sid), None)
        return made


def _is_working(row: _Row, now: datetime, subagents: list[Subagent] | None) -> tuple[bool, str]:
    """The store-only state: a recorded turn end reads idle at once; recency is the fallback."""
    turn = row.reading.turn
    if turn.busy_until is not None and now < turn.busy_until and turn.state != "ended":
        return True, "busy"
    if subagents and any(s.running for s in subagents):
        return True, "subagents"
    if turn.state == "ended":
        return False, "ended"
    if row.reading.ended:
        return False, "ended"
    last = row.last_active
    if last is not None and (now - last).total_seconds() <= WORKING_WINDOW_S:
        return True, "recent"
    return False, "quiet"


def _age_subagent(sub: Subagent, now: datetime) -> Subagent:
    quiet = sub.last_active_at is not None and (now - sub.last_active_at).total_seconds() > (sub.stale_after_s or 0.0)
    if sub.running and sub.stale_after_s is not None and quiet:
        return attrs.evolve(sub, running=False)
    return sub


def _task(task: Task, now: datetime) -> BoardTask:
    age: float | None = None
    if task.created_at is not None:
        end = task.updated_at if task.status == "completed" and task.updated_at else now
        age = max(0.0, (end - task.created_at).total_seconds())
    return BoardTask(
        subject=task.subject,
        status=task.status,
        active_form=task.active_form,
        id=task.id,
        created_at=task.created_at,
        updated_at=task.updated_at,
        age_s=None if age is None else round(age, 1),
    )


def _order(session: BoardSession) -> tuple[int, float]:
    last = session.last_active_at.timestamp() if session.last_active_at else 0.0
    return (_STATE_ORDER[session.state], -last)


def _widen_display_ids(sessions: list[BoardSession]) -> list[BoardSession]:
    """Widen the 8-character display id, in steps of four, only where rows would collide."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, s in enumerate(sessions):
        groups.setdefault((s.harness, s.project or ""), []).append(index)
    out = list(sessions)
    for members in groups.values():
        by_prefix: dict[str, list[int]] = {}
        for i in members:
            by_prefix.setdefault(sessions[i].session_id[:8], []).append(i)
        for clash in by_prefix.values():
            ids = {sessions[i].session_id for i in clash}
            if len(clash) < 2 or len(ids) < 2:
                continue
            width = 8
            longest = max(len(x) for x in ids)
            while width < longest and len({x[:width] for x in ids}) < len(ids):
                width += 4
            for i in clash:
                out[i] = attrs.evolve(out[i], display_id=out[i].session_id[:width])
    return out


def _fault_line(registry: Registry, key: str) -> str | None:
    faults = registry.faults.get(key)
    if not faults:
        return None
    last = faults[-1]
    return f"{last.hook}: {last.message}"


def _session_key(s: BoardSession) -> tuple[Any, ...]:
    """What of a row is content: everything but what moves with the clock alone."""
    return (
        s.key, s.display_id, s.project, s.cwd, s.title, s.state, s.state_source,
        None if s.state == "idle" else s.detail, s.waiting, s.subagents,
        tuple((t.subject, t.status, t.active_form, t.id) for t in s.tasks),
        s.model, s.model_display, s.authority, s.output_tokens_per_min, s.output_tokens_total,
        s.started_at, s.last_active_at, s.turn is not None and s.turn.long, s.turn is not None and s.turn.eta_s is None,
        s.resume_command, s.resume_cwd, s.read_by_scanning, s.instruction, s.role, s.loop, s.ended,
        s.missing, s.notes, s.faults, s.rate_limits, s.ai_units,
    )


def redact_board(board: Board) -> Board:
    """Replace credential-shaped values in every text a page or the API shows (the builder
    already does this for every board it builds)."""
    return attrs.evolve(
        board,
        sessions=tuple(_redact_session(s) for s in board.sessions),
        harnesses=tuple(_redact_harness(h) for h in board.harnesses),
    )


@functools.lru_cache(maxsize=8192)
def _redact(text: str) -> str:
    return redact(text)


def _r(text: str | None) -> str | None:
    return _redact(text) if text else text


def _redact_session(s: BoardSession) -> BoardSession:
    changes: dict[str, Any] = {}
    title, detail = _r(s.title), _redact(s.detail)
    if title != s.title:
        changes["title"] = title
    if detail != s.detail:
        changes["detail"] = detail
    if s.waiting is not None and s.waiting.text and _redact(s.waiting.text) != s.waiting.text:
        changes["waiting"] = attrs.evolve(s.waiting, text=_redact(s.waiting.text))
    tasks = tuple(_redact_task(t) for t in s.tasks)
    if any(a is not b for a, b in zip(tasks, s.tasks, strict=True)):
        changes["tasks"] = tasks
    if s.instruction is not None:
        instruction = _redact_instruction(s.instruction)
        if instruction is not s.instruction:
            changes["instruction"] = instruction
    subagents = tuple(_redact_subagent(a) for a in s.subagents)
    if any(a is not b for a, b in zip(subagents, s.subagents, strict=True)):
        changes["subagents"] = subagents
    notes = tuple(_redact(n) for n in s.notes)
    if notes != s.notes:
        changes["notes"] = notes
    return attrs.evolve(s, **changes) if changes else s


def _redact_harness(h: BoardHarness) -> BoardHarness:
    error = _r(h.error)
    problems = tuple(_redact(p) for p in h.problems)
    locations = tuple(
        attrs.evolve(loc, detail=_redact(loc.detail)) if loc.detail and _redact(loc.detail) != loc.detail else loc
        for loc in h.locations
    )
    if error == h.error and problems == h.problems and all(a is b for a, b in zip(locations, h.locations, strict=True)):
        return h
    return attrs.evolve(h, error=error, problems=problems, locations=locations)


def _redact_task(t: BoardTask) -> BoardTask:
    subject, active = _redact(t.subject), _r(t.active_form)
    return t if subject == t.subject and active == t.active_form else attrs.evolve(t, subject=subject, active_form=active)


def _redact_instruction(i: Instruction) -> Instruction:
    text = _redact(i.text)
    return i if text == i.text else attrs.evolve(i, text=text)


def _redact_subagent(a: Subagent) -> Subagent:
    name = _redact(a.name)
    return a if name == a.name else attrs.evolve(a, name=name)


def board_json(board: Board) -> bytes:
    """The board document served as ``/api/data`` and printed by ``cargento --json``."""
    return serde.dumps(board)
