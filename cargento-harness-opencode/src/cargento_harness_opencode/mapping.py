"""Reading one OpenCode session's messages, parts and todos into core's models.

Busy/idle comes from the messages themselves: an assistant message still lacking
``time.completed`` is a turn in progress (Working, for up to :data:`BUSY_S` after the session
last wrote, so a killed process cannot hold the board), a completed newest assistant message
that did not stop for tool calls ends the turn (Idle at once), and ``time_updated`` freshness
is only the fallback.

The store also shows a permission dialog with nothing installed (measured on 1.18.33): the
tool part is ``running`` but the tool has not started its work, so it has written no
``metadata`` (bash writes it the moment its command is spawned, after the answer). Such a
part on a tool that asks the human, standing :data:`GATE_AFTER_S`, is a gate; the row names
only the kind (``command`` for bash), never the command.
"""

from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento.drift import DriftCounter, UnknownRecord
from cargento.errors import HarnessError
from cargento.evidence import shown_path, turn_record
from cargento.labels import clip, one_line
from cargento.models import (
    Evidence,
    Gate,
    HarnessContext,
    Instruction,
    ModelInfo,
    SessionReading,
    SessionRef,
    Task,
    TaskStatus,
    TurnEvidence,
    Usage,
)
from cargento.rates import tokens_in_window
from cargento.readers import passconn, sqlite
from cargento.sharedmethods import shared_methods
from cargento.timestamps import newest_plausible, parse_ts
from cargento.turns import LONG_TURN_S, TurnClock

from cargento_harness_opencode import records, store, tokentally

__all__ = ["BUSY_S", "GATE_AFTER_S", "Detail", "gate", "model", "read", "usage"]

#: An unfinished assistant message keeps the row Working this long after the last write.
BUSY_S = LONG_TURN_S
#: A parked tool call counts as a wait once it has stood this long.
GATE_AFTER_S = 5.0
#: Tools that stop for the human before they start, and the kind a wait on each is shown as.
GATED_TOOLS = {
    "bash": "command",
    "edit": "permission",
    "write": "permission",
    "patch": "permission",
    "apply_patch": "permission",
    "multiedit": "permission",
    "task": "permission",
    "question": "question",
}
MAX_MESSAGES = 400
MAX_PARTS = 500
PROMPT_MESSAGES = 8
MAX_TASKS = 200
_DEFAULT_TITLE = re.compile(r"^(New|Child) session - \d{4}-\d{2}-\d{2}T")
_SUBAGENT_SUFFIX = re.compile(r"\s*\(@[\w.-]+ subagent\)\s*$")
_CONTINUATIONS = frozenset(
    {"proceed", "continue", "go on", "go ahead", "yes", "y", "ok", "okay", "sure", "do it", "next"}
)
_STATUS: dict[str, TaskStatus] = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Detail:
    """What one session's rows say, kept in the cache for the gate, model and usage hooks."""

    turn: TurnEvidence = attrs.Factory(TurnEvidence)
    newest_at: datetime | None = None
    generating: bool = False
    thinking: bool = False
    last_tool: str | None = None
    parked: tuple[tuple[str, datetime], ...] = ()
    model: str | None = None
    token_events: tuple[tuple[datetime, int], ...] = ()
    tokens_total: int | None = None
    prompts: tuple[tuple[str, datetime | None], ...] = ()
    tasks: tuple[Task, ...] = ()
    missing: tuple[str, ...] = ()
    #: Message roles and part types among the rows read that this build does not know.
    unknown: tuple[UnknownRecord, ...] = ()


def _title(row: store.SessionRow) -> str | None:
    if row.title is None or not row.title.strip() or _DEFAULT_TITLE.match(row.title):
        return None
    return clip(row.title, 80)


#: One parsed message as last read: the row's ``(time_created, time_updated, length(data))``
#: and what it parsed into.
_Parsed = tuple[tuple[object, object, object], records.Message]


