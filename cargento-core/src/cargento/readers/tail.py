"""A bounded tail reader for JSONL transcripts."""

from __future__ import annotations

import os
from typing import Any

from cargento.readers.jsonl import loads_record
from cargento.readers.regular import open_regular

__all__ = ["DEFAULT_TAIL_BYTES", "tail_lines", "tail_records"]

DEFAULT_TAIL_BYTES = 400 * 1024


def tail_lines(path: str | os.PathLike[str], max_bytes: int = DEFAULT_TAIL_BYTES) -> list[bytes]:
    """The complete lines among the last *max_bytes* bytes of a file.

    A partial first line (the read started mid-line) is dropped. A last line with no newline
    is kept only when it parses as a whole JSON object, since a writer may be half-way
    through it.
    """
    with open_regular(path) as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        start = max(0, size - max_bytes)
        fh.seek(start)
        data = fh.read(size - start)
    if start > 0:
        cut = data.find(b"\n")
        if cut < 0:
            return []
        data = data[cut + 1 :]
    lines = data.split(b"\n")
    last = lines.pop()
    if last.strip() and loads_record(last) is not None:
        lines.append(last)
    return [line for line in lines if line.strip()]


def tail_records(path: str | os.PathLike[str], max_bytes: int = DEFAULT_TAIL_BYTES) -> list[dict[str, Any]]:
    """Parsed JSON objects of :func:`tail_lines`; garbage lines are skipped."""
    out = []
    for line in tail_lines(path, max_bytes):
        record = loads_record(line)
        if record is not None:
            out.append(record)
    return out
