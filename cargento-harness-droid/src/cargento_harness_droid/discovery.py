"""Finding Droid session files and their ids without parsing more than line 1."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef, StoreLocation
from cargento.readers import glob_files, head_bytes, loads_record, unreadable

from cargento_harness_droid import locations
from cargento_harness_droid.records import header_of

__all__ = ["HEAD_BYTES", "discover", "fingerprint", "read_session_id", "session_id"]

#: Line 1 is read from at most this many bytes.
HEAD_BYTES = 64 * 1024


def fingerprint(st: os.stat_result) -> str:
    """The size and mtime a reading of one file depends on."""
    return f"{st.st_size}:{st.st_mtime_ns}"


def session_id(path: Path, st: os.stat_result, ctx: HarnessContext) -> str | None:
    """The session id of a file: ``session_start.id`` on line 1, else the file stem.

    ``None`` when the file is not a session: its first line is complete and is not a JSON
    object. A first line still being written is not judged (and not cached).
    """
    try:
        return read_session_id(path, st, ctx)
    except OSError:
        return None


def read_session_id(path: Path, st: os.stat_result, ctx: HarnessContext) -> str | None:
    """:func:`session_id`, raising :class:`OSError` when the file cannot be read, so
    discovery names the real cause (permission denied...) rather than a bad line 1."""
    key = f"head:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == (st.st_dev, st.st_ino):
        return cached[1]  # type: ignore[no-any-return]
    data = head_bytes(path, HEAD_BYTES)
    newline = data.find(b"\n")
    if newline < 0 and len(data) < HEAD_BYTES:
        # Empty, or line 1 is still being written: a session, id from the stem for now.
        return path.stem if data.strip()[:1] in (b"", b"{") else None
    first = data[:newline] if newline >= 0 else data
    record = loads_record(first)
    if record is None:
        ident: str | None = None
    else:
        header = header_of(record)
        ident = (header.id if header else None) or path.stem
    ctx.cache.set(key, ((st.st_dev, st.st_ino), ident))
    return ident


def discover(ctx: HarnessContext, key: str) -> Discovery:
    """Every Droid session file under both roots, with its id and a stat-based freshness."""
    base = locations.root(ctx)
    found: dict[Path, StoreLocation] = {}
    refs: dict[str, SessionRef] = {}
    problems: list[str] = []
    for layout in locations.layouts(base.path):
        where = found.get(layout.path)
        if where is None:
            where = found[layout.path] = describe(layout.path, role=layout.role, origin=base.origin)
        if where.status != "present":
            continue
        paths, trouble = glob_files(layout.path, layout.pattern)
        problems.extend(p for p in trouble if p not in problems)
        for path in paths:
            try:
                st = path.stat()
                ident = read_session_id(path, st, ctx)
            except OSError as exc:
                problems.append(unreadable(path, exc))
                continue
            if ident is None:
                problems.append(f"{path.name}: line 1 is not a JSON record; not a session")
                continue
            modified = datetime.fromtimestamp(st.st_mtime, UTC)
            ref = SessionRef(
                harness=key,
                session_id=ident,
                path=str(path),
                location=str(layout.path),
                modified_at=modified,
                fingerprint=fingerprint(st),
            )
            prior = refs.get(ident)
            # One session in two roots (a migrated store): the fresher file is the session.
            if prior is None or (prior.modified_at or modified) < modified:
                refs[ident] = ref
    return Discovery(locations=tuple(found.values()), sessions=tuple(refs.values()), problems=tuple(problems))
