"""Which dashboard tabs are in front of someone, as the tabs themselves report it.

Each page reports, on load, on every visibility change and every :data:`HEARTBEAT_S` seconds
while it is visible (``POST /api/presence``), whether it is visible and which session's page
it shows. A tab that stops reporting is forgotten after :data:`TAB_LIFE`, so a closed or
crashed tab never reads as visible for long. Two readings come out:

* :meth:`Presence.showing`: a visible tab shows this session, so a raise about it is not also
  sent (you are looking at it);
* :meth:`Presence.away_for`: how long no tab has been visible, which the reach nudges read as
  "away from the desk". Before any tab ever reported, the whole run counts as away.

A statement about tabs, never about a person: a visible tab on an unattended screen reads as
present. That is the safe side for a nudge (one fewer ping), and the page says so.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["HEARTBEAT_S", "PRESENCE_BODY_LIMIT", "TAB_LIFE", "TAB_LIMIT", "Presence", "TabReport", "parse_report"]

#: How often a visible page reports again.
HEARTBEAT_S = 15
#: A tab silent this long is forgotten (closed, crashed, or its machine asleep).
TAB_LIFE = timedelta(seconds=45)
#: Tabs remembered at most (the oldest reports go first).
TAB_LIMIT = 64
#: Largest ``POST /api/presence`` body.
PRESENCE_BODY_LIMIT = 1024
_TAB = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}$")
_HARNESS = re.compile(r"^[a-z][a-z0-9-]{1,31}$")


def parse_report(body: Mapping[str, Any]) -> tuple[str, bool, tuple[str, str] | None]:
    """``{"tab": id, "visible": bool, "session": {"harness", "session_id"} | null}`` read;
    :class:`ValueError` names what is wrong."""
    tab, visible, session = body.get("tab"), body.get("visible"), body.get("session")
    if not isinstance(tab, str) or not _TAB.match(tab):
        raise ValueError("tab must be 8 to 64 letters, digits, - or _")
    if not isinstance(visible, bool):
        raise ValueError("visible must be true or false")
    if session is None:
        return tab, visible, None
    if not isinstance(session, Mapping):
        raise ValueError("session must be an object with harness and session_id, or null")
    harness, sid = session.get("harness"), session.get("session_id")
    if not isinstance(harness, str) or not _HARNESS.match(harness) or not isinstance(sid, str) or not _ID.match(sid):
        raise ValueError("session must name a harness and a session id")
    return tab, visible, (harness, sid)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TabReport:
    tab: str
    visible: bool
    #: ``(harness, session_id)`` of the session page the tab shows, if it shows one.
    session: tuple[str, str] | None
    at: datetime


class Presence:
    """The tabs' own reports; thread-safe."""

    def __init__(self, started_at: datetime) -> None:
        self.started_at = started_at
        self._lock = threading.Lock()
        self._tabs: dict[str, TabReport] = {}
        self._visible_until: datetime | None = None

    def report(self, tab: str, visible: bool, session: tuple[str, str] | None, now: datetime) -> None:
        with self._lock:
            self._expire(now)
            previous = self._tabs.get(tab)
            if previous is not None and previous.visible and not visible:
                self._visible_until = now
            self._tabs[tab] = TabReport(tab=tab, visible=visible, session=session if visible else None, at=now)
            while len(self._tabs) > TAB_LIMIT:
                oldest = min(self._tabs.values(), key=lambda r: r.at)
                del self._tabs[oldest.tab]
            if visible:
                self._visible_until = now

    def _expire(self, now: datetime) -> None:
        for tab, seen in list(self._tabs.items()):
            if now - seen.at > TAB_LIFE:
                if seen.visible:
                    self._visible_until = max(self._visible_until or seen.at, seen.at)
                del self._tabs[tab]

    def visible_tabs(self, now: datetime) -> tuple[TabReport, ...]:
        with self._lock:
            self._expire(now)
            return tuple(r for r in self._tabs.values() if r.visible)

    def showing(self, harness: str, session_id: str, now: datetime) -> bool:
        """True when a visible tab shows this session's page."""
        return any(r.session == (harness, session_id) for r in self.visible_tabs(now))

    def away_for(self, now: datetime) -> timedelta:
        """How long no dashboard tab has been visible (zero while one is)."""
        if self.visible_tabs(now):
            return timedelta(0)
        with self._lock:
            since = self._visible_until or self.started_at
        return max(now - since, timedelta(0))
