"""The Codex harness plugin: thin hook implementations over this package's modules."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from cargento import Discovery, HarnessContext, HarnessInfo, SessionReading, SessionRef, hookimpl
from cargento.locations import describe

from cargento_harness_codex import locations

KEY = "codex"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label='Codex',
        turn_end_observable=True,
        reports_waits=True,
        wait_coverage='Waits are reported only by the bundled PermissionRequest hook, once approved in Codex; the row cannot say which tool.',
        resumable=True,
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    root = locations.root(ctx)
    where = describe(root.path, origin=root.origin)
    refs = []
    if where.status == "present":
        for pattern in locations.PATTERNS:
            for path in sorted(root.path.glob(pattern)):
                try:
                    mtime = datetime.fromtimestamp(os.stat(path).st_mtime, UTC)
                except OSError:
                    continue
                refs.append(
                    SessionRef(harness=KEY, session_id=path.stem, path=str(path), location=where.path, modified_at=mtime)
                )
    return Discovery(locations=(where,), sessions=tuple(refs))


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    return SessionReading(ref=ref, last_active_at=ref.modified_at)
