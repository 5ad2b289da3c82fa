"""When to raise a notification, and the thread that hands a desktop one over.

Precision first, for every lane (the desktop here, the reach nudges through
:meth:`Alerts.listen`): a gate raises only once it is *confirmed*, still standing
:data:`CONFIRM` after it opened (an approval answered in a second raises nothing); a finished
turn (``finished``, a session's own turn stop) is confirmed the same way, so a turn followed
at once by the next prompt raises nothing; a question raises on arrival, and so does an idle
nudge (the harness already waited before sending it). A raise about a session a visible
dashboard tab shows is not sent (:class:`~cargento_web.runtime.presence.Presence`), nor one
a *screen* says is in front of you another way (:meth:`Alerts.screen`: the terminal raise's
"its tmux pane is in front of you"; never a question, which is answered in the dashboard).
During quiet hours every raise but a question is *held*: kept (at most
:data:`QUIET_HOLD_LIMIT`) and, when the window ends, raised then if its cause still stands; a
wait answered meanwhile, a turn followed by the next one, a session that ended, is dropped
with that reason. Only then do the listeners hear of it, and the desktop lane applies its own
limits below. ``finished`` is a listener's kind alone: the desktop raises gates, idle nudges
and questions. Every raise a rule skipped, held, released or dropped is noted with its reason
(:meth:`Alerts.skips_for`, the session page's record), bounded to :data:`SKIP_LIMIT`.

Gate alerts (a session's transition into Needs input) have a 60-second per-session cooldown
and a 4-second lane-wide floor; an idle nudge shares that floor and has its own 60-second
per-session cooldown (so a nudge never silences the real gate that follows it); questions
keep their own 15-second floor. Subagent sessions never pop. An alert the floor holds back waits (it is raised once
the floor has passed, if its session still wants it) rather than being lost. A raise on a
platform with no backend records ``no-backend`` and spends no cooldown, so the next real
transition is still eligible. Every raise gets one entry in the deliveries store, completed
by the delivery thread with the outcome the backend reported.

Nothing here runs on a timer of its own: :meth:`Alerts.next_due` says when the next held-back
raise is due (a confirmation, a floor, the end of quiet hours), and the callbacks given to
:meth:`Alerts.on_schedule` are told whenever a raise starts being held, so whoever drives
:meth:`Alerts.retry` can sleep until then.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo

import attrs
from cargento.quiethours import QuietWindow
from cargento.redact import redact
from cargento.sharedmethods import shared_methods

from cargento_web.runtime.delivery import DeliveryWorker
from cargento_web.runtime.notifiers import Notifier, Sent
from cargento_web.runtime.presence import Presence
from cargento_web.runtime.stores import DeliveriesStore, Delivery

__all__ = [
    "CONFIRM",
    "GATE_FLOOR",
    "QUIET_HOLD_LIMIT",
    "SESSIONS_COOLING",
    "SKIP_LIMIT",
    "Alerts",
    "Pending",
    "RaiseListener",
    "Screen",
    "Skipped",
]

GATE_COOLDOWN = timedelta(seconds=60)
#: Past this many sessions' last gate alerts, those older than the cooldown are dropped (at
#: most one gate alert every :data:`GATE_FLOOR`, so about 15 are ever still cooling).
SESSIONS_COOLING = 64
#: Popups of different sessions are spaced at least this far apart. Shorter than :data:`CONFIRM`,
#: so a wait that stands past its confirmation plus one floor is never held until it is over.
GATE_FLOOR = timedelta(seconds=4)
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
#: Raises held through quiet hours at most (the oldest is dropped, with that reason, first).
QUIET_HOLD_LIMIT = 64
#: Skipped, held, released and dropped raises remembered for the session record.
SKIP_LIMIT = 500
#: The reasons a raise was not sent when it arose, as the record words them.
SKIP_WORDS = {
    "in-view": "not sent: a visible dashboard tab shows this session",
    "quiet-held": "held: quiet hours; raised when they end if it still stands",
    "quiet-released": "quiet hours ended with it still standing: raised now",
}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
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
#: ``screen(harness, session_id, now)``: why a raise about that session is not sent (it is in
#: front of you some other way), or ``None``.
Screen = Callable[[str, str, datetime], str | None]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Skipped:
    """A raise a precision rule did not send when it arose, and why."""

    harness: str
    session_id: str
    kind: str
    at: datetime
    #: ``in-view``, ``in-front``, ``quiet-held``, ``quiet-released`` or ``quiet-dropped``.
    rule: str
    words: str


class Alerts:
    """The alert policy over one :class:`Notifier`; thread-safe.

    *clock* stamps a delivery's completion and a held raise's drop when its moment ended;
    decisions take ``now``.
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
        #: Raises each precision rule held back this run, by rule (``quiet``: held through
        #: quiet hours; ``quiet-dropped``: held and then dropped, their cause gone).
        self.withheld: dict[str, int] = {"unconfirmed": 0, "in-view": 0, "in-front": 0, "quiet": 0, "quiet-dropped": 0}
        self._listeners: list[RaiseListener] = []
        self._screens: list[Screen] = []
        self._schedule: list[Callable[[], None]] = []
        self._quiet_held: OrderedDict[tuple[str, str, str], Pending] = OrderedDict()
        self._skips: deque[Skipped] = deque(maxlen=SKIP_LIMIT)
        self._lock = threading.Lock()
        self._session_last: dict[tuple[str, str, str], datetime] = {}
        self._gate_last: datetime | None = None
        self._question_last: datetime | None = None
        self._pending: dict[tuple[str, str, str], Pending] = {}
        #: No held raise falls due before this (a lower bound: :meth:`next_due` sets it to the
        #: exact moment, a raise starting to be held lowers it); ``None``: nothing was held
        #: when it was last set. Lets the per-event paths skip a walk of every held raise.
        self._due_bound: datetime | None = None
        #: The bound moved earlier since the schedule's callbacks were last told.
        self._bound_lowered = False
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

    def screen(self, screen: Screen) -> None:
        """Skip every raise (but a question) about a session *screen* says is in front of you."""
        with self._lock:
            self._screens.append(screen)

    def on_schedule(self, callback: Callable[[], None]) -> None:
        """Call *callback()* (quickly, on any thread) whenever a raise starts being held that
        falls due before anything held when :meth:`next_due` last looked: its answer moved
        earlier. A raise held behind an earlier one wakes nobody."""
        with self._lock:
            self._schedule.append(callback)

    @property
    def has_listeners(self) -> bool:
        with self._lock:
            return bool(self._listeners)

    def in_quiet_hours(self, now: datetime) -> bool:
        return self.quiet is not None and self.quiet.contains(now, self.zone)

    @property
    def held_quiet(self) -> tuple[Pending, ...]:
        """Raises held until quiet hours end."""
        with self._lock:
            return tuple(self._quiet_held.values())

    def skips_for(self, harness: str, session_id: str) -> tuple[Skipped, ...]:
        """The raises about one session a rule skipped, held, released or dropped, newest first."""
        with self._lock:
            return tuple(k for k in reversed(self._skips) if k.harness == harness and k.session_id == session_id)

    def next_due(self, now: datetime) -> datetime | None:
        """When :meth:`retry` next has something to decide (``None``: nothing is held)."""
        with self._lock:
            dues = [self._due_of(item, now) for item in self._pending.values()]
            if self._quiet_held:
                dues.append(self._quiet_due(now))
            due = self._due_bound = min(dues) if dues else None
        return due

    def due_by(self, now: datetime) -> bool:
        """Might a held raise be due at *now*? False only when none can be: nothing is held,
        or none falls due before the bound :meth:`next_due` last set (lowered since by every
        raise that started being held). A look, not a walk of the held raises."""
        with self._lock:
            if not self._pending and not self._quiet_held:
                return False
            return self._due_bound is None or self._due_bound <= now

    def _due_of(self, item: Pending, now: datetime) -> datetime:
        """When a held raise is next decided: its confirmation, else its floor, else its
        expiry, whichever comes first (under the lock)."""
        if not item.announced and item.kind in CONFIRMED_KINDS:
            due = item.first_at + self.confirm
        else:
            last = self._question_last if item.kind == "question" else self._gate_last
            floor = QUESTION_FLOOR if item.kind == "question" else GATE_FLOOR
            due = last + floor if last is not None else now
        return min(due, item.first_at + PENDING_LIFE)

    def _quiet_due(self, now: datetime) -> datetime:
        return self.quiet.next_end(now, self.zone) if self.quiet is not None else now

    def _lower_bound(self, due: datetime) -> None:
        """A raise started being held until *due* (under the lock)."""
        if self._due_bound is None or due < self._due_bound:
            self._due_bound = due
            self._bound_lowered = True

    def _held_as(self, key: tuple[str, str, str], item: Pending, now: datetime) -> None:
        """Hold *item* under *key* unless a raise is held there already (under the lock)."""
        held = self._pending.setdefault(key, item)
        self._lower_bound(self._due_of(held, now))

    def _rescheduled(self) -> None:
        """Tell the schedule's callbacks, when a raise held since they were last told falls
        due before anything held then."""
        with self._lock:
            callbacks = list(self._schedule) if self._bound_lowered else []
            self._bound_lowered = False
        for callback in callbacks:
            try:
                callback()
            except Exception:  # a driver's failure must not stop a raise
                continue

    def note(self, item: Pending, now: datetime, rule: str, words: str) -> None:
        """Record that a lane did not send *item*, and why (the reach lane's own limits)."""
        with self._lock:
            self._note(item, now, rule, words)

    def _note(self, item: Pending, now: datetime, rule: str, words: str | None = None) -> None:
        """Remember why a raise was not sent as it arose (under the lock)."""
        self._skips.append(
            Skipped(
                harness=item.harness,
                session_id=item.session_id,
                kind=item.kind,
                at=now,
                rule=rule,
                words=words or SKIP_WORDS.get(rule, rule),
            )
        )

    def gate(self, harness: str, session_id: str, title: str, body: str, now: datetime, *, kind: str = "gate") -> str:
        """Consider a gate alert (``kind`` ``gate``, ``idle`` or ``finished``). Returns what
        was decided: ``confirming`` (a gate or finished turn waits :data:`CONFIRM` first),
        ``in-view``, ``quiet``, ``raised``, ``no-backend``, ``cooldown``, ``held`` (floor),
        ``listeners`` (a ``finished`` turn, told to the listeners only) or ``off``."""
        decided = self._consider(
            Pending(harness=harness, session_id=session_id, kind=kind, title=title, body=body, first_at=now), now
        )
        self._rescheduled()
        return decided

    def question(self, harness: str, session_id: str, title: str, body: str, now: datetime) -> str:
        """Consider a question alert (its own 15-second floor, no per-session cooldown)."""
        decided = self._consider(
            Pending(harness=harness, session_id=session_id, kind="question", title=title, body=body, first_at=now), now
        )
        self._rescheduled()
        return decided

    def retry(self, now: datetime, still_wanted: Callable[[Pending], bool]) -> list[str]:
        """Raise held-back alerts whose floor has passed and that are still wanted, and, once
        quiet hours are over, the raises they held whose cause still stands."""
        decided = self._release_quiet(now, still_wanted)
        with self._lock:
            pending = list(self._pending.values())
        for item in pending:
            key = (item.harness, item.session_id, item.kind)
            if now - item.first_at > PENDING_LIFE or not still_wanted(item):
                with self._lock:
                    dropped = self._pending.pop(key, None)
                    if dropped is not None and not dropped.announced:
                        # Withdrawn before it was confirmed (judged once due, or on an
                        # explicit tick, it may be dropped after the confirmation delay).
                        self.withheld["unconfirmed"] += 1
                continue
            decided.append(self._consider(item, now, held=True))
        self._rescheduled()
        return decided

    def _release_quiet(self, now: datetime, still_wanted: Callable[[Pending], bool]) -> list[str]:
        """Quiet hours are over: raise each held raise whose cause still stands (confirmed
        already, so at once, under the lanes' own floors and cooldowns), drop the others."""
        with self._lock:
            if not self._quiet_held or self.in_quiet_hours(now):
                return []
            held = list(self._quiet_held.values())
            self._quiet_held.clear()
        decided = []
        for item in held:
            if not still_wanted(item):
                with self._lock:
                    self.withheld["quiet-dropped"] += 1
                    self._note(item, now, "quiet-dropped", "held through quiet hours, then dropped: it no longer stood")
                continue
            with self._lock:
                self._note(item, now, "quiet-released")
            # Confirmed when it was held: its life as a pending raise starts now.
            decided.append(self._consider(attrs.evolve(item, first_at=now - self.confirm), now))
        return decided

    def forget_kind(self, harness: str, session_id: str, kind: str) -> None:
        """The moment of one kind of alert ended (a wait answered, a new turn started): drop
        it if held back, and let the next transition raise again."""
        key = (harness, session_id, kind)
        if key not in self._pending and key not in self._told and key not in self._quiet_held:
            return  # nothing of it is held or told: every board asks this of every row
        with self._lock:
            dropped = self._pending.pop(key, None)
            if dropped is not None and not dropped.announced:
                self.withheld["unconfirmed"] += 1
            held = self._quiet_held.pop(key, None)
            if held is not None:
                self.withheld["quiet-dropped"] += 1
                self._note(held, self.clock(), "quiet-dropped", _ENDED_WORDS.get(kind, _ENDED_WORDS["gate"]))
            self._told.discard(key)

    def sessions_holding(self, kind: str) -> set[tuple[str, str]]:
        """The sessions with an alert of *kind* held back, told, or held for quiet hours:
        those :meth:`forget_kind` of *kind* would change anything for."""
        with self._lock:
            return {
                (k[0], k[1]) for table in (self._pending, self._told, self._quiet_held) for k in table if k[2] == kind
            }

    def forget(self, harness: str, session_id: str) -> None:
        """Drop every held-back alert of a session that ended."""
        with self._lock:
            for key in [k for k in self._pending if k[0] == harness and k[1] == session_id]:
                del self._pending[key]
            for key in [k for k in self._quiet_held if k[0] == harness and k[1] == session_id]:
                held = self._quiet_held.pop(key)
                self.withheld["quiet-dropped"] += 1
                self._note(
                    held, self.clock(), "quiet-dropped", "held through quiet hours, then dropped: the session ended"
                )
            self._told = {k for k in self._told if k[0] != harness or k[1] != session_id}

    # -- the decision ---------------------------------------------------------------------

    def _consider(self, item: Pending, now: datetime, *, held: bool = False) -> str:
        """Decide one raise. *held*: *item* was taken from the held-back raises, and is only
        announced if it is still held as it was (two threads may retry the same snapshot, and
        the wait may be answered while the rules are asked)."""
        key = (item.harness, item.session_id, item.kind)
        if not self.enabled and not self.has_listeners:
            return "off"
        if not item.announced:
            verdict = self._precision(item, key, now)
            if verdict is not None:
                return verdict
            taken = item
            item = attrs.evolve(item, announced=True)
            with self._lock:
                if held and self._pending.get(key) is not taken:
                    return "gone"  # answered meanwhile, or another retry announced it
                if item.kind != "question":
                    if key in self._told:
                        self._pending.pop(key, None)
                        return "already-raised"
                    self._told.add(key)
                if key in self._pending:
                    self._pending[key] = item
                    self._lower_bound(self._due_of(item, now))
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
            if held and self._pending.get(key) is not item:
                return "gone"
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
                self._held_as(key, item, now)
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
                    if len(self._session_last) > SESSIONS_COOLING:
                        # A gate alert older than the cooldown holds nothing back: one kept
                        # for every session ever alerted grew for as long as the server ran.
                        self._session_last = {k: at for k, at in self._session_last.items() if now - at < GATE_COOLDOWN}
        if no_backend is not None:
            if no_backend.session_id:
                self.deliveries.add(no_backend)
            return "no-backend"
        self._worker.submit(
            (delivery, item.title, item.body),
            if_full=attrs.evolve(delivery, outcome="could-not-start", detail="the delivery queue is full"),
        )
        return "raised"

    def _precision(self, item: Pending, key: tuple[str, str, str], now: datetime) -> str | None:
        """The rules every lane shares; ``None`` lets the raise through."""
        with self._lock:
            if item.kind in CONFIRMED_KINDS and now - item.first_at < self.confirm:
                self._held_as(key, item, now)
                return "confirming"
            if self.presence is not None and self.presence.showing(item.harness, item.session_id, now):
                self._pending.pop(key, None)
                self.withheld["in-view"] += 1
                self._note(item, now, "in-view")
                return "in-view"
            screens = list(self._screens) if item.kind != "question" else []
        for screen in screens:
            try:
                why = screen(item.harness, item.session_id, now)
            except Exception:  # a screen that fails says nothing: the raise goes out
                why = None
            if why:
                with self._lock:
                    self._pending.pop(key, None)
                    self.withheld["in-front"] += 1
                    self._note(item, now, "in-front", f"not sent: {why}")
                return "in-front"
        with self._lock:
            if item.kind != "question" and self.in_quiet_hours(now):
                self._pending.pop(key, None)
                self._hold_quiet(item, key, now)
                return "quiet"
        return None

    def _hold_quiet(self, item: Pending, key: tuple[str, str, str], now: datetime) -> None:
        """Keep a raise until quiet hours end (under the lock); the oldest goes past the bound."""
        if key not in self._quiet_held:
            self.withheld["quiet"] += 1
            self._note(item, now, "quiet-held")
        self._quiet_held.pop(key, None)
        self._quiet_held[key] = attrs.evolve(item, first_at=now)
        self._lower_bound(self._quiet_due(now))
        while len(self._quiet_held) > QUIET_HOLD_LIMIT:
            _, oldest = self._quiet_held.popitem(last=False)
            self.withheld["quiet-dropped"] += 1
            self._note(
                oldest,
                now,
                "quiet-dropped",
                f"held through quiet hours, then dropped: more than {QUIET_HOLD_LIMIT} were held",
            )

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


#: Why a held raise was dropped when its moment ended during quiet hours, by kind.
_ENDED_WORDS = {
    "gate": "held through quiet hours, then dropped: the wait was answered before they ended",
    "finished": "held through quiet hours, then dropped: a new turn started before they ended",
    "idle": "held through quiet hours, then dropped: a new turn started before they ended",
}
