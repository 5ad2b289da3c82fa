"""Read-only SQLite access that creates nothing beside a database, even in WAL mode.

:func:`cargento.readers.open_ro` opens a ``mode=ro`` URI. That is enough for a database in
rollback-journal mode, and for a WAL database whose writer is running (its ``-wal`` and
``-shm`` exist). It is not enough for a WAL database whose last writer closed cleanly: SQLite
then deletes ``-wal``/``-shm``, and a ``mode=ro`` reader creates both files again inside the
harness's store. This module checks the header first and, when the database is in WAL mode
and no ``-wal`` frame exists, opens it ``immutable=1`` (nothing can be missed: there is no
frame) so nothing is created. A WAL database whose ``-wal`` holds frames but whose ``-shm`` is
gone is not opened at all, because reading it would create the ``-shm``.
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cargento.errors import HarnessError, StoreLocked
from cargento.readers import open_ro
from cargento.readers.sqlite import wal_has_frames

__all__ = ["columns", "connect", "fetch", "stamp", "tables"]

_MAGIC = b"SQLite format 3\x00"
BUSY_MS = 150


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _is_wal(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(20)
    except OSError as exc:
        raise HarnessError(f"unreadable database {os.path.basename(path)}: {exc}") from exc
    if len(head) < 20 or not head.startswith(_MAGIC):
        raise HarnessError(f"not a SQLite database: {os.path.basename(path)}")
    return head[18] == 2 or head[19] == 2


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open *path* read-only without creating, writing or checkpointing anything.

    :raises HarnessError: missing, non-SQLite or unreadable file; :class:`StoreLocked` when
        the writer holds it longer than the busy timeout.
    """
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise HarnessError(f"no database at {name}")
    if _is_wal(name) and not wal_has_frames(name):
        uri = "file:" + urllib.parse.quote(os.path.abspath(name)) + "?mode=ro&immutable=1"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=BUSY_MS / 1000.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA query_only = ON")
        except sqlite3.Error as exc:
            raise wrap(exc, name) from exc
    elif _is_wal(name) and not os.path.exists(name + "-shm"):
        raise HarnessError(f"{os.path.basename(name)}: the -wal holds frames but -shm is missing; not opened, so nothing is created")
    else:
        conn = open_ro(name, busy_ms=BUSY_MS)
    conn.text_factory = _text
    return conn


def wrap(exc: sqlite3.Error, path: str) -> HarnessError:
    """Turn a SQLite error into the expected-problem exception core shows in one line."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreLocked(f"database locked: {os.path.basename(path)}")
    return HarnessError(f"unreadable database {os.path.basename(path)}: {text}")


def fetch(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any] = (), *, max_rows: int = 10_000, path: str = "database"
) -> list[tuple[Any, ...]]:
    """Run one bounded statement; every SQLite failure becomes a :class:`HarnessError`."""
    try:
        cursor = conn.execute(sql, tuple(params))
        return cursor.fetchmany(max_rows)
    except sqlite3.Error as exc:
        raise wrap(exc, path) from exc


def tables(conn: sqlite3.Connection, *, path: str = "database") -> set[str]:
    """Names of the tables in the database."""
    rows = fetch(conn, "SELECT name FROM sqlite_master WHERE type = 'table'", path=path, max_rows=2000)
    return {str(r[0]) for r in rows if isinstance(r[0], str)}


def columns(conn: sqlite3.Connection, table: str, *, path: str = "database") -> set[str]:
    """Column names of *table* (empty when the table does not exist)."""
    if not table.replace("_", "").isalnum():
        return set()
    rows = fetch(conn, f"PRAGMA table_info({table})", path=path, max_rows=2000)
    return {str(r[1]) for r in rows if len(r) > 1 and isinstance(r[1], str)}


def stamp(path: str | os.PathLike[str]) -> str:
    """Size and mtime of a database and its ``-wal``: changes whenever its content can have."""
    parts = []
    for suffix in ("", "-wal"):
        try:
            st = Path(os.fspath(path) + suffix).stat()
        except OSError:
            parts.append("-")
            continue
        parts.append(f"{st.st_size}.{st.st_mtime_ns}")
    return "/".join(parts)
