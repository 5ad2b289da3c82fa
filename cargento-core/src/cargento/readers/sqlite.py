"""Read-only SQLite access that never creates, writes or changes anything beside a harness store.

A plain ``mode=ro`` open is safe only for a database in rollback-journal mode. For a database in
WAL mode it is not (measured on SQLite 3.40, with the writer in another process, which is how a
harness runs): it creates ``-wal`` and ``-shm`` when they are absent, and with a live writer it
writes a read mark into the writer's ``-shm``. So :func:`open_ro` looks at the files beside the
database (and its header) and picks one of four ways in:

=====================================  ============================================================
the database has...                    opened
=====================================  ============================================================
no ``-wal``, rollback-journal header   in place, ``mode=ro`` (a hot journal is refused, not rolled
                                       back)
``-wal`` and ``-shm``                  in place, ``mode=ro&readonly_shm=1``: the ``-shm`` is mapped
                                       read-only and never written; a read takes only shared locks.
                                       When SQLite cannot read that way (``SQLITE_CANTOPEN``,
                                       ``SQLITE_READONLY_RECOVERY``/``CANTINIT``/..., a
                                       ``SQLITE_PROTOCOL`` race) the private snapshot is read instead
a WAL header and no ``-wal``; or a      in place, ``immutable=1``: there is no frame to miss (and a
``-wal`` without frames, no ``-shm``   ``readonly_shm`` open would create the missing file)
``-wal`` frames but no ``-shm``        the private snapshot: no read-only open can read these frames
                                       without creating the ``-shm``, and the main file alone would
                                       be stale
=====================================  ============================================================

SQLite reads a ``-wal`` it finds beside any database, whatever its header says, so the files
decide the way in, the header only when there is no ``-wal``.

The private snapshot copies the main file and then its ``-wal`` (in that order, so no frame is
older than the page it overlays) into Cargento's own temporary directory, checks that neither
file changed while it was copied, and opens the copy ``mode=ro``; it is reused while both files
are unchanged. A database is never read from its main file alone while its ``-wal`` holds
frames: when neither way works the open fails with :class:`~cargento.errors.HarnessError`.

Every connection is in autocommit mode (no transaction outlives one statement), has a short busy
timeout and ``PRAGMA query_only``, and has read the schema cookie once before it is handed out, so
a locked, empty, foreign or unreadable file fails in :func:`open_ro` rather than in a plugin's
first query. Every failure is a :class:`~cargento.errors.HarnessError`: missing file
:class:`~cargento.errors.HarnessDataMissing`, empty or non-SQLite file
:class:`~cargento.errors.HarnessFormatUnsupported`, writer holding its lock past the timeout
:class:`~cargento.errors.StoreLocked`.

The check above and the open that follows it must see the same files. A store's last writer
deletes ``-wal`` and ``-shm`` when it closes, and a ``readonly_shm`` open that finds the ``-wal``
gone creates an empty one (SQLite opens the ``-wal`` of a WAL-mode database with ``O_CREAT``).
So before it looks, :func:`open_ro` opens the database file itself (``O_NONBLOCK``, regular files
only: a named pipe with a database's name never blocks the board) and takes a shared
open-file-description lock on the byte range SQLite's readers lock. A closing writer deletes
its ``-wal`` only after it got the exclusive lock on that range, so while the lock is held the
``-wal`` seen is the ``-wal`` SQLite opens; once SQLite has read the schema it holds its own
shared lock (a WAL-mode connection keeps it until it closes) and ours is released. Where the
platform has no such locks (they are Linux's ``F_OFD_SETLK``) the race is open for the
microseconds between the check and the open, and can leave an empty ``-wal`` (never a
``-shm``, never any content). The ``immutable=1`` open is re-checked after its first read: when
a writer committed frames to a ``-wal`` meanwhile, the database is opened again the way that
reads them.

Private snapshots live in a folder named ``cargento-sqlite-<pid>-…`` in the temporary directory,
deleted at exit; folders of that name whose process is gone (killed before its exit handler
ran) are deleted the first time a snapshot is taken.
"""

from __future__ import annotations

import atexit
import errno
import functools
import itertools
import os
import shutil
import sqlite3
import stat
import struct
import tempfile
import threading
import time
import urllib.parse
import weakref

