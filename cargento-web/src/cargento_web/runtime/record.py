"""One session's record, as its page prints it: what became of each raise about it, the
irreversible command shapes its hooks reported, and the turn-ended and session-ended marks.

The words are the specification's. A hand-over says the notification service accepted the
request and nothing about whether a banner was drawn or anyone was at the desk; a raise with no
backend says nothing was sent and no cooldown was spent; the tab-lane line is a statement
about a dashboard tab, not about the raise, so its absence never means the alert missed you.
Irreversible-command reports are what a hook said ran, not proof that it succeeded.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from cargento.timestamps import iso

from cargento_web.runtime.alerts import Skipped
from cargento_web.runtime.reports import Report
from cargento_web.runtime.stores import Delivery, End

__all__ = [
    "KIND_WORDS",
    "OUTCOME_WORDS",
    "REACH_OUTCOME_WORDS",
    "SHAPE_WORDS",
    "delivery_doc",
    "lead_words",
    "marks_doc",
    "reports_doc",
    "skip_doc",
    "tab_lane_words",
]

#: The five outcomes of a raise, worded as the specification words them. None is "seen".
OUTCOME_WORDS: dict[str, str] = {
    "handed-over": (
        "handed to this machine's notification service: it accepted the request, which says nothing "
        "about whether a banner was drawn or anyone saw it"
    ),
    "service-error": "the notification service returned an error",
    "could-not-start": "the notification command could not be started at all",
    "timed-out": "the call to the notification service did not return inside its time limit",
    "no-backend": "this platform has no notification backend in this build: nothing was sent, and no cooldown was spent",
}
KIND_WORDS: dict[str, str] = {
    "gate": "started waiting on you",
    "idle": "idle nudge",
    "question": "question",
    "finished": "finished its turn",
    "tripwire": "workflow stage condition tripped",
}
#: A reach nudge's outcomes (backend ``reach-ntfy`` / ``reach-webhook``): about the webhook,
#: never about a phone or a person.
REACH_OUTCOME_WORDS: dict[str, str] = {
    "handed-over": (
        "posted to the reach webhook, which accepted it: that says nothing about whether a phone showed it "
        "or anyone read it"
    ),
    "service-error": "the reach webhook answered with an error",
    "could-not-start": "the reach webhook could not be reached at all",
    "timed-out": "the reach webhook did not answer inside its time limit",
}
SHAPE_WORDS: dict[str, str] = {
    "force-push": "force push",
    "hard-reset": "hard reset",
    "drop-table": "DROP TABLE",
    "recursive-delete": "recursive delete",
}
#: Said under every delivery list: the outcomes are about the service, never about a person.
DELIVERIES_NOTE = (
    "Outcomes report what the notification service did with the request, never that a person saw a banner."
)
#: Said with every list of reports.
REPORTS_NOTE = (
    "Reports of what an after-tool hook said ran, not proof that it succeeded; a missing hook and an "
    "unmatched command look the same. Kept in memory for this run only: newest 20 per session, 24 hours."
)


def lead_words(seconds: float) -> str:
    """A short span: ``"42 s"``, ``"3 min"``, ``"2 h 5 min"``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    hours, minutes = divmod(s // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def tab_lane_words(delivery: Delivery) -> str:
    """Whether a dashboard tab had reported its own notification lane, and how long before."""
    if delivery.tab_lane_reported_at is None:
        return (
            "no dashboard tab had reported a notification lane of its own before this raise "
            "(a statement about tabs: it never means the alert missed you)"
        )
    if delivery.tab_lane_before_s is None:
        return "a dashboard tab had reported its own notification lane, at a time the raise cannot be placed against"
    return f"a dashboard tab had reported its own notification lane {lead_words(delivery.tab_lane_before_s)} before this raise"


def delivery_doc(delivery: Delivery) -> dict[str, Any]:
    """One raise, with its outcome and tab-lane line worded."""
    outcome = delivery.outcome
    reach = delivery.backend.startswith("reach-")
    words = (REACH_OUTCOME_WORDS if reach else OUTCOME_WORDS).get(outcome)
    return {
        "lane": "reach" if reach else "desktop",
        "kind": delivery.kind,
        "kind_words": KIND_WORDS.get(delivery.kind, delivery.kind),
        "title": delivery.title,
        "raised_at": iso(delivery.raised_at),
        "completed_at": iso(delivery.completed_at),
        "outcome": outcome,
        "outcome_words": words or f"recorded as {outcome!r}, an outcome this version does not know",
        "backend": delivery.backend,
        "detail": delivery.detail,
        "tab_lane": {
            "reported": delivery.tab_lane_reported_at is not None,
            "reported_at": iso(delivery.tab_lane_reported_at),
            "before_s": delivery.tab_lane_before_s,
            "words": tab_lane_words(delivery),
        },
    }


def skip_doc(skip: Skipped) -> dict[str, Any]:
    """One raise a precision rule did not send as it arose (skipped, held, released, dropped)."""
    return {
        "kind": skip.kind,
        "kind_words": KIND_WORDS.get(skip.kind, skip.kind),
        "at": iso(skip.at),
        "rule": skip.rule,
        "words": skip.words,
    }


#: Why lifecycle events are off under ``--no-events`` (a replay says its own reason).
EVENTS_OFF = "lifecycle events are off for this run (--no-events)"
#: ... and in a replay (``--as-of``): a past moment takes no live events.
EVENTS_OFF_REPLAY = "a replay (--as-of) takes no live lifecycle events"


def reports_doc(
    reports: Iterable[Report], *, enabled: bool, events: bool, events_off: str = EVENTS_OFF
) -> dict[str, Any]:
    """The irreversible-command reports of one session, newest first, or why there are none."""
    if not enabled:
        reason = (
            f"{events_off}, and with them irreversible-command reports"
            if not events
            else "irreversible-command reports are off for this run (--no-irreversible)"
        )
        return {"enabled": False, "reason": reason, "note": REPORTS_NOTE, "reports": []}
    return {
        "enabled": True,
        "reason": None,
        "note": REPORTS_NOTE,
        "reports": [
            {
                "at": iso(r.at),
                "shape": r.shape,
                "shape_words": SHAPE_WORDS.get(r.shape, r.shape),
                "command": r.command,
                "tool": r.tool,
            }
            for r in reports
        ],
    }


def marks_doc(
    *, events: bool, turn_ended_at: datetime | None, end: End | None, events_off: str = EVENTS_OFF
) -> dict[str, Any]:
    """The two marks that outlive a session's overlays: its turn ended, the session ended."""
    if not events:
        return {
            "enabled": False,
            "reason": f"{events_off}: no turn-end or session-end mark is kept",
            "turn_ended_at": None,
            "session_ended": None,
        }
    return {
        "enabled": True,
        "reason": None,
        "turn_ended_at": iso(turn_ended_at),
        "session_ended": None if end is None else {"at": iso(end.at), "reason": end.reason},
    }
