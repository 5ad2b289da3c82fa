"""Finding Copilot CLI sessions with ``stat`` calls: one ``session-state/<uuid>/`` folder each."""

from __future__ import annotations

from datetime import UTC, datetime

from cargento import Discovery, HarnessContext, SessionRef
from cargento.locations import describe

from cargento_harness_copilot import locations
from cargento_harness_copilot import mapping as sessions

__all__ = ["KEY", "discover"]

KEY = "copilot"


def discover(ctx: HarnessContext) -> Discovery:
    root = locations.root(ctx)
    where = describe(root.path, origin=root.origin)
    ledger_file = locations.ledger_path(root.path)
    places = [where]
    if where.status != "present":
        return Discovery(locations=tuple(places))
    places.append(describe(ledger_file, role="database", origin=root.origin))
    found, problems = locations.find_sessions(root.path)
    refs = [
        SessionRef(
            harness=KEY,
            session_id=files.session_id,
            path=str(files.events),
            location=str(root.path),
            modified_at=datetime.fromtimestamp(files.mtime_ns / 1e9, UTC),
            fingerprint=sessions.fingerprint(files, ledger_file, ctx),
        )
        for files in found
    ]
    return Discovery(locations=tuple(places), sessions=tuple(refs), problems=tuple(problems))