def _messages(
    conn: sqlite3.Connection, name: str, sid: str, kept: dict[object, _Parsed] | None = None
) -> tuple[list[records.Message], dict[object, _Parsed]]:
    """The session's newest :data:`MAX_MESSAGES` messages, oldest first, and what to keep for
    the next read: a message whose row kept its times and length since *kept* was made is not
    fetched or parsed again (a refresh of a long session parses the message that moved)."""
    rows = sqlite.query(
        conn,
        "SELECT id, time_created, time_updated, length(data) FROM message WHERE session_id = ? "
        "ORDER BY time_created DESC, id DESC LIMIT ?",
        (sid, MAX_MESSAGES),
        name=name,
        max_rows=MAX_MESSAGES,
    )
    kept = kept or {}
    wanted = [ident for ident, *stamp in rows if (got := kept.get(ident)) is None or got[0] != tuple(stamp)]
    fresh: dict[object, _Parsed] = {}
    if wanted:  # at most MAX_MESSAGES ids: under SQLite's limit of bound parameters
        marks = ", ".join("?" for _ in wanted)
        for ident, created, updated, length, raw in sqlite.query(
            conn,
            f"SELECT id, time_created, time_updated, length(data), data FROM message WHERE id IN ({marks})",
            tuple(wanted),
            name=name,
            max_rows=len(wanted),
        ):
            fresh[ident] = ((created, updated, length), records.parse_message(ident, created, updated, raw))
    out: dict[object, _Parsed] = {}
    messages: list[records.Message] = []
    for ident, *stamp in reversed(rows):
        got = fresh.get(ident) or kept.get(ident)
        if got is None or (ident not in fresh and got[0] != tuple(stamp)):
            continue  # gone between the two reads: the next refresh has it, or not
        out[ident] = got
        messages.append(got[1])
    return messages, out


def _prompts(
    conn: sqlite3.Connection, name: str, users: list[records.Message], drift: DriftCounter
) -> tuple[tuple[str, datetime | None], ...]:
    wanted = users[-PROMPT_MESSAGES:]
    if not wanted:
        return ()
    marks = ", ".join("?" for _ in wanted)
    rows = sqlite.query(
        conn,
        f"SELECT message_id, data FROM part WHERE message_id IN ({marks}) ORDER BY message_id, id LIMIT ?",
        (*[m.id for m in wanted], MAX_PARTS),
        name=name,
        max_rows=MAX_PARTS,
    )
    texts: dict[str, list[str]] = {}
    for message_id, raw in rows:
        kind, text = records.part_type(raw)
        if kind is not None and kind not in records.KNOWN_PARTS:
            drift.field(f"part type {kind}")
        if text is not None and isinstance(message_id, str):
            texts.setdefault(message_id, []).append(text)
    return tuple(("\n".join(texts[m.id]), m.created_at) for m in wanted if m.id in texts)


def _tools(conn: sqlite3.Connection, name: str, message_id: str, drift: DriftCounter) -> list[records.ToolPart]:
    guard = "CASE WHEN json_valid(data) THEN {} END"
    fields = [
        guard.format("json_extract(data, '$.type')"),
        guard.format("json_extract(data, '$.tool')"),
        guard.format("json_extract(data, '$.state.status')"),
        guard.format("json_type(data, '$.state.metadata')"),
        guard.format("json_extract(data, '$.state.time.start')"),
    ]
    rows = sqlite.query(
        conn,
        f"SELECT {', '.join(fields)} FROM part WHERE message_id = ? ORDER BY id LIMIT ?",
        (message_id, MAX_PARTS),
        name=name,
        max_rows=MAX_PARTS,
    )
    for row in rows:
        if isinstance(row[0], str) and row[0] not in records.KNOWN_PARTS:
            drift.field(f"part type {row[0]}")
    return [tool for row in rows if (tool := records.tool_part(*row)) is not None]


def _tokens_total(
    conn: sqlite3.Connection, name: str, ids: list[str], snap: store.Snapshot, ctx: HarnessContext
) -> int | None:
    """Output tokens of every completed assistant message of these sessions; ``None`` when
    none has completed (an unfinished message carries zeros until its step finishes). Each
    session's settled messages are summed once and kept (:mod:`.tokentally`)."""
    try:
        st = os.stat(name)
        source: object = (st.st_dev, st.st_ino)
    except OSError:
        source = None
    total = counted = 0
    for sid in ids:
        key = f"tokens:{name}:{sid}"
        row = snap.rows.get(sid)
        count = row.message_count if row is not None else None
        n, c, tally = tokentally.output_tokens(conn, name, sid, ctx.cache.get(key), source, count)
        ctx.cache.set(key, tally)
        total, counted = total + n, counted + c
    return total if counted else None


def _todos(conn: sqlite3.Connection, name: str, sid: str, cols: frozenset[str]) -> tuple[Task, ...]:
    if not {"session_id", "content", "status"} <= cols:
        raise HarnessError("todo table lacks session_id/content/status")
    order = "position" if "position" in cols else "rowid"
    stamps = ", ".join(c if c in cols else "NULL" for c in ("time_created", "time_updated"))
    rows = sqlite.query(
        conn,
        f"SELECT content, status, {stamps} FROM todo WHERE session_id = ? ORDER BY {order} LIMIT ?",
        (sid, MAX_TASKS),
        name=name,
        max_rows=MAX_TASKS,
    )
    tasks = []
    for content, status, created, updated in rows:
        mapped = _STATUS.get(status) if isinstance(status, str) else None
        subject = one_line(content) if isinstance(content, str) else ""
        if mapped is None or not subject:
            continue  # cancelled todos are no longer tracked work
        tasks.append(Task(subject=subject, status=mapped, created_at=parse_ts(created), updated_at=parse_ts(updated)))
    return tuple(tasks)


