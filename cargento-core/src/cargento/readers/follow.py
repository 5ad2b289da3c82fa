"""Incremental reading of an append-only JSONL file: only the appended bytes are read."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import attrs

from cargento.cache import HarnessCache
from cargento.errors import HarnessDataMissing
from cargento.readers.jsonl import loads_record
from cargento.readers.regular import NotRegularFile, file_kind, open_regular, why
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

__all__ = ["FileIdentity", "FollowedSummary", "JsonlFollower", "cached_summary", "follow_summary"]

S = TypeVar("S")


@shared_methods
@attrs.frozen(repr=False, eq=False)
class FileIdentity:
    """Device, inode, size and mtime of a file at one moment."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> FileIdentity:
        """The identity of *path* now; :class:`NotRegularFile` for a pipe, folder or device."""
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(os.fspath(path), file_kind(st.st_mode))
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class JsonlFollower:
    """Follows one JSONL file and hands over each complete record exactly once.

    :meth:`poll` reads from the last complete line onwards. A half-written last line does not
    advance the offset, so it is read whole once its writer finishes it. Truncation, rotation
    (a new inode) or replacement reset the follower, and :attr:`reset` tells the caller to
    throw away what it derived from the old content. Bytes are read in bounded chunks, and a
    line longer than *max_line_bytes* is skipped rather than held in memory.
    """

    def __init__(self, path: str | os.PathLike[str], *, max_line_bytes: int = 8 * 1024 * 1024) -> None:
        self.path = os.fspath(path)
        self.max_line_bytes = max_line_bytes
        self.offset = 0
        self.identity: FileIdentity | None = None
        self.reset = False
        self.lines_read = 0

    def start_at(self, offset: int) -> None:
        """Resume following at *offset* (the end of a complete line a caller already read,
        for example after a backward walk), as if everything before it had been polled."""
        try:
            now = FileIdentity.of(self.path)
        except OSError:
            return
        self.offset = max(0, min(offset, now.size))
        self.identity = FileIdentity(now.dev, now.ino, self.offset, now.mtime_ns) if self.offset < now.size else now
        self.reset = False

    def changed(self) -> bool:
        """True when the file differs from what was last read (cheap: one ``stat``)."""
        try:
            return FileIdentity.of(self.path) != self.identity
        except OSError:
            return self.identity is not None

    def poll(self, *, chunk: int = 1024 * 1024) -> list[dict[str, Any]]:
        """Return the records appended since the previous call."""
        return list(self.iter_new(chunk=chunk))

    def iter_new(self, *, chunk: int = 1024 * 1024) -> Iterator[dict[str, Any]]:
        self.reset = False
        try:
            now = FileIdentity.of(self.path)
        except OSError as exc:
            if self.identity is not None:
                self.reset = True
            self.identity = None
            self.offset = 0
            if isinstance(exc, NotRegularFile):
                raise  # not a file that went away: one that can never be read
            return
        old = self.identity
        if old is not None and (
            now.ino != old.ino
            or now.dev != old.dev
            or now.size < self.offset
            or (now.size == old.size and now.mtime_ns != old.mtime_ns and now.size <= self.offset)
        ):
            self.reset = True
            self.offset = 0
        if old is None and self.offset:
            self.offset = 0
        if now.size == self.offset:
            self.identity = now
            return
        with open_regular(self.path) as fh:
            fh.seek(self.offset)
            base = self.offset
            pending = b""
            skipping = False
            while True:
                block = fh.read(chunk)
                if not block:
                    break
                cursor = 0
                while True:
                    newline = block.find(b"\n", cursor)
                    if newline < 0:
                        if not skipping:
                            pending += block[cursor:]
                            if len(pending) > self.max_line_bytes:
                                skipping = True
                                pending = b""
                        break
                    line = pending + block[cursor:newline]
                    pending = b""
                    cursor = newline + 1
                    self.offset = base + cursor
                    if skipping:
                        skipping = False
                        continue
                    self.lines_read += 1
                    record = loads_record(line)
                    if record is not None:
                        yield record
                base += len(block)
        # An unterminated last line stays unread: the offset remains at its start.
        self.identity = now


@shared_repr
@attrs.define(repr=False, eq=False)
class FollowedSummary(Generic[S]):
    """What :func:`follow_summary` keeps in a plugin cache for one file: its follower and the
    summary folded from every record the follower has handed over since its last reset."""

    follower: JsonlFollower
    summary: S


def follow_summary(
    cache: HarnessCache,
    key: str,
    path: str | os.PathLike[str],
    new: Callable[[], S],
    fold: Callable[[S, dict[str, Any]], object],
    *,
    max_line_bytes: int = 8 * 1024 * 1024,
) -> S:
    """The summary of the JSONL file *path*, brought up to date with its appended records.

    The :class:`FollowedSummary` lives in *cache* under *key*, so each call reads only the bytes
    appended since the previous one: a fresh summary comes from *new*, and ``fold(summary,
    record)`` folds each complete record into it, in file order. When the follower reports a
    reset (the file was truncated, rotated or replaced) the summary is started again from *new*
    and the file is folded from its first line. Records are folded as they are read, so a large
    append is never held in memory at once.

    An unreadable file drops the cache entry (the next call starts over) and raises
    :class:`~cargento.errors.HarnessDataMissing`; a vanished file starts the summary afresh,
    which then stays empty until the file is back.
    """
    entry = cache.get(key)
    if not isinstance(entry, FollowedSummary):
        entry = FollowedSummary(JsonlFollower(path, max_line_bytes=max_line_bytes), new())
        cache.set(key, entry)
    try:
        records = entry.follower.iter_new()
        first = next(records, None)  # the follower knows about a reset once it has started
        if entry.follower.reset:
            entry.summary = new()
        if first is not None:
            fold(entry.summary, first)
            for record in records:
                fold(entry.summary, record)
    except OSError as exc:
        cache.pop(key)
        raise HarnessDataMissing(f"cannot read {os.fspath(path)}: {why(exc)}") from exc
    summary: S = entry.summary
    return summary


def cached_summary(cache: HarnessCache, key: str, kind: type[S]) -> S | None:
    """The summary :func:`follow_summary` keeps under *key*, as last brought up to date, without
    reading anything; ``None`` when the cache holds none of type *kind* there."""
    entry = cache.get(key)
    if isinstance(entry, FollowedSummary) and isinstance(entry.summary, kind):
        return entry.summary
    return None
