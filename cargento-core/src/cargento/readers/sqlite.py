"""Read-only SQLite access that never creates, writes or holds locks on a harness store."""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from collections.abc import Sequence
from typing import Any

from cargento.errors import HarnessError, StoreLocked

__all__ = ["open_ro", "query_ro", "wal_has_frames"]

DEFAULT_BUSY_MS = 150


def _uri(path: str) -> str:
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


def open_ro(path: str | os.PathLike[str], *, busy_ms: int = DEFAULT_BUSY_MS) -> sqlite3.Connection:
    """Open a database through a ``mode=ro`` URI with a short busy timeout.

    A missing file raises :class:`HarnessError` (``mode=ro`` never creates one). The connection
    is in autocommit mode so no transaction outlives a single statement, and
    ``query_only`` forbids writes even through a bug.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise HarnessError(f"no database at {path}")
    try:
        conn = sqlite3.connect(
            _uri(path), uri=True, timeout=busy_ms / 1000.0, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        raise _wrap(exc, path) from exc
    return conn


def query_ro(
    path: str | os.PathLike[str],
    sql: str,
    params: Sequence[Any] = (),
    *,
    busy_ms: int = DEFAULT_BUSY_MS,
    max_rows: int = 10_000,
) -> list[tuple[Any, ...]]:
    """Run one bounded read-only query and close the connection at once."""
    conn = open_ro(path, busy_ms=busy_ms)
    try:
        cursor = conn.execute(sql, tuple(params))
        return cursor.fetchmany(max_rows)
    except sqlite3.Error as exc:
        raise _wrap(exc, os.fspath(path)) from exc
    finally:
        conn.close()


def wal_has_frames(path: str | os.PathLike[str]) -> bool:
    """True when the database's ``-wal`` file holds at least one frame (more than a header)."""
    try:
        return os.path.getsize(os.fspath(path) + "-wal") > 32
    except OSError:
        return False


def _wrap(exc: sqlite3.Error, path: str) -> HarnessError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreLocked(f"database locked: {os.path.basename(path)}")
    return HarnessError(f"unreadable database {os.path.basename(path)}: {text}")
