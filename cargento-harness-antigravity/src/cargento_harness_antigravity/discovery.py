"""Finding conversation databases: one session per ``conversations/<id>.db``."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef
from cargento.readers import glob_files, open_regular, unreadable
from cargento.readers.sqlite import wal_has_frames

from cargento_harness_antigravity import locations
from cargento_harness_antigravity.workspace import newest_log_stamp

__all__ = ["activity", "discover"]

_MAGIC = b"SQLite format 3\x00"


def _is_sqlite(path: Path) -> bool:
    """Whether *path* starts like an SQLite database; :class:`OSError` when it cannot be read."""
    with open_regular(path) as fh:
        return fh.read(16) == _MAGIC


def activity(path: Path) -> tuple[float, str] | None:
    """The newest write to a conversation (the database, and its ``-wal`` when it holds frames)
    and a fingerprint of both files, or ``None`` when the database is gone."""
    try:
        st = path.stat()
    except OSError:
        return None
    newest = st.st_mtime
    stamp = f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"
    if wal_has_frames(path):
        try:
            wal = os.stat(str(path) + "-wal")
        except OSError:
            wal = None
        if wal is not None:
            newest = max(newest, wal.st_mtime)
            stamp += f"|{wal.st_size}:{wal.st_mtime_ns}"
    return newest, stamp


def discover(ctx: HarnessContext, key: str) -> Discovery:
    """Every conversation database, with its activity as a stat-based freshness."""
    root = locations.root(ctx)
    base = describe(root.path, role="sessions", origin=root.origin)
    convs = describe(root.path / "conversations", role="database", origin=root.origin)
    if convs.status != "present":
        return Discovery(locations=(base, convs))
    cache_json = root.path / "cache" / "last_conversations.json"
    try:
        cst = cache_json.stat()
        shared = f"{cst.st_size}:{cst.st_mtime_ns}"
    except OSError:
        shared = "-"
    shared += "|" + newest_log_stamp(root.path)
    refs: list[SessionRef] = []
    problems: list[str] = []
    paths, trouble = glob_files(root.path, locations.PATTERN)
    problems.extend(trouble)
    for path in paths:
        try:
            is_sqlite = _is_sqlite(path)
        except OSError as exc:
            problems.append(unreadable(path, exc))
            continue
        if not is_sqlite:
            problems.append(f"{path.name}: not an SQLite database; skipped")
            continue
        seen = activity(path)
        if seen is None:
            continue
        refs.append(
            SessionRef(
                harness=key,
                session_id=path.stem,
                path=str(path),
                location=convs.path,
                modified_at=datetime.fromtimestamp(seen[0], UTC),
                fingerprint=f"{seen[1]}|{shared}",
            )
        )
    return Discovery(locations=(base, convs), sessions=tuple(refs), problems=tuple(problems))
