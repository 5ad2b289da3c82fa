"""The three Goose tables this plugin reads, through queries built from the columns present.

Goose has added columns over its schema versions (``name`` in v4, ``session_type`` in v5,
``archived_at`` in v12...) and ``parent_session_id`` and ``usage_ledger`` are not in every build,
so every SELECT names only the columns the database has and reads ``NULL`` for the rest: a
missing column degrades one reading instead of failing the whole store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import attrs
from cargento.errors import HarnessFormatUnsupported
from cargento.readers.sqlite import columns, query
from cargento.sharedmethods import shared_methods

__all__ = [
    "LEDGER_FIELDS",
    "MESSAGE_FIELDS",
    "SESSION_FIELDS",
    "Schema",
    "ledger_rows",
    "message_rows",
    "read_schema",
    "session_rows",
]

#: The session columns read, in this order.
SESSION_FIELDS = (
    "id",
    "name",
    "description",
    "session_type",
    "working_dir",
    "created_at",
    "updated_at",
    "archived_at",
    "parent_session_id",
    "accumulated_output_tokens",
    "provider_name",
    "model_config_json",
)
#: The message columns read; ``content_json`` is cut to a bounded head in SQL.
MESSAGE_FIELDS = ("id", "role", "content_json", "created_timestamp", "metadata_json")
#: The usage-ledger columns read.
LEDGER_FIELDS = ("session_id", "created_timestamp", "output_tokens")
#: Bytes of one message's content read at most.
CONTENT_HEAD = 65_536
#: Bytes of one message's metadata read at most.
METADATA_HEAD = 4_096


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Schema:
    """Which tables and columns this database has."""

    sessions: frozenset[str]
    messages: frozenset[str]
    ledger: frozenset[str]

    @property
    def has_messages(self) -> bool:
        return {"session_id", "role", "content_json"} <= self.messages

    @property
    def has_ledger(self) -> bool:
        return {"session_id", "created_timestamp", "output_tokens"} <= self.ledger


def read_schema(conn: sqlite3.Connection, name: str) -> Schema:
    """Introspect the tables; a database without a usable ``sessions`` table is not Goose's."""
    sessions = columns(conn, "sessions", name=name)
    if not {"id", "updated_at"} <= sessions:
        raise HarnessFormatUnsupported(f"{name} has no Goose sessions table")
    return Schema(
        sessions=sessions,
        messages=columns(conn, "messages", name=name),
        ledger=columns(conn, "usage_ledger", name=name),
    )


def _select(fields: Sequence[str], present: frozenset[str], wrap: dict[str, str] | None = None) -> str:
    parts = []
    for field in fields:
        if field in present:
            parts.append((wrap or {}).get(field, '"{0}"').format(field))
        else:
            parts.append(f'NULL AS "{field}"')
    return ", ".join(parts)


def session_rows(conn: sqlite3.Connection, schema: Schema, name: str, *, limit: int = 2000) -> list[dict[str, Any]]:
    """The newest *limit* session rows by ``updated_at``, each with its newest message id."""
    select = _select(SESSION_FIELDS, schema.sessions)
    newest = "NULL"
    if schema.has_messages and "id" in schema.messages:
        newest = "(SELECT MAX(m.id) FROM messages m WHERE m.session_id = s.id)"
    sql = f"SELECT {select}, {newest} AS newest_message FROM sessions s ORDER BY s.updated_at DESC LIMIT ?"
    rows = query(conn, sql, (limit,), max_rows=limit, name=name)
    keys = (*SESSION_FIELDS, "newest_message")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def message_rows(
    conn: sqlite3.Connection, schema: Schema, session_id: str, name: str, *, limit: int = 400
) -> list[dict[str, Any]]:
    """The newest *limit* messages of one session, oldest first, content cut to a bounded head."""
    if not schema.has_messages:
        return []
    select = _select(
        MESSAGE_FIELDS,
        schema.messages,
        {
            "content_json": f'substr(CAST("{{0}}" AS BLOB), 1, {CONTENT_HEAD}) AS "{{0}}"',
            "metadata_json": f'substr(CAST("{{0}}" AS BLOB), 1, {METADATA_HEAD}) AS "{{0}}"',
        },
    )
    order = "created_timestamp DESC, " if "created_timestamp" in schema.messages else ""
    order += "id DESC" if "id" in schema.messages else "rowid DESC"
    sql = f"SELECT {select} FROM messages WHERE session_id = ? ORDER BY {order} LIMIT ?"
    rows = query(conn, sql, (session_id, limit), max_rows=limit, name=name)
    out = [dict(zip(MESSAGE_FIELDS, row, strict=True)) for row in rows]
    out.reverse()
    return out


def ledger_rows(
    conn: sqlite3.Connection, schema: Schema, since_s: float, name: str, *, limit: int = 50_000
) -> list[tuple[Any, ...]]:
    """Ledger rows stamped at or after *since_s* (epoch seconds, or the same moment in ms)."""
    if not schema.has_ledger:
        return []
    sql = (
        "SELECT session_id, created_timestamp, output_tokens FROM usage_ledger "
        "WHERE (created_timestamp >= ? AND created_timestamp < 1e11) OR created_timestamp >= ? "
        "ORDER BY rowid DESC LIMIT ?"
    )
    return query(conn, sql, (since_s, since_s * 1000.0, limit), max_rows=limit, name=name)
