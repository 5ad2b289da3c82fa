"""Incremental reading of an append-only JSONL file: only the appended bytes are read."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import attrs

from cargento.readers.jsonl import loads_record

__all__ = ["FileIdentity", "JsonlFollower"]


@attrs.frozen
class FileIdentity:
    """Device, inode, size and mtime of a file at one moment."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> FileIdentity:
        st = os.stat(path)
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
        except OSError:
            if self.identity is not None:
                self.reset = True
            self.identity = None
            self.offset = 0
            return
        old = self.identity
        if old is not None and (
            now.ino != old.ino or now.dev != old.dev or now.size < self.offset
            or (now.size == old.size and now.mtime_ns != old.mtime_ns and now.size <= self.offset)
        ):
            self.reset = True
            self.offset = 0
        if old is None and self.offset:
            self.offset = 0
        if now.size == self.offset:
            self.identity = now
            return
        with open(self.path, "rb") as fh:
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
