"""The two small files the event lane keeps in Cargento's state directory.

``cargento-ends.json`` holds the session ends the board observed, so a session that finished
still reads as ended after a restart; ``cargento-deliveries.json`` holds what became of each
notification the board raised. Both are bounded :class:`~cargento_web.runtime.journal.Journal`
files: a change appends one line off the caller's thread, and a compaction now and then
rewrites the bounded records atomically, so what a change costs does not grow with the
history. A file that cannot be read whole is set aside rather than repaired or written over:
the store starts empty and says which reset it was in ``reset``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso, parse_ts

from cargento_web.runtime.journal import Journal

__all__ = ["DELIVERIES_FILE", "ENDS_FILE", "DeliveriesStore", "Delivery", "End", "EndsStore"]

ENDS_FILE = "cargento-ends.json"
DELIVERIES_FILE = "cargento-deliveries.json"
#: Raises recorded as ``no-backend`` kept at most: a machine with no notification service
#: records each one, and they must not push real delivery history out of the bound.
NO_BACKEND_LIMIT = 100


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class End:
    """A session end the board observed."""

    harness: str
    session_id: str
    at: datetime
    reason: str | None = None


class EndsStore:
    """Observed session ends, persisted in ``cargento-ends.json``.

    Bounded to the newest *limit* ends within *max_age*. Only the event coordinator writes it;
    a replay (*read_only*) reads it as it stands and never writes it.
    """

    def __init__(
        self,
        directory: Path,
        *,
        limit: int = 2000,
        max_age: timedelta = timedelta(days=14),
        read_only: bool = False,
    ) -> None:
        self.path = directory / ENDS_FILE
        self.limit = limit
        self.max_age = max_age
        self._ends: dict[tuple[str, str], End] = {}
        self._lock = threading.RLock()
        self.journal = Journal(
            self.path,
            name="ends",
            bound=limit,
            snapshot=self._records,
            legacy_key="ends",
            lock=self._lock,
            read_only=read_only,
        )

    @property
    def reset(self) -> str | None:
        return self.journal.reset

    @property
    def write_error(self) -> str | None:
        """The last write failure, if any (the ends are still held in memory)."""
        return self.journal.write_error

    def load(self, now: datetime, *, as_of: bool = False) -> None:
        """Read the ends back. With *as_of* (a replay of the moment *now*), the ends as they
        stood then: each session's newest end up to *now*, one recorded later is not yet, and
        a start takes an end back only when it came by then (a start recorded by an earlier
        build carries no time and is not applied; the row's own activity after the end still
        retires its mark: see the hub's end marks)."""
        ends: dict[tuple[str, str], End] = {}
        for record in self.journal.load():
            harness, sid = record.get("harness"), record.get("session_id")
            if not isinstance(harness, str) or not isinstance(sid, str):
                continue
            if record.get("op") == "forget":
                if not as_of or ((started := parse_ts(record.get("at"))) is not None and started <= now):
                    ends.pop((harness, sid), None)
                continue
            at = parse_ts(record.get("at"))
            if at is None or now - at > self.max_age or (as_of and at > now):
                continue
            reason = record.get("reason")
            ends.pop((harness, sid), None)
            ends[(harness, sid)] = End(
                harness=harness, session_id=sid, at=at, reason=reason if isinstance(reason, str) else None
            )
        with self._lock:
            self._ends = dict(sorted(ends.items(), key=lambda kv: kv[1].at)[-self.limit :])

    def get(self, harness: str, session_id: str) -> End | None:
        with self._lock:
            return self._ends.get((harness, session_id))

    def all(self) -> tuple[End, ...]:
        with self._lock:
            return tuple(self._ends.values())

    def record(self, end: End, now: datetime) -> None:
        """Remember an end (replacing an older one of the same session) and persist it."""
        with self._lock:
            self._ends.pop((end.harness, end.session_id), None)
            self._ends[(end.harness, end.session_id)] = end
            trimmed = self._trim(now)
            self.journal.append(_end_record(end))
            if trimmed:
                self.journal.compact_soon()

    def forget(self, harness: str, session_id: str, at: datetime | None = None) -> bool:
        """Drop a session's end (it started again, at *at*) and persist; True when there was
        one. The time lets a replay of an earlier moment keep the end."""
        with self._lock:
            found = self._ends.pop((harness, session_id), None)
            if found is not None:
                record: dict[str, Any] = {"op": "forget", "harness": harness, "session_id": session_id}
                if at is not None:
                    record["at"] = iso(at)
                self.journal.append(record)
        return found is not None

    def flush(self, timeout_s: float = 5.0) -> bool:
        return self.journal.flush(timeout_s)

    def close(self) -> None:
        self.journal.close()

    def _trim(self, now: datetime) -> bool:
        stale = [k for k, e in self._ends.items() if now - e.at > self.max_age]
        for key in stale:
            del self._ends[key]
        over = max(0, len(self._ends) - self.limit)
        for _ in range(over):
            del self._ends[next(iter(self._ends))]
        return bool(stale) or over > 0

    def _records(self) -> list[Mapping[str, Any]]:
        return [_end_record(e) for e in self._ends.values()]


def _end_record(e: End) -> dict[str, Any]:
    return {"harness": e.harness, "session_id": e.session_id, "at": iso(e.at), "reason": e.reason}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Delivery:
    """What became of one raise.

    ``outcome`` is one of ``handed-over`` (the notification service accepted it; nothing
    says a banner was drawn or seen), ``service-error``, ``could-not-start``, ``timed-out``
    and ``no-backend`` (this platform has no backend in this build; no cooldown spent).
    """

    harness: str
    session_id: str
    #: ``gate`` (a transition into Needs input), ``idle`` (an idle nudge) or ``question``.
    kind: str
    raised_at: datetime
    outcome: str
    backend: str
    detail: str | None = None
    completed_at: datetime | None = None
    #: When a dashboard tab last reported a notification lane of its own, before the raise.
    tab_lane_reported_at: datetime | None = None
    tab_lane_before_s: float | None = None
    #: The notification's title as raised (``None`` in records written before it was kept).
    title: str | None = None


class DeliveriesStore:
    """One entry per raise in ``cargento-deliveries.json``: the newest *limit* raises, and
    apart from them at most :data:`NO_BACKEND_LIMIT` ``no-backend`` ones."""

    def __init__(self, directory: Path | None, *, limit: int = 1000, no_backend_limit: int = NO_BACKEND_LIMIT) -> None:
        self.path = directory / DELIVERIES_FILE if directory is not None else None
        self.limit = limit
        self.no_backend_limit = no_backend_limit
        self._lock = threading.RLock()
        self._seq = 0
        #: Raises recorded since this server started, by outcome (``/metrics`` counts them).
        self.raised_by_outcome: dict[str, int] = {}
        self._real: deque[tuple[int, Delivery]] = deque()
        self._no_backend: deque[tuple[int, Delivery]] = deque()
        self.journal: Journal | None = None
        if self.path is not None:
            self.journal = Journal(
                self.path,
                name="deliveries",
                bound=limit + no_backend_limit,
                snapshot=self._records,
                legacy_key="deliveries",
                lock=self._lock,
            )

    @property
    def reset(self) -> str | None:
        return self.journal.reset if self.journal is not None else None

    @property
    def write_error(self) -> str | None:
        return self.journal.write_error if self.journal is not None else None

    def load(self) -> None:
        if self.journal is None:
            return
        with self._lock:
            self._real.clear()
            self._no_backend.clear()
            for r in self.journal.load():
                delivery = _delivery(r)
                if delivery is not None:
                    self._keep(delivery)

    def add(self, delivery: Delivery) -> None:
        """Record a raise; returns at once (the line is written off this thread)."""
        with self._lock:
            self.raised_by_outcome[delivery.outcome] = self.raised_by_outcome.get(delivery.outcome, 0) + 1
            self._keep(delivery)
            if self.journal is not None:
                self.journal.append(_delivery_record(delivery))

    def _keep(self, delivery: Delivery) -> None:
        self._seq += 1
        ring, bound = (
            (self._no_backend, self.no_backend_limit) if delivery.outcome == "no-backend" else (self._real, self.limit)
        )
        ring.append((self._seq, delivery))
        while len(ring) > bound:
            ring.popleft()

    def _ordered(self) -> list[Delivery]:
        return [d for _, d in sorted([*self._real, *self._no_backend], key=lambda pair: pair[0])]

    def _records(self) -> list[Mapping[str, Any]]:
        return [_delivery_record(d) for d in self._ordered()]

    def for_session(self, harness: str, session_id: str) -> tuple[Delivery, ...]:
        """A session's deliveries, newest first."""
        with self._lock:
            return tuple(d for d in reversed(self._ordered()) if d.harness == harness and d.session_id == session_id)

    def all(self) -> tuple[Delivery, ...]:
        with self._lock:
            return tuple(reversed(self._ordered()))

    def flush(self, timeout_s: float = 5.0) -> bool:
        return self.journal.flush(timeout_s) if self.journal is not None else True

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()


def _delivery_record(d: Delivery) -> dict[str, Any]:
    return {
        "harness": d.harness,
        "session_id": d.session_id,
        "kind": d.kind,
        "raised_at": iso(d.raised_at),
        "outcome": d.outcome,
        "backend": d.backend,
        "detail": d.detail,
        "completed_at": iso(d.completed_at),
        "tab_lane_reported_at": iso(d.tab_lane_reported_at),
        "tab_lane_before_s": d.tab_lane_before_s,
        "title": d.title,
    }


def _delivery(r: Mapping[str, Any]) -> Delivery | None:
    raised = parse_ts(r.get("raised_at"))
    if raised is None or not all(
        isinstance(r.get(k), str) for k in ("harness", "session_id", "kind", "outcome", "backend")
    ):
        return None
    before = r.get("tab_lane_before_s")
    return Delivery(
        harness=r["harness"],
        session_id=r["session_id"],
        kind=r["kind"],
        raised_at=raised,
        outcome=r["outcome"],
        backend=r["backend"],
        detail=r.get("detail") if isinstance(r.get("detail"), str) else None,
        completed_at=parse_ts(r.get("completed_at")),
        tab_lane_reported_at=parse_ts(r.get("tab_lane_reported_at")),
        tab_lane_before_s=float(before) if isinstance(before, int | float) and not isinstance(before, bool) else None,
        title=r.get("title") if isinstance(r.get("title"), str) else None,
    )
