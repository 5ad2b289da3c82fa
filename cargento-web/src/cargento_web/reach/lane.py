"""The reach lane: which raises become a nudge, and the thread that posts them.

It hears every raise that passed the shared precision rules (confirmed, once per transition,
not about a session a visible tab shows, not in quiet hours unless a question) through
:meth:`cargento_web.runtime.alerts.Alerts.listen`, and posts one only while you are away from
the desk: no dashboard tab has been visible for :attr:`ReachPolicy.away_after`. Bounded: each
post has a timeout and is retried at most once (only when nothing answered, or the answer was
a server error); a session is nudged at most once per :attr:`ReachPolicy.cooldown`; at most
:attr:`ReachPolicy.daily_cap` nudges go out per local day, counted from the deliveries record
so a restart does not reset it. Every attempt that was decided on is recorded in the
deliveries store like a desktop raise (backend ``reach-ntfy`` or ``reach-webhook``), with its
outcome; a nudge skipped because you were at the desk or a limit was spent is counted and
noted with its reason beside the raises the precision rules skipped (the session page's "Not
sent as it arose"), never recorded as a delivery (nothing was posted).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

import attrs
from cargento.sharedmethods import shared_methods

from cargento_web.reach.target import ReachTarget
from cargento_web.runtime.alerts import Pending
from cargento_web.runtime.delivery import DeliveryWorker
from cargento_web.runtime.notifiers import Sent
from cargento_web.runtime.presence import Presence
from cargento_web.runtime.stores import DeliveriesStore, Delivery

if TYPE_CHECKING:
    from cargento_web.reach.nudge import Nudge

__all__ = ["ReachLane", "ReachPolicy"]

#: Outcomes worth one more try: nothing answered, or the far end failed.
_RETRYABLE = ("could-not-start", "timed-out")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ReachPolicy:
    away_after: timedelta = timedelta(minutes=5)
    cooldown: timedelta = timedelta(minutes=10)
    daily_cap: int = 20
    timeout_s: float = 5.0
    retry_after_s: float = 2.0


#: ``(harness, session_id) -> (harness label, session title)`` from the newest board, or None.
Namer = Callable[[str, str], tuple[str, str] | None]
#: ``note(item, now, rule, words)``: remember why a nudge was not posted (the alerts' record).
Note = Callable[[Pending, datetime, str, str], object]


class ReachLane:
    def __init__(
        self,
        target: ReachTarget,
        deliveries: DeliveriesStore,
        presence: Presence,
        namer: Namer,
        *,
        clock: Callable[[], datetime],
        policy: ReachPolicy | None = None,
        zone: tzinfo | None = None,
        sleep: Callable[[float], object] | None = None,
        note: Note | None = None,
    ) -> None:
        self.target = target
        self.deliveries = deliveries
        self.presence = presence
        self.namer = namer
        self.clock = clock
        self.policy = policy or ReachPolicy()
        self.zone = zone
        self._sleep = sleep or threading.Event().wait
        self._note = note
        self._lock = threading.Lock()
        self._last: dict[tuple[str, str], datetime] = {}
        self._day: date | None = None
        self._today = 0
        #: Nudges not posted, by reason (at the desk, cooldown, the daily cap).
        self.skipped: dict[str, int] = {"present": 0, "cooldown": 0, "cap": 0}
        self._worker: DeliveryWorker[tuple[Delivery, Nudge]] = DeliveryWorker(
            name="cargento-reach", deliver=self._deliver, record=deliveries.add, maxsize=64, close_timeout_s=15
        )

    @property
    def backend(self) -> str:
        return f"reach-{self.target.shape}"

    def sent_today(self, now: datetime) -> int:
        """Nudges decided on this local day: read from the deliveries record when the day is
        new to this run (so a restart keeps the count), counted in memory after that."""
        day = now.astimezone(self.zone).date()
        with self._lock:
            if self._day != day:
                self._day = day
                self._today = sum(
                    1
                    for d in self.deliveries.all()
                    if d.backend.startswith("reach-") and d.raised_at.astimezone(self.zone).date() == day
                )
            return self._today

    def on_raise(self, item: Pending, now: datetime) -> str:
        """Decide on one raise; returns ``queued``, ``present``, ``cooldown`` or ``cap``."""
        key = (item.harness, item.session_id)
        away = self.presence.away_for(now)
        if away < self.policy.away_after:
            seen = (
                "a dashboard tab is visible"
                if away <= timedelta(0)
                else f"a dashboard tab was visible {_span(away)} before"
            )
            return self._skip(
                "present",
                item,
                now,
                f"reach nudge not posted: {seen} (away means {_span(self.policy.away_after)} with none)",
            )
        with self._lock:
            last = self._last.get(key)
        if last is not None and now - last < self.policy.cooldown:
            return self._skip(
                "cooldown",
                item,
                now,
                f"reach nudge not posted: this session was nudged {_span(now - last)} before "
                f"(at most one every {_span(self.policy.cooldown)})",
            )
        if self.sent_today(now) >= self.policy.daily_cap:
            return self._skip(
                "cap", item, now, f"reach nudge not posted: the cap of {self.policy.daily_cap} a day is spent"
            )
        named = self.namer(item.harness, item.session_id)
        label, title = named if named is not None else (item.harness, item.session_id[:8])
        # A nudge's wording and encoding are imported by the first nudge, not at start.
        from cargento_web.reach.nudge import compose

        nudge = compose(item.kind, label, title)
        delivery = Delivery(
            harness=item.harness,
            session_id=item.session_id,
            kind=item.kind,
            raised_at=now,
            outcome="could-not-start",
            backend=self.backend,
            title=nudge.title,
        )
        with self._lock:
            self._last[key] = now
            self._today += 1
        self._worker.submit(
            (delivery, nudge), if_full=attrs.evolve(delivery, detail="the nudge queue is full", completed_at=now)
        )
        return "queued"

    def _skip(self, reason: str, item: Pending, now: datetime, words: str) -> str:
        with self._lock:
            self.skipped[reason] += 1
        if self._note is not None:
            self._note(item, now, f"reach-{reason}", words)
        return reason

    def _deliver(self, job: tuple[Delivery, Nudge]) -> Delivery:
        from cargento_web.reach.nudge import encode

        delivery, nudge = job
        body, headers = encode(self.target, nudge)
        sent = self._post(body, headers)
        attempts = 1
        if sent.outcome in _RETRYABLE or _server_error(sent):
            self._sleep(self.policy.retry_after_s)
            sent = self._post(body, headers)
            attempts = 2
        detail = sent.detail if attempts == 1 else f"{sent.detail} (after one retry)"
        return attrs.evolve(delivery, outcome=sent.outcome, detail=detail, completed_at=self.clock())

    def _post(self, body: bytes, headers: dict[str, str]) -> Sent:
        # urllib.request (5 ms of a start) is imported by the first nudge, not at start.
        from cargento_web.reach.post import post_once

        try:
            return post_once(self.target.url, body, headers, self.policy.timeout_s)
        except Exception as exc:  # the lane's thread must survive anything
            return Sent(outcome="could-not-start", detail=f"{type(exc).__name__}: {exc}")

    def drain(self, timeout_s: float = 30.0) -> bool:
        return self._worker.drain(timeout_s)

    def close(self) -> None:
        self._worker.close()


def _span(span: timedelta) -> str:
    seconds = max(0, round(span.total_seconds()))
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{round(minutes / 60)} h"


def _server_error(sent: Sent) -> bool:
    detail = sent.detail or ""
    return sent.outcome == "service-error" and detail.startswith("the webhook answered 5")
