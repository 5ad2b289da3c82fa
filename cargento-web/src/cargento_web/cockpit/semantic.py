"""The cockpit's semantic work history (``semantic-work-history.json``): what a project's
sessions were observed doing, kept across restarts in a separate, bounded prototype store.

One entry is written when a session of a project is observed doing something other than what
its previous entry said (its state and its now text). The store keeps a 24-hour window across
at most :data:`MAX_PROJECTS` projects (the project observed longest ago is dropped first) and
:data:`MAX_PER_PROJECT` entries each. ``--forget`` does not delete it. Writes are throttled,
re-read what is on disk first and merge with it; a file that cannot be read at start is set
aside and reported, never written over.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.atomicfile import write_atomic
from cargento.board import Board, BoardSession
from cargento.ownstore import OwnStore

from cargento_web.runtime.setaside import set_aside

__all__ = [
    "MAX_PER_PROJECT",
    "MAX_PROJECTS",
    "PUBLISHED_PER_PROJECT",
    "SEMANTIC_FILE",
    "WINDOW",
    "SemanticHistory",
    "semantic_report",
]

log = logging.getLogger("cargento_web")

SEMANTIC_FILE = "semantic-work-history.json"
WINDOW = timedelta(hours=24)
MAX_PROJECTS = 20
#: Entries of a project the document carries (newest first), the most a person can see.
PUBLISHED_PER_PROJECT = 50
#: Entries kept of a project: what the document carries, no more. An entry past those is
#: never shown, yet the store held four times as many (200 a project): read back and
#: re-read before every write, about 1.4 MB held at the cap, which a busy dashboard reached
#: only after some 40 minutes, so its RSS was still climbing then (docs/benchmark.md).
MAX_PER_PROJECT = PUBLISHED_PER_PROJECT
MAX_BYTES = 4 * 1024 * 1024
#: Seconds between two writes while entries keep arriving.
WRITE_EVERY_S = 10.0
_FIELDS = ("at", "key", "harness", "title", "state", "doing")


class Unreadable(Exception):
    pass


def _entry(raw: object, shared: dict[str, str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise Unreadable("an entry is not an object")
    out: dict[str, Any] = {}
    for name in _FIELDS:
        value = raw.get(name)
        if value is not None:
            if not isinstance(value, str) or len(value) > 2000:
                raise Unreadable(f"an entry's {name} is not a short string")
            # One string for each value the entries repeat (session keys, harnesses, states,
            # titles, times of one board): held in memory, the history is then about half.
            value = shared.setdefault(value, value)
        out[name] = value
    if not out["at"] or not out["key"]:
        raise Unreadable("an entry has no time or session")
    try:
        datetime.fromisoformat(out["at"])
    except ValueError as e:
        raise Unreadable("an entry's time is not ISO 8601") from e
    return out


def parse(data: bytes) -> dict[str, list[dict[str, Any]]]:
    if len(data) > MAX_BYTES:
        raise Unreadable(f"larger than {MAX_BYTES} bytes")
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise Unreadable("not valid JSON") from e
    if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(doc.get("projects"), dict):
        raise Unreadable("not a version-1 semantic history")
    shared: dict[str, str] = {}
    return {str(p): [_entry(e, shared) for e in (v if isinstance(v, list) else [])] for p, v in doc["projects"].items()}


def semantic_report(path: Path) -> OwnStore:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return OwnStore(name="semantic history", path=str(path), status="absent")
    except OSError as e:
        return OwnStore(name="semantic history", path=str(path), status="unreadable", detail=e.strerror or str(e))
    try:
        projects = parse(data)
    except Unreadable as e:
        return OwnStore(name="semantic history", path=str(path), status="unreadable", detail=str(e))
    n = sum(len(v) for v in projects.values())
    return OwnStore(
        name="semantic history", path=str(path), status="read", detail=f"{n} entries across {len(projects)} projects"
    )


def bound(projects: dict[str, list[dict[str, Any]]], now: datetime | None) -> dict[str, list[dict[str, Any]]]:
    """Drop what falls outside the window before *now* (none when ``None``), keep the newest
    entries of the newest projects."""
    horizon = None if now is None else (now - WINDOW).isoformat()
    kept: dict[str, list[dict[str, Any]]] = {}
    for project, entries in projects.items():
        inside = entries if horizon is None else (e for e in entries if e["at"] >= horizon)
        fresh = sorted(inside, key=lambda e: e["at"])[-MAX_PER_PROJECT:]
        if fresh:
            kept[project] = fresh
    newest = sorted(kept, key=lambda p: kept[p][-1]["at"], reverse=True)[:MAX_PROJECTS]
    return {p: kept[p] for p in newest}


def _doing(s: Any) -> str:
    """What a row says its session is doing. A session at work or waiting has its detail; one
    at rest only whether it ended, because its detail is how long ago it was active, which
    moves with the clock and not with the work (each new wording would be an entry)."""
    if s.state in ("working", "needs_input"):
        return str(s.detail or s.state)[:200]
    return "session ended" if s.ended else str(s.state)


class SemanticHistory:
    def __init__(self, directory: Path, *, clock: Any = time.monotonic) -> None:
        self.path = directory / SEMANTIC_FILE
        self.reset: OwnStore | None = None
        self._clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, tuple[str, str]] = {}
        self._dirty = False
        self._written_at = 0.0
        self.projects: dict[str, list[dict[str, Any]]] = {}
        try:
            # Held as bounded as it is written (a store written with a larger bound reads back
            # as the newest entries the document carries); the window is the next board's.
            self.projects = bound(self._read(), None)
        except Unreadable as e:
            try:
                aside = set_aside(self.path)
                where = f"set aside as {aside.name}"
            except OSError:
                where = "left in place, unread"
            self.reset = OwnStore(
                name="semantic history",
                path=str(self.path),
                status="reset",
                detail=f"the cockpit's semantic work history ({e}; {where})",
            )
            self._unwritable = where.startswith("left")
        else:
            self._unwritable = False
        for entries in self.projects.values():
            for item in entries:
                self._last[item["key"]] = (item["state"] or "", item["doing"] or "")

    def _read(self) -> dict[str, list[dict[str, Any]]]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as e:
            raise Unreadable(e.strerror or str(e)) from e
        return parse(data)

    def observe(self, board: Board, rows: Iterable[BoardSession] | None = None) -> bool:
        """Record what changed on *board*; returns whether the published history moved.
        *rows* are the rows to look at (those that changed since the previous board); every
        row of the board when ``None``."""
        at = board.generated_at.isoformat()
        moved = False
        with self._lock:
            for s in board.sessions if rows is None else rows:
                if not s.project:
                    continue
                seen = (s.state, _doing(s))
                if self._last.get(s.key) == seen:
                    continue
                self._last[s.key] = seen
                entry = {
                    "at": at,
                    "key": s.key,
                    "harness": s.harness,
                    "title": s.title,
                    "state": s.state,
                    "doing": seen[1],
                }
                self.projects.setdefault(s.project, []).append(entry)
                moved = True
            if moved:
                self.projects = bound(self.projects, board.generated_at)
                self._dirty = True
            if len(self._last) > len(board.sessions) + MAX_PROJECTS * MAX_PER_PROJECT:
                self._forget_gone(board)
            if self._dirty and self._clock() - self._written_at >= WRITE_EVERY_S:
                self._write(board.generated_at)
        return moved

    def _forget_gone(self, board: Board) -> None:
        """Drop what was last seen of sessions neither on *board* nor in the history: sessions
        come and go for as long as the server runs, and this is kept per session."""
        keep = {s.key for s in board.sessions}
        keep.update(e["key"] for entries in self.projects.values() for e in entries)
        self._last = {k: v for k, v in self._last.items() if k in keep}

    def _write(self, now: datetime) -> None:
        if self._unwritable:
            return
        try:
            on_disk = self._read()
        except Unreadable:
            log.warning("the semantic history %s became unreadable; not writing over it", self.path)
            self._unwritable = True
            return
        merged: dict[str, list[dict[str, Any]]] = {}
        for source in (on_disk, self.projects):
            for project, entries in source.items():
                have = merged.setdefault(project, [])
                known = {(e["at"], e["key"]) for e in have}
                have.extend(e for e in entries if (e["at"], e["key"]) not in known)
        self.projects = bound(merged, now)
        try:
            write_atomic(self.path, json.dumps({"version": 1, "projects": self.projects}))
        except OSError as e:
            log.warning("the semantic history could not be written: %s", e)
            return
        self._dirty = False
        self._written_at = self._clock()

    def flush(self) -> None:
        with self._lock:
            if self._dirty:
                self._write(datetime.now(UTC))

    def document(self) -> dict[str, Any]:
        with self._lock:
            return {
                "window_h": WINDOW.total_seconds() / 3600,
                "projects": {p: list(reversed(v[-PUBLISHED_PER_PROJECT:])) for p, v in self.projects.items()},
                "path": str(self.path),
            }
