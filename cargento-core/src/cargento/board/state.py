"""State derivation: working, needs input or idle, by one precedence for every harness.

A gate (the plugin's, or one an event carried) reads *needs input*; a live event's overlay
outranks the store while it is newer than the store's last activity; otherwise the store
decides: a recorded turn end reads idle at once, and recency is the fallback where the store
records no turn boundary.
"""

from __future__ import annotations

import operator
from datetime import datetime

import attrs

from cargento.board.document import BoardSession, State
from cargento.board.session_row import SessionRow
from cargento.models import Evidence, Gate, Subagent
from cargento.sharedmethods import shared_methods

__all__ = [
    "WORKING_WINDOW_S",
    "Overlay",
    "age_subagent",
    "board_order",
    "is_working",
    "live_overlay",
    "resolve_state",
    "same_but_clock",
]

#: Activity newer than this reads Working where the store records no turn boundary.
WORKING_WINDOW_S = 90.0
_STATE_ORDER = {"needs_input": 0, "working": 1, "starting": 2, "idle": 3}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Overlay:
    """State asserted by a live lifecycle event rather than read from the store."""

    state: State
    at: datetime
    source: str = "event"
    detail: str | None = None
    gate: Gate | None = None
    #: The overlay lapses at this moment and the store reading applies again.
    until: datetime | None = None
    #: What the lane decided and on which event (the claim, and any gate it cleared and on
    #: what): clock-independent, so an unchanged lane keeps equal evidence.
    evidence: tuple[Evidence, ...] = ()


#: Every field of an overlay but ``at``, as one tuple (compared without making an overlay).
_clock_free = operator.attrgetter(*(f.name for f in attrs.fields(Overlay) if f.name != "at"))


def same_but_clock(before: Overlay | None, after: Overlay | None, last_active: datetime | None) -> bool:
    """Do *before* and *after* resolve a row whose store was last active at *last_active* the
    same way, for all but what moves with the clock? True when they are equal, or differ only
    in ``at`` (a lane's standing claim is stamped with the moment it is asked for) while
    ``at`` decides nothing: a gate outranks the store whatever ``at`` is, and a claim newer
    than the store's last activity at both moments outranks it at both; and the evidence does
    not quote ``at`` (the lane's own evidence, or a working claim, whose evidence names no
    moment)."""
    if before is after:
        return True
    if before is None or after is None or _clock_free(before) != _clock_free(after):
        return False
    if before.at == after.at:
        return True
    if not before.evidence and before.state != "working":
        return False
    if before.gate is not None:
        return True
    return last_active is None or (before.at >= last_active and after.at >= last_active)


def is_working(row: SessionRow, now: datetime, subagents: list[Subagent] | None) -> tuple[bool, str]:
    """The store-only state and why: a recorded turn end reads idle at once; recency is the fallback."""
    turn = row.reading.turn
    if turn.busy_until is not None and now < turn.busy_until and turn.state != "ended":
        return True, "busy"
    if subagents and any(s.running for s in subagents):
        return True, "subagents"
    if turn.state == "ended":
        return False, "ended"
    if row.reading.ended:
        return False, "ended"
    last = row.last_active
    if last is not None and (now - last).total_seconds() <= WORKING_WINDOW_S:
        return True, "recent"
    return False, "quiet"


def age_subagent(sub: Subagent, now: datetime) -> Subagent:
    """A subagent whose plugin said how long it may stay quiet stops running after that long."""
    quiet = sub.last_active_at is not None and (now - sub.last_active_at).total_seconds() > (sub.stale_after_s or 0.0)
    if sub.running and sub.stale_after_s is not None and quiet:
        return attrs.evolve(sub, running=False)
    return sub


def live_overlay(overlay: Overlay | None, now: datetime) -> Overlay | None:
    """*overlay*, or ``None`` once it has lapsed."""
    if overlay is not None and overlay.until is not None and overlay.until <= now:
        return None
    return overlay


def resolve_state(
    row: SessionRow, now: datetime, subagents: list[Subagent], overlay: Overlay | None
) -> tuple[State, str, Gate | None]:
    """The row's state, where it came from (``store``, the overlay's or the gate's source) and
    the gate it waits on, if any. *overlay* must be live (see :func:`live_overlay`)."""
    gate = row.gate
    source = "store"
    working, _ = is_working(row, now, subagents)
    state: State = "working" if working else "idle"
    if overlay is not None and (row.last_active is None or overlay.at >= row.last_active or overlay.gate):
        state = overlay.state
        source = overlay.source
        if overlay.gate is not None and gate is None:
            gate = overlay.gate
    if gate is not None:
        state = "needs_input"
        source = gate.source
    return state, source, gate


def board_order(session: BoardSession) -> tuple[int, float]:
    """Sort key: needs input, then working, then starting, then idle; most recently active first
    within each."""
    last = session.last_active_at.timestamp() if session.last_active_at else 0.0
    return (_STATE_ORDER[session.state], -last)