def _turn(messages: list[records.Message]) -> TurnEvidence:
    clock = TurnClock()
    pending_end: datetime | None = None
    for message in messages:
        if message.role == "user":
            if pending_end is not None:
                clock.end(pending_end)
                pending_end = None
            clock.start(message.created_at)
        elif message.role == "assistant":
            clock.activity(message.created_at)
            if message.completed_at is not None:
                clock.activity(message.completed_at)
                pending_end = None if message.finish in ("tool-calls", "tool_calls") else message.completed_at
            elif message.error:
                pending_end = message.updated_at or message.created_at
            else:
                pending_end = None
    if pending_end is not None:
        clock.end(pending_end)
    evidence = clock.evidence(boundaries_recorded=any(m.role is not None for m in messages))
    return evidence


def _detail(
    conn: sqlite3.Connection, name: str, row: store.SessionRow, snap: store.Snapshot, ctx: HarnessContext
) -> Detail:
    missing: list[str] = []
    messages: list[records.Message] = []
    prompts: tuple[tuple[str, datetime | None], ...] = ()
    tools: list[records.ToolPart] = []
    total: int | None = None
    tasks: tuple[Task, ...] = ()
    drift = DriftCounter()
    if snap.has_messages:
        try:
            key = f"messages:{name}:{row.id}"
            messages, kept = _messages(conn, name, row.id, ctx.cache.get(key))
            ctx.cache.set(key, kept)
            for message in messages:
                if message.unknown_role is not None:
                    drift.record_type(f"message role {message.unknown_role}")
            total = _tokens_total(conn, name, [row.id, *_descendants(row.id, snap)], snap, ctx)
        except HarnessError:
            missing += ["turn", "token rate", "model"]
        if snap.has_parts and messages:
            try:
                prompts = _prompts(conn, name, [m for m in messages if m.role == "user"], drift)
                if messages[-1].role == "assistant":
                    tools = _tools(conn, name, messages[-1].id, drift)
            except HarnessError:
                missing.append("prompt")
    if snap.has_todos:
        try:
            tasks = _todos(conn, name, row.id, snap.todo_columns)
        except HarnessError:
            missing.append("tasks")
    last = messages[-1] if messages else None
    generating = last is not None and last.generating
    running = [t for t in tools if t.status == "running"]
    parked = tuple(
        (GATED_TOOLS[t.tool], t.started_at)
        for t in running
        if generating and t.tool in GATED_TOOLS and not t.has_metadata and t.started_at is not None
    )
    turn = _turn(messages)
    newest_at = (parse_ts(row.newest_ms) if row.newest_ms else None) or row.updated_at
    if generating and newest_at is not None:
        turn = attrs.evolve(turn, busy_until=newest_at + timedelta(seconds=BUSY_S))
    assistants = [m for m in messages if m.role == "assistant"]
    events = tuple(
        (m.completed_at or m.updated_at or m.created_at, m.output_tokens)
        for m in assistants
        if m.output_tokens and m.completed_at is not None
    )
    return Detail(
        turn=turn,
        newest_at=newest_at,
        generating=generating,
        thinking=generating and not running,
        last_tool=next((t.tool for t in reversed(tools)), None),
        parked=tuple((kind, at) for kind, at in parked if at is not None),
        model=next((m.model for m in reversed(assistants) if m.model), None),
        token_events=tuple((at, n) for at, n in events if at is not None and n is not None),
        tokens_total=total,
        prompts=prompts,
        tasks=tasks,
        missing=tuple(missing),
        unknown=drift.snapshot(),
    )


def _descendants(sid: str, snap: store.Snapshot) -> list[str]:
    children: dict[str, list[str]] = {}
    for row in snap.rows.values():
        if row.parent_id:
            children.setdefault(row.parent_id, []).append(row.id)
    out: list[str] = []
    frontier = [sid]
    for _ in range(8):
        frontier = [c for p in frontier for c in children.get(p, []) if c not in out and c != sid]
        if not frontier:
            break
        out += frontier
    return out[:200]


