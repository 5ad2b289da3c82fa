"""Reading one Cursor chat store: its meta, model and standing gate, within bounded queries.

Each chat keeps its own ``store.db``; its file times are the session's activity (the database
and its ``-wal``). The facts of a store are kept in the plugin cache under its fingerprint, so
an unchanged store is not reopened, while the gate is judged against the clock on every build.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
from cargento import (
    Discovery,
    Gate,
    HarnessContext,
    HarnessError,
    ModelInfo,
    SessionReading,
    SessionRef,
)
from cargento.drift import DriftCounter, UnknownRecord
from cargento.errors import HarnessFormatUnsupported
from cargento.evidence import shown_path
from cargento.locations import describe
from cargento.models import Evidence, Overruled
from cargento.readers import glob_files, sqlite
from cargento.sharedmethods import shared_methods
from cargento.timestamps import FUTURE_TOLERANCE_S, parse_ts

from cargento_harness_cursor import blobs, locations, workspace
from cargento_harness_cursor.meta import ChatMeta, decode_payload, parse_meta

__all__ = ["KEY", "StoreFacts", "discover", "gate", "model", "read"]

KEY = "cursor"
#: The project label of a chat whose workspace is not known.
FALLBACK_PROJECT = "cursor"
#: Bytes read from the tail of a root blob, and from the head of each message blob.
ROOT_TAIL = 65_536
MESSAGE_HEAD = 65_536
#: How many of the newest messages are probed for a model.
MODEL_PROBE = 12
#: Bytes of the newest blob matched for the gate keys.
GATE_HEAD = 1_048_576
#: A gate stamp older than the store's last write by more than this was not what froze it.
STAMP_SLACK_S = 15.0
#: The freshness a gate needs when the board shows everything (``?all=1``).
DEFAULT_WINDOW_S = 24 * 3600.0
GATE = "permission gate"
MODEL = "model"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class StoreFacts:
    """Everything one read of a store found."""

    meta: ChatMeta
    cwd: str | None = None
    model: str | None = None
    gate: blobs.PendingGate | None = None
    last_write: datetime | None = None
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: Meta keys and message roles this build does not know (schema drift).
    unknown: tuple[UnknownRecord, ...] = ()


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _last_write(db: str) -> datetime | None:
    times = [s.st_mtime for p in (db, db + "-wal") if (s := _stat(p)) is not None]
    return datetime.fromtimestamp(max(times), UTC) if times else None


def _fingerprint(db: str) -> str:
    parts = []
    for p in (db, db + "-wal", str(Path(db).parent / workspace.META_JSON)):
        s = _stat(p)
        parts.append(f"{s.st_size}:{s.st_mtime_ns}" if s else "-")
    return "|".join(parts)


def _problems_key(db: str) -> str:
    return f"problem:{db}"


def discover(ctx: HarnessContext) -> Discovery:
    """Every ``chats/*/*/store.db``, found by listing alone (stores are read later)."""
    chats, origin = locations.chats(ctx)
    where = describe(chats, role="sessions", origin=origin)
    refs: list[SessionRef] = []
    problems: list[str] = []
    if where.status == "present":
        candidates, trouble = glob_files(chats, "*/*/store.db")
        problems.extend(trouble)
        for path in candidates:
            db = str(path)
            when = _last_write(db)
            if when is None:
                continue
            verdict = sqlite.database_problem(db)
            if verdict is not None:
                problems.append(f"{db}: {verdict}")
                continue
            refs.append(
                SessionRef(
                    harness=KEY,
                    session_id=path.parent.name,
                    path=db,
                    location=where.path,
                    modified_at=when,
                    fingerprint=_fingerprint(db),
                )
            )
            problem = ctx.cache.get(_problems_key(db))
            if isinstance(problem, str):
                problems.append(problem)
    return Discovery(locations=(where,), sessions=tuple(refs), problems=tuple(problems))


def _meta(conn: sqlite3.Connection, name: str) -> ChatMeta:
    cols = sqlite.columns(conn, "meta", name=name)
    if "value" not in cols:
        raise HarnessFormatUnsupported(f"{name} has no meta table")
    if "key" in cols:
        rows = sqlite.query(conn, "SELECT value FROM meta WHERE key = '0' LIMIT 1", name=name)
        if not rows:
            rows = sqlite.query(conn, "SELECT value FROM meta ORDER BY rowid LIMIT 8", max_rows=8, name=name)
    else:
        rows = sqlite.query(conn, "SELECT value FROM meta ORDER BY rowid LIMIT 8", max_rows=8, name=name)
    for (value,) in rows:
        payload = decode_payload(value)
        if payload is not None:
            return parse_meta(payload)
    raise HarnessFormatUnsupported(f"{name}: the meta payload does not decode")


def _model(conn: sqlite3.Connection, root_id: str | None, name: str, drift: DriftCounter) -> tuple[str | None, bool]:
    """``(model, read)``: the newest probed message's model name, and whether every message
    probed read in full. ``(None, True)`` means the messages read and none names a model.
    A probed message with a role this build does not know is counted in *drift*."""
    if root_id is None:
        return None, True
    rows = sqlite.query(
        conn,
        "SELECT length(CAST(data AS BLOB)), substr(CAST(data AS BLOB), max(1, length(CAST(data AS BLOB)) - ?), ?) "
        "FROM blobs WHERE id = ? LIMIT 1",
        (ROOT_TAIL - 1, ROOT_TAIL, root_id),
        name=name,
    )
    if not rows or not isinstance(rows[0][1], bytes):
        return None, True
    size, tail = rows[0]
    clean = True
    for child in blobs.child_ids(tail, complete=size <= ROOT_TAIL, newest=MODEL_PROBE):
        got = sqlite.query(
            conn,
            "SELECT length(CAST(data AS BLOB)), substr(CAST(data AS BLOB), 1, ?) FROM blobs WHERE id = ? LIMIT 1",
            (MESSAGE_HEAD, child),
            name=name,
        )
        if not got or not isinstance(got[0][1], bytes):
            continue  # a stray frame or a missing blob: one lookup, nothing found
        length, head = got[0]
        if not blobs.readable_message(head):
            clean = False
            continue
        role = blobs.message_role(head)
        if role is not None and role not in blobs.KNOWN_ROLES:
            drift.record_type(f"message role {role}")
        found = blobs.model_name(head)
        if found is not None:
            return found, True
        if isinstance(length, int) and length > MESSAGE_HEAD:
            return None, False  # cut off where the model may sit: no reading rather than an older one
    return None, clean


def _gate(conn: sqlite3.Connection, name: str) -> blobs.PendingGate | None:
    rows = sqlite.query(
        conn, "SELECT substr(CAST(data AS BLOB), 1, ?) FROM blobs ORDER BY rowid DESC LIMIT 1", (GATE_HEAD,), name=name
    )
    if not rows or not isinstance(rows[0][0], bytes):
        return None
    return blobs.pending_gate(rows[0][0])


def read_facts(db: str) -> StoreFacts:
    """Open the store once and read its meta, model and gate.

    :raises HarnessError: when the store cannot be opened or has no readable meta payload.
    """
    folder = Path(db).parent
    name = f"{folder.name[:8]}/store.db"
    conn = sqlite.open_ro(db)
    try:
        chat = _meta(conn, name)
        drift = DriftCounter()
        for key in chat.unknown_keys:
            drift.field(f"meta.{key}")
        missing: list[str] = []
        notes: list[str] = []
        model = None
        pending = None
        if "data" in sqlite.columns(conn, "blobs", name=name):
            try:
                model, clean = _model(conn, chat.root_blob_id, name, drift)
                if model is None and clean and chat.parent_id is not None:
                    # A subagent's messages that read in full and name no model: its own
                    # store's meta still says which model it ran on.
                    model = chat.last_used_model
                pending = _gate(conn, name)
            except HarnessError as exc:
                missing.extend((MODEL, GATE))
                notes.append(str(exc))
        else:
            missing.extend((MODEL, GATE))
            notes.append("the store has no blobs table")
    finally:
        conn.close()
    return StoreFacts(
        meta=chat,
        cwd=workspace.resolve(folder, chat.workspaces),
        model=model,
        gate=pending,
        last_write=_last_write(db),
        missing=tuple(missing),
        notes=tuple(notes),
        unknown=drift.snapshot(),
    )


def _facts_key(db: str) -> str:
    return f"facts:{db}"


def facts(ref: SessionRef, ctx: HarnessContext) -> StoreFacts:
    """The store's facts, re-read only when its fingerprint moved."""
    key = _facts_key(ref.path)
    cached = ctx.cache.get(key)
    fingerprint = ref.fingerprint or _fingerprint(ref.path)
    if isinstance(cached, tuple) and cached[0] == fingerprint and isinstance(cached[1], StoreFacts):
        return cached[1]
    found = read_facts(ref.path)
    ctx.cache.set(key, (fingerprint, found))
    return found


