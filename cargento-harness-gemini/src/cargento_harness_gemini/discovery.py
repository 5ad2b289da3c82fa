"""Finding Gemini CLI chat files and their full session ids (from line 1, never the name)."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef
from cargento.passmemo import once_per_pass
from cargento.readers import Found, glob_files, head_bytes, loads_record, scan_dir, unreadable

from cargento_harness_gemini import locations
from cargento_harness_gemini.records import Header, header_of

__all__ = ["HEAD_BYTES", "children_of", "discover", "head_of", "parent_file", "read_head", "same_id"]

#: Line 1 is looked for in at most this many bytes.
HEAD_BYTES = 64 * 1024
_NOT_ALNUM = re.compile(r"[^0-9a-z]")


def same_id(folder: str, session_id: str) -> bool:
    """True when a subagent folder name is the (sanitised) id of *session_id*."""
    a = _NOT_ALNUM.sub("", folder.lower())
    return bool(a) and a == _NOT_ALNUM.sub("", session_id.lower())


def head_of(path: Path, ctx: HarnessContext) -> Header | None:
    """The header on line 1 of *path*, or ``None`` when line 1 carries no ``sessionId`` or the
    file cannot be read.

    A verdict is cached per inode; a first line still being written is not judged.
    """
    try:
        return read_head(path, ctx)
    except OSError:
        return None


def read_head(path: Path, ctx: HarnessContext) -> Header | None:
    """:func:`head_of`, raising :class:`OSError` when *path* cannot be read (permission
    denied, not a regular file...) so discovery can name the real cause."""
    st = path.stat()
    key = f"head:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == (st.st_dev, st.st_ino):
        return cached[1]  # type: ignore[no-any-return]
    data = head_bytes(path, HEAD_BYTES)
    newline = data.find(b"\n")
    if newline < 0 and len(data) < HEAD_BYTES:
        record = loads_record(data)
        return header_of(record) if record is not None else None
    record = loads_record(data[:newline] if newline >= 0 else data)
    header = header_of(record) if record is not None else None
    ctx.cache.set(key, ((st.st_dev, st.st_ino), header))
    return header


def _stamp(path: Path) -> tuple[str, float] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}", st.st_mtime


def _jsonl(folder: Path) -> list[Path]:
    return [Path(f.path) for f in scan_dir(folder, files="*.jsonl").files]


def _folders(chats: Path, ctx: HarnessContext) -> tuple[Found, ...]:
    """The folders in *chats*, listed once per pass (every main session of a project, in
    discovery and again in ``usage``, looks in the same folder for its subagents' folders)."""
    return once_per_pass(ctx, f"pass:folders:{chats}", lambda: scan_dir(chats, dirs=lambda _: True).dirs)


def children_of(main: Path, session_id: str, ctx: HarnessContext) -> list[Path]:
    """The subagent recordings of the main session *session_id* stored at *main*."""
    folders = [Path(d.path) for d in _folders(main.parent, ctx) if same_id(d.name, session_id)]
    return [f for folder in sorted(folders) for f in _jsonl(folder)]


def parent_file(child: Path, ctx: HarnessContext) -> tuple[Path, str] | None:
    """The main chat file (and its full id) a subagent recording's folder names."""
    folder = child.parent.name
    for path in (Path(f.path) for f in scan_dir(child.parent.parent, files="session-*.jsonl").files):
        header = head_of(path, ctx)
        if header is not None and header.kind != "subagent" and same_id(folder, header.session_id):
            return path, header.session_id
    return None


def discover(ctx: HarnessContext, key: str) -> Discovery:
    """Every main chat and subagent recording, with a stat-based freshness and fingerprint."""
    root = locations.root(ctx)
    where = describe(root.path, role="sessions", origin=root.origin)
    if where.status != "present":
        return Discovery(locations=(where,))
    problems: list[str] = []
    refs: dict[str, SessionRef] = {}
    mains: dict[Path, str] = {}
    main_files, trouble = glob_files(root.path, locations.MAIN_PATTERN)
    problems.extend(trouble)
    for path in main_files:
        try:
            header = read_head(path, ctx)
        except OSError as exc:
            problems.append(unreadable(path, exc))
            continue
        if header is None:
            problems.append(f"{path.name}: line 1 carries no sessionId; skipped")
            continue
        if header.kind == "subagent":
            continue
        mains[path] = header.session_id
    for path, ident in mains.items():
        files = [path, *children_of(path, ident, ctx)]
        stamps = [s for s in (_stamp(f) for f in files) if s is not None]
        if not stamps or _stamp(path) is None:
            continue
        _add(
            refs,
            SessionRef(
                harness=key,
                session_id=ident,
                path=str(path),
                location=where.path,
                modified_at=datetime.fromtimestamp(max(s[1] for s in stamps), UTC),
                fingerprint="|".join(s[0] for s in stamps),
            ),
        )
    child_files, trouble = glob_files(root.path, locations.SUBAGENT_PATTERN)
    problems.extend(p for p in trouble if p not in problems)
    for path in child_files:
        try:
            header = read_head(path, ctx)
        except OSError as exc:
            problems.append(unreadable(path, exc))
            continue
        if header is None:
            problems.append(f"{path.parent.name}/{path.name}: line 1 carries no sessionId; skipped")
            continue
        own = _stamp(path)
        if own is None:
            continue
        parent = parent_file(path, ctx)
        parent_stamp = _stamp(parent[0]) if parent else None
        _add(
            refs,
            SessionRef(
                harness=key,
                session_id=header.session_id,
                path=str(path),
                location=where.path,
                modified_at=datetime.fromtimestamp(own[1], UTC),
                fingerprint=own[0] + ("|" + parent_stamp[0] if parent_stamp else ""),
            ),
        )
    return Discovery(locations=(where,), sessions=tuple(refs.values()), problems=tuple(problems))


def _add(refs: dict[str, SessionRef], ref: SessionRef) -> None:
    prior = refs.get(ref.session_id)
    if prior is None or (prior.modified_at and ref.modified_at and ref.modified_at > prior.modified_at):
        refs[ref.session_id] = ref


def is_subagent_file(path: Path) -> bool:
    """True for a recording inside a parent session's folder."""
    return path.parent.name != "chats" and os.path.basename(path.parent.parent) == "chats"
