"""Evidence: what a row's state, wait, detail and model rest on, and what was overruled.

Nothing here reads anything. It records what was already decided: the reader's own items
(``SessionReading.evidence``: a turn end it found, a pid file it distrusted), the event lane's
(``Overlay.evidence``: the claim, a gate it cleared and on what), and core's derivation (the
precedence :func:`cargento.board.state.resolve_state` applied, the recency rule, the detail's
branch, the model hook's answer). An overrule names both sides: the item that won carries
the one that lost in ``overruled``, with why.

Every ``said`` is free of clock-relative wording, so an unchanged store keeps equal evidence
and the revision (:mod:`cargento.board.revision`) does not move on the clock alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from cargento.board.detail import GATE_WORDING
from cargento.board.document import BoardTask, State
from cargento.board.session_row import SessionRow
from cargento.board.state import WORKING_WINDOW_S, Overlay, is_working
from cargento.evidence import shown_path
from cargento.models import Evidence, EvidenceSignal, Gate, Overruled, Subagent

__all__ = ["STATE_WORDS", "event_route", "row_evidence", "shown_path", "signal_of_source"]

#: How a state is said in an evidence item.
STATE_WORDS: dict[str, str] = {"working": "working", "needs_input": "needs input", "idle": "idle"}
_RECENCY_RULE = f"working window ({WORKING_WINDOW_S:g} s)"


def event_route(harness: str) -> str:
    """The route lifecycle events of *harness* arrive on."""
    return f"POST /api/events/{harness}"


def signal_of_source(source: str) -> EvidenceSignal:
    """The signal kind behind a gate's or an overlay's ``source`` string."""
    if source.startswith("event:") or source in ("event", "events", "notification", "hook"):
        return "hook event"
    if source.startswith(("otlp", "telemetry")):
        return "telemetry"
    return "store record"


def _gate_words(gate: Gate) -> str:
    return gate.text or GATE_WORDING.get(gate.kind, "waiting on you")


def _gate_item(gate: Gate, harness: str, store: str) -> Evidence:
    signal = signal_of_source(gate.source)
    if signal == "hook event":
        where = f"{event_route(harness)} · {gate.source}"
    elif store.endswith(("/" + gate.source, "\\" + gate.source)):
        where = store
    else:
        where = f"{store} · {gate.source}"
    return Evidence(reading="wait", signal=signal, source=where, observed_at=gate.since, said=f"{_gate_words(gate)}")


def _store_state(row: SessionRow, now: datetime, subagents: list[Subagent], store: str) -> tuple[State, list[Evidence]]:
    """The state the store alone reads, and the items it rests on."""
    _, why = is_working(row, now, subagents)
    reading = row.reading
    last = row.last_active
    if why == "busy":
        return "working", [
            Evidence(
                reading="state",
                signal="store record",
                source=store,
                observed_at=last,
                said="the reader holds the turn open: the store records work started and not finished",
            )
        ]
    if why == "subagents":
        running = [s for s in subagents if s.running]
        newest = max((s.last_active_at for s in running if s.last_active_at is not None), default=None)
        names = ", ".join(s.name for s in running[:3])
        return "working", [
            Evidence(
                reading="state",
                signal="store record",
                source=store,
                observed_at=newest,
                said=f"running subagent{'s' if len(running) != 1 else ''}: {names}",
            )
        ]
    if why == "ended":
        said = "the store records that the turn ended"
        at = reading.turn.ended_at or last
        if reading.ended and reading.turn.state != "ended":
            said, at = "the store records that the session ended", last
        return "idle", [Evidence(reading="state", signal="store record", source=store, observed_at=at, said=said)]
    write = Evidence(
        reading="state", signal="store record", source=store, observed_at=last, said="the session's last write"
    )
    if last is None:
        write = Evidence(reading="state", signal="store record", source=store, said="no activity time could be read")
    if why == "recent":
        rule = "activity inside the working window reads working (the store records no turn boundary)"
        return "working", [write, Evidence(reading="state", signal="clock rule", source=_RECENCY_RULE, said=rule)]
    rule = "no activity inside the working window reads idle"
    return "idle", [write, Evidence(reading="state", signal="clock rule", source=_RECENCY_RULE, said=rule)]


def _overlay_items(overlay: Overlay, harness: str) -> list[Evidence]:
    if overlay.evidence:
        return list(overlay.evidence)
    at = None if overlay.state == "working" else overlay.at
    return [
        Evidence(
            reading="state",
            signal=signal_of_source(overlay.source),
            source=f"{event_route(harness)} · {overlay.source}",
            observed_at=at,
            said=f"{overlay.source} claims {STATE_WORDS[overlay.state]}",
        )
    ]


def _loser(item: Evidence, why: str) -> Overruled:
    return Overruled(signal=item.signal, source=item.source, observed_at=item.observed_at, said=item.said, why=why)


def _detail_item(
    *,
    detail: str,
    state: State,
    overlay: Overlay | None,
    state_source: str,
    row: SessionRow,
    tasks: Sequence[BoardTask],
    store: str,
) -> Evidence | None:
    if state != "working":
        return None
    reading = row.reading
    if overlay is not None and state_source != "store" and overlay.detail == detail:
        return Evidence(
            reading="detail", signal="hook event", source=f"{event_route(row.info.key)} · {overlay.source}", said=detail
        )
    if any(t.status == "in_progress" and (t.active_form or t.subject) == detail for t in tasks):
        return Evidence(reading="detail", signal="store record", source=store, said=f"task in progress: {detail}")
    if detail.startswith("running ") and "subagent" in detail:
        return Evidence(reading="detail", signal="store record", source=store, said=detail)
    if detail == reading.detail:
        return Evidence(reading="detail", signal="store record", source=store, said=f"the reader says: {detail}")
    if detail == "thinking" and reading.thinking:
        return Evidence(
            reading="detail",
            signal="store record",
            source=store,
            said="the newest record hands the turn to the model with no tool call open",
        )
    if detail == reading.last_tool:
        raw = f" ({reading.last_tool_raw})" if reading.last_tool_raw else ""
        return Evidence(
            reading="detail", signal="store record", source=store, said=f"the newest tool call: {detail}{raw}"
        )
    return Evidence(
        reading="detail", signal="clock rule", source=_RECENCY_RULE, said="working with nothing more specific recorded"
    )


def row_evidence(
    *,
    row: SessionRow,
    now: datetime,
    state: State,
    state_source: str,
    gate: Gate | None,
    overlay: Overlay | None,
    subagents: list[Subagent],
    tasks: Sequence[BoardTask],
    detail: str,
    home: str,
) -> tuple[Evidence, ...]:
    """The evidence of one derived row; *overlay* is the live overlay the state was resolved with."""
    reading = row.reading
    harness = row.info.key
    store = shown_path(reading.ref.path, home)
    items: list[Evidence] = list(reading.evidence)
    store_state, store_items = _store_state(row, now, subagents, store)
    # The same test resolve_state applies: an overlay outranks the store while it is newer than
    # the store's last activity, and always when it carries a gate.
    used = overlay is not None and (
        row.last_active is None or overlay.at >= row.last_active or overlay.gate is not None
    )
    if gate is not None:
        wait = _gate_item(gate, harness, store)
        if overlay is not None and overlay.gate is None and overlay.state != "needs_input":
            claim = _overlay_items(overlay, harness)[0]
            wait = attrs.evolve(
                wait, overruled=_loser(claim, "a standing wait on you outranks a lifecycle event's claim")
            )
        items.append(wait)
        if overlay is not None and gate is overlay.gate:
            items.extend(overlay.evidence)
        items.extend(store_items)
    elif overlay is not None and used:
        claims = _overlay_items(overlay, harness)
        if store_state != overlay.state:
            why = "a lifecycle event newer than the store's last write outranks what the store reads"
            claims[0] = attrs.evolve(claims[0], overruled=_loser(store_items[0], why))
        items.extend(claims)
        items.extend(store_items)
    else:
        if overlay is not None and overlay.state != store_state:
            why = "the session's own store write came after the event, so the store decides"
            store_items[0] = attrs.evolve(store_items[0], overruled=_loser(_overlay_items(overlay, harness)[0], why))
        elif overlay is not None:
            items.extend(_overlay_items(overlay, harness))
        items.extend(store_items)
    found = _detail_item(
        detail=detail, state=state, overlay=overlay, state_source=state_source, row=row, tasks=tasks, store=store
    )
    if found is not None:
        items.append(found)
    if row.model is not None:
        items.append(
            Evidence(
                reading="model",
                signal="store record",
                source=store,
                said=f"the store names the model {row.model.id}"
                + (f" ({row.model.authority})" if row.model.authority else ""),
            )
        )
    # A reader's own item for a record says more than core's generic one for the same record.
    by_reader = {(e.reading, e.signal, e.observed_at) for e in reading.evidence if e.observed_at is not None}
    out: list[Evidence] = []
    for index, item in enumerate(items):
        generic = index >= len(reading.evidence) and item.overruled is None and item.signal == "store record"
        if generic and (item.reading, item.signal, item.observed_at) in by_reader:
            continue
        if item not in out:
            out.append(item)
    return tuple(out)
