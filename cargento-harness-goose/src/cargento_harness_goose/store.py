"""Reading the shared Goose database: discovery of session rows, one session's reading, usage.

Every session lives in one ``sessions.db``, so its file times say nothing about any one session:
a session's activity is its own ``updated_at`` (bumped on every message insert) and the stamps of
its own messages. Discovery reads the session rows once per pass and keeps them in the plugin
cache, so reading a session costs one bounded ``messages`` query, on the one connection the pass
leases (:mod:`cargento.readers.passconn`). A database that is locked,
corrupt or missing a table is skipped for that pass: the reason goes to ``Discovery.problems``
(``--diagnose``) and the affected readings name what is missing rather than reading as zero.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento import (
    Discovery,
    Evidence,
    HarnessContext,
    HarnessError,
    ModelInfo,
    SessionReading,
    SessionRef,
    StoreLocation,
    Usage,
)
from cargento.drift import DriftCounter
from cargento.evidence import shown_path
from cargento.locations import describe
from cargento.rates import RATE_WINDOW_S, tokens_in_window
from cargento.readers import passconn
from cargento.sharedrepr import shared_repr
from cargento.timestamps import FUTURE_TOLERANCE_S, newest_plausible, parse_ts

from cargento_harness_goose import database, locations, messages
from cargento_harness_goose.sessions import KNOWN_TYPES, SessionRow, parse_row

__all__ = ["KEY", "Catalogue", "discover", "model", "read", "usage"]

KEY = "goose"
#: What a session row without its messages cannot show.
MESSAGE_READINGS = ("prompts", "turn", "last tool")
TOKEN_RATE = "token rate"


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Catalogue:
    """The session rows of one database as of its last successful read."""

    schema: database.Schema
    rows: Mapping[str, SessionRow]


def _catalogue_key(db: str) -> str:
    return f"catalogue:{db}"


def _reading_key(db: str, sid: str) -> str:
    return f"reading:{db}:{sid}"


def _load(db: Path, ctx: HarnessContext) -> Catalogue:
    name = db.name
    conn = passconn.lease(ctx, db)
    try:
        schema = database.read_schema(conn, name)
        raw = database.session_rows(conn, schema, name)
    except HarnessError:
        passconn.discard(ctx, db)
        raise
    rows: dict[str, SessionRow] = {}
    for item in raw:
        row = parse_row(item)
        if row is not None and row.id not in rows:
            rows[row.id] = row
    return Catalogue(schema=schema, rows=rows)


def _location(db: Path, origin: str) -> StoreLocation:
    return describe(db, role="database", origin=origin)


def discover(ctx: HarnessContext) -> Discovery:
    """Every shown session row of every Goose database on this machine."""
    found: list[SessionRef] = []
    problems: list[str] = []
    where: list[StoreLocation] = []
    for root in locations.roots(ctx):
        db = root.database
        loc = _location(db, root.origin)
        where.append(loc)
        if loc.status != "present" or not db.is_file():
            continue
        key = _catalogue_key(str(db))
        stale = False
        try:
            catalogue = _load(db, ctx)
            ctx.cache.set(key, catalogue)
        except HarnessError as exc:
            problems.append(f"{db}: {exc} (skipped this pass)")
            cached = ctx.cache.get(key)
            if not isinstance(cached, Catalogue):
                continue
            catalogue, stale = cached, True
        for row in catalogue.rows.values():
            if not row.shown:
                continue
            found.append(
                SessionRef(
                    harness=KEY,
                    session_id=row.id,
                    path=str(db),
                    location=loc.path,
                    modified_at=newest_plausible(ctx.now, row.updated_at, row.created_at),
                    # A skipped pass re-reads (and so marks) every row instead of re-using it.
                    fingerprint=None if stale else row.fingerprint(),
                )
            )
    return Discovery(locations=tuple(where), sessions=tuple(found), problems=tuple(problems))


def _row(ref: SessionRef, ctx: HarnessContext) -> tuple[database.Schema, SessionRow] | None:
    cached = ctx.cache.get(_catalogue_key(ref.path))
    if not isinstance(cached, Catalogue) or ref.session_id not in cached.rows:
        cached = _load(Path(ref.path), ctx)
        ctx.cache.set(_catalogue_key(ref.path), cached)
    row = cached.rows.get(ref.session_id)
    return None if row is None else (cached.schema, row)


def read(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """One session's reading: its row, and the turn and prompts of its newest messages."""
    try:
        found = _row(ref, ctx)
    except HarnessError as exc:
        return _fallback(ref, ctx, str(exc))
    if found is None or not found[1].shown:
        return None
    schema, row = found
    missing: list[str] = []
    notes: list[str] = []
    drift = DriftCounter()
    if row.kind not in KNOWN_TYPES:
        drift.record_type(f"session type {row.kind[:40]}")
    failed = False
    try:
        rows = database.message_rows(passconn.lease(ctx, ref.path), schema, row.id, Path(ref.path).name)
    except HarnessError as exc:
        passconn.discard(ctx, ref.path)
        summary = messages.Summary()
        failed = True
        missing.extend((*MESSAGE_READINGS, TOKEN_RATE))
        notes.append(str(exc))
    else:
        parsed = [m for r in rows if (m := messages.parse_message(r)) is not None]
        summary = messages.summarise(parsed)
        for message in parsed:
            for kind, name in message.unknown:
                drift.add(kind, name)
    if not schema.has_messages and "prompts" not in missing:
        missing.extend(MESSAGE_READINGS)
        notes.append("the database has no readable messages table")
    if not schema.has_ledger and TOKEN_RATE not in missing:
        missing.append(TOKEN_RATE)
        notes.append("the database has no usage_ledger table")
    parent = row.parent_id if row.is_subagent else None
    reading = SessionReading(
        ref=ref,
        title=row.title,
        cwd=row.working_dir,
        started_at=row.created_at,
        last_active_at=newest_plausible(ctx.now, row.updated_at, summary.newest_at),
        turn=summary.turn,
        thinking=summary.thinking,
        last_tool=summary.last_tool,
        last_tool_raw=summary.last_tool_raw,
        instruction=summary.instruction,
        parent_id=parent,
        agent_name=(row.title or "subagent") if parent else None,
        agent_role="subagent" if row.is_subagent else None,
        missing=tuple(missing),
        notes=tuple(notes),
        evidence=(
            Evidence(
                reading="state",
                signal="store record",
                source=f"{shown_path(ref.path, str(ctx.home))} · sessions.updated_at",
                observed_at=row.updated_at,
                said="the session row's updated_at (bumped on each message insert; Goose records no turn end)",
            ),
        ),
        unknown_records=drift.snapshot(),
    )
    if not failed:
        ctx.cache.set(_reading_key(ref.path, ref.session_id), reading)
    return reading


