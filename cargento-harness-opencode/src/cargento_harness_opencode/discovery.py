"""Finding OpenCode sessions: the session rows of every ``opencode*.db`` under the data roots.

A database that cannot be read keeps its last snapshot's sessions (marked stale, so they are
read again) and is named in ``Discovery.problems`` as ``<path>: <cause>``.
"""

from __future__ import annotations

from cargento import Discovery, HarnessContext, SessionRef
from cargento.errors import HarnessError
from cargento.locations import describe
from cargento.timestamps import parse_ts

from cargento_harness_opencode import locations, store

__all__ = ["KEY", "discover"]

KEY = "opencode"


def discover(ctx: HarnessContext) -> Discovery:
    places = []
    refs: list[SessionRef] = []
    problems: list[str] = []
    seen: set[str] = set()
    for root in locations.roots(ctx):
        where = describe(root.path, origin=root.origin)
        places.append(where)
        if where.status != "present":
            continue
        found = locations.databases(root.path)
        problems.extend(found.problems)
        for path in found.skipped:
            places.append(describe(path, role="database", origin=root.origin))
        for path in found.readable:
            places.append(describe(path, role="database", origin=root.origin))
            try:
                snap = store.snapshot(path, ctx)
            except HarnessError as exc:
                problems.append(store.problem(path, exc))
                snap = ctx.cache.get(f"snapshot:{path}")
                if snap is None:
                    continue
                stale = True
            else:
                stale = False
            for row in snap.rows.values():
                if row.id in seen:
                    continue
                seen.add(row.id)
                children = ":".join(f"{c.id}={c.stamps}" for c in snap.rows.values() if c.parent_id == row.id)
                refs.append(
                    SessionRef(
                        harness=KEY,
                        session_id=row.id,
                        path=str(path),
                        location=str(root.path),
                        modified_at=parse_ts(row.newest_ms) if row.newest_ms else row.updated_at,
                        fingerprint=None if stale else f"{row.stamps}|{children}",
                    )
                )
    return Discovery(locations=tuple(places), sessions=tuple(refs), problems=tuple(problems))
