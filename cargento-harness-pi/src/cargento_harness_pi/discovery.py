"""Finding Pi session files: only files whose line 1 is a v3 ``session`` header count."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef
from cargento.readers import cached_head, glob_files, read_head_records, unreadable

from cargento_harness_pi import locations
from cargento_harness_pi.entries import Header, header_from_record

__all__ = ["KEY", "cached_header", "discover_sessions", "read_header", "stem_id"]

KEY = "pi"
#: Line 1 is read up to this many bytes; a longer header is not a Pi header.
HEAD_BYTES = 64 * 1024
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def stem_id(path: str | os.PathLike[str]) -> str:
    """The id in a ``<timestamp>_<uuid>.jsonl`` name, or the whole stem."""
    stem = Path(path).stem
    match = _UUID.search(stem)
    return match.group() if match else stem


def read_header(path: str | os.PathLike[str]) -> tuple[Header | None, bool]:
    """The header on line 1 and whether the verdict is final (line 1 complete, or too long)."""
    records, conclusive = read_head_records(path, max_lines=1, max_bytes=HEAD_BYTES)
    if not records:
        return None, conclusive
    return header_from_record(records[0]), True


def cached_header(ctx: HarnessContext, path: str, problems: list[str] | None = None) -> Header | None:
    """Line 1 of *path*, cached once read conclusively (it never changes after that); a file
    that cannot be read is named in *problems*."""
    return cached_head(ctx.cache, f"header:{path}", path, read_header, problems=problems)


def discover_sessions(ctx: HarnessContext) -> Discovery:
    """Every session file in the store, one per session id (the newest file wins)."""
    root = locations.root(ctx)
    where = describe(root.path, origin=root.origin)
    problems: list[str] = []
    best: dict[str, tuple[int, str, datetime, int]] = {}
    if where.status == "present":
        files: set[Path] = set()
        for pattern in locations.PATTERNS:
            found, trouble = glob_files(root.path, pattern)
            files.update(found)
            problems.extend(p for p in trouble if p not in problems)
        for path in sorted(files):
            try:
                st = path.stat()
            except OSError as exc:
                problems.append(unreadable(path, exc))
                continue
            mtime = datetime.fromtimestamp(st.st_mtime, UTC)
            if ctx.in_window(mtime):
                header = cached_header(ctx, str(path), problems)
                if header is None:
                    continue
                sid = header.id
            else:
                sid = stem_id(path)
            known = best.get(sid)
            if known is None or (st.st_mtime_ns, str(path)) > (known[0], known[1]):
                best[sid] = (st.st_mtime_ns, str(path), mtime, st.st_size)
    refs = tuple(
        SessionRef(harness=KEY, session_id=sid, path=p, location=where.path, modified_at=m, fingerprint=f"{size}:{ns}")
        for sid, (ns, p, m, size) in sorted(best.items(), key=lambda item: item[1][1])
    )
    return Discovery(locations=(where,), sessions=refs, problems=tuple(problems))