# ``hashlib``'s BLAKE2 is this same built-in class; importing ``hashlib`` loads OpenSSL
# (about 12 ms at every start) for digests these readers never use.
from _blake2 import blake2b
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from cargento.errors import HarnessDataMissing, HarnessError, HarnessFormatUnsupported, StoreLocked
from cargento.readers.regular import NotRegularFile, file_kind, open_regular, why

__all__ = [
    "DEFAULT_BUSY_MS",
    "SNAPSHOT_PREFIX",
    "columns",
    "database_problem",
    "database_stamp",
    "has_table",
    "is_wal_mode",
    "open_ro",
    "query",
    "query_ro",
    "remove_stale_snapshots",
    "tables",
    "wal_has_frames",
    "wrap_error",
]

#: How long a read waits for a writer's lock before :class:`StoreLocked`.
DEFAULT_BUSY_MS = 150
_MAGIC = b"SQLite format 3\x00"
_WAL_HEADER = 32
#: Primary result codes after which an in-place ``readonly_shm`` read is retried on the snapshot.
_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PROTOCOL = 8, 14, 15
_SQLITE_BUSY, _SQLITE_LOCKED = 5, 6
#: Snapshots kept at most (the oldest copy is deleted first).
MAX_SNAPSHOTS = 32
#: Copies tried before a database that changes while it is copied counts as locked.
_COPY_ATTEMPTS = 3

_Route = Literal["plain", "shared", "immutable", "snapshot"]


def is_wal_mode(path: str | os.PathLike[str]) -> bool:
    """True when the database header says WAL mode (read or write version 2)."""
    try:
        with open_regular(path) as fh:
            header = fh.read(20)
    except OSError:
        return False
    return len(header) >= 20 and header[:16] == _MAGIC and (header[18] == 2 or header[19] == 2)


def wal_has_frames(path: str | os.PathLike[str]) -> bool:
    """True when the database's ``-wal`` may hold frames SQLite would read.

    That is, the file is longer than its 32-byte header and the header is one SQLite accepts
    (magic, format version, page size and checksum). SQLite ignores a ``-wal`` whose header is
    damaged, so such a file holds no frames.
    """
    name = os.fspath(path) + "-wal"
    try:
        if os.path.getsize(name) <= _WAL_HEADER:
            return False
        with open_regular(name) as fh:
            return _wal_header_valid(fh.read(_WAL_HEADER))
    except OSError:
        return False


def _wal_header_valid(header: bytes) -> bool:
    """Whether SQLite would accept *header* as a WAL header (it recovers no frame otherwise)."""
    if len(header) < _WAL_HEADER:
        return False
    magic, version, page_size = struct.unpack(">III", header[:12])
    if magic not in (0x377F0682, 0x377F0683) or version != 3007000:
        return False
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return False
    words = struct.unpack((">" if magic & 1 else "<") + "6I", header[:24])
    s1 = s2 = 0
    for i in range(0, 6, 2):
        s1 = (s1 + words[i] + s2) & 0xFFFFFFFF
        s2 = (s2 + words[i + 1] + s1) & 0xFFFFFFFF
    return (s1, s2) == struct.unpack(">II", header[24:32])


def _uri(path: str, query_string: str) -> str:
    # A board opens each of hundreds of databases on every cold pass: an absolute path's
    # quoted form is worked out once (a relative one depends on the working directory).
    quoted = _quoted(path) if os.path.isabs(path) else _quote(path)
    return "file:" + quoted + "?" + query_string


def _quote(path: str) -> str:
    posix = Path(os.path.abspath(path)).as_posix()
    if not posix.startswith("/"):  # a Windows drive path: file:/C:/...
        posix = "/" + posix
    return urllib.parse.quote(posix, safe="/:")


_quoted = functools.lru_cache(maxsize=4096)(_quote)


#: SQLite's lock bytes (unix VFS): readers hold a read lock on the shared range, and a writer
#: deleting its ``-wal`` at close first holds a write lock on all of it.
_PENDING_BYTE = 0x40000000
_SHARED_FIRST = _PENDING_BYTE + 2
_SHARED_SIZE = 510
try:
    import fcntl
