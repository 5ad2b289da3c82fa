"""What telemetry said about each session: exact output tokens, their rate, cost, API errors
and tool decisions, bounded in memory and never written to disk.

Each harness's :class:`~cargento.telemetry.TelemetryVocabulary` says which names carry which
figure. A harness that reports one figure two ways (Claude Code's token metric and its
``api_request`` events) is read through the first source its vocabulary lists that has
delivered anything for that session, so no token is counted twice.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import attrs
from cargento.board.identity import row_key
from cargento.sharedrepr import shared_repr
from cargento.telemetry import FigureSource, TelemetryVocabulary

if TYPE_CHECKING:
    # The decoded shapes only; the decoders are imported by the first export or file line.
    from cargento_web.telemetry.otlp import Point, Record

__all__ = ["RATE_WINDOW", "SESSIONS_KEPT", "STALE_AFTER", "Ledger"]

#: The output rate is output tokens over this window, per minute (the board's definition).
RATE_WINDOW = timedelta(minutes=10)
#: A feed silent this long is stale: two and a half of the slowest default export interval
#: (60 s for metrics).
STALE_AFTER = timedelta(seconds=150)
#: Sessions kept; the one heard from least recently goes first.
SESSIONS_KEPT = 512
#: Rate samples kept per session and source.
SAMPLES_KEPT = 2048


@shared_repr
@attrs.define(eq=False, repr=False)
class _Tally:
    """One figure from one source for one session.

    Only the output tokens have a rate (``rated``), so only they keep samples, and only those
    of the rate window: a sample older than the window, read at a board's *now*, never counts
    again (each about 140 bytes, which a session fed for hours held by the thousand).
    """

    rated: bool = True
    total: float = 0.0
    samples: deque[tuple[datetime, float]] = attrs.field(factory=lambda: deque(maxlen=SAMPLES_KEPT))
    #: Cumulative series seen: series key -> last value.
    series: dict[tuple[Any, ...], float] = attrs.field(factory=dict)

    def add(self, amount: float, at: datetime, *, counts_for_rate: bool = True) -> None:
        if amount <= 0:
            return
        self.total += amount
        if counts_for_rate and self.rated:
            self.samples.append((at, amount))

    def rate(self, now: datetime) -> float:
        since = now - RATE_WINDOW
        samples = self.samples
        # Sent in order, oldest first: what fell out of the window goes (a late sample older
        # than one kept is passed over by the sum until it reaches the front).
        while samples and samples[0][0] < since:
            samples.popleft()
        return sum(a for t, a in samples if t >= since) / (RATE_WINDOW.total_seconds() / 60)


@shared_repr
@attrs.define(eq=False, repr=False)
class _Session:
    harness: str
    session_id: str
    first_at: datetime
    last_at: datetime
    tokens: dict[str, _Tally] = attrs.field(factory=dict)
    cost: dict[str, _Tally] = attrs.field(factory=dict)
    api_errors: int = 0
    decisions: dict[str, int] = attrs.field(factory=dict)


def _tally(tallies: dict[str, _Tally], key: str, *, rated: bool) -> _Tally:
    found = tallies.get(key)
    if found is None:
        found = tallies[key] = _Tally(rated=rated)
    return found


def _source_key(source: FigureSource) -> str:
    return f"{source.kind}:{source.name}:{source.field or ''}"


def _matches(point: Point, source: FigureSource) -> bool:
    if source.kind != "metric" or point.name != source.name:
        return False
    return all(str(point.attributes.get(k, point.resource.get(k))) == v for k, v in source.where.items())


class Ledger:
    """Per-session telemetry figures for every harness that declared a vocabulary."""

    def __init__(self, vocabularies: Mapping[str, TelemetryVocabulary]) -> None:
        self.vocabularies = dict(vocabularies)
        self._sessions: dict[tuple[str, str], _Session] = {}
        #: Harness -> when it last delivered anything (attributed or not).
        self.fed_at: dict[str, datetime] = {}
        #: Items that named no session this build can tie, by harness.
        self.unattributed: dict[str, int] = {}
        self._lock = threading.Lock()
        self._by_service = {svc: key for key, v in self.vocabularies.items() for svc in v.services}
        self._by_name: dict[str, str] = {}
        for key, v in self.vocabularies.items():
            for source in (*v.output_tokens, *v.cost_usd):
                self._by_name.setdefault(source.name, key)
            for name in (*v.api_errors, *(d.name for d in v.tool_decisions)):
                self._by_name.setdefault(name, key)

    # -- attribution --------------------------------------------------------------------

    def harness_of(self, names: tuple[str, ...] | str, resource: Mapping[str, Any]) -> str | None:
        service = resource.get("service.name")
        if isinstance(service, str) and service in self._by_service:
            return self._by_service[service]
        for name in (names,) if isinstance(names, str) else names:
            if name in self._by_name:
                return self._by_name[name]
        return None

    def _session(
        self, harness: str, attributes: Mapping[str, Any], resource: Mapping[str, Any], at: datetime
    ) -> _Session | None:
        vocabulary = self.vocabularies[harness]
        sid = None
        for key in vocabulary.session_attributes:
            value = attributes.get(key, resource.get(key))
            if isinstance(value, str) and 0 < len(value) <= 256:
                sid = value
                break
        if sid is None:
            self.unattributed[harness] = self.unattributed.get(harness, 0) + 1
            return None
        found = self._sessions.get((harness, sid))
        if found is None:
            if len(self._sessions) >= SESSIONS_KEPT:
                oldest = min(self._sessions, key=lambda k: self._sessions[k].last_at)
                del self._sessions[oldest]
            found = self._sessions[(harness, sid)] = _Session(harness=harness, session_id=sid, first_at=at, last_at=at)
        found.last_at = max(found.last_at, at)
        return found

    # -- intake -------------------------------------------------------------------------

    def take_points(self, points: Iterable[Point], *, now: datetime) -> int:
        """Record metric data points; returns how many fed a known session figure."""
        used = 0
        with self._lock:
            for point in points:
                harness = self.harness_of(point.name, point.resource)
                if harness is None:
                    continue
                self.fed_at[harness] = now
                vocabulary = self.vocabularies[harness]
                for figures, sources in (("tokens", vocabulary.output_tokens), ("cost", vocabulary.cost_usd)):
                    for source in sources:
                        if not _matches(point, source):
                            continue
                        session = self._session(harness, point.attributes, point.resource, point.at)
                        if session is None:
                            continue
                        tally = _tally(getattr(session, figures), _source_key(source), rated=figures == "tokens")
                        self._count(tally, point, now)
                        used += 1
        return used

    @staticmethod
    def _count(tally: _Tally, point: Point, now: datetime) -> None:
        if not point.cumulative:
            tally.add(point.value, point.at)
            return
        series = (tuple(sorted((k, str(v)) for k, v in point.attributes.items())), point.start)
        last = tally.series.get(series)
        tally.series[series] = point.value
        if last is None:
            # The running total before we listened: a figure, but no evidence of when, unless
            # the series itself began inside the rate window.
            recent = point.start is not None and now - point.start <= RATE_WINDOW
            tally.add(point.value, point.at, counts_for_rate=recent)
        elif point.value >= last:
            tally.add(point.value - last, point.at)
        else:  # the exporter restarted its count
            tally.add(point.value, point.at)

    def take_records(self, records: Iterable[Record], *, now: datetime) -> int:
        """Record log events; returns how many fed a known session figure."""
        used = 0
        with self._lock:
            for record in records:
                harness = self.harness_of(record.names, record.resource)
                if harness is None:
                    continue
                self.fed_at[harness] = now
                vocabulary = self.vocabularies[harness]
                session: _Session | None = None

                def this_session(record: Record = record, harness: str = harness) -> _Session | None:
                    nonlocal session
                    if session is None:
                        session = self._session(harness, record.attributes, record.resource, record.at)
                    return session

                for figures, sources in (("tokens", vocabulary.output_tokens), ("cost", vocabulary.cost_usd)):
                    for source in sources:
                        if source.kind != "event" or source.name not in record.names or source.field is None:
                            continue
                        amount = _number(record.attributes.get(source.field))
                        target = this_session()
                        if amount is None or target is None:
                            continue
                        tally = _tally(getattr(target, figures), _source_key(source), rated=figures == "tokens")
                        tally.add(amount, record.at)
                        used += 1
                if any(n in vocabulary.api_errors for n in record.names):
                    target = this_session()
                    if target is not None:
                        target.api_errors += 1
                        used += 1
                for decision in vocabulary.tool_decisions:
                    if decision.name not in record.names:
                        continue
                    value = record.attributes.get(decision.field)
                    target = this_session()
                    if isinstance(value, str) and target is not None and len(target.decisions) < 16:
                        target.decisions[value[:32]] = target.decisions.get(value[:32], 0) + 1
                        used += 1
        return used

    # -- reading ------------------------------------------------------------------------

    def snapshot(self, now: datetime) -> dict[str, dict[str, Any]]:
        """Every session's figures by row key (``harness:session id``)."""
        with self._lock:
            return {row_key(s.harness, s.session_id): self._figures(s, now) for s in self._sessions.values()}

    def _figures(self, s: _Session, now: datetime) -> dict[str, Any]:
        vocabulary = self.vocabularies[s.harness]
        tokens = _preferred(s.tokens, vocabulary.output_tokens)
        cost = _preferred(s.cost, vocabulary.cost_usd)
        return {
            "harness": s.harness,
            "session_id": s.session_id,
            "output_tokens": round(tokens[1].total) if tokens else None,
            "output_tokens_per_min": round(tokens[1].rate(now), 1) if tokens else None,
            "tokens_from": tokens[0] if tokens else None,
            "cost_usd": round(cost[1].total, 4) if cost else None,
            "api_errors": s.api_errors,
            "decisions": dict(s.decisions),
            "first_at": s.first_at.isoformat(),
            "last_at": s.last_at.isoformat(),
            "stale": now - s.last_at > STALE_AFTER,
        }

    def feeds(self, now: datetime) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {
                h: {
                    "last_at": at.isoformat(),
                    "stale": now - at > STALE_AFTER,
                    "unattributed": self.unattributed.get(h, 0),
                }
                for h, at in self.fed_at.items()
            }


def _preferred(tallies: Mapping[str, _Tally], sources: tuple[FigureSource, ...]) -> tuple[str, _Tally] | None:
    for source in sources:
        found = tallies.get(_source_key(source))
        if found is not None:
            return source.name, found
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value == value and abs(value) < 1e15 else None
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if number == number and abs(number) < 1e15 else None
    return None
