"""Walk a file's lines from the end towards the start, with bounded memory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from cargento.readers.jsonl import loads_record
from cargento.readers.regular import open_regular

__all__ = ["walk_back", "walk_back_records"]

_CHUNK = 64 * 1024


class _Line:
    """The line being assembled right to left, dropped once it grows past the bound."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.parts: list[bytes] = []
        self.size = 0
        self.oversize = False

    def prepend(self, piece: bytes) -> None:
        if self.oversize:
            return
        self.parts.append(piece)
        self.size += len(piece)
        if self.size > self.bound:
            self.oversize = True
            self.parts = []

    def take(self) -> bytes | None:
        line = None if self.oversize else b"".join(reversed(self.parts))
        self.parts = []
        self.size = 0
        self.oversize = False
        return line


def walk_back(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = None,
    max_line_bytes: int = 4 * 1024 * 1024,
    chunk: int = _CHUNK,
    end: int | None = None,
) -> Iterator[bytes]:
    """Yield complete lines of a file, newest first.

    Memory stays bounded by *max_line_bytes* plus one chunk: a line longer than that (an
    encrypted reasoning blob, say) is skipped whole rather than held. *max_bytes* bounds how
    far back the walk goes (a line cut by that bound is not yielded); *end* starts the walk at
    that offset instead of the end of the file. A last line without a newline is yielded only
    when it parses as a JSON object, since its writer may be half-way through it.
    """
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if end is not None:
            size = max(0, min(end, size))
        if size == 0:
            return
        fh.seek(size - 1)
        ends_newline = fh.read(1) == b"\n"
        floor = 0 if max_bytes is None else max(0, size - max_bytes)
        pos = size
        current = _Line(max_line_bytes)
        rightmost = True
        while pos > floor:
            step = min(chunk, pos - floor)
            pos -= step
            fh.seek(pos)
            pieces = fh.read(step).split(b"\n")
            for index in range(len(pieces) - 1, 0, -1):
                current.prepend(pieces[index])
                line = current.take()
                if rightmost:
                    rightmost = False
                    if not ends_newline and line is not None and loads_record(line) is None:
                        line = None
                if line is not None and line.strip():
                    yield line
            current.prepend(pieces[0])
        if pos == 0:
            line = current.take()
            if rightmost and not ends_newline and line is not None and loads_record(line) is None:
                line = None
            if line is not None and line.strip():
                yield line


def walk_back_records(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = None,
    max_line_bytes: int = 4 * 1024 * 1024,
    end: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Parsed JSON objects of :func:`walk_back`, newest first; garbage lines are skipped."""
    for line in walk_back(path, max_bytes=max_bytes, max_line_bytes=max_line_bytes, end=end):
        record = loads_record(line)
        if record is not None:
            yield record
