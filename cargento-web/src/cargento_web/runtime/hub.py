"""The event hub: live lifecycle events in, overlays and notifications out.

One :class:`EventHub` runs per dashboard. The web app uses it through a small surface:

* ``hub.capability``: the per-run secret the forwarders must send (``X-Cargento-Capability``),
  generated with :func:`secrets.token_urlsafe`; ``None`` with events off, so nothing is
  published and every hook stays silent.
* ``hub.routes(guard)``: the Starlette routes ``POST /api/events/{harness}``,
  ``POST /api/notify`` and ``GET /api/overlays`` (see :mod:`cargento_web.ingress`); none with
  events off.
* ``hub.overlays(now)``: the overlay per ``(harness, session_id)`` to hand to
  ``BoardBuilder.build(overlays=...)``.
* ``hub.on_board(board) -> Board``: call after every build. The hub reads the board (a
  session's own transcript write clears its standing gate; a transition into Needs input
  raises a notification) and returns the board to publish, with the sessions the hub saw
  end marked ended.
* ``hub.subscribe(callback)``: *callback()* runs (on the ingesting thread, so it must not
  block; :meth:`cargento_web.live.LiveBoard.invalidate` is the intended one) whenever an event
  changed what the hub asserts or asks for a rescan. The ingress routes also invalidate the
  app's live board directly.
* ``hub.report_tab_lane(now)``, ``hub.raise_question(...)``: the page's own notification
  lane and the ask lane's questions.
* ``hub.diagnostics(now)``: the ``/api/overlays`` document; ``hub.deliveries_for(...)``,
  ``hub.irreversible_reports(...)``, ``hub.status()`` for the session page and the header;
  ``hub.session_record(harness, sid)`` is the session page's document of them.
* ``hub.needs_fixed_scan``: with any raise lane on, the live board rebuilds on its fixed
  interval even with no page open (events on or off), so store-read waits and ends are read
  and raised with no browser attached; ``hub.tick(now)`` confirms held-back raises between
  builds: the live board calls it when ``hub.next_due(now)`` says something is due, and
  ``hub.alerts.on_schedule(callback)`` wakes it when a raise starts being held.
* ``hub.presence``: which dashboard tabs are visible and which session each shows
  (``POST /api/presence``); a raise about a session a visible tab shows is not sent.
* ``hub.terminal_of(harness, sid)``: the terminal identity (tmux socket and pane) a session's
  lifecycle events carried, when terminal identity is recorded this run (not ``--no-focus``).

Thread-safety: every public method takes the hub's lock; ingestion runs on the server's event
loop, ``overlays``/``on_board`` on the board-building thread.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, NamedTuple

import attrs
from cargento.board import Board, BoardSession, Overlay, ago
from cargento.board.detail import ago_changes_at
from cargento.events.lanes import GRACE, Lane, LaneEvent
from cargento.events.payloads import LifecycleEvent, PayloadError, Terminal, parse_event, parse_notification
from cargento.events.vocabulary import EventVocabulary, default_vocabulary
from cargento.labels import clip
from cargento.quiethours import QuietWindow
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso

from cargento_web.boardchanges import ChangeTracker
from cargento_web.runtime.alerts import CONFIRM, Alerts, Pending
from cargento_web.runtime.notifiers import MemoryNotifier, Notifier
from cargento_web.runtime.presence import Presence
from cargento_web.runtime.record import DELIVERIES_NOTE, EVENTS_OFF, delivery_doc, marks_doc, reports_doc, skip_doc
from cargento_web.runtime.reports import Report, ReportLog
from cargento_web.runtime.stores import DeliveriesStore, Delivery, End, EndsStore

__all__ = ["EventHub", "Ingested", "Overrule"]

#: Lanes kept at most (the least recently active are dropped first).
LANE_LIMIT = 4096
#: Overrule records kept.
OVERRULE_LIMIT = 200
#: Turn-ended marks kept.
TURN_END_LIMIT = 4096
#: A lane with no event for this long and no claim is forgotten.
LANE_IDLE_LIFE = timedelta(hours=24)


class _MarkRead(NamedTuple):
    """An end-mark candidate as one board read it."""

    row: BoardSession
    end_at: datetime | None
    turn_end: datetime | None
    #: When it was read.
    read_at: datetime
    #: Until when its wording stands (``None``: for good).
    stands_until: datetime | None
    #: Its marked row (``None``: no mark).
    marked: BoardSession | None


_STATE_WORDS = {"needs_input": "needs input", "working": "working", "idle": "idle"}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Ingested:
    """What one accepted event did."""

    kind: str
    effect: str
    #: The state the session's lane now asserts (``None``: it asserts nothing).
    state: str | None
    #: The hub's assertions changed or a rescan was asked for: publish a new board.
    changed: bool
    irreversible: tuple[Report, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Overrule:
    """An event arrived for a session the dashboard had read as waiting, and asserted
    something else."""

    harness: str
    session_id: str
    at: datetime
    event: str
    read_as: str
    read_source: str
    asserted: str | None


class EventHub:
    """Live lifecycle events, their overlays, the ends store, reports and notifications."""

    def __init__(
        self,
        *,
        clock: Callable[[], datetime],
        state_dir: Path | None,
        events: bool = True,
        irreversible: bool = True,
        notifier: Notifier | None = None,
        notify: bool = True,
        capability: str | None = None,
        vocabulary: EventVocabulary | None = None,
        quiet: QuietWindow | None = None,
        zone: tzinfo | None = None,
        record_terminals: bool = True,
        confirm: timedelta = CONFIRM,
        events_off: str = EVENTS_OFF,
        replay: bool = False,
    ) -> None:
        self.clock = clock
        #: Why lifecycle events are off, when they are (``--no-events``, or a replay).
        self.events_off = events_off
        #: The lanes the loaded plugins declare (built once; the installed plugins' by default).
        self.vocabulary = vocabulary if vocabulary is not None else default_vocabulary()
        self.events = events
        self.irreversible_enabled = events and irreversible
        #: The per-run secret; ``None`` with events off (nothing is published).
        self.capability: str | None = (capability or secrets.token_urlsafe(32)) if events else None
        self._lock = threading.RLock()
        self._lanes: OrderedDict[tuple[str, str], Lane] = OrderedDict()
        self._seq = 0
        self._subscribers: list[Callable[[], None]] = []
        self._turn_ends: OrderedDict[tuple[str, str], datetime] = OrderedDict()
        #: The rows the last board marked ended or turn-ended: (the row read, the marked row).
        self._marked: dict[tuple[str, str], tuple[BoardSession, BoardSession]] = {}
        #: What the last board decided for each end-mark candidate, and until when it stands.
        self._mark_reads: dict[tuple[str, str], _MarkRead] = {}
        self._overrules: deque[Overrule] = deque(maxlen=OVERRULE_LIMIT)
        self._reports = ReportLog()
        self._quota: dict[str, tuple[datetime, Mapping[str, Any]]] = {}
        self._board_states: dict[tuple[str, str], BoardSession] = {}
        #: What moved on each board since the one before (only changed rows are read).
        self._changes = ChangeTracker()
        #: Sessions an event reached since the last board (their rows are read again).
        self._touched: set[tuple[str, str]] = set()
        self._seen_board = False
        #: When the newest board handed to :meth:`on_board` was generated.
        self._board_at: datetime | None = None
        self._subagents: OrderedDict[str, None] = OrderedDict()
        started = clock()
        self.started_at = started
        # The session-end store is read and written only with events on; a replay (the
        # clock stands at the moment replayed) reads the ends recorded up to that moment and
        # writes nothing.
        self.ends: EndsStore | None = None
        if state_dir is not None and (events or replay):
            self.ends = EndsStore(state_dir, read_only=not events)
            self.ends.load(started, as_of=not events)
        self.deliveries = DeliveriesStore(state_dir)
        self.deliveries.load()
        self.notifier: Notifier = notifier if notifier is not None else MemoryNotifier(available=False)
        self.notifier_checked_at = started
        self.presence = Presence(started)
        self.alerts = Alerts(
            self.notifier,
            self.deliveries,
            clock=clock,
            enabled=notify,
            quiet=quiet,
            zone=zone,
            presence=self.presence,
            confirm=confirm,
        )
        #: Terminal identity per session, from its events (``--no-focus``/``--no-events``: none).
        self.record_terminals = events and record_terminals
        self._terminals: OrderedDict[tuple[str, str], tuple[Terminal, datetime]] = OrderedDict()
        #: Sessions whose start this run saw (the terminal raise reaches only these).
        self._started: OrderedDict[tuple[str, str], datetime] = OrderedDict()

    # -- the capability and subscriptions -------------------------------------------------

    def check_capability(self, presented: str | None) -> bool:
        """True when *presented* is this run's capability (constant-time comparison)."""
        if self.capability is None or not presented:
            return False
        return hmac.compare_digest(presented.encode("utf-8", "replace"), self.capability.encode())

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call *callback()* whenever an event changes what the hub asserts; returns an
        unsubscribe function."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _notify_subscribers(self) -> None:
        with self._lock:
            callbacks = list(self._subscribers)
        for callback in callbacks:
            try:
                callback()
            except Exception:  # a subscriber's failure must not refuse the event
                continue

    def routes(self, guard: object) -> list[Any]:
        """The ingress routes (none with events off); see :mod:`cargento_web.ingress`."""
        if not self.events:
            return []
        from cargento_web import ingress

        found: list[Any] = ingress.routes(self, guard)
        return found

    # -- ingestion ------------------------------------------------------------------------

    def ingest(self, harness: str, body: Mapping[str, Any], *, hook_at: datetime | None = None) -> Ingested:
        """Take one ``POST /api/events/<harness>`` body. Raises :class:`PayloadError`."""
        if not self.events:
            raise PayloadError(404, self.events_off)
        event = parse_event(harness, body, received_at=self.clock(), hook_at=hook_at, vocabulary=self.vocabulary)
        return self._take(event)

    def ingest_notification(self, body: Mapping[str, Any], *, hook_at: datetime | None = None) -> Ingested:
        """Take one ``POST /api/notify`` body (a Notification or SessionEnd), for the lane
        whose plugin declares ``receives_notify``."""
        if not self.events:
            raise PayloadError(404, self.events_off)
        lane = self.vocabulary.notify_lane
        if lane is None:
            raise PayloadError(404, "no loaded harness plugin takes POST /api/notify")
        event = parse_notification(lane, body, received_at=self.clock(), hook_at=hook_at, vocabulary=self.vocabulary)
        return self._take(event)

    def _take(self, event: LifecycleEvent) -> Ingested:
        # What was held back and is due is judged as of this event's arrival, before the event
        # can end it.
        self._judge_due(event.received_at)
        alerts: list[tuple[str, str, str, str, str]] = []
        with self._lock:
            self._seq += 1
            now = event.received_at
            if event.kind == "status" and event.quota is not None:
                self._quota[event.harness] = (now, event.quota)
            if event.agent_id is not None and event.kind in ("subagent_started", "subagent_stopped"):
                self._remember_subagent(event.agent_id)
            if event.session_id is None:
                return Ingested(
                    kind=event.kind,
                    effect="no session: quota only" if event.kind == "status" else "rescan",
                    state=None,
                    changed=event.kind in ("store_moved", "status"),
                )
            key = (event.harness, event.session_id)
            self._touched.add(key)
            lane = self._lane(key)
            before = lane.overlay(now)
            if event.kind == "session_started" and event.reason not in ("compact", "resume"):
                _bounded_put(self._started, key, now)
            if self.record_terminals and event.terminal is not None and event.agent_id is None:
                _bounded_put(self._terminals, key, (event.terminal, now))
            effect = lane.apply(event, self._seq)
            reports: tuple[Report, ...] = ()
            if event.kind == "session_ended":
                lane.end()
                effect = "session ended: overlays retired"
                if self.ends is not None:
                    self.ends.record(
                        End(harness=event.harness, session_id=event.session_id, at=now, reason=event.reason), now
                    )
                self.alerts.forget(*key)
            elif (
                event.kind == "session_started"
                and event.reason != "compact"
                and self.ends is not None
                and self.ends.forget(*key, at=now)
            ):
                effect += "; earlier end withdrawn"
            if effect.startswith("idle: turn ended"):
                self._turn_ends.pop(key, None)
                self._turn_ends[key] = now
                while len(self._turn_ends) > TURN_END_LIMIT:
                    self._turn_ends.popitem(last=False)
            elif effect.startswith("working: turn started"):
                self._turn_ends.pop(key, None)
                self.alerts.forget_kind(*key, "finished")
                self.alerts.forget_kind(*key, "idle")
            if (
                self.irreversible_enabled
                and event.kind == "tool_finished"
                and event.command
                and event.harness in self.vocabulary.irreversible
            ):
                reports = self._reports.add(event.harness, event.session_id, event.command, now, tool=event.tool)
            after = lane.overlay(now)
            self._record_overrule(key, event, after)
            alert = self._event_alert(event, before, after)
            if alert is not None:
                alerts.append(alert)
            if lane.gate is None and (after is None or after.state != "needs_input"):
                # The wait ended (answered, a new prompt, a stop): a raise still confirming
                # is withdrawn, and the next gate is a new transition.
                self.alerts.forget_kind(*key, "gate")
            changed = (
                _overlay_key(before) != _overlay_key(after)
                or reports != ()
                or event.kind in ("session_ended", "session_started", "store_moved", "tasks_changed", "compacted")
            )
            state = after.state if after is not None else None
        for harness, sid, kind, title, body in alerts:
            self.alerts.gate(harness, sid, title, body, now, kind=kind)
        if changed:
            self._notify_subscribers()
        return Ingested(kind=event.kind, effect=effect, state=state, changed=changed, irreversible=reports)

    def _lane(self, key: tuple[str, str]) -> Lane:
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = Lane(harness=key[0], session_id=key[1])
            while len(self._lanes) > LANE_LIMIT:
                self._lanes.popitem(last=False)
        else:
            self._lanes.move_to_end(key)
        return lane

    def _remember_subagent(self, agent_id: str) -> None:
        self._subagents.pop(agent_id, None)
        self._subagents[agent_id] = None
        while len(self._subagents) > LANE_LIMIT:
            self._subagents.popitem(last=False)

    def _is_subagent(self, harness: str, session_id: str) -> bool:
        if session_id in self._subagents:
            return True
        seen = self._board_states.get((harness, session_id))
        return seen is None and any(
            sub.session_id == session_id
            for s in self._board_states.values()
            if s.harness == harness
            for sub in s.subagents
        )

    def _record_overrule(self, key: tuple[str, str], event: LifecycleEvent, after: Overlay | None) -> None:
        seen = self._board_states.get(key)
        if seen is None or seen.state != "needs_input":
            return
        asserted = after.state if after is not None else None
        if asserted == "needs_input":
            return
        if asserted is None and event.kind not in (
            "session_ended",
            "turn_started",
            "turn_stopped",
            "tool_finished",
            "wait_closed",
            "notification",
        ):
            return
        self._overrules.append(
            Overrule(
                harness=key[0],
                session_id=key[1],
                at=event.received_at,
                event=event.name,
                read_as="needs_input",
                read_source=seen.waiting.source if seen.waiting else seen.state_source,
                asserted=asserted,
            )
        )

    def _event_alert(
        self, event: LifecycleEvent, before: Overlay | None, after: Overlay | None
    ) -> tuple[str, str, str, str, str] | None:
        """An alert an event itself raises: a gate opening, or an idle nudge."""
        sid = event.session_id
        if sid is None or self._is_subagent(event.harness, sid):
            return None
        label = self._label(event.harness, sid)
        if after is not None and after.state == "needs_input" and (before is None or before.state != "needs_input"):
            text = after.gate.text if after.gate is not None and after.gate.text else "waiting on you"
            return (event.harness, sid, "gate", f"{label} needs input", clip(text, 180))
        if (
            event.kind in ("turn_stopped", "status")
            and after is not None
            and after.state == "idle"
            and (before is None or before.state != "idle")
        ):
            # The session's own turn stop (a subagent's stop is ``subagent_stopped`` or
            # carries an agent id, and claims nothing): a finished turn, for the listeners.
            return (event.harness, sid, "finished", f"{label} finished its turn", "the turn ended")
        if event.kind == "notification" and event.disposition is not None and event.disposition.action == "idle":
            return (
                event.harness,
                sid,
                "idle",
                f"{label} is waiting for your input",
                "the turn ended and the session is idle",
            )
        return None

    def _label(self, harness: str, session_id: str) -> str:
        seen = self._board_states.get((harness, session_id))
        if seen is not None:
            name = seen.title or seen.project or seen.display_id
            return clip(f"{seen.harness_label} · {name}", 80)
        return f"{harness} · {session_id[:8]}"

    # -- publication ----------------------------------------------------------------------

    def overlays(self, now: datetime) -> dict[tuple[str, str], Overlay]:
        """The overlay per session at *now*: lane claims first, then observed ends."""
        if not self.events and self.ends is None:
            return {}
        out: dict[tuple[str, str], Overlay] = {}
        with self._lock:
            for key, lane in list(self._lanes.items()):
                found = lane.overlay(now)
                if found is not None:
                    out[key] = found
                elif lane.last_event_at is not None and now - lane.last_event_at > LANE_IDLE_LIFE:
                    del self._lanes[key]
            if self.ends is not None:
                for end in self.ends.all():
                    key = (end.harness, end.session_id)
                    if key not in out:
                        out[key] = Overlay(state="idle", at=end.at + GRACE, source="event:SessionEnd")
        return out

    def on_board(self, board: Board) -> Board:
        """Read a freshly built board; return the board to publish (ends marked).

        Only the rows that changed since the previous board (:mod:`cargento_web.boardchanges`)
        are read one by one, and the sessions an event touched since: a row that stood was
        read as it is already, and nothing else it is read against moved."""
        now = board.generated_at
        alerts: list[tuple[str, str, str, str, str]] = []
        changed = False
        with self._lock:
            first = not self._seen_board
            self._seen_board = True
            self._board_at = now
            moves = self._changes.see(board)
            touched, self._touched = self._touched, set()
            previous = self._board_states
            rows = moves.rows
            examine = moves.changed
            if not moves.full:
                # A standing gate may clear on a write the board already shows when an event
                # opened it since: the sessions events touched are read again too.
                again = [rows[k] for k in touched if k in rows]
                if again:
                    seen = set(map(id, examine))
                    examine = examine + tuple(r for r in again if id(r) not in seen)
            for s in examine:
                key = (s.harness, s.session_id)
                for sub in s.subagents:
                    if sub.session_id:
                        self._remember_subagent(sub.session_id)
                changed |= self._clear_on_own_write(key, s)
                prior = previous.get(key)
                if (
                    s.state == "needs_input"
                    and not first
                    and (prior is None or prior.state != "needs_input")
                    and not self._is_subagent(s.harness, s.session_id)
                ):
                    text = s.waiting.text if s.waiting and s.waiting.text else s.detail
                    alerts.append(
                        (s.harness, s.session_id, "gate", f"{self._label_of(s)} needs input", clip(text, 180))
                    )
            # Sessions missing from this board keep their last reading (the other flavour
            # of board, or the display window, may hold them).
            for s in moves.changed:
                previous[(s.harness, s.session_id)] = s
            for harness, sid in self.alerts.sessions_holding("gate"):
                row = rows.get((harness, sid))
                if row is not None and row.state != "needs_input":
                    self.alerts.forget_kind(harness, sid, "gate")
            amended = self._mark_ends(board, now, rows)
        for harness, sid, kind, title, body in alerts:
            self.alerts.gate(harness, sid, title, body, now, kind=kind)
        self._judge_due(now)
        if changed:
            self._notify_subscribers()
        return amended

    def _label_of(self, s: BoardSession) -> str:
        return clip(f"{s.harness_label} · {s.title or s.project or s.display_id}", 80)

    def tick(self, now: datetime | None = None) -> list[str]:
        """Confirm or withdraw the raises held back (the confirmation delay, the floors, quiet
        hours); a dictionary look when nothing is held."""
        if not self.alerts.pending and not self.alerts.held_quiet:
            return []
        return self.alerts.retry(now or self.clock(), self._still_wanted)

    def _judge_due(self, now: datetime) -> None:
        """:meth:`tick` when a held raise may be due: a look, not a walk, on every event and
        board while nothing is (the ticker judges the rest when it falls due)."""
        if self.alerts.due_by(now):
            self.tick(now)

    def next_due(self, now: datetime | None = None) -> datetime | None:
        """When :meth:`tick` next has something to decide; ``None`` while nothing is held."""
        return self.alerts.next_due(now or self.clock())

    def _still_wanted(self, item: Pending) -> bool:
        """Does the moment of a held-back raise still stand? A gate: the session's lane still
        holds it open, or (a wait only a store records) the board still reads it waiting; a
        finished turn: no new turn started (that withdraws it) and the lane still reads idle."""
        key = (item.harness, item.session_id)
        with self._lock:
            seen = self._board_states.get(key)
            lane = self._lanes.get(key)
            if item.kind == "finished":
                return lane is not None and lane.state == "idle"
            if item.kind != "gate":
                return item.kind in ("idle", "question", "departure", "tripwire")
            if lane is not None and lane.gate is not None:
                return True
            if (
                lane is not None
                and lane.last_event_at is not None
                and (self._board_at is None or lane.last_event_at > self._board_at)
            ):
                # An event came after the newest board and holds no gate: whatever that
                # board read, the wait has ended since (a gate answered in a second).
                return False
            return seen is not None and seen.state == "needs_input"

    def _clear_on_own_write(self, key: tuple[str, str], s: BoardSession) -> bool:
        """A standing gate clears on the session's own next transcript write; a subagent's
        write says nothing about whether the human answered."""
        lane = self._lanes.get(key)
        if lane is None or lane.gate is None or s.last_active_at is None:
            return False
        if s.last_active_at <= lane.gate.since + GRACE:
            return False
        newest_sub = max((a.last_active_at for a in s.subagents if a.last_active_at is not None), default=None)
        if newest_sub is not None and newest_sub >= s.last_active_at:
            return False
        lane.clear_gate(
            signal="store record",
            source=next(
                (e.source for e in s.evidence if e.reading == "state" and e.signal == "store record"),
                f"the session's own store ({s.harness_label})",
            ),
            at=s.last_active_at,
            said="the session's own store write came after the wait opened",
            why="a session writes again only once its wait was answered",
        )
        self._seq += 1
        lane.log.append(
            LaneEvent(
                seq=self._seq,
                name="(transcript write)",
                kind="store",
                received_at=s.last_active_at,
                hook_at=None,
                effect="gate cleared by the session's own write",
            )
        )
        return True

    def _mark_ends(self, board: Board, now: datetime, rows: Mapping[tuple[str, str], BoardSession]) -> Board:
        """The board with the two marks that survive overlay retirement applied to idle rows:
        the session ended (``ended``, "session ended"), else its turn ended ("turn ended"),
        each only while no store write came after it. Only the rows an end or a turn end is
        known for are looked at (*rows* is the board's rows by session), or every idle row when
        those are more."""
        if not self.events and self.ends is None:
            return board
        candidates = self._end_candidates(board, rows)
        replaced: dict[int, BoardSession] = {}
        marked: dict[tuple[str, str], tuple[BoardSession, BoardSession]] = {}
        reads: dict[tuple[str, str], _MarkRead] = {}
        before = self._mark_reads
        for s in candidates:
            key = (s.harness, s.session_id)
            end = self.ends.get(s.harness, s.session_id) if self.ends is not None else None
            end_at = end.at if end is not None else None
            turn_end = self._turn_ends.get(key)
            read = before.get(key)
            # The same row object, the same end and turn end, and a wording that still stands
            # (its "last active ... ago" has not moved on): last board's decision holds.
            if (
                read is None
                or read.row is not s
                or read.end_at != end_at
                or read.turn_end != turn_end
                or not (read.read_at <= now and (read.stands_until is None or now < read.stands_until))
            ):
                read = _MarkRead(s, end_at, turn_end, now, *self._mark_for(marked, s, end_at, turn_end, now))
            reads[key] = read
            row = read.marked
            if row is not None:
                marked[key] = (s, row)
                replaced[id(s)] = row
        self._mark_reads = reads
        self._marked = marked
        if not replaced:
            return board
        return attrs.evolve(board, sessions=tuple([replaced.get(id(s), s) for s in board.sessions]))

    def _mark_for(
        self,
        marked: dict[tuple[str, str], tuple[BoardSession, BoardSession]],
        s: BoardSession,
        end_at: datetime | None,
        turn_end: datetime | None,
        now: datetime,
    ) -> tuple[datetime | None, BoardSession | None]:
        """The mark idle row *s* takes now (``None``: none), and the moment its wording stops
        standing (``None``: never)."""
        if s.ended or (end_at is None and turn_end is None):
            return None, None
        since = end_at if end_at is not None else turn_end
        assert since is not None
        if s.last_active_at is not None and s.last_active_at > since + GRACE:
            return None, None  # a store write came after it
        idle_for = (now - s.last_active_at).total_seconds() if s.last_active_at is not None else None
        changes_at = ago_changes_at(idle_for)
        stands_until = (
            None if changes_at is None or s.last_active_at is None else s.last_active_at + timedelta(seconds=changes_at)
        )
        if end_at is not None:
            return stands_until, self._marked_row(marked, s, True, f"session ended · last active {ago(idle_for)}")
        return stands_until, self._marked_row(marked, s, s.ended, f"turn ended · last active {ago(idle_for)}")

    def _end_candidates(self, board: Board, rows: Mapping[tuple[str, str], BoardSession]) -> list[BoardSession]:
        """The idle rows an end mark may apply to: those an end or a turn end is known for,
        or every idle row when those are fewer."""
        ends = self.ends.all() if self.ends is not None else ()
        if len(ends) + len(self._turn_ends) >= len(board.sessions):
            return [s for s in board.sessions if s.state == "idle"]
        wanted = {(e.harness, e.session_id) for e in ends}
        wanted.update(self._turn_ends)
        return [r for r in (rows.get(k) for k in wanted) if r is not None and r.state == "idle"]

    def _marked_row(
        self,
        marked: dict[tuple[str, str], tuple[BoardSession, BoardSession]],
        s: BoardSession,
        ended: bool,
        detail: str,
    ) -> BoardSession:
        """*s* with the mark; the previous board's marked object itself when it was made from
        this very row with the same wording (so a row that did not change stays the same
        object for everything that compares rows by identity)."""
        key = (s.harness, s.session_id)
        prior = self._marked.get(key)
        if prior is not None and prior[0] is s and prior[1].ended == ended and prior[1].detail == detail:
            row = prior[1]
        else:
            row = attrs.evolve(s, ended=ended, detail=detail)
        marked[key] = (s, row)
        return row

    # -- other lanes in -------------------------------------------------------------------

    def report_tab_lane(self, now: datetime | None = None) -> None:
        """A dashboard tab reported its own (browser) notification lane."""
        self.alerts.report_tab_lane(now or self.clock())

    def raise_question(self, harness: str, session_id: str, text: str, now: datetime | None = None) -> str:
        """A question registered through the ask lane: notify on arrival (own 15 s floor)."""
        moment = now or self.clock()
        with self._lock:
            if self._is_subagent(harness, session_id):
                return "subagent"
            label = self._label(harness, session_id)
        return self.alerts.question(harness, session_id, f"{label} asks a question", clip(text, 180), moment)

    # -- reading back ---------------------------------------------------------------------

    def turn_ended_at(self, harness: str, session_id: str) -> datetime | None:
        """When an event last said this session's turn ended (survives retirement)."""
        with self._lock:
            return self._turn_ends.get((harness, session_id))

    def terminal_of(self, harness: str, session_id: str) -> Terminal | None:
        """The terminal identity the session's own events carried (newest), if recorded."""
        with self._lock:
            found = self._terminals.get((harness, session_id))
            return found[0] if found is not None else None

    def sessions_with_terminal(self) -> list[tuple[str, str]]:
        """The sessions whose own events carried a terminal identity (what
        :meth:`terminal_of` answers for), oldest first."""
        with self._lock:
            return list(self._terminals)

    def started_this_run(self, harness: str, session_id: str) -> datetime | None:
        """When this run saw the session start (``None``: it started before, or unseen)."""
        with self._lock:
            return self._started.get((harness, session_id))

    def session_end(self, harness: str, session_id: str) -> End | None:
        return self.ends.get(harness, session_id) if self.ends is not None else None

    def deliveries_for(self, harness: str, session_id: str) -> tuple[Delivery, ...]:
        return self.deliveries.for_session(harness, session_id)

    def irreversible_reports(self, harness: str | None = None, session_id: str | None = None) -> tuple[Report, ...]:
        if not self.irreversible_enabled:
            return ()
        with self._lock:
            return self._reports.reports(self.clock(), harness, session_id)

    def session_record(self, harness: str, session_id: str) -> dict[str, Any]:
        """The session page's record of one session: what became of each raise about it
        (newest first, worded), its irreversible-command reports and its lifecycle marks.

        Deliveries are kept under ``--no-events`` too (store-read waits still raise); the
        reports and marks then say why they are absent.
        """
        moment = self.clock()
        deliveries = self.deliveries_for(harness, session_id)
        status = self.status()
        return {
            "harness": harness,
            "session_id": session_id,
            "generated_at": iso(moment),
            "events": self.events,
            "notifications": status["notifications"],
            "deliveries": [delivery_doc(d) for d in deliveries],
            "deliveries_note": DELIVERIES_NOTE,
            #: Raises about this session a precision rule did not send when they arose, and why.
            "withheld": [skip_doc(k) for k in self.alerts.skips_for(harness, session_id)],
            "irreversible": reports_doc(
                self.irreversible_reports(harness, session_id),
                enabled=self.irreversible_enabled,
                events=self.events,
                events_off=self.events_off,
            ),
            "marks": marks_doc(
                events=self.events,
                events_off=self.events_off,
                turn_ended_at=self.turn_ended_at(harness, session_id),
                end=self.session_end(harness, session_id),
            ),
            "problems": status["resets"] + status["write_errors"],
        }

    @property
    def needs_fixed_scan(self) -> bool:
        """True while a raise lane is on (the desktop's, or a listener's such as the reach
        nudges): with no page open nothing else would rebuild the board, so it is rebuilt on
        a fixed interval to notice store-read waits, events on or off. With events on an
        event still asks for its own rebuild at once."""
        return self.alerts.enabled or self.alerts.has_listeners

    def pushed_quota(self, harness: str) -> tuple[datetime, Mapping[str, Any]] | None:
        """The newest quota block a harness pushed (Antigravity's status line), in memory."""
        with self._lock:
            return self._quota.get(harness)

    def status(self) -> dict[str, Any]:
        """Event lane and notification availability, as the page's header reports it."""
        return {
            "events": self.events,
            "irreversible": self.irreversible_enabled,
            "notifications": {
                "enabled": self.alerts.enabled,
                "backend": self.notifier.name,
                "available": self.notifier.available,
                "detail": self.notifier.detail,
                "checked_at": iso(self.notifier_checked_at),
                #: Quiet hours of this run ("HH:MM-HH:MM", local time), or None.
                "quiet_hours": self.alerts.quiet.text() if self.alerts.quiet is not None else None,
                "confirm_s": self.alerts.confirm.total_seconds(),
                #: Raises the precision rules held back this run (unconfirmed, in-view,
                #: in-front, quiet, quiet-dropped), and how many quiet hours hold now.
                "withheld": dict(self.alerts.withheld),
                "held_for_quiet_hours": len(self.alerts.held_quiet),
            },
            "resets": [r for r in (self.ends.reset if self.ends else None, self.deliveries.reset) if r],
            #: The same resets for the page's header: which store, what happened, and when.
            "store_resets": [
                {"store": j.path.name, "text": j.reset, "at": iso(j.reset_at)}
                for j in (self.ends.journal if self.ends else None, self.deliveries.journal)
                if j is not None and j.reset
            ],
            "write_errors": [
                w for w in (self.ends.write_error if self.ends else None, self.deliveries.write_error) if w
            ],
        }

    def diagnostics(self, now: datetime | None = None) -> dict[str, Any]:
        """The ``/api/overlays`` document: live overlays with their arrival order and
        timings, and every time an event overruled a session read as waiting."""
        moment = now or self.clock()
        published = self.overlays(moment)
        with self._lock:
            lanes: list[tuple[int, dict[str, Any]]] = []
            for (harness, sid), lane in self._lanes.items():
                overlay = published.get((harness, sid))
                newest = max((e.seq for e in lane.log), default=0)
                lanes.append(
                    (
                        newest,
                        {
                            "harness": harness,
                            "session_id": sid,
                            "overlay": _overlay_doc(overlay),
                            "claim": {
                                "state": lane.state,
                                "at": iso(lane.claim_at),
                                "source": lane.claim_source,
                                "until": iso(lane.until),
                            },
                            "gate": None
                            if lane.gate is None
                            else {
                                "kind": lane.gate.kind,
                                "text": lane.gate.text,
                                "since": iso(lane.gate.since),
                                "origin": lane.gate.origin,
                                "source": lane.gate.source,
                                "age_s": round((moment - lane.gate.since).total_seconds(), 1),
                            },
                            "turn_ended_at": iso(self._turn_ends.get((harness, sid))),
                            "events": [
                                {
                                    "seq": e.seq,
                                    "name": e.name,
                                    "kind": e.kind,
                                    "received_at": iso(e.received_at),
                                    "hook_at": iso(e.hook_at),
                                    "delivery_ms": None
                                    if e.hook_at is None
                                    else round((e.received_at - e.hook_at).total_seconds() * 1000, 1),
                                    "age_s": round((moment - e.received_at).total_seconds(), 1),
                                    "effect": e.effect,
                                }
                                for e in lane.log
                            ],
                        },
                    )
                )
            lanes.sort(key=lambda pair: pair[0], reverse=True)
            ends = [
                {"harness": e.harness, "session_id": e.session_id, "at": iso(e.at), "reason": e.reason}
                for e in (self.ends.all() if self.ends else ())
            ]
            overrules = [
                {
                    "harness": o.harness,
                    "session_id": o.session_id,
                    "at": iso(o.at),
                    "event": o.event,
                    "read_as": o.read_as,
                    "read_source": o.read_source,
                    "asserted": o.asserted,
                }
                for o in reversed(self._overrules)
            ]
            return {
                "generated_at": iso(moment),
                "events_received": self._seq,
                "overlays": [
                    {"harness": h, "session_id": s, **_overlay_doc(o)}  # type: ignore[dict-item]
                    for (h, s), o in sorted(published.items())
                ],
                "lanes": [doc for _, doc in lanes],
                "overrules": overrules,
                "ends": ends,
                "status": self.status(),
            }

    def close(self) -> None:
        """Stop the notification thread (after the alerts already raised), then write what
        the stores still have queued."""
        self.alerts.close()
        self.deliveries.close()
        if self.ends is not None:
            self.ends.close()

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Wait until the stores' queued lines are on disk (tests, and before a restart)."""
        ok = self.deliveries.flush(timeout_s)
        return (self.ends.flush(timeout_s) if self.ends is not None else True) and ok


def _bounded_put(table: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    table.pop(key, None)
    table[key] = value
    while len(table) > LANE_LIMIT:
        table.popitem(last=False)


def _overlay_key(overlay: Overlay | None) -> tuple[Any, ...] | None:
    if overlay is None:
        return None
    gate = overlay.gate
    return (overlay.state, overlay.source, None if gate is None else (gate.kind, gate.text, gate.since))


def _overlay_doc(overlay: Overlay | None) -> dict[str, Any] | None:
    if overlay is None:
        return None
    return {
        "state": overlay.state,
        "state_words": _STATE_WORDS[overlay.state],
        "at": iso(overlay.at),
        "source": overlay.source,
        "until": iso(overlay.until),
        "gate": None
        if overlay.gate is None
        else {
            "kind": overlay.gate.kind,
            "text": overlay.gate.text,
            "since": iso(overlay.gate.since),
            "source": overlay.gate.source,
        },
    }
