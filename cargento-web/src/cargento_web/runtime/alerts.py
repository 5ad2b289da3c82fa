"""When to raise a desktop notification, and the thread that hands it over.

Gate alerts (a session's transition into Needs input) have a 60-second per-session cooldown
and a 15-second lane-wide floor; an idle nudge shares that floor and has its own 60-second
per-session cooldown (so a nudge never silences the real gate that follows it); questions
keep their own 15-second floor. Subagent sessions never pop. An alert the floor holds back waits (it is raised once
the floor has passed, if its session still wants it) rather than being lost. A raise on a
platform with no backend records ``no-backend`` and spends no cooldown, so the next real
transition is still eligible. Every raise gets one entry in the deliveries store, completed
by the delivery thread with the outcome the backend reported.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

import attrs
from cargento.redact import redact

from cargento_web.runtime.notifiers import Notifier, Sent
from cargento_web.runtime.stores import DeliveriesStore, Delivery

__all__ = ["Alerts", "Pending"]

GATE_COOLDOWN = timedelta(seconds=60)
GATE_FLOOR = timedelta(seconds=15)
QUESTION_FLOOR = timedelta(seconds=15)
#: A held-back alert older than this is dropped (its moment has passed).
PENDING_LIFE = timedelta(seconds=60)


@attrs.frozen(kw_only=True)
class Pending:
    """An alert considered for raising; its texts are redacted as it is made, so no
    notification, delivery record or retry can carry a credential-shaped value."""

    harness: str
    session_id: str
    kind: str
    title: str = attrs.field(converter=redact)
    body: str = attrs.field(converter=redact)
    first_at: datetime


class Alerts:
    """The alert policy over one :class:`Notifier`; thread-safe.

    *clock* is only used to stamp a delivery's completion; decisions take ``now``.
    """

    def __init__(
        self,
        notifier: Notifier,
        deliveries: DeliveriesStore,
        *,
        clock: Callable[[], datetime],
        enabled: bool = True,
    ) -> None:
        self.notifier = notifier
        self.deliveries = deliveries
        self.clock = clock
        self.enabled = enabled
        self._lock = threading.Lock()
        self._session_last: dict[tuple[str, str, str], datetime] = {}
        self._gate_last: datetime | None = None
        self._question_last: datetime | None = None
        self._pending: dict[tuple[str, str, str], Pending] = {}
        self._tab_lane_at: datetime | None = None
        self._queue: queue.Queue[tuple[Delivery, str, str] | None] = queue.Queue(maxsize=256)
        self._worker: threading.Thread | None = None
        self._inflight = 0
        self._idle = threading.Condition(self._lock)

    # -- inputs ---------------------------------------------------------------------------

    def report_tab_lane(self, now: datetime) -> None:
        """A dashboard tab reported a notification lane of its own (browser notifications)."""
        with self._lock:
            self._tab_lane_at = now

    def gate(self, harness: str, session_id: str, title: str, body: str, now: datetime, *, kind: str = "gate") -> str:
        """Consider a gate alert (``kind`` ``gate`` or ``idle``). Returns what was decided:
        ``raised``, ``no-backend``, ``cooldown``, ``held`` (floor) or ``off``."""
        return self._consider(
            Pending(harness=harness, session_id=session_id, kind=kind, title=title, body=body, first_at=now), now
        )

    def question(self, harness: str, session_id: str, title: str, body: str, now: datetime) -> str:
        """Consider a question alert (its own 15-second floor, no per-session cooldown)."""
        return self._consider(
            Pending(harness=harness, session_id=session_id, kind="question", title=title, body=body, first_at=now), now
        )

    def retry(self, now: datetime, still_wanted: Callable[[Pending], bool]) -> list[str]:
        """Raise held-back alerts whose floor has passed and that are still wanted."""
        with self._lock:
            pending = list(self._pending.values())
        decided = []
        for item in pending:
            key = (item.harness, item.session_id, item.kind)
            if now - item.first_at > PENDING_LIFE or not still_wanted(item):
                with self._lock:
                    self._pending.pop(key, None)
                continue
            decided.append(self._consider(item, now))
        return decided

    def forget(self, harness: str, session_id: str) -> None:
        """Drop a held-back alert of a session whose wait ended."""
        with self._lock:
            for key in [k for k in self._pending if k[0] == harness and k[1] == session_id]:
                del self._pending[key]

    # -- the decision ---------------------------------------------------------------------

    def _consider(self, item: Pending, now: datetime) -> str:
        key = (item.harness, item.session_id, item.kind)
        with self._lock:
            if not self.enabled:
                return "off"
            question = item.kind == "question"
            if not question:
                last = self._session_last.get(key)
                if last is not None and now - last < GATE_COOLDOWN:
                    self._pending.pop(key, None)
                    return "cooldown"
            floor_last = self._question_last if question else self._gate_last
            floor = QUESTION_FLOOR if question else GATE_FLOOR
            if floor_last is not None and now - floor_last < floor:
                self._pending.setdefault(key, item)
                return "held"
            self._pending.pop(key, None)
            tab_at = self._tab_lane_at
            delivery = Delivery(
                harness=item.harness,
                session_id=item.session_id,
                kind=item.kind,
                raised_at=now,
                outcome="no-backend",
                backend=self.notifier.name,
                title=item.title,
                tab_lane_reported_at=tab_at,
                tab_lane_before_s=round((now - tab_at).total_seconds(), 1)
                if tab_at is not None and tab_at <= now
                else None,
            )
            if not self.notifier.available:
                # No backend: recorded as such, and no cooldown is spent.
                no_backend = attrs.evolve(delivery, detail=self.notifier.detail, completed_at=now)
            else:
                no_backend = None
                if question:
                    self._question_last = now
                else:
                    self._gate_last = now
                    self._session_last[key] = now
                self._inflight += 1
        if no_backend is not None:
            if no_backend.session_id:
                self.deliveries.add(no_backend)
            return "no-backend"
        self._ensure_worker()
        try:
            self._queue.put_nowait((delivery, item.title, item.body))
        except queue.Full:
            self._finish(attrs.evolve(delivery, outcome="could-not-start", detail="the delivery queue is full"))
        return "raised"

    # -- delivery -------------------------------------------------------------------------

    def _ensure_worker(self) -> None:
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(target=self._run, name="cargento-notify", daemon=True)
            self._worker.start()

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            delivery, title, body = job
            try:
                sent = self.notifier.send(title, body)
            except Exception as exc:  # a backend must never kill the thread
                sent = Sent(outcome="could-not-start", detail=f"{type(exc).__name__}: {exc}")
            self._finish(attrs.evolve(delivery, outcome=sent.outcome, detail=sent.detail, completed_at=self.clock()))

    def _finish(self, delivery: Delivery) -> None:
        try:
            # The record is keyed by session: a raise about no session (an unattributed
            # question) is delivered but records nothing.
            if delivery.session_id:
                self.deliveries.add(delivery)
        finally:
            with self._lock:
                self._inflight -= 1
                self._idle.notify_all()

    def drain(self, timeout_s: float = 5.0) -> bool:
        """Wait until every raised alert has an outcome recorded (tests, shutdown)."""
        with self._lock:
            return self._idle.wait_for(lambda: self._inflight == 0, timeout=timeout_s)

    def close(self) -> None:
        """Stop the delivery thread after the alerts already queued."""
        with self._lock:
            worker = self._worker
        if worker is not None and worker.is_alive():
            self._queue.put(None)
            worker.join(timeout=10)

    @property
    def pending(self) -> tuple[Pending, ...]:
        with self._lock:
            return tuple(self._pending.values())
