"""The observer's record of one session: ``observer/<harness>_<sid>.json``.

A sidecar is written the first time a reader asks for a reading of a session, and holds what the
observer did there: the attempts (each with how it ended and whether it spent anything), the
readings it stored, and, while a call runs, the in-flight marker. A marker found at start is an
attempt a stop or restart cut short; :meth:`Sidecars.recover` records it as interrupted. Each
sidecar is bounded (the newest :data:`KEEP_ATTEMPTS` attempts, :data:`KEEP_READINGS` readings).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .jsonstore import JsonStore, StoreUnavailable

__all__ = ["KEEP_ATTEMPTS", "KEEP_READINGS", "Sidecars", "attempts_made"]

KEEP_ATTEMPTS = 24
KEEP_READINGS = 8
_LIMIT = 128 * 1024
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
#: The goal summaries a sidecar keeps (:mod:`.summaries`), and their attempts.
_KEEP_SUMMARIES = {"summaries": 4, "summary_attempts": 12}
#: In-flight markers a restart turns into interrupted attempts: (marker, attempts, count, what).
_MARKERS = (
    ("inflight", "attempts", "count", "reading"),
    ("summary_inflight", "summary_attempts", "summary_count", "goal summary"),
)


def attempts_made(record: dict[str, Any]) -> int:
    """How many attempts the session has had, the ones no longer kept included."""
    kept = len(record.get("attempts") or [])
    count = record.get("count")
    return max(kept, count) if isinstance(count, int) and not isinstance(count, bool) else kept


#: The lists a sidecar holds; each holds records (objects) only.
_LISTS = ("attempts", "readings", "summaries", "summary_attempts")


def _normal(data: dict[str, Any]) -> dict[str, Any]:
    """*data* with every list a list of objects and every in-flight marker an object or ``None``
    (a hand-edited or foreign sidecar's other shapes are dropped, never fatal)."""
    for name in _LISTS:
        value = data.get(name)
        if name in data or name in ("attempts", "readings"):
            data[name] = [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []
    for name in ("inflight", "summary_inflight"):
        if name in data and not isinstance(data[name], dict):
            data[name] = None
    return data


def _empty() -> dict[str, Any]:
    return {"version": 1, "attempts": [], "readings": [], "inflight": None}


class Sidecars:
    def __init__(self, state_dir: Path) -> None:
        self.folder = state_dir / "observer"
        self._stores: dict[tuple[str, str], JsonStore] = {}
        self._cache: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.resets: list[str] = []

    def path(self, harness: str, sid: str) -> Path:
        return self.folder / f"{_UNSAFE.sub('-', harness)}_{_UNSAFE.sub('-', sid)}.json"

    def _store(self, harness: str, sid: str) -> JsonStore:
        key = (harness, sid)
        with self._lock:
            if key not in self._stores:
                self._stores[key] = JsonStore(
                    f"observer sidecar {harness}_{sid}", self.path(harness, sid), limit=_LIMIT, empty=_empty
                )
            return self._stores[key]

    def get(self, harness: str, sid: str) -> dict[str, Any] | None:
        """The session's record as last read or written (``None`` when it has none)."""
        with self._lock:
            return self._cache.get((harness, sid))

    def every(self) -> dict[tuple[str, str], dict[str, Any]]:
        with self._lock:
            return dict(self._cache)

    def update(self, harness: str, sid: str, change: Callable[[dict[str, Any]], Any]) -> Any:
        store = self._store(harness, sid)

        def wrapped(data: dict[str, Any]) -> Any:
            _normal(data)
            data["harness"], data["sid"] = harness, sid
            result = change(data)
            data["attempts"] = list(data.get("attempts") or [])[-KEEP_ATTEMPTS:]
            data["readings"] = list(data.get("readings") or [])[-KEEP_READINGS:]
            for name, keep in _KEEP_SUMMARIES.items():
                if name in data:
                    data[name] = list(data.get(name) or [])[-keep:]
            return result

        result = store.update(wrapped)
        with self._lock:
            self._cache[(harness, sid)] = _normal(dict(store.read()))
        return result

    def load(self) -> None:
        """Read every sidecar on disk into the cache (at start)."""
        try:
            found = sorted(self.folder.glob("*_*.json"))
        except OSError:
            return
        for path in found:
            try:
                head = path.read_bytes()[:_LIMIT]
            except OSError:
                continue
            import orjson

            try:
                data = orjson.loads(head)
            except orjson.JSONDecodeError:
                data = None
            harness = data.get("harness") if isinstance(data, dict) else None
            sid = data.get("sid") if isinstance(data, dict) else None
            if not isinstance(harness, str) or not isinstance(sid, str) or self.path(harness, sid) != path:
                self.resets.append(f"{path.name} could not be read whole and is left as it was")
                continue
            store = self._store(harness, sid)
            try:
                read = store.read()
            except StoreUnavailable:
                continue
            if store.reset:
                self.resets.append(store.reset)
            with self._lock:
                self._cache[(harness, sid)] = _normal(dict(read))

    def recover(self) -> list[tuple[str, str]]:
        """Turn every in-flight marker left by an earlier run (a reading's, a goal summary's) into
        an interrupted attempt."""
        recovered: list[tuple[str, str]] = []
        for (harness, sid), data in self.every().items():
            for key, attempts, count, what in _MARKERS:
                marker = data.get(key)
                if not isinstance(marker, dict):
                    continue

                def change(
                    record: dict[str, Any],
                    marker: dict[str, Any] = marker,
                    key: str = key,
                    attempts: str = attempts,
                    count: str = count,
                    what: str = what,
                ) -> None:
                    kept = len(record.get(attempts) or [])
                    counted = record.get(count)
                    made = max(kept, counted) if isinstance(counted, int) and not isinstance(counted, bool) else kept
                    record[count] = made + 1
                    fields = ("attempt", "provider", "revision", "started_at")
                    ended: dict[str, Any] = {k: marker.get(k) for k in fields if k in marker}
                    record.setdefault(attempts, []).append(
                        {
                            **ended,
                            "ended_at": datetime.now(UTC).isoformat(),
                            "ending": "interrupted",
                            "spent": bool(marker.get("reserved")),
                            "detail": f"a stop or restart cut this {what} short; its result could not be confirmed",
                        }
                    )
                    record[key] = None

                try:
                    self.update(harness, sid, change)
                except StoreUnavailable:
                    continue
                if (harness, sid) not in recovered:
                    recovered.append((harness, sid))
        return recovered
