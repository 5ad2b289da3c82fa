"""One of the server's own stores as a bounded JSON Lines journal, written off the caller's thread.

A store that rewrote its whole file on every change would write in proportion to its history:
a flood of needs-input transitions rewrote a 370 KB deliveries file ten thousand times. A
:class:`Journal` instead appends one line per change and, once the lines on disk reach twice
the store's bound, compacts: the owner's current records are written to a temporary file that
replaces the journal. Each change therefore costs its own line plus, amortised, one compacted
line: constant work and constant bytes per change, whatever the history.

The layout is a header line ``{"schema": 2, "store": NAME}`` followed by one JSON object per
line. A schema-1 file (one JSON document whose *legacy_key* holds the records, as earlier
builds wrote) is still read, and replaced by the journal at the first compaction.

Writing happens on a daemon thread of the journal's own, so a caller on the server's event loop
never waits for the disk. The rules every own store follows:

* Bounded: reads stop at :data:`MAX_BYTES`; compaction keeps the owner's bounded records.
* Re-read before write: before appending, the journal checks the file on disk is still the one
  it last wrote (same inode, size it left); if another process replaced or extended it, the
  journal compacts from the owner's records instead of appending to a file it does not know.
* Never written over when unreadable: a file that exists and does not read is renamed aside
  (``<name>.unreadable-<stamp>``), never overwritten; :attr:`reset` names what happened, for
  the header.
* Redacted: every record goes through :func:`cargento.redact.redact_tree` on its way to disk.
* Only regular files: a named pipe, directory or socket in the store's place is refused (the
  open never blocks) and left alone; the journal then keeps its records in memory only and says
  so in :attr:`write_error`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import stat
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from cargento.atomicfile import write_atomic
from cargento.redact import redact_tree

from cargento_web.runtime.setaside import set_aside

__all__ = ["MAX_BYTES", "SCHEMA", "Journal", "open_regular_nonblocking", "read_capped", "records_in"]

SCHEMA = 2
#: Read cap for one store; a larger file is set aside unread.
MAX_BYTES = 4 * 1024 * 1024
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def open_regular_nonblocking(path: Path, flags: int, mode: int = 0o600) -> int:
    """Open *path* with *flags* without ever blocking; refuse anything but a regular file."""
    fd = os.open(path, flags | _NONBLOCK | _NOFOLLOW | _CLOEXEC, mode)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_capped(path: Path, cap: int) -> bytes | None:
    """*path*'s bytes, or ``None`` when it holds more than *cap*: never blocks on a pipe, never
    follows a link, and refuses anything but a regular file (``OSError``). For the stores a
    feature keeps and ``--diagnose`` reads."""
    fd = open_regular_nonblocking(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(cap + 1)
    return None if len(data) > cap else data


def records_in(path: Path) -> list[dict[str, Any]]:
    """The records of a journal file as they stand on disk (header line skipped), for tools
    and tests; torn lines are skipped as :meth:`Journal.load` skips them."""
    out: list[dict[str, Any]] = []
    for line in path.read_bytes().splitlines()[1:]:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


class Journal:
    """A bounded JSON Lines store for one owner (the deliveries, the ends, ...).

    :param path: the store file in Cargento's state directory.
    :param name: the store's name in the header line.
    :param bound: how many records the owner keeps; compaction happens at twice this many lines.
    :param snapshot: returns the owner's current records (called on the writer thread, for
        compaction), each a JSON-ready mapping.
    :param legacy_key: the key a schema-1 document kept its records under.
    :param lock: the owner's lock. The owner changes its records and calls :meth:`append`
        while holding it, and compaction takes it while it reads the snapshot and discards the
        queued records the snapshot already holds, so no record is written twice or lost.
    """

    def __init__(
        self,
        path: Path,
        *,
        name: str,
        bound: int,
        snapshot: Callable[[], Sequence[Mapping[str, Any]]],
        legacy_key: str | None = None,
        lock: threading.RLock | None = None,
        read_only: bool = False,
    ) -> None:
        self.lock = lock if lock is not None else threading.RLock()
        #: Read and never written: no append, no compaction, and a file that does not read is
        #: left where it is (a replay of a past moment reads the store as it stands).
        self.read_only = read_only
        self.path = path
        self.name = name
        self.bound = max(1, bound)
        self.snapshot = snapshot
        self.legacy_key = legacy_key
        #: What the last load found wrong and did about it (for the header), or ``None``.
        self.reset: str | None = None
        #: When that load happened.
        self.reset_at: datetime | None = None
        #: The last write failure (the records are still held in memory), or ``None``.
        self.write_error: str | None = None
        #: Bytes this journal wrote to disk, appends and compactions together.
        self.bytes_written = 0
        self._lines_on_disk = 0
        self._known: tuple[int, int] | None = None  # (inode, size) of the file as we left it
        self._compact_needed = False
        self._refused = read_only
        self._queue: queue.SimpleQueue[Mapping[str, Any] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pending = 0
        self._idle = threading.Condition()
        self._closed = False

    # -- reading ------------------------------------------------------------------------------

    def load(self) -> list[Mapping[str, Any]]:
        """The records on disk, oldest first. A file that does not read is set aside, never
        written over, and :attr:`reset` says so."""
        self.reset = None
        self.reset_at = None
        try:
            return self._load()
        finally:
            if self.reset is not None:
                self.reset_at = datetime.now(UTC)

    def _load(self) -> list[Mapping[str, Any]]:
        try:
            fd = open_regular_nonblocking(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self._known, self._lines_on_disk = None, 0
            return []
        except OSError as exc:
            # Not a regular file, or unreadable: refuse it and leave it exactly as it is.
            self._refused = True
            cause = exc.strerror or str(exc)
            self.reset = f"{self.path.name} could not be read ({cause}); it was left alone and this run keeps its records in memory"
            self.write_error = f"{self.path}: {cause}; nothing is written there this run"
            return []
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
            info = os.fstat(fh.fileno())
        if len(data) > MAX_BYTES:
            return self._set_aside(f"is larger than {MAX_BYTES} bytes")
        records = self._parse(data)
        if records is None:
            return self._set_aside("is not a store this build can read")
        self._known = (info.st_ino, info.st_size)
        if data.startswith(b'{"schema":1') or not data.strip():
            self._compact_needed = bool(records) or bool(data.strip())
        return records

    def _parse(self, data: bytes) -> list[Mapping[str, Any]] | None:
        lines = data.splitlines()
        if not lines:
            self._lines_on_disk = 0
            return []
        try:
            head = orjson.loads(lines[0])
        except orjson.JSONDecodeError:
            head = None
        if isinstance(head, dict) and head.get("schema") == SCHEMA and head.get("store") == self.name:
            records: list[Mapping[str, Any]] = []
            for line in lines[1:]:
                try:
                    value = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # a line torn by a crash mid-append; the rest still reads
                if isinstance(value, dict):
                    records.append(value)
            self._lines_on_disk = len(lines) - 1
            return records
        if self.legacy_key is not None:
            try:
                doc = orjson.loads(data)
            except orjson.JSONDecodeError:
                return None
            if isinstance(doc, dict) and doc.get("schema") == 1 and isinstance(doc.get(self.legacy_key), list):
                self._lines_on_disk = 0
                return [r for r in doc[self.legacy_key] if isinstance(r, dict)]
        return None

    def _set_aside(self, why: str) -> list[Mapping[str, Any]]:
        if self.read_only:
            self.reset = (
                f"{self.path.name} {why}; it was left alone (this run writes nothing), and nothing of it is read"
            )
            return []
        try:
            aside = set_aside(self.path)
        except OSError as exc:
            self._refused = True
            self.reset = f"{self.path.name} {why}; it could not be set aside ({exc.strerror or exc}), so this run keeps its records in memory"
            return []
        self.reset = f"{self.path.name} {why}; kept as {aside.name}, and the store started empty"
        self._known, self._lines_on_disk = None, 0
        return []

    # -- writing ------------------------------------------------------------------------------

    def append(self, record: Mapping[str, Any]) -> None:
        """Queue one record to be appended; returns at once."""
        if self._refused or self._closed:
            return
        with self._idle:
            self._pending += 1
        self._ensure_thread()
        self._queue.put(record)

    def compact_soon(self) -> None:
        """Queue a compaction (the owner dropped records the journal still holds)."""
        if self._refused or self._closed:
            return
        self._compact_needed = True
        with self._idle:
            self._pending += 1
        self._ensure_thread()
        self._queue.put(None)

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Wait until everything queued is on disk; False on time-out."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout=timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        """Write what is queued, then stop the writer thread."""
        self.flush(timeout_s)
        self._closed = True
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout_s)

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name=f"cargento-{self.name}-journal", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None and self._closed:
                return
            batch = [first]
            while True:  # take what else is already queued: one write for a burst
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            records = [r for r in batch if r is not None]
            try:
                self._write(records)
                self.write_error = None
            except OSError as exc:
                self.write_error = (
                    f"{self.path}: could not be written ({exc.strerror or exc}); the records are held in memory"
                )
            except Exception as exc:  # a record that does not serialise must not stop the writer
                self.write_error = f"{self.path}: could not be written ({exc})"
            finally:
                with self._idle:
                    self._pending -= len(batch)
                    self._idle.notify_all()

    def _write(self, records: list[Mapping[str, Any]]) -> None:
        if self._compact_needed or self._lines_on_disk + len(records) >= 2 * self.bound or not self._still_ours():
            self._compact()
            return
        if not records:
            return
        data = b"".join(orjson.dumps(redact_tree(dict(r))) + b"\n" for r in records)
        header = b""
        if self._known is None:
            header = orjson.dumps({"schema": SCHEMA, "store": self.name}) + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_regular_nonblocking(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            if header and os.fstat(fd).st_size:
                # Something appeared since the check: do not append to a file we do not know.
                os.close(fd)
                fd = -1
                self._compact()
                return
            os.write(fd, header + data)
            info = os.fstat(fd)
        finally:
            if fd >= 0:
                os.close(fd)
        self.bytes_written += len(header) + len(data)
        self._lines_on_disk += len(records)
        self._known = (info.st_ino, info.st_size)

    def _still_ours(self) -> bool:
        """True when the file on disk is the one this journal last left (re-read before write)."""
        try:
            info = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return self._known is None
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(self.path))
        return self._known == (info.st_ino, info.st_size)

    def _compact(self) -> None:
        with self.lock:
            records = list(self.snapshot())[-self.bound :]
            dropped = 0
            while True:  # what is still queued is in the snapshot already
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None and self._closed:
                    self._queue.put(None)
                    break
                dropped += 1
        if dropped:
            with self._idle:
                self._pending -= dropped
                self._idle.notify_all()
        lines = [orjson.dumps({"schema": SCHEMA, "store": self.name})]
        lines += [orjson.dumps(redact_tree(dict(r))) for r in records]
        data = b"\n".join(lines) + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(os.stat(self.path, follow_symlinks=False).st_mode):
                raise OSError(errno.EINVAL, "not a regular file; left alone", str(self.path))
        write_atomic(self.path, data)
        info = os.stat(self.path)
        self.bytes_written += len(data)
        self._lines_on_disk = len(records)
        self._known = (info.st_ino, info.st_size)
        self._compact_needed = False
