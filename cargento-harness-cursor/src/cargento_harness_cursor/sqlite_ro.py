"""Read-only SQLite opens that create nothing beside the database, not even ``-wal``/``-shm``.

A ``mode=ro`` open of a database in WAL mode creates the ``-wal`` and ``-shm`` files when they
are missing (measured on SQLite 3.40), which would write into the harness's store. So when a
WAL-mode database has no ``-wal`` file there is no WAL content to miss and the database is
opened ``immutable=1``; when the ``-wal`` file is there, its writer's ``-shm`` is there too and
a plain ``mode=ro`` open reads the frames without creating anything. Every open has a short busy
timeout and ``query_only`` on, and every failure becomes a :class:`cargento.HarnessError`.
"""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cargento import HarnessError, StoreLocked
from cargento.errors import HarnessDataMissing, HarnessFormatUnsupported

__all__ = ["BUSY_MS", "columns", "connect", "has_table", "query"]

BUSY_MS = 150
_MAGIC = b"SQLite format 3\x00"


def _header(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(100)
    except OSError as exc:
        raise HarnessDataMissing(f"cannot open {os.path.basename(path)}: {exc.strerror}") from exc


def connect(path: str | os.PathLike[str], *, busy_ms: int = BUSY_MS) -> sqlite3.Connection:
    """Open *path* read-only without creating, writing or locking anything beyond one read.

    :raises HarnessError: for a missing, empty, non-SQLite, locked or corrupt database.
    """
    name = os.fspath(path)
    if not os.path.isfile(name):
        raise HarnessDataMissing(f"no database at {name}")
    header = _header(name)
    if not header:
        raise HarnessFormatUnsupported(f"{os.path.basename(name)} is an empty file")
    if len(header) < 100 or not header.startswith(_MAGIC):
        raise HarnessFormatUnsupported(f"{os.path.basename(name)} is not an SQLite database")
    wal_mode = header[18] == 2 or header[19] == 2
    query_string = "mode=ro&readonly_shm=1"
    if wal_mode and not (os.path.exists(name + "-wal") and os.path.exists(name + "-shm")):
        # No -wal (or no -shm to read it through): opening mode=ro would create both files.
        query_string += "&immutable=1"
    uri = "file:" + urllib.parse.quote(str(Path(name).resolve())) + "?" + query_string
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=busy_ms / 1000.0, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise wrap(exc, name) from exc
    try:
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        conn.close()
        raise wrap(exc, name) from exc
    return conn


def query(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any] = (), *, max_rows: int = 10_000, name: str = "database"
) -> list[tuple[Any, ...]]:
    """Run one bounded read on an open connection; errors become :class:`HarnessError`."""
    try:
        cursor = conn.execute(sql, tuple(params))
        try:
            return cursor.fetchmany(max_rows)
        finally:
            cursor.close()
    except sqlite3.Error as exc:
        raise wrap(exc, name) from exc
    except (ValueError, OverflowError, MemoryError) as exc:  # bad text encodings, huge integers
        raise HarnessError(f"unreadable {name}: {exc}") from exc


def has_table(conn: sqlite3.Connection, table: str, *, name: str = "database") -> bool:
    """True when *table* exists."""
    rows = query(conn, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,), name=name)
    return bool(rows)


def columns(conn: sqlite3.Connection, table: str, *, name: str = "database") -> frozenset[str]:
    """The column names of *table* (empty when the table does not exist)."""
    rows = query(conn, "SELECT name FROM pragma_table_info(?)", (table,), name=name)
    return frozenset(str(r[0]) for r in rows if isinstance(r[0], str))


def wrap(exc: BaseException, path: str) -> HarnessError:
    """Turn an SQLite error into the expected-problem type core reports in one line."""
    text = str(exc)
    base = os.path.basename(path)
    if "locked" in text or "busy" in text:
        return StoreLocked(f"database locked: {base}")
    return HarnessError(f"unreadable database {base}: {text}")
