"""The session list of one ``opencode*.db``, read once per change of the database.

The pass's read-only connection (:mod:`cargento.readers.passconn`: the sessions are then read
through it too) lists the sessions (archived ones filtered, newest first,
bounded) with their own columns, then takes three indexed look-ups per session for the
newest message, part and todo stamps. Those stamps make each session's fingerprint, so a
board build re-reads only the sessions that changed, and an unchanged database costs one
``stat``. Columns that an older or newer build lacks are left out of the query rather than
failing it; a database missing ``session.id`` or ``session.time_updated`` is not read.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento.errors import HarnessError
from cargento.models import HarnessContext
from cargento.readers import passconn, split_unreadable, sqlite
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr
from cargento.timestamps import parse_ts

__all__ = ["MAX_SESSIONS", "SessionRow", "Snapshot", "problem", "snapshot"]

#: Sessions listed per database inside the display window (all of them with ``?all=1``,
#: up to :data:`MAX_ALL`).
MAX_SESSIONS = 200
MAX_ALL = 5000
#: A session's newest messages whose writes its stamp notices; an older message rewritten in
#: place is read at the session's next write (OpenCode writes into the newest rows).
STAMPED_MESSAGES = 64
#: Slack added to the display window: ``session.time_updated`` can lag its messages.
SLACK = timedelta(hours=1)
_OPTIONAL = ("parent_id", "directory", "title", "time_created", "model", "agent", "version")


@shared_methods
@attrs.frozen(repr=False, eq=False)
class SessionRow:
    """One ``session`` row and the stamps of what was written into it."""

    id: str
    parent_id: str | None
    directory: str | None
    title: str | None
    created_at: datetime | None
    updated_at: datetime | None
    model_raw: str | None
    agent: str | None
    #: The OpenCode version that wrote the session row (``session.version``), where it has one.
    version: str | None
    #: Newest ``time_updated`` (epoch ms) of the session, its messages, their parts and todos.
    newest_ms: int
    stamps: str
    #: How many messages the session had when the stamp was read (``None``: not read).
    message_count: int | None = None


@shared_repr
@attrs.frozen(repr=False, eq=False)
class Snapshot:
    """The sessions of one database at one database stamp."""

    stamp: str
    window_s: float | None
    rows: dict[str, SessionRow]
    has_messages: bool
    has_parts: bool
    has_todos: bool
    #: The ``todo`` table's columns (read once per database stamp, not once per session).
    todo_columns: frozenset[str] = frozenset()


def _ms(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def snapshot(path: Path, ctx: HarnessContext) -> Snapshot:
    """The database's sessions, from the cache while its stamp is unchanged.

    :raises HarnessError: the database is locked, corrupt or lacks the session table.
    """
    stamp = sqlite.database_stamp(path)
    key = f"snapshot:{path}"
    cached: Snapshot | None = ctx.cache.get(key)
    if cached is not None and cached.stamp == stamp and cached.window_s == ctx.window_s:
        return cached
    name = str(path)
    conn = passconn.lease(ctx, path, text_errors="replace")
    try:
        made = _read(conn, name, stamp, ctx)
    except HarnessError:
        passconn.discard(ctx, path)
        raise
    ctx.cache.set(key, made)
    return made


#: SQLite's words for a file it cannot read as a database, and the cause they mean.
_SQLITE_CAUSES = (("file is not a database", "not an SQLite database"), ("malformed", "corrupt database"))


def problem(path: Path, exc: HarnessError) -> str:
    """The ``Discovery.problems`` line for a database :func:`snapshot` could not read:
    ``<path>: <cause>`` with the cause ``cargento --diagnose`` recognises as unreadable where
    there is one (``not an SQLite database``, ``corrupt database``, ``permission denied``...),
    or the error's own words (a lock, a missing table) otherwise."""
    verdict = sqlite.database_problem(path)
    if verdict is not None:
        return f"{path}: {verdict}"
    text = str(exc)
    parsed = split_unreadable(text)
    if parsed is not None:
        return f"{path}: {parsed[1]}"
    for words, cause in _SQLITE_CAUSES:
        if words in text:
            return f"{path}: {cause}"
    # The error names the database itself (by path or by name): say it once, in front.
    for named in (str(path), path.name):
        if named in text:
            text = text.split(named, 1)[1].lstrip(": ").strip().removeprefix("is ") or text
            break
    return f"{path}: {text}"


