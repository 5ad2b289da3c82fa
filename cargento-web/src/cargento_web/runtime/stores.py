"""The two small files the event lane keeps in Cargento's state directory.

``cargento-ends.json`` holds the session ends the board observed, so a session that finished
still reads as ended after a restart; ``cargento-deliveries.json`` holds what became of each
notification the board raised. Both are bounded, written atomically (a temporary file renamed
over the old one), and read with a size cap. A file that cannot be read whole is discarded
rather than repaired: the store starts empty and says which reset it was in ``reset``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import orjson
from cargento.timestamps import iso, parse_ts

__all__ = ["DELIVERIES_FILE", "ENDS_FILE", "DeliveriesStore", "Delivery", "End", "EndsStore"]

ENDS_FILE = "cargento-ends.json"
DELIVERIES_FILE = "cargento-deliveries.json"
SCHEMA = 1
#: Read cap for either file; a larger file is discarded unread.
MAX_BYTES = 2 * 1024 * 1024


def _read(path: Path, key: str) -> tuple[list[Mapping[str, Any]], str | None]:
    """The records under *key*, or ``([], reason)`` when the file exists and does not read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], f"{path.name} could not be opened ({exc.strerror or exc}); starting empty"
    if len(data) > MAX_BYTES:
        return [], f"{path.name} is larger than {MAX_BYTES} bytes; discarded, starting empty"
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return [], f"{path.name} is not valid JSON; discarded, starting empty"
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get(key), list):
        return [], f"{path.name} has an unknown layout; discarded, starting empty"
    return [r for r in doc[key] if isinstance(r, Mapping)], None


def _write(path: Path, document: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(orjson.dumps(dict(document)) + b"\n")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@attrs.frozen(kw_only=True)
class End:
    """A session end the board observed."""

    harness: str
    session_id: str
    at: datetime
    reason: str | None = None


class EndsStore:
    """Observed session ends, persisted in ``cargento-ends.json``.

    Bounded to the newest *limit* ends within *max_age*. Only the event coordinator writes it.
    """

    def __init__(self, directory: Path, *, limit: int = 2000, max_age: timedelta = timedelta(days=14)) -> None:
        self.path = directory / ENDS_FILE
        self.limit = limit
        self.max_age = max_age
        self.reset: str | None = None
        #: The last write failure, if any (the ends are still held in memory).
        self.write_error: str | None = None
        self._ends: dict[tuple[str, str], End] = {}
        self._lock = threading.Lock()

    def load(self, now: datetime) -> None:
        records, self.reset = _read(self.path, "ends")
        ends: dict[tuple[str, str], End] = {}
        for record in records:
            harness, sid, at = record.get("harness"), record.get("session_id"), parse_ts(record.get("at"))
            if not isinstance(harness, str) or not isinstance(sid, str) or at is None:
                continue
            if now - at > self.max_age:
                continue
            reason = record.get("reason")
            ends[(harness, sid)] = End(harness=harness, session_id=sid, at=at, reason=reason if isinstance(reason, str) else None)
        with self._lock:
            self._ends = dict(sorted(ends.items(), key=lambda kv: kv[1].at)[-self.limit :])

    def get(self, harness: str, session_id: str) -> End | None:
        with self._lock:
            return self._ends.get((harness, session_id))

    def all(self) -> tuple[End, ...]:
        with self._lock:
            return tuple(self._ends.values())

    def record(self, end: End, now: datetime) -> None:
        """Remember an end (replacing an older one of the same session) and persist."""
        with self._lock:
            self._ends.pop((end.harness, end.session_id), None)
            self._ends[(end.harness, end.session_id)] = end
            self._trim(now)
            snapshot = tuple(self._ends.values())
        self._persist(snapshot)

    def forget(self, harness: str, session_id: str) -> bool:
        """Drop a session's end (it started again) and persist; True when there was one."""
        with self._lock:
            found = self._ends.pop((harness, session_id), None)
            snapshot = tuple(self._ends.values())
        if found is not None:
            self._persist(snapshot)
        return found is not None

    def _trim(self, now: datetime) -> None:
        for key in [k for k, e in self._ends.items() if now - e.at > self.max_age]:
            del self._ends[key]
        while len(self._ends) > self.limit:
            del self._ends[next(iter(self._ends))]

    def _persist(self, ends: Iterable[End]) -> None:
        doc = {
            "schema": SCHEMA,
            "ends": [
                {"harness": e.harness, "session_id": e.session_id, "at": iso(e.at), "reason": e.reason} for e in ends
            ],
        }
        try:
            _write(self.path, doc)
            self.write_error = None
        except OSError as exc:
            self.write_error = f"{self.path.name} could not be written ({exc.strerror or exc})"


@attrs.frozen(kw_only=True)
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
    """One entry per raise in ``cargento-deliveries.json``, newest *limit* kept."""

    def __init__(self, directory: Path | None, *, limit: int = 1000) -> None:
        self.path = directory / DELIVERIES_FILE if directory is not None else None
        self.limit = limit
        self.reset: str | None = None
        self.write_error: str | None = None
        self._items: list[Delivery] = []
        self._lock = threading.Lock()

    def load(self) -> None:
        if self.path is None:
            return
        records, self.reset = _read(self.path, "deliveries")
        items: list[Delivery] = []
        for r in records:
            raised = parse_ts(r.get("raised_at"))
            if raised is None or not all(isinstance(r.get(k), str) for k in ("harness", "session_id", "kind", "outcome", "backend")):
                continue
            before = r.get("tab_lane_before_s")
            items.append(
                Delivery(
                    harness=r["harness"], session_id=r["session_id"], kind=r["kind"], raised_at=raised,
                    outcome=r["outcome"], backend=r["backend"],
                    detail=r.get("detail") if isinstance(r.get("detail"), str) else None,
                    completed_at=parse_ts(r.get("completed_at")),
                    tab_lane_reported_at=parse_ts(r.get("tab_lane_reported_at")),
                    tab_lane_before_s=float(before) if isinstance(before, int | float) and not isinstance(before, bool) else None,
                    title=r.get("title") if isinstance(r.get("title"), str) else None,
                )
            )
        with self._lock:
            self._items = items[-self.limit :]

    def add(self, delivery: Delivery) -> None:
        with self._lock:
            self._items.append(delivery)
            del self._items[: -self.limit]
            snapshot = list(self._items)
        if self.path is None:
            return
        doc = {
            "schema": SCHEMA,
            "deliveries": [
                {
                    "harness": d.harness, "session_id": d.session_id, "kind": d.kind, "raised_at": iso(d.raised_at),
                    "outcome": d.outcome, "backend": d.backend, "detail": d.detail, "completed_at": iso(d.completed_at),
                    "tab_lane_reported_at": iso(d.tab_lane_reported_at), "tab_lane_before_s": d.tab_lane_before_s,
                    "title": d.title,
                }
                for d in snapshot
            ],
        }
        try:
            _write(self.path, doc)
            self.write_error = None
        except OSError as exc:
            self.write_error = f"{self.path.name} could not be written ({exc.strerror or exc})"

    def for_session(self, harness: str, session_id: str) -> tuple[Delivery, ...]:
        """A session's deliveries, newest first."""
        with self._lock:
            return tuple(d for d in reversed(self._items) if d.harness == harness and d.session_id == session_id)

    def all(self) -> tuple[Delivery, ...]:
        with self._lock:
            return tuple(reversed(self._items))
