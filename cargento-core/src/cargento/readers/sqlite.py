"""Read-only SQLite access that never creates, writes or holds locks on a harness store.

SQLite's own read-only mode is not enough for a database in WAL mode: opening one through a
``mode=ro`` URI creates the ``-wal`` and ``-shm`` files when they are absent and writes read
marks into ``-shm`` when present (measured). So a WAL database is read through a private
snapshot: the main file and then its ``-wal`` are copied (in that order, so WAL frames are
never older than the pages they overlay) into Cargento's own temporary directory, the copy is
opened read-only, and the snapshot is reused while both files are unchanged. A database in
rollback-journal mode is opened in place through a ``mode=ro`` URI with a short busy timeout,
which creates nothing. Either way every connection is ``query_only``.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import sqlite3
import tempfile
import threading
import urllib.parse
from collections.abc import Sequence
from typing import Any

from cargento.errors import HarnessError, StoreLocked

__all__ = ["is_wal_mode", "open_ro", "query_ro", "wal_has_frames"]

DEFAULT_BUSY_MS = 150
_HEADER = b"SQLite format 3\x00"


def _uri(path: str) -> str:
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


def is_wal_mode(path: str | os.PathLike[str]) -> bool:
    """True when the database header says WAL mode (read and write versions 2)."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(20)
    except OSError:
        return False
    return len(header) >= 20 and header[:16] == _HEADER and (header[18] == 2 or header[19] == 2)


def wal_has_frames(path: str | os.PathLike[str]) -> bool:
    """True when the database's ``-wal`` file holds at least one frame (more than a header)."""
    try:
        return os.path.getsize(os.fspath(path) + "-wal") > 32
    except OSError:
        return False


class _Snapshots:
    """Private copies of WAL databases, refreshed only when the originals change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dir: str | None = None
        self._seen: dict[str, tuple[tuple[int, ...], str]] = {}

    def _root(self) -> str:
        if self._dir is None or not os.path.isdir(self._dir):
            self._dir = tempfile.mkdtemp(prefix="cargento-sqlite-")
            atexit.register(shutil.rmtree, self._dir, True)
        return self._dir

    @staticmethod
    def _identity(path: str) -> tuple[int, ...]:
        st = os.stat(path)
        ident = [st.st_ino, st.st_size, st.st_mtime_ns]
        try:
            wal = os.stat(path + "-wal")
            ident += [wal.st_ino, wal.st_size, wal.st_mtime_ns]
        except OSError:
            ident += [-1, -1, -1]
        return tuple(ident)

    def copy_of(self, path: str) -> str:
        path = os.path.abspath(path)
        with self._lock:
            ident = self._identity(path)
            known = self._seen.get(path)
            if known is not None and known[0] == ident and os.path.exists(known[1]):
                return known[1]
            name = hashlib.blake2b(path.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
            copy = os.path.join(self._root(), name + ".db")
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    os.unlink(copy + suffix)
                except FileNotFoundError:
                    pass
            shutil.copyfile(path, copy)
            if os.path.exists(path + "-wal"):
                try:
                    shutil.copyfile(path + "-wal", copy + "-wal")
                except FileNotFoundError:
                    pass
            self._seen[path] = (ident, copy)
            return copy


_SNAPSHOTS = _Snapshots()


def open_ro(path: str | os.PathLike[str], *, busy_ms: int = DEFAULT_BUSY_MS) -> sqlite3.Connection:
    """Open a harness database for reading without writing anything next to it.

    A missing file raises :class:`HarnessError` (nothing is created). A WAL database is read
    from a private snapshot (see the module docstring); any other is opened in place through
    a ``mode=ro`` URI. The connection is in autocommit mode, so no transaction outlives one
    statement, and ``query_only`` forbids writes even through a bug.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise HarnessError(f"no database at {path}")
    target = path
    try:
        if is_wal_mode(path):
            target = _SNAPSHOTS.copy_of(path)
        conn = sqlite3.connect(
            _uri(target), uri=True, timeout=busy_ms / 1000.0, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA query_only = ON")
    except OSError as exc:
        raise HarnessError(f"unreadable database {os.path.basename(path)}: {exc}") from exc
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


def _wrap(exc: sqlite3.Error, path: str) -> HarnessError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreLocked(f"database locked: {os.path.basename(path)}")
    return HarnessError(f"unreadable database {os.path.basename(path)}: {text}")