except ImportError:  # Windows: SQLite locks differently there, and no such lock is taken
    _OFD_SETLK: int | None = None
    _RDLCK = _UNLCK = 0
else:
    _OFD_SETLK = getattr(fcntl, "F_OFD_SETLK", None)
    _RDLCK, _UNLCK = fcntl.F_RDLCK, fcntl.F_UNLCK


@functools.cache
def _flock(kind: int) -> bytes:
    """A ``struct flock`` for the shared range (``l_pid`` 0, as open-file-description locks want);
    packed once per kind (every database open takes and drops the lock)."""
    packed = struct.pack("hhqqi", kind, os.SEEK_SET, _SHARED_FIRST, _SHARED_SIZE, 0)
    return packed + b"\0" * (32 - len(packed))


class _Pin:
    """The database file opened by us (regular files only, without blocking), holding a shared
    open-file-description lock on SQLite's reader range while :func:`open_ro` looks and opens.

    The descriptor stays open for the life of the connection made under it: closing a
    descriptor of a file drops every POSIX lock this process holds on it, SQLite's included.
    """

    def __init__(self, path: str, busy_ms: int) -> None:
        try:
            self.fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError as exc:
            raise HarnessDataMissing(f"no database at {path}") from exc
        except OSError as exc:
            raise HarnessError(f"unreadable database {path}: {why(exc)}") from exc
        try:
            mode = os.fstat(self.fd).st_mode
            if stat.S_ISDIR(mode):
                raise HarnessDataMissing(f"no database at {path} (a directory is there)")
            if not stat.S_ISREG(mode):
                raise HarnessError(f"unreadable database {path}: {why(NotRegularFile(path, file_kind(mode)))}")
            self.locked = self._lock(path, busy_ms)
        except BaseException:
            os.close(self.fd)
            raise

    def _lock(self, path: str, busy_ms: int) -> bool:
        if _OFD_SETLK is None:
            return False
        deadline = time.monotonic() + busy_ms / 1000.0
        while True:
            try:
                fcntl.fcntl(self.fd, _OFD_SETLK, _flock(_RDLCK))
                return True
            except OSError as exc:
                if exc.errno in (errno.EINVAL, errno.ENOSYS, errno.ENOLCK, errno.EOPNOTSUPP):
                    return False  # no such locks on this file system: the open is unguarded
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise HarnessError(f"unreadable database {path}: {why(exc)}") from exc
            if time.monotonic() >= deadline:
                raise StoreLocked(f"database locked: {os.path.basename(path)}")
            time.sleep(0.002)

    def head(self) -> bytes:
        if hasattr(os, "pread"):
            return os.pread(self.fd, 100, 0)
        os.lseek(self.fd, 0, os.SEEK_SET)
        return os.read(self.fd, 100)

    def release(self) -> None:
        """Drop our lock (the descriptor stays open; see the class docstring)."""
        if self.locked and _OFD_SETLK is not None:
            self.locked = False
            try:
                fcntl.fcntl(self.fd, _OFD_SETLK, _flock(_UNLCK))
            except OSError:
                pass

    def close(self) -> None:
        self.release()
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)


def _header(path: str, pin: _Pin) -> bytes:
    try:
        head = pin.head()
    except OSError as exc:
        raise HarnessError(f"unreadable database {path}: {why(exc)}") from exc
    if not head:
        raise HarnessFormatUnsupported(f"{path} is an empty file")
    if len(head) < 100 or not head.startswith(_MAGIC):
        raise HarnessFormatUnsupported(f"{path} is not an SQLite database")
    return head


def _route(path: str, pin: _Pin) -> _Route:
    """How to open *path* without writing beside it (see the module docstring's table).

    The ``-wal`` file decides, not the header alone: SQLite reads a ``-wal`` it finds beside
    any database, and would create the ``-shm`` to do so.
    """
    head = _header(path, pin)
    wal = path + "-wal"
    if os.path.exists(wal):
        frames = wal_has_frames(path)
        if os.path.exists(path + "-shm") and (frames or _size(wal) <= _WAL_HEADER):
            return "shared"
        # A damaged -wal header: SQLite would read no frame (and, with a read-only -shm and
        # no writer, retry for seconds before giving up), so there is nothing to miss.
        return "snapshot" if frames else "immutable"
    return "immutable" if head[18] == 2 or head[19] == 2 else "plain"


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return -1


