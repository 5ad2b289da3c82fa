"""One session's event lane: the claim its lifecycle events make about its state.

A :class:`Lane` folds a session's events, in arrival order, into one claim (Working from a
turn start until its stop, Idle after a stop) and at most one standing gate, and publishes
them as a :class:`~cargento.board.Overlay`. The rules, in the specification's terms:

* a prompt submitted (or a turn start) claims Working; a stop claims Idle and marks that the
  turn ended; a finished tool keeps the turn Working;
* a permission request, an actionable notification, or a plugin's open wait stands as a gate
  (Needs input); an idle nudge and an informational notification never do;
* a gate clears on the session's own later lifecycle event (a new prompt, a stop, the same
  tool finishing, the plugin's matching reply), on the session's own next transcript write
  (the hub reads that off the board), on SessionEnd, and on restart (lanes are in memory);
* events a subagent sends on its parent's session id, and events of a prompt or turn whose
  stop has already arrived (hooks can land out of order), make no claim;
* a Working claim lapses after :data:`WORKING_TTL` without any event (so a killed process
  cannot hold a row Working), Antigravity's status-line claim after 90 s.

The Working claim is published stamped "now", so it outranks recency read off the store:
the store cannot tell a long tool run from a quiet session, the turn start can. An Idle claim
is published stamped shortly after its stop, so a store write after that (the next prompt
from a lane without hooks) takes over again.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta

import attrs

from cargento.board import Overlay, State
from cargento.board.evidence import STATE_WORDS, event_route
from cargento.events.payloads import LifecycleEvent
from cargento.models import Evidence, EvidenceSignal, Gate, Overruled
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

__all__ = ["WORKING_TTL", "GateStanding", "Lane", "LaneEvent"]

#: A Working claim with no event for this long lapses back to the store's reading.
WORKING_TTL = timedelta(minutes=15)
#: Antigravity's status line gives Working a deadline: the return to Idle often cannot be seen.
STATUS_TTL = timedelta(seconds=90)
#: A store write this soon after an Idle claim or a gate is the same moment, not a new one.
GRACE = timedelta(seconds=5)
#: Diagnostic events kept per lane.
LOG_LIMIT = 64
#: Stopped prompt/turn keys remembered per lane.
STOPPED_LIMIT = 32


@shared_repr
@attrs.define(kw_only=True, repr=False, eq=False)
class GateStanding:
    """A gate an event opened and nothing has closed yet."""

    kind: str
    text: str | None
    since: datetime
    #: ``permission`` (a PermissionRequest hook), ``notification`` (Claude path 2) or
    #: ``plugin`` (the OpenCode plugin, the Pi extension).
    origin: str
    source: str
    tool: str | None = None
    tool_match: str | None = None
    #: The subagent whose tool call is asking (the question is drawn in the parent's terminal).
    agent_id: str | None = None
    requests: set[str] = attrs.Factory(set)

    def as_gate(self) -> Gate:
        return Gate(kind=self.kind, text=self.text, since=self.since, source=self.source)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class LaneEvent:
    """One arrival, as ``/api/overlays`` lists it."""

    seq: int
    name: str
    kind: str
    received_at: datetime
    hook_at: datetime | None
    effect: str


@shared_repr
@attrs.define(kw_only=True, repr=False, eq=False)
class Lane:
    harness: str
    session_id: str
    state: State | None = None
    claim_at: datetime | None = None
    claim_source: str | None = None
    until: datetime | None = None
    gate: GateStanding | None = None
    turn_key: str | None = None
    stopped: deque[str] = attrs.Factory(lambda: deque(maxlen=STOPPED_LIMIT))
    last_event_at: datetime | None = None
    last_stop_at: datetime | None = None
    log: deque[LaneEvent] = attrs.Factory(lambda: deque(maxlen=LOG_LIMIT))
    #: The newest gate that something cleared, and what cleared it: published as an overrule
    #: in the overlay's evidence while the lane goes on claiming anything.
    cleared: Evidence | None = None

    # -- folding events -------------------------------------------------------------------

    def apply(self, event: LifecycleEvent, seq: int) -> str:
        """Fold one event in; returns the effect, as the diagnostics name it."""
        self.last_event_at = event.received_at
        effect = self._effect(event)
        self.log.append(
            LaneEvent(
                seq=seq,
                name=event.name,
                kind=event.kind,
                received_at=event.received_at,
                hook_at=event.hook_at,
                effect=effect,
            )
        )
        return effect

    def _source(self, event: LifecycleEvent) -> str:
        return f"event:{event.name}"

    def clear_gate(self, *, signal: EvidenceSignal, source: str, at: datetime | None, said: str, why: str) -> None:
        """Clear the standing gate, remembering what cleared it (the winning side) against the
        gate it cleared (the losing side) for the overlay's evidence."""
        gate = self.gate
        if gate is None:
            return
        self.gate = None
        asked = f"{gate.source} asked: {gate.text or gate.kind}"
        self.cleared = Evidence(
            reading="wait",
            signal=signal,
            source=source,
            observed_at=at,
            said=said,
            overruled=Overruled(
                signal="hook event",
                source=f"{event_route(self.harness)} · {gate.source}",
                observed_at=gate.since,
                said=asked,
                why=why,
            ),
        )

    def _cleared_by_event(self, event: LifecycleEvent, why: str) -> None:
        self.clear_gate(
            signal="hook event",
            source=f"{event_route(self.harness)} · {self._source(event)}",
            at=event.received_at,
            said=f"{self._source(event)} arrived",
            why=why,
        )

    def _stale(self, event: LifecycleEvent) -> bool:
        """An event of a prompt or turn whose stop already arrived (out-of-order delivery)."""
        return event.turn_key is not None and event.turn_key in self.stopped

    def _claim(self, state: State, event: LifecycleEvent, ttl: timedelta | None) -> None:
        self.state = state
        self.claim_at = event.received_at
        self.claim_source = self._source(event)
        self.until = event.received_at + ttl if ttl is not None else None

    def _effect(self, event: LifecycleEvent) -> str:
        kind = event.kind
        if event.agent_id is not None and kind == "permission":
            # A subagent's permission prompt is drawn in its parent's terminal: the person
            # in that session is the one being asked.
            self._open_gate(event, "permission")
            return f"needs input: a subagent's {event.gate_kind or 'permission'}"
        if event.agent_id is not None and kind not in ("subagent_started", "subagent_stopped"):
            cleared = (
                kind == "tool_finished"
                and self.gate is not None
                and self.gate.agent_id == event.agent_id
                and self._clear_for_tool(event)
            )
            if self.state == "working" and self.until is not None:
                self.until = max(self.until, event.received_at + WORKING_TTL)
            return "subagent activity: gate cleared" if cleared else "subagent activity: no claim"
        if kind == "turn_started":
            if self._stale(event):
                return "late prompt of a stopped turn: ignored"
            self._cleared_by_event(event, "a new prompt means the person answered")
            self.turn_key = event.turn_key
            self._claim("working", event, WORKING_TTL)
            return "working: turn started"
        if kind == "turn_stopped":
            if event.turn_key is not None:
                self.stopped.append(event.turn_key)
            self._cleared_by_event(event, "the turn ended, so nothing is still being asked")
            self.last_stop_at = event.received_at
            self._claim("idle", event, None)
            return "idle: turn ended"
        if kind == "tool_finished":
            cleared = self._clear_for_tool(event)
            if self._stale(event):
                return (
                    "gate cleared; late tool of a stopped turn" if cleared else "late tool of a stopped turn: ignored"
                )
            if (
                self.state == "idle"
                and event.turn_key is None
                and self.last_stop_at is not None
                and (event.received_at - self.last_stop_at <= GRACE)
            ):
                return "tool just after a stop: ignored"
            self._claim("working", event, WORKING_TTL)
            return "working: tool finished" + ("; gate cleared" if cleared else "")
        if kind == "permission":
            self._open_gate(event, "permission")
            if self.state != "working":
                self._claim("working", event, WORKING_TTL)
            return f"needs input: {event.gate_kind or 'permission'}"
        if kind == "notification":
            return self._notification(event)
        if kind == "wait_opened":
            if self.gate is not None and self.gate.origin == "plugin":
                self.gate.requests.add(event.request_id or "")
            else:
                self._open_gate(event, "plugin")
                assert self.gate is not None
                self.gate.requests = {event.request_id or ""}
            return "needs input: wait opened"
        if kind == "wait_closed":
            if self.gate is not None and self.gate.origin == "plugin":
                self.gate.requests.discard(event.request_id or "")
                if not self.gate.requests:
                    self._cleared_by_event(event, "the plugin reported the wait answered")
                    return "wait closed: gate cleared"
                return "wait closed: others still open"
            return "wait closed: nothing standing"
        if kind == "status":
            return self._status(event)
        if kind == "session_started":
            return "session started" if event.reason != "compact" else "compaction restart: no claim"
        if (
            kind == "subagent_stopped"
            and self.gate is not None
            and event.agent_id is not None
            and self.gate.agent_id == event.agent_id
        ):
            self._cleared_by_event(event, "the subagent that was asking stopped")
            return "subagent stopped: its gate cleared"
        if kind in ("subagent_started", "subagent_stopped"):
            return f"{kind.replace('_', ' ')}: no claim"
        if kind in ("tasks_changed", "compacted", "store_moved"):
            return "store moved: rescan"
        return "not a lifecycle event here: ignored"

    def _open_gate(self, event: LifecycleEvent, origin: str) -> None:
        if self.gate is not None and self.gate.origin != "plugin" and origin != "plugin":
            # A second report of the same wait (the notification 6 s after the request)
            # keeps the first one's wording and start.
            if self.gate.text is None and event.gate_text:
                self.gate.text = event.gate_text
            return
        self.gate = GateStanding(
            kind=event.gate_kind or "permission",
            text=event.gate_text,
            since=event.received_at,
            origin=origin,
            source=self._source(event),
            tool=event.tool,
            tool_match=event.tool_match,
            agent_id=event.agent_id,
        )

    def _clear_for_tool(self, event: LifecycleEvent) -> bool:
        gate = self.gate
        if gate is None or gate.origin == "plugin" or gate.agent_id != event.agent_id:
            return False
        if gate.origin == "permission" and gate.tool is not None and event.tool is not None:
            if gate.tool != event.tool:
                return False
            if gate.tool_match is not None and event.tool_match is not None and gate.tool_match != event.tool_match:
                return False
        self._cleared_by_event(event, "the tool that was asking finished, so it was answered")
        return True

    def _notification(self, event: LifecycleEvent) -> str:
        disposition = event.disposition
        if disposition is None:
            return "notification without a type: ignored"
        if disposition.blocks:
            self._open_gate(event, "notification")
            return f"needs input: notification {event.reason or '(untyped)'}"
        if disposition.clears and self.gate is not None and self.gate.origin != "plugin":
            self._cleared_by_event(event, "the harness's own notification says the wait is over")
            return f"{disposition.action} notification: gate cleared"
        return f"{disposition.action} notification: no claim"

    def _status(self, event: LifecycleEvent) -> str:
        state = event.agent_state
        if state in ("working", "tool_use"):
            self._claim("working", event, STATUS_TTL)
            return "working: status line"
        if state == "idle":
            was_working = self.state == "working" and (self.until is None or self.until > event.received_at)
            self._claim("idle", event, None)
            if was_working:
                self.last_stop_at = event.received_at
                return "idle: turn ended (status line)"
            return "idle: status line"
        return "status line: no claim"

    # -- other clearings ------------------------------------------------------------------

    def end(self) -> None:
        """Retire every claim: the session ended."""
        self.state = None
        self.claim_at = None
        self.claim_source = None
        self.until = None
        self.gate = None
        self.cleared = None

    # -- publication ----------------------------------------------------------------------

    def evidence(self) -> tuple[Evidence, ...]:
        """What this lane's overlay rests on: the standing gate or the claim, and the newest
        gate something cleared (an overrule naming both sides). Clock-independent."""
        items: list[Evidence] = []
        route = event_route(self.harness)
        if self.gate is not None:
            gate = self.gate
            items.append(
                Evidence(
                    reading="wait",
                    signal="hook event",
                    source=f"{route} · {gate.source}",
                    observed_at=gate.since,
                    said=f"{gate.source} asked: {gate.text or gate.kind}; nothing has answered it since",
                )
            )
        elif self.state is not None and self.claim_at is not None:
            source = self.claim_source or "event"
            said = f"{source} claims {STATE_WORDS[self.state]}"
            if self.state == "working" and self.until is not None:
                said += " until the claim lapses without another event"
            items.append(
                Evidence(
                    reading="state",
                    signal="hook event",
                    source=f"{route} · {source}",
                    observed_at=self.claim_at,
                    said=said,
                )
            )
        if self.cleared is not None:
            items.append(self.cleared)
        return tuple(items)

    def overlay(self, now: datetime) -> Overlay | None:
        """The overlay this lane asserts at *now*, or ``None`` when it claims nothing."""
        if self.gate is not None:
            return Overlay(
                state="needs_input", at=now, source=self.gate.source, gate=self.gate.as_gate(), evidence=self.evidence()
            )
        if self.state == "working" and self.claim_at is not None:
            if self.until is not None and self.until <= now:
                return None
            return Overlay(
                state="working", at=now, source=self.claim_source or "event", until=self.until, evidence=self.evidence()
            )
        if self.state == "idle" and self.claim_at is not None:
            return Overlay(
                state="idle", at=self.claim_at + GRACE, source=self.claim_source or "event", evidence=self.evidence()
            )
        return None
