"""The read-only SQLite access this plugin uses: core's opener and helpers, and a stamp.

Opening and reading go through :mod:`cargento.readers.sqlite`, which creates, writes and locks
nothing beside a database (WAL included) and turns every failure into a
:class:`cargento.HarnessError` (:class:`cargento.errors.StoreLocked` for a lock); see its module
docstring for how each store state is opened. Text that is not valid UTF-8 is read with
replacement characters rather than failing the query.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cargento.readers.sqlite import columns as _columns
from cargento.readers.sqlite import open_ro, query
from cargento.readers.sqlite import tables as _tables

__all__ = ["columns", "connect", "fetch", "stamp", "tables"]


def connect(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """Open *path* read-only (:func:`cargento.readers.sqlite.open_ro`), decoding text leniently.

    :raises HarnessError: missing, non-SQLite, locked (:class:`StoreLocked`) or unreadable file.
    """
    return open_ro(path, text_errors="replace")


def fetch(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any] = (), *, max_rows: int = 10_000, path: str = "database"
) -> list[tuple[Any, ...]]:
    """Run one bounded statement; every failure becomes a :class:`HarnessError` naming *path*."""
    return query(conn, sql, params, max_rows=max_rows, name=path)


def tables(conn: sqlite3.Connection, *, path: str = "database") -> frozenset[str]:
    """Names of the tables in the database."""
    return _tables(conn, name=path)


def columns(conn: sqlite3.Connection, table: str, *, path: str = "database") -> frozenset[str]:
    """Column names of *table* (empty when the table does not exist)."""
    return _columns(conn, table, name=path)


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