def _instruction(prompts: tuple[tuple[str, datetime | None], ...]) -> Instruction | None:
    if not prompts:
        return None
    text, at = prompts[-1]
    if one_line(text).lower().strip(" .!\"'") not in _CONTINUATIONS:
        return Instruction(text=clip(text, 200), source="prompt", at=at)
    for earlier, when in reversed(prompts[:-1]):
        if one_line(earlier).lower().strip(" .!\"'") not in _CONTINUATIONS:
            return Instruction(text=clip(earlier, 200), source="earlier prompt", at=when)
    return Instruction(text=clip(text, 200), source="prompt", at=at)


def _agent_name(row: store.SessionRow) -> str | None:
    """A child's pill label: its title without OpenCode's ``(@agent subagent)`` suffix."""
    if not row.parent_id:
        return None
    title = _title(row)
    return (_SUBAGENT_SUFFIX.sub("", title).strip() or title) if title else None


def _snapshot_for(ref: SessionRef, ctx: HarnessContext) -> store.Snapshot | None:
    cached: store.Snapshot | None = ctx.cache.get(f"snapshot:{ref.path}")
    return cached


def read(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """Read one session of one database."""
    path = Path(ref.path)
    snap = _snapshot_for(ref, ctx)
    if snap is None:
        snap = store.snapshot(path, ctx)
    row = snap.rows.get(ref.session_id)
    if row is None:
        return None
    try:
        conn = passconn.lease(ctx, path, text_errors="replace")
    except HarnessError as exc:
        detail = Detail(missing=("turn", "prompt", "model", "token rate", "tasks"))
        note = str(exc)
    else:
        detail = _detail(conn, str(path), row, snap, ctx)
        if detail.missing:  # a query failed: the next session opens the database afresh
            passconn.discard(ctx, path)
        note = ""
    ctx.cache.set(f"detail:{ref.path}:{ref.session_id}", (row, detail))
    last = newest_plausible(ctx.now, detail.newest_at, row.updated_at)
    return SessionReading(
        ref=ref,
        title=_title(row),
        cwd=row.directory,
        started_at=row.created_at,
        last_active_at=last,
        turn=detail.turn,
        thinking=detail.thinking,
        last_tool=detail.last_tool,
        tasks=detail.tasks,
        parent_id=row.parent_id,
        agent_name=_agent_name(row),
        agent_role=row.agent if row.parent_id else None,
        instruction=_instruction(detail.prompts),
        missing=detail.missing,
        notes=(note,) if note else (),
        evidence=_evidence(row, detail, shown_path(str(path), str(ctx.home))),
        harness_version=row.version,
        unknown_records=detail.unknown,
    )


def _evidence(row: store.SessionRow, detail: Detail, db: str) -> tuple[Evidence, ...]:
    """The session row's stamp (busy or idle is not persisted) and the message that decided the turn."""
    stamp = Evidence(
        reading="state",
        signal="store record",
        source=f"{db} · session.time_updated",
        observed_at=row.updated_at,
        said="the session row's time_updated (OpenCode does not persist busy or idle)",
    )
    turn = turn_record(
        detail.turn,
        f"{db} · message",
        ended="the newest assistant message records time.completed",
        opened="the newest assistant message has no time.completed yet",
    )
    return (*turn, stamp)


def _cached(reading: SessionReading, ctx: HarnessContext) -> tuple[store.SessionRow, Detail] | None:
    got: tuple[store.SessionRow, Detail] | None = ctx.cache.get(f"detail:{reading.ref.path}:{reading.ref.session_id}")
    if got is not None:
        return got
    try:
        read(reading.ref, ctx)
    except HarnessError:
        return None
    again: tuple[store.SessionRow, Detail] | None = ctx.cache.get(f"detail:{reading.ref.path}:{reading.ref.session_id}")
    return again


def gate(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    """A tool call parked before it starts, on a tool that asks the human first."""
    got = _cached(reading, ctx)
    if got is None:
        return None
    standing = [(kind, at) for kind, at in got[1].parked if (ctx.now - at).total_seconds() >= GATE_AFTER_S]
    if not standing:
        return None
    kind, since = min(standing, key=lambda item: item[1])
    return Gate(kind=kind, text=None, since=since, source="opencode.db")


def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """``session.model``'s id, else the newest assistant message's ``modelID``."""
    got = _cached(reading, ctx)
    if got is None:
        return None
    row, detail = got
    found = records.model_id(row.model_raw) or detail.model
    return ModelInfo(id=found) if found else None


def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    """Output tokens of the session's own assistant messages in the window; the total includes
    its child sessions (core adds the children's rates to the row itself)."""
    got = _cached(reading, ctx)
    if got is None:
        return None
    detail = got[1]
    if "token rate" in detail.missing or detail.tokens_total is None:
        return None
    return Usage(
        output_tokens_window=tokens_in_window(detail.token_events, ctx.now),
        output_tokens_total=detail.tokens_total,
    )
