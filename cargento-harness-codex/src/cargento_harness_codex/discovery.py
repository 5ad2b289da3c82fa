"""Finding rollouts: one session per id (the newest file wins), with its parent thread."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef
from cargento.readers import cached_head, glob_files, unreadable
from cargento.sharedmethods import shared_methods

from cargento_harness_codex import locations
from cargento_harness_codex.meta import RolloutMeta, read_meta, stem_id

__all__ = ["TREE_KEY", "Found", "cached_meta", "descendants", "discover_rollouts"]

KEY = "codex"
#: Cache key of the id -> (path, parent id) map of the newest discovery.
TREE_KEY = "tree"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Found:
    """One rollout file that survived de-duplication."""

    path: str
    meta: RolloutMeta
    mtime: datetime
    size: int
    mtime_ns: int


def cached_meta(ctx: HarnessContext, path: str, problems: list[str] | None = None) -> RolloutMeta | None:
    """Line 1 of *path*, cached once it was read conclusively (it never changes after that);
    a file that cannot be read is named in *problems*."""
    return cached_head(ctx.cache, f"meta:{path}", path, read_meta, problems=problems)


def _rollout_files(sessions: Path, problems: list[str]) -> list[Path]:
    """Every rollout file; a link loop, a pipe or an unlistable folder is named in *problems*."""
    out: list[Path] = []
    for pattern in locations.PATTERNS:
        found, trouble = glob_files(sessions, pattern)
        out.extend(found)
        problems.extend(trouble)
    return sorted(set(out))


def discover_rollouts(ctx: HarnessContext) -> tuple[Discovery, dict[str, Found]]:
    """Every rollout under the sessions directory, de-duplicated to the newest file per id.

    Files older than the display window are listed under their file-name id without reading
    them (core leaves them unread); the rest are identified from line 1.
    """
    root = locations.root(ctx)
    sessions = root.path / locations.SESSIONS
    where = describe(sessions, origin=root.origin)
    problems: list[str] = []
    best: dict[str, Found] = {}
    if where.status == "present":
        for path in _rollout_files(sessions, problems):
            try:
                st = path.stat()
            except OSError as exc:
                problems.append(unreadable(path, exc))
                continue
            mtime = datetime.fromtimestamp(st.st_mtime, UTC)
            text = str(path)
            if ctx.in_window(mtime):
                meta = cached_meta(ctx, text, problems)
                if meta is None:
                    continue
            else:
                meta = RolloutMeta(id=stem_id(path))
            found = Found(path=text, meta=meta, mtime=mtime, size=st.st_size, mtime_ns=st.st_mtime_ns)
            known = best.get(meta.id)
            if known is None or (found.mtime_ns, found.path) > (known.mtime_ns, known.path):
                best[meta.id] = found
    ctx.cache.set(TREE_KEY, {sid: (f.path, f.meta.parent_id) for sid, f in best.items()})
    refs = tuple(
        SessionRef(
            harness=KEY,
            session_id=sid,
            path=f.path,
            location=where.path,
            modified_at=f.mtime,
            fingerprint=f"{f.size}:{f.mtime_ns}",
        )
        for sid, f in sorted(best.items(), key=lambda item: item[1].path)
    )
    return Discovery(locations=(where,), sessions=refs, problems=tuple(problems)), best


def descendants(ctx: HarnessContext, session_id: str, limit: int = 256) -> list[str]:
    """Paths of every subagent thread below *session_id*, at any depth, from the last discovery."""
    tree = ctx.cache.get(TREE_KEY)
    if not isinstance(tree, dict):
        return []
    children: dict[str, list[str]] = {}
    for sid, (_path, parent) in tree.items():
        if parent:
            children.setdefault(parent, []).append(sid)
    out: list[str] = []
    queue = list(children.get(session_id, []))
    seen = {session_id}
    while queue and len(out) < limit:
        sid = queue.pop(0)
        if sid in seen:
            continue
        seen.add(sid)
        out.append(tree[sid][0])
        queue.extend(children.get(sid, []))
    return out
