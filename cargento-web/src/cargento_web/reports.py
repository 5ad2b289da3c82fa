"""``GET /api/reports``: every irreversible-command report of this run, for Attention.

The session page reads one session's reports in its record; Attention shows them all, each
named by the session it came from. Reports are what an after-tool hook said ran, never proof
that it succeeded, and the document carries that note beside them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cargento.timestamps import iso

from cargento_web.runtime.record import EVENTS_OFF, reports_doc

__all__ = ["all_reports"]


def all_reports(hub: object | None) -> tuple[int, dict[str, Any]]:
    """The status code and document of ``/api/reports`` over *hub* (the event hub, if any)."""
    reports: Callable[[], tuple[Any, ...]] | None = getattr(hub, "irreversible_reports", None)
    if reports is None:
        return 404, {"error": "no event hub runs in this dashboard, so no command is reported"}
    enabled = bool(getattr(hub, "irreversible_enabled", False))
    found = reports() if enabled else ()
    events = bool(getattr(hub, "events", False))
    doc = reports_doc(found, enabled=enabled, events=events, events_off=str(getattr(hub, "events_off", EVENTS_OFF)))
    doc["reports"] = [
        dict(entry, harness=report.harness, session_id=report.session_id, at=iso(report.at))
        for entry, report in zip(doc["reports"], found, strict=True)
    ]
    return 200, doc
