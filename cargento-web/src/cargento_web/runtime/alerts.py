"""When to raise a notification, and the thread that hands a desktop one over.

Precision first, for every lane (the desktop here, the reach nudges through
:meth:`Alerts.listen`): a gate raises only once it is *confirmed*, still standing
:data:`CONFIRM` after it opened (an approval answered in a second raises nothing); a finished
turn (``finished``, a session's own turn stop) is confirmed the same way, so a turn followed
at once by the next prompt raises nothing; a question raises on arrival, and so does an idle
nudge (the harness already waited before sending it). A raise about a session a visible
dashboard tab shows is not sent (:class:`~cargento_web.runtime.presence.Presence`), and
during quiet hours every raise but a question is held (dropped, and counted). Only then do
the listeners hear of it, and the desktop lane applies its own limits below. ``finished`` is
a listener's kind alone: the desktop raises gates, idle nudges and questions.

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

import threading
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo

import attrs
from cargento.quiethours import QuietWindow
from cargento.redact import redact

from cargento_web.runtime.delivery import DeliveryWorker
from cargento_web.runtime.notifiers import Notifier, Sent
from cargento_web.runtime.presence import Presence
from cargento_web.runtime.stores import DeliveriesStore, Delivery

__all__ = ["CONFIRM", "Alerts", "Pending", "RaiseListener"]

GATE_COOLDOWN = timedelta(seconds=60)
GATE_FLOOR = timedelta(seconds=15)
QUESTION_FLOOR = timedelta(seconds=15)
#: A held-back alert older than this is dropped (its moment has passed).
PENDING_LIFE = timedelta(seconds=60)
#: How long a gate (or a finished turn) must still stand before anything is raised about it.
CONFIRM = timedelta(seconds=5)
#: Kinds that wait for confirmation; the others raise on arrival.
CONFIRMED_KINDS = frozenset({"gate", "finished"})
#: Kinds the desktop lane raises (``finished`` goes to listeners only; ``departure`` is a
#: departure an unasked drift check raised while you were away; ``tripwire`` a workflow stage
#: condition that tripped).
DESKTOP_KINDS = frozenset({"gate", "idle", "question", "departure", "tripwire"})


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
    #: The listeners have heard of it (a floor that holds it back must not tell them twice).
    announced: bool = False


#: Told of every raise that passed the precision rules: ``listener(item, now)``.
RaiseListener = Callable[[Pending, datetime], object]


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
        quiet: QuietWindow | None = None,
        zone: tzinfo | None = None,
        presence: Presence | None = None,
        confirm: timedelta = CONFIRM,
    ) -> None:
        self.notifier = notifier
        self.deliveries = deliveries
        self.clock = clock
        self.enabled = enabled
        #: Quiet hours of this run (``None``: none configured, or ``--no-quiet-hours``).
        self.quiet = quiet
        #: The zone quiet hours are read in (this machine's when ``None``; tests inject one).
        self.zone = zone
        self.presence = presence
        self.confirm = confirm
        #: Raises each precision rule held back this run, by rule.
        self.withheld: dict[str, int] = {"unconfirmed": 0, "in-view": 0, "quiet": 0}
        self._listeners: list[RaiseListener] = []
        self._lock = threading.Lock()
        self._session_last: dict[tuple[str, str, str], datetime] = {}
        self._gate_last: datetime | None = None
        self._question_last: datetime | None = None
        self._pending: dict[tuple[str, str, str], Pending] = {}
        #: Called (under the lock; it must not block) whenever a raise is held back, so the
        #: live board's judging timer runs only while something is held.
        self.on_hold: Callable[[], None] | None = None
        #: Transitions already raised and not yet ended (a gate, a turn end): at most once each.
        self._told: set[tuple[str, str, str]] = set()
        self._tab_lane_at: datetime | None = None
        self._worker: DeliveryWorker[tuple[Delivery, str, str]] = DeliveryWorker(
            name="cargento-notify", deliver=self._send, record=self._record, maxsize=256
        )

    # -- inputs ---------------------------------------------------------------------------

    def report_tab_lane(self, now: datetime) -> None:
        """A dashboard tab reported a notification lane of its own (browser notifications)."""
        with self._lock:
            self._tab_lane_at = now

    def listen(self, listener: RaiseListener) -> None:
        """Tell *listener* of every raise that passes the precision rules (the reach nudges)."""
        with self._lock:
            self._listeners.append(listener)

    @property
    def has_listeners(self) -> bool:
        with self._lock:
            return bool(self._listeners)

    def in_quiet_hours(self, now: datetime) -> bool:
        return self.quiet is not None and self.quiet.contains(now, self.zone)

    def gate(self, harness: str, session_id: str, title: str, body: str, now: datetime, *, kind: str = "gate") -> str:
        """Consider a gate alert (``kind`` ``gate``, ``idle`` or ``finished``). Returns what
        was decided: ``confirming`` (a gate or finished turn waits :data:`CONFIRM` first),
        ``in-view``, ``quiet``, ``raised``, ``no-backend``, ``cooldown``, ``held`` (floor),
        ``listeners`` (a ``finished`` turn, told to the listeners only) or ``off``."""
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
                    dropped = self._pending.pop(key, None)
                    if dropped is not None and not dropped.announced and now - dropped.first_at < self.confirm:
                        self.withheld["unconfirmed"] += 1
                continue
            decided.append(self._consider(item, now))
        return decided

    def forget_kind(self, harness: str, session_id: str, kind: str) -> None:
        """The moment of one kind of alert ended (a wait answered, a new turn started): drop
        it if held back, and let the next transition raise again."""
        key = (harness, session_id, kind)
        if key not in self._pending and key not in self._told:
            return  # nothing of it is held or told: every board asks this of every row
        with self._lock:
            dropped = self._pending.pop((harness, session_id, kind), None)
            if dropped is not None and not dropped.announced:
                self.withheld["unconfirmed"] += 1
            self._told.discard((harness, session_id, kind))

    def forget(self, harness: str, session_id: str) -> None:
        """Drop every held-back alert of a session that ended."""
        with self._lock:
            for key in [k for k in self._pending if k[0] == harness and k[1] == session_id]:
                del self._pending[key]
            self._told = {k for k in self._told if k[0] != harness or k[1] != session_id}

    # -- the decision ---------------------------------------------------------------------

    def _consider(self, item: Pending, now: datetime) -> str:
        key = (item.harness, item.session_id, item.kind)
        if not self.enabled and not self.has_listeners:
            return "off"
        if not item.announced:
            verdict = self._precision(item, key, now)
            if verdict is not None:
                return verdict
            item = attrs.evolve(item, announced=True)
            with self._lock:
                if item.kind != "question":
                    if key in self._told:
                        self._pending.pop(key, None)
                        return "already-raised"
                    self._told.add(key)
                if key in self._pending:
                    self._pending[key] = item
                listeners = list(self._listeners)
            for listener in listeners:
                try:
                    listener(item, now)
                except Exception:  # a lane's failure must not stop the desktop one
                    continue
        if item.kind not in DESKTOP_KINDS:
            with self._lock:
                self._pending.pop(key, None)
            return "listeners"
        with self._lock:
            if not self.enabled:
                self._pending.pop(key, None)
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
                self._hold(key, item)
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
        if no_backend is not None:
            if no_backend.session_id:
                self.deliveries.add(no_backend)
            return "no-backend"
        self._worker.submit(
            (delivery, item.title, item.body),
            if_full=attrs.evolve(delivery, outcome="could-not-start", detail="the delivery queue is full"),
        )
        return "raised"

    def _hold(self, key: tuple[str, str, str], item: Pending) -> None:
        """Hold *item* back (under the lock) and tell whoever judges held raises on time."""
        self._pending.setdefault(key, item)
        if self.on_hold is not None:
            self.on_hold()

    def _precision(self, item: Pending, key: tuple[str, str, str], now: datetime) -> str | None:
        """The rules every lane shares; ``None`` lets the raise through."""
        with self._lock:
            if item.kind in CONFIRMED_KINDS and now - item.first_at < self.confirm:
                self._hold(key, item)
                return "confirming"
            if self.presence is not None and self.presence.showing(item.harness, item.session_id, now):
                self._pending.pop(key, None)
                self.withheld["in-view"] += 1
                return "in-view"
            if item.kind != "question" and self.in_quiet_hours(now):
                self._pending.pop(key, None)
                self.withheld["quiet"] += 1
                return "quiet"
        return None

    # -- delivery -------------------------------------------------------------------------

    def _send(self, job: tuple[Delivery, str, str]) -> Delivery:
        delivery, title, body = job
        try:
            sent = self.notifier.send(title, body)
        except Exception as exc:  # a backend must never kill the thread
            sent = Sent(outcome="could-not-start", detail=f"{type(exc).__name__}: {exc}")
        return attrs.evolve(delivery, outcome=sent.outcome, detail=sent.detail, completed_at=self.clock())

    def _record(self, delivery: Delivery) -> None:
        # The record is keyed by session: a raise about no session (an unattributed question)
        # is delivered but records nothing.
        if delivery.session_id:
            self.deliveries.add(delivery)

    def drain(self, timeout_s: float = 5.0) -> bool:
        """Wait until every raised alert has an outcome recorded (tests, shutdown)."""
        return self._worker.drain(timeout_s)

    def close(self) -> None:
        """Stop the delivery thread after the alerts already queued."""
        self._worker.close()

    @property
    def pending(self) -> tuple[Pending, ...]:
        with self._lock:
            return tuple(self._pending.values())