def _fallback(ref: SessionRef, ctx: HarnessContext, reason: str) -> SessionReading:
    """The last good reading (or the bare ref) marked with what this pass could not read."""
    everything = ("title", *MESSAGE_READINGS, TOKEN_RATE)
    previous = ctx.cache.get(_reading_key(ref.path, ref.session_id))
    if isinstance(previous, SessionReading):
        return attrs.evolve(previous, ref=ref, missing=(*MESSAGE_READINGS, TOKEN_RATE), notes=(reason,))
    return SessionReading(ref=ref, last_active_at=ref.modified_at, missing=everything, notes=(reason,))


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
class _Ledger:
    at: datetime
    measured: bool
    events: Mapping[str, tuple[tuple[datetime | None, int], ...]]


def _ledger(db: str, ctx: HarnessContext) -> _Ledger:
    key = f"ledger:{db}"
    cached = ctx.cache.get(key)
    if isinstance(cached, _Ledger) and cached.at == ctx.now:
        return cached
    catalogue = ctx.cache.get(_catalogue_key(db))
    conn = passconn.lease(ctx, db)
    try:
        schema = catalogue.schema if isinstance(catalogue, Catalogue) else database.read_schema(conn, Path(db).name)
        since = (ctx.now - timedelta(seconds=RATE_WINDOW_S + FUTURE_TOLERANCE_S)).timestamp()
        rows = database.ledger_rows(conn, schema, since, Path(db).name)
    except HarnessError:
        passconn.discard(ctx, db)
        raise
    events: dict[str, list[tuple[datetime | None, int]]] = {}
    for sid, stamp, tokens in rows:
        if not isinstance(sid, str) or isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            continue
        events.setdefault(sid, []).append((parse_ts(stamp), tokens))
    ledger = _Ledger(at=ctx.now, measured=schema.has_ledger, events={k: tuple(v) for k, v in events.items()})
    ctx.cache.set(key, ledger)
    return ledger


def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    """Output tokens in the last ten minutes from ``usage_ledger`` (``messages.tokens`` is never
    written by Goose), and the session's accumulated output total from its row."""
    db = reading.ref.path
    if not os.path.isfile(db):
        return None
    catalogue = ctx.cache.get(_catalogue_key(db))
    row = catalogue.rows.get(reading.ref.session_id) if isinstance(catalogue, Catalogue) else None
    total = row.output_tokens_total if row is not None else None
    try:
        ledger: _Ledger | None = _ledger(db, ctx)
    except HarnessError:
        ledger = None  # locked or unreadable this pass: the rate is unmeasured, never zero
    window: int | None = None
    if ledger is not None and ledger.measured and TOKEN_RATE not in reading.missing:
        window = tokens_in_window(ledger.events.get(reading.ref.session_id, ()), ctx.now)
    if window is None and total is None:
        return None
    return Usage(output_tokens_window=window, output_tokens_total=total)


def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """The model the session row's ``model_config_json`` names, verbatim (``model_name``).

    The specification lists no Goose model; Goose itself records one per session row, so it is
    published as recorded and never guessed from the provider's default."""
    try:
        found = _row(reading.ref, ctx)
    except HarnessError:
        return None  # unreadable this pass: no model rather than a guess
    if found is None or found[1].model is None:
        return None
    return ModelInfo(id=found[1].model)