class _Snapshots:
    """Private copies of WAL databases, refreshed only when the originals change."""

    def __init__(self, limit: int = MAX_SNAPSHOTS) -> None:
        self._lock = threading.Lock()
        self._dir: str | None = None
        self._limit = limit
        self._seq = itertools.count()
        self._seen: OrderedDict[str, tuple[tuple[int, ...], str]] = OrderedDict()

    def _root(self) -> str:
        if self._dir is None or not os.path.isdir(self._dir):
            remove_stale_snapshots()
            self._dir = tempfile.mkdtemp(prefix=f"{SNAPSHOT_PREFIX}{os.getpid()}-")
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

    @staticmethod
    def _discard(copy: str) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(copy + suffix)
            except OSError:  # gone already, or still open on a platform that refuses
                pass

    def copy_of(self, path: str) -> str:
        """A private copy of *path* and its ``-wal`` as of one moment.

        :raises StoreLocked: when the files kept changing while they were copied.
        :raises OSError: when they cannot be read.
        """
        path = os.path.abspath(path)
        with self._lock:
            ident = self._identity(path)
            known = self._seen.get(path)
            if known is not None and known[0] == ident and os.path.exists(known[1]):
                self._seen.move_to_end(path)
                return known[1]
            stem = blake2b(path.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()
            for _ in range(_COPY_ATTEMPTS):
                copy = os.path.join(self._root(), f"{stem}-{next(self._seq)}.db")
                _copy_regular(path, copy)
                try:
                    _copy_regular(path + "-wal", copy + "-wal")
                except FileNotFoundError:
                    pass
                after = self._identity(path)
                if after == ident:
                    break
                self._discard(copy)
                ident = after
            else:
                raise StoreLocked(f"database changing while read: {os.path.basename(path)}")
            if known is not None:
                self._discard(known[1])
            self._seen[path] = (ident, copy)
            self._seen.move_to_end(path)
            while len(self._seen) > self._limit:
                _, (_, old) = self._seen.popitem(last=False)
                self._discard(old)
            return copy


def _copy_regular(source: str, target: str) -> None:
    """Copy *source* (a regular file only: a named pipe would block the copy) to *target*."""
    with open_regular(source) as src:
        try:
            with open(target, "xb") as dst:
                shutil.copyfileobj(src, dst, 1024 * 1024)
        except BaseException:
            try:
                os.unlink(target)
            except OSError:
                pass
            raise


#: The name every snapshot folder starts with, followed by the owning process id and ``-``.
SNAPSHOT_PREFIX = "cargento-sqlite-"


def _alive(pid: int) -> bool:
    if os.name == "nt":  # signal 0 is CTRL_C_EVENT there: never probe, keep the folder
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, someone else's
        return True
    return True


def remove_stale_snapshots(folder: str | None = None) -> list[str]:
    """Delete the snapshot folders in *folder* (the temporary directory by default) that are
    this user's and whose process is gone, as a ``kill -9`` leaves them; returns their paths.

    A folder named without a process id (an older Cargento's) counts as stale once it is an
    hour old.
    """
    base = folder or tempfile.gettempdir()
    removed: list[str] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        if not entry.name.startswith(SNAPSHOT_PREFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or (uid is not None and st.st_uid != uid):
            continue
        owner = entry.name[len(SNAPSHOT_PREFIX) :].split("-", 1)[0]
        if owner.isdigit():
            stale = int(owner) != os.getpid() and not _alive(int(owner))
        else:
            stale = time.time() - st.st_mtime > 3600
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


_SNAPSHOTS = _Snapshots()


class _ReadOnlyShmFailed(Exception):
    """An in-place ``readonly_shm`` read SQLite refused; the snapshot is read instead."""


def _connect(target: str, query_string: str, busy_ms: int) -> sqlite3.Connection:
    """Open *target* with *query_string* and read its schema cookie once."""
    conn = sqlite3.connect(
        _uri(target, query_string),
        uri=True,
        timeout=busy_ms / 1000.0,
        isolation_level=None,
        check_same_thread=False,
        factory=_Connection,
    )
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA schema_version").fetchall()
    except BaseException:
        conn.close()
        raise
    return conn


def _primary(exc: sqlite3.Error) -> int:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else -1


def open_ro(
    path: str | os.PathLike[str],
    *,
    busy_ms: int = DEFAULT_BUSY_MS,
    text_errors: Literal["strict", "replace"] = "strict",
) -> sqlite3.Connection:
    """Open a harness database for reading without creating, writing or renaming anything.

    The way in is chosen from the header and the ``-wal``/``-shm`` files (module docstring).
    ``text_errors="replace"`` decodes malformed UTF-8 text with U+FFFD instead of failing the
    query. Close the connection promptly: it holds shared locks only while a statement runs,
    but an open connection keeps file handles on the store.

    :raises HarnessDataMissing: no file at *path* (nothing is created).
    :raises HarnessFormatUnsupported: an empty file, or one that is not an SQLite database.
    :raises StoreLocked: the writer held its lock for longer than *busy_ms*.
    :raises HarnessError: any other failure to open or read the database.
    """
    name = os.fspath(path)
    conn: sqlite3.Connection | None = None
    pin = _Pin(name, busy_ms)
    in_place = False
    try:
        for attempt in range(2):
            route = _route(name, pin)
            if route == "shared":
                try:
                    conn = _open_shared(name, busy_ms)
                except _ReadOnlyShmFailed:
                    route = "snapshot"
            if route == "immutable":
                conn = _connect(name, "mode=ro&immutable=1", busy_ms)
                if attempt == 0 and wal_has_frames(name):
                    # A writer committed meanwhile: open again the way that reads its frames.
                    conn.close()
                    conn = None
                    continue
            if route == "snapshot":
                conn = _connect(_SNAPSHOTS.copy_of(name), "mode=ro", busy_ms)
            if route == "plain":
                conn = _connect(name, "mode=ro", busy_ms)
            in_place = route != "snapshot"
            break
    except OSError as exc:
        pin.close()
        raise HarnessError(f"unreadable database {name}: {why(exc)}") from exc
    except sqlite3.Error as exc:
        pin.close()
        raise wrap_error(exc, name) from exc
    except BaseException:
        pin.close()
        raise
    assert conn is not None
    if in_place:
        pin.release()
        _hold_until_closed(conn, pin)
    else:
        pin.close()
    if text_errors != "strict":
        conn.text_factory = lambda raw: raw.decode("utf-8", text_errors)
    return conn


class _Connection(sqlite3.Connection):
    """A connection that closes the :class:`_Pin` descriptor it was opened under when it closes."""

    _pin_closer: weakref.finalize[Any, Any] | None = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            closer = self._pin_closer
            if closer is not None:
                closer()


def _hold_until_closed(conn: sqlite3.Connection, pin: _Pin) -> None:
    closer = weakref.finalize(conn, pin.close)
    if isinstance(conn, _Connection):
        conn._pin_closer = closer


def _open_shared(name: str, busy_ms: int) -> sqlite3.Connection:
    try:
        return _connect(name, "mode=ro&readonly_shm=1", busy_ms)
    except sqlite3.Error as exc:
        if _primary(exc) in (_SQLITE_READONLY, _SQLITE_CANTOPEN, _SQLITE_PROTOCOL):
            raise _ReadOnlyShmFailed(str(exc)) from exc
        raise


def query(
    conn: sqlite3.Connection,
    sql: str,
    params: Sequence[Any] = (),
    *,
    max_rows: int = 10_000,
    name: str = "database",
) -> list[tuple[Any, ...]]:
    """Run one statement on an open connection and return at most *max_rows* rows.

    Every failure (SQLite errors, undecodable text, integers too large for Python's SQLite
    binding) becomes a :class:`HarnessError` naming *name*; a lock becomes :class:`StoreLocked`.
    """
    try:
        cursor = conn.execute(sql, tuple(params))
        try:
            return cursor.fetchmany(max_rows)
        finally:
            cursor.close()
    except sqlite3.Error as exc:
        raise wrap_error(exc, name) from exc
    except (ValueError, OverflowError, MemoryError) as exc:
        raise HarnessError(f"unreadable {name}: {exc}") from exc


def tables(conn: sqlite3.Connection, *, name: str = "database") -> frozenset[str]:
    """The names of the tables in the database."""
    rows = query(conn, "SELECT name FROM sqlite_master WHERE type = 'table'", max_rows=5000, name=name)
    return frozenset(str(r[0]) for r in rows if isinstance(r[0], str))


def has_table(conn: sqlite3.Connection, table: str, *, name: str = "database") -> bool:
    """True when the database has a table called *table*."""
    rows = query(conn, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,), max_rows=1, name=name)
    return bool(rows)


def columns(conn: sqlite3.Connection, table: str, *, name: str = "database") -> frozenset[str]:
    """The column names of *table* (empty when there is no such table); any name is safe."""
    rows = query(conn, "SELECT name FROM pragma_table_info(?)", (table,), max_rows=5000, name=name)
    return frozenset(str(r[0]) for r in rows if isinstance(r[0], str))


def query_ro(
    path: str | os.PathLike[str],
    sql: str,
    params: Sequence[Any] = (),
    *,
    busy_ms: int = DEFAULT_BUSY_MS,
    max_rows: int = 10_000,
) -> list[tuple[Any, ...]]:
    """Open *path* with :func:`open_ro`, run one bounded :func:`query` and close at once."""
    conn = open_ro(path, busy_ms=busy_ms)
    try:
        return query(conn, sql, params, max_rows=max_rows, name=os.path.basename(os.fspath(path)))
    finally:
        conn.close()


#: The last verdict on each database path, with the file identity it was made for: one entry a
#: path (keyed by identity, a database written all day held one entry per write, up to the
#: bound: 1.6 MB of dead verdicts within the demo's first hour).
_VERDICTS: OrderedDict[str, tuple[tuple[int, int, int, int], str | None]] = OrderedDict()
_VERDICTS_HELD = 4096
_VERDICTS_LOCK = threading.Lock()


def database_problem(path: str | os.PathLike[str]) -> str | None:
    """Why *path* cannot be read as an SQLite database, from a ``stat`` and its first 100 bytes
    (``permission denied``, ``not a regular file (named pipe)``, ``symlink loop``, ``not an
    SQLite database``...), or ``None`` when it looks like one or is missing. An empty file is
    an empty database, as SQLite reads it. Verdicts are kept per file identity, so an
    unchanged file is judged once; nothing is opened through SQLite.
    """
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return why(exc)
    if not stat.S_ISREG(st.st_mode):
        return why(NotRegularFile(name, file_kind(st.st_mode)))
    ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _VERDICTS_LOCK:
        held = _VERDICTS.get(name)
        if held is not None and held[0] == ident:
            _VERDICTS.move_to_end(name)
            return held[1]
    try:
        with open_regular(name) as fh:
            head = fh.read(100)
    except OSError as exc:
        return why(exc)  # not kept: permissions change without touching the file
    verdict = None if not head or (len(head) == 100 and head.startswith(_MAGIC)) else "not an SQLite database"
    with _VERDICTS_LOCK:
        _VERDICTS[name] = (ident, verdict)
        _VERDICTS.move_to_end(name)
        while len(_VERDICTS) > _VERDICTS_HELD:
            _VERDICTS.popitem(last=False)
    return verdict


def database_stamp(path: str | os.PathLike[str]) -> str:
    """The size and mtime of a database and of its ``-wal`` (``"-"`` for a missing one), as
    ``"<size>.<mtime_ns>/<size>.<mtime_ns>"``: a cheap fingerprint part (two ``stat`` calls, no
    open) that changes whenever the database's content can have, including a commit that only
    reached the ``-wal``."""
    parts = []
    for suffix in ("", "-wal"):
        try:
            st = os.stat(os.fspath(path) + suffix)
        except OSError:
            parts.append("-")
            continue
        parts.append(f"{st.st_size}.{st.st_mtime_ns}")
    return "/".join(parts)


def wrap_error(exc: BaseException, path: str) -> HarnessError:
    """The expected-problem exception for an SQLite failure on *path* (a lock is StoreLocked)."""
    text = str(exc)
    base = path
    code = _primary(exc) if isinstance(exc, sqlite3.Error) else -1
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in text or "busy" in text:
        return StoreLocked(f"database locked: {base}")
    return HarnessError(f"unreadable database {base}: {text}")
