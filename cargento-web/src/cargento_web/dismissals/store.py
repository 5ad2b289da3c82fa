"""``cargento-dismissals.json``: the sessions marked handled, each with the server-clock
watermark it was marked at.

One small JSON document, ``{"schema": 1, "store": "dismissals", "marks": [{"harness", "sid",
"at"}]}``, bounded to :data:`LIMIT` marks (the oldest go). Every change re-reads the file
first (another process, or a person deleting the file to clear every mark, wins), then writes
it whole with :func:`cargento.atomicfile.write_atomic`, so a kill leaves the previous or the
next version. A file that cannot be read whole is set aside (``.unreadable-<stamp>``), never
written over, and :attr:`DismissalStore.reset` says so for the header.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import attrs
import orjson
from cargento.atomicfile import write_atomic
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso, parse_ts

from cargento_web.runtime.journal import open_regular_nonblocking
from cargento_web.runtime.setaside import set_aside

__all__ = ["DISMISSALS_FILE", "LIMIT", "DismissalStore", "Mark", "parse_marks"]

DISMISSALS_FILE = "cargento-dismissals.json"
LIMIT = 5000
#: Read cap: a larger file is set aside unread.
MAX_BYTES = 2 * 1024 * 1024


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Mark:
    harness: str
    session_id: str
    at: datetime

    def record(self) -> dict[str, str]:
        return {"harness": self.harness, "sid": self.session_id, "at": iso(self.at) or ""}


def parse_marks(data: bytes) -> list[Mark] | None:
    """The marks of a dismissal file's bytes, or ``None`` when it does not read whole."""
    if not data.strip():
        return []
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or doc.get("schema") != 1 or doc.get("store") != "dismissals":
        return None
    raw = doc.get("marks")
    if not isinstance(raw, list):
        return None
    out: list[Mark] = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        harness, sid, at = item.get("harness"), item.get("sid"), item.get("at")
        when = parse_ts(at) if isinstance(at, str) else None
        if not isinstance(harness, str) or not isinstance(sid, str) or when is None:
            return None
        out.append(Mark(harness=harness, session_id=sid, at=when))
    return out


class DismissalStore:
    def __init__(self, directory: Path, *, limit: int = LIMIT) -> None:
        self.path = directory / DISMISSALS_FILE
        self.limit = limit
        self.reset: str | None = None
        self.reset_at: datetime | None = None
        self.write_error: str | None = None
        self._refused = False
        self._lock = threading.Lock()
        self._marks: dict[tuple[str, str], Mark] = {}

    def load(self) -> None:
        with self._lock:
            self._marks = self._read()

    def _read(self) -> dict[tuple[str, str], Mark]:
        try:
            fd = open_regular_nonblocking(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self._refused = True
            self._say(
                f"{self.path.name} could not be read ({exc.strerror or exc}); it was left alone and no mark is kept this run"
            )
            return {}
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
        marks = parse_marks(data) if len(data) <= MAX_BYTES else None
        if marks is None:
            self._set_aside()
            return {}
        return {(m.harness, m.session_id): m for m in sorted(marks, key=lambda m: m.at)}

    def _say(self, text: str) -> None:
        self.reset_at = datetime.now(UTC)
        self.reset = text

    def _set_aside(self) -> None:
        try:
            aside = set_aside(self.path)
        except OSError as exc:
            self._refused = True
            self._say(
                f"{self.path.name} could not be read whole nor set aside ({exc.strerror or exc}); no mark is kept this run"
            )
            return
        self._say(
            f"{self.path.name} could not be read whole; kept as {aside.name}, and every session came back onto the board"
        )

    def marks(self) -> tuple[Mark, ...]:
        with self._lock:
            return tuple(self._marks.values())

    def get(self, harness: str, session_id: str) -> Mark | None:
        with self._lock:
            return self._marks.get((harness, session_id))

    def mark(self, harness: str, session_id: str, at: datetime) -> bool:
        """Mark one session handled at *at*; True when the store was written."""
        return self._change(lambda marks: _put(marks, Mark(harness=harness, session_id=session_id, at=at), self.limit))

    def clear(self, harness: str, session_id: str) -> bool:
        """Put one session back; True when the store was written (or had nothing to change)."""
        return self._change(lambda marks: marks.pop((harness, session_id), None) is not None)

    def lift(self, keys: list[tuple[str, str]]) -> bool:
        """Lift the marks of sessions that wrote again."""
        return self._change(lambda marks: any([marks.pop(k, None) is not None for k in keys]))

    def _change(self, change: Callable[[dict[tuple[str, str], Mark]], bool]) -> bool:
        with self._lock:
            if self._refused:
                change(self._marks)
                return False
            # Re-read before write: the file on disk is the truth (someone may have deleted it).
            on_disk = self._read()
            if self._refused:
                change(self._marks)
                return False
            self._marks = on_disk
            if not change(self._marks) and not self.path.exists():
                return True
            try:
                self._write()
            except OSError as exc:
                self.write_error = f"{self.path}: could not be written ({exc.strerror or exc})"
                return False
            self.write_error = None
            return True

    def _write(self) -> None:
        try:
            if not stat.S_ISREG(os.stat(self.path, follow_symlinks=False).st_mode):
                raise OSError(errno.EINVAL, "not a regular file; left alone", str(self.path))
        except FileNotFoundError:
            pass
        doc = {"schema": 1, "store": "dismissals", "marks": [m.record() for m in self._marks.values()]}
        write_atomic(self.path, orjson.dumps(doc))


def _put(marks: dict[tuple[str, str], Mark], mark: Mark, limit: int) -> bool:
    marks.pop((mark.harness, mark.session_id), None)
    marks[(mark.harness, mark.session_id)] = mark
    while len(marks) > limit:
        marks.pop(next(iter(marks)))
    return True
