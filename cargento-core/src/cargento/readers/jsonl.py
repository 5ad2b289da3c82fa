"""Parsing single JSON-lines records leniently."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from cargento.cache import HarnessCache
from cargento.readers.regular import file_kind, read_regular, unreadable

__all__ = ["cached_head", "head_bytes", "loads_record", "read_head_records"]

T = TypeVar("T")


def loads_record(line: bytes | str) -> dict[str, Any] | None:
    """Parse one JSONL line into a dict, or ``None`` for blank, garbage or non-object lines."""
    if isinstance(line, str):
        line = line.encode("utf-8", "surrogatepass")
    line = line.strip()
    if not line or line[:1] != b"{":
        return None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def head_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The first *limit* bytes of a file (fewer when it is shorter)."""
    return read_regular(path, limit)


def read_head_records(
    path: str | os.PathLike[str], *, max_lines: int = 50, max_bytes: int = 64 * 1024
) -> tuple[list[dict[str, Any]], bool]:
    """Parse the first records of a file, bounded by lines and bytes.

    Returns the records and whether the head was read conclusively (the bound was reached or
    the file ended on a complete line), so a caller does not cache a verdict made on a head
    that was still being written.
    """
    data = head_bytes(path, max_bytes)
    lines = data.split(b"\n")
    complete = lines[:-1]
    tail = lines[-1]
    records = []
    for raw in complete[:max_lines]:
        record = loads_record(raw)
        if record is not None:
            records.append(record)
    conclusive = len(complete) >= max_lines or len(data) >= max_bytes or (not tail and bool(complete))
    if not tail and not complete:
        conclusive = False
    return records, conclusive


def cached_head(
    cache: HarnessCache,
    key: str,
    path: str,
    read: Callable[[str], tuple[T | None, bool]],
    *,
    problems: list[str] | None = None,
) -> T | None:
    """What ``read(path)`` makes of the head of an append-only file (its header line, say),
    kept in *cache* under *key* once the verdict is final.

    *read* returns the value and whether it is conclusive (the head was complete, or can never
    become readable); only a conclusive verdict is kept, for as long as the file keeps its device
    and inode, since appending never changes a head. A missing file drops the entry and gives
    ``None``; an unreadable one (permission denied, a named pipe or other non-regular file, a
    link loop) gives ``None``, is named in *problems* when given (``<path>: <cause>``) and is
    tried again next time.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        cache.pop(key)
        return None
    except OSError as exc:
        cache.pop(key)
        if problems is not None:
            problems.append(unreadable(path, exc))
        return None
    if not stat.S_ISREG(st.st_mode):
        cache.pop(key)
        if problems is not None:
            problems.append(f"{path}: not a regular file ({file_kind(st.st_mode)})")
        return None
    stamp = (st.st_dev, st.st_ino)
    hit = cache.get(key)
    if isinstance(hit, tuple) and len(hit) == 2 and hit[0] == stamp:
        kept: T | None = hit[1]
        return kept
    try:
        value, conclusive = read(path)
    except OSError as exc:
        if problems is not None:
            problems.append(unreadable(path, exc))
        return None
    if conclusive:
        cache.set(key, (stamp, value))
    return value