def _read(conn: sqlite3.Connection, name: str, stamp: str, ctx: HarnessContext) -> Snapshot:
    tables = sqlite.tables(conn, name=name)
    cols = sqlite.columns(conn, "session", name=name)
    if not {"id", "time_updated"} <= cols:
        raise HarnessError(f"{os.path.basename(name)}: no session table with id and time_updated")
    select = ", ".join(c if c in cols else "NULL" for c in _OPTIONAL)
    where = ["1 = 1"]
    params: list[object] = []
    if "time_archived" in cols:
        where.append("time_archived IS NULL")
    limit = MAX_ALL
    if ctx.window_s is not None:
        edge = ctx.now - timedelta(seconds=ctx.window_s) - SLACK
        where.append("time_updated >= ?")
        params.append(int(edge.timestamp() * 1000))
        limit = MAX_SESSIONS
    rows = sqlite.query(
        conn,
        f"SELECT id, time_updated, {select} FROM session WHERE {' AND '.join(where)} "
        f"ORDER BY time_updated DESC LIMIT ?",
        (*params, limit),
        name=name,
        max_rows=limit,
    )
    has_messages = "message" in tables
    has_parts = "part" in tables
    todo_columns = sqlite.columns(conn, "todo", name=name) if "todo" in tables else frozenset()
    has_todos = "session_id" in todo_columns
    out: dict[str, SessionRow] = {}
    for ident, updated, parent, directory, title, created, model, agent, version in rows:
        if not isinstance(ident, str) or not ident or ident in out:
            continue
        newest, stamps, count = _stamps(conn, name, ident, _ms(updated), has_messages, has_parts, has_todos)
        out[ident] = SessionRow(
            id=ident,
            parent_id=parent if isinstance(parent, str) and parent else None,
            directory=directory if isinstance(directory, str) and directory else None,
            title=title if isinstance(title, str) else None,
            created_at=parse_ts(created) if isinstance(created, int | float) else None,
            updated_at=parse_ts(updated) if isinstance(updated, int | float) else None,
            model_raw=model if isinstance(model, str) else None,
            agent=agent if isinstance(agent, str) and agent else None,
            version=version[:40] if isinstance(version, str) and version else None,
            newest_ms=newest,
            stamps=stamps,
            message_count=count,
        )
    return Snapshot(
        stamp=stamp,
        window_s=ctx.window_s,
        rows=out,
        has_messages=has_messages,
        has_parts=has_parts,
        has_todos=has_todos,
        todo_columns=todo_columns,
    )


def _max_count(conn: sqlite3.Connection, name: str, sql: str, param: object) -> tuple[int, int]:
    rows = sqlite.query(conn, sql, (param,), name=name)
    return (_ms(rows[0][0]), _ms(rows[0][1])) if rows else (0, 0)


def _stamps(
    conn: sqlite3.Connection, name: str, ident: str, updated: int, has_messages: bool, has_parts: bool, has_todos: bool
) -> tuple[int, str, int | None]:
    """The newest write (epoch ms) into a session, a stamp of what was written (the session
    row, its newest messages and their count, the newest message's parts, its todos) and the
    message count (``None`` when not read)."""
    messages = parts = todos = (0, 0)
    try:
        if has_messages:
            # The newest write among the newest STAMPED_MESSAGES messages (where OpenCode
            # writes: a reply streams into its own row) and how many there are, both through
            # the (session_id, time_created, id) index: a long session's every row is not
            # fetched on each write to the database (1.5 ms at 10,000 messages).
            head = sqlite.query(
                conn,
                "SELECT (SELECT id FROM message WHERE session_id = ?1 ORDER BY time_created DESC, id DESC LIMIT 1), "
                "(SELECT MAX(time_updated) FROM (SELECT time_updated FROM message WHERE session_id = ?1 "
                "ORDER BY time_created DESC, id DESC LIMIT ?2)), "
                "(SELECT COUNT(*) FROM message WHERE session_id = ?1)",
                (ident, STAMPED_MESSAGES),
                name=name,
            )
            newest_id = head[0][0] if head else None
            messages = (_ms(head[0][1]), _ms(head[0][2])) if head else (0, 0)
            if newest_id is not None and has_parts:
                parts = _max_count(
                    conn, name, "SELECT MAX(time_updated), COUNT(*) FROM part WHERE message_id = ?", newest_id
                )
        if has_todos:
            todos = _max_count(conn, name, "SELECT MAX(time_updated), COUNT(*) FROM todo WHERE session_id = ?", ident)
    except HarnessError:
        return updated, f"{updated}:?", None
    newest_ms = max(updated, messages[0], parts[0], todos[0])
    count = messages[1] if has_messages else None
    return newest_ms, ":".join(str(x) for x in (updated, *messages, *parts, *todos)), count