def read(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """One chat as a session reading; a store whose meta does not read is not a session."""
    try:
        got = facts(ref, ctx)
    except HarnessFormatUnsupported as exc:
        ctx.cache.set(_problems_key(ref.path), f"{ref.path}: {exc} (not read as a chat)")
        return None
    except HarnessError as exc:
        # Locked or corrupt this pass: the row stays on its file times, and says what is missing.
        ctx.cache.set(_problems_key(ref.path), f"{ref.path}: {exc} (skipped this pass)")
        return SessionReading(
            ref=ref,
            last_active_at=_last_write(ref.path),
            project=FALLBACK_PROJECT,
            missing=("title", "workspace", MODEL, GATE),
            notes=(str(exc),),
        )
    ctx.cache.pop(_problems_key(ref.path))
    chat = got.meta
    child = chat.parent_id is not None and chat.parent_id != ref.session_id
    return SessionReading(
        ref=ref,
        title=chat.name,
        cwd=got.cwd,
        project=None if got.cwd else FALLBACK_PROJECT,
        started_at=chat.created_at,
        last_active_at=got.last_write,
        parent_id=chat.parent_id if child else None,
        agent_name=(chat.type_name or chat.name) if child else None,
        agent_role=chat.type_name if child else None,
        missing=got.missing,
        notes=got.notes,
        evidence=_evidence(got, shown_path(ref.path, str(ctx.home)), child),
        unknown_records=got.unknown,
    )


def _stamp(found: blobs.PendingGate) -> datetime | None:
    stamp_ms = found.started_ms
    return parse_ts(stamp_ms) if stamp_ms is not None and stamp_ms > 1e12 else None


def _evidence(got: StoreFacts, db: str, child: bool) -> tuple[Evidence, ...]:
    """The store's last write (what recency reads), and what the newest blob said about a gate:
    believed, or overruled because its stamp is older than the write it would have frozen."""
    items = []
    if got.last_write is not None:
        items.append(
            Evidence(
                reading="state",
                signal="store record",
                source=f"{db} (+ -wal)",
                observed_at=got.last_write,
                said="the chat store's last write (Cursor records no turn end)",
            )
        )
    pending = got.gate
    if pending is None or not pending.open or child:
        return tuple(items)
    since = _stamp(pending)
    asked = Evidence(
        reading="wait",
        signal="store record",
        source=f"{db} · blobs (newest by rowid)",
        observed_at=since,
        said="pendingToolExecutionContracts is non-empty on the newest blob",
    )
    if since is not None and got.last_write is not None and since < got.last_write - timedelta(seconds=STAMP_SLACK_S):
        items.append(
            Evidence(
                reading="wait",
                signal="store record",
                source=f"{db} (+ -wal)",
                observed_at=got.last_write,
                said="the store was written after the wait's stamp",
                overruled=Overruled(
                    signal=asked.signal,
                    source=asked.source,
                    observed_at=since,
                    said=asked.said,
                    why="a real gate freezes the file, so a stamp older than the store's last write belongs to another record",
                ),
            )
        )
    else:
        items.append(asked)
    return tuple(items)


def _cached(reading: SessionReading, ctx: HarnessContext) -> StoreFacts | None:
    try:
        return facts(reading.ref, ctx)
    except HarnessError:
        return None


def gate(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    """A standing permission gate, published only while it can be believed.

    Child gates are not read. The wait must be on the newest blob, the store fresh enough to
    be a row at all (the display window), and its stamp no older than the store's own last
    write allows: a real gate is what froze the file, so a stamp much older than the last write
    belongs to a neighbouring record or to a message that merely quotes the key.
    """
    if reading.parent_id is not None or GATE in reading.missing:
        return None
    found = _cached(reading, ctx)
    if found is None or found.gate is None or not found.gate.open or found.last_write is None:
        return None
    window = ctx.window_s if ctx.window_s is not None else DEFAULT_WINDOW_S
    if (ctx.now - found.last_write).total_seconds() > window:
        return None
    stamp_ms = found.gate.started_ms
    since = parse_ts(stamp_ms) if stamp_ms is not None and stamp_ms > 1e12 else None
    if since is None:
        return None
    if since < found.last_write - timedelta(seconds=STAMP_SLACK_S):
        return None
    if since > found.last_write + timedelta(seconds=FUTURE_TOLERANCE_S) or since > ctx.now + timedelta(
        seconds=FUTURE_TOLERANCE_S
    ):
        return None
    return Gate(kind="permission", text=None, since=since, source="store.db")


def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """The model of the chat's newest message that names one, published verbatim."""
    found = _cached(reading, ctx)
    if found is None or found.model is None:
        return None
    return ModelInfo(id=found.model)
