"""The one shape every observer store shares: a bounded JSON file, re-read before each write.

A store file holds one JSON object carrying ``"version": 1``. Each write re-reads the file (so
two tabs, or a ``--forget`` run between, are never written over with a stale copy), applies one
change, and replaces the file atomically. A file that cannot be read whole (too large, not JSON,
not an object, another version) is never written over: it is set aside beside itself as
``<name>.unreadable-<time>``, and :attr:`JsonStore.reset` says what was reset, for the header
and ``--diagnose``.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from cargento.atomicfile import write_atomic
from cargento.ownstore import OwnStore

from cargento_web.runtime.setaside import set_aside

__all__ = ["JsonStore", "StoreUnavailable", "inspect"]

VERSION = 1


class StoreUnavailable(Exception):
    """The store could not be written (its folder is not writable, the disk is full...)."""


def _parse(raw: bytes, limit: int) -> dict[str, Any] | None:
    if len(raw) > limit:
        return None
    try:
        found = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(found, dict) or found.get("version") != VERSION:
        return None
    return found


def inspect(name: str, path: Path, limit: int) -> OwnStore:
    """What ``--diagnose`` says about a store file, without a server and without writing."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return OwnStore(name=name, path=str(path), status="absent")
    except OSError as exc:
        return OwnStore(name=name, path=str(path), status="unreadable", detail=exc.strerror)
    if _parse(raw, limit) is None:
        return OwnStore(
            name=name, path=str(path), status="unreadable", detail="not a version-1 JSON object within its size limit"
        )
    return OwnStore(name=name, path=str(path), status="read")


class JsonStore:
    """One bounded JSON store file."""

    def __init__(self, name: str, path: Path, *, limit: int, empty: Callable[[], dict[str, Any]]) -> None:
        self.name = name
        self.path = path
        self.limit = limit
        self._empty = empty
        self._lock = threading.Lock()
        #: What was reset at start or since, in a sentence (``None`` when nothing was).
        self.reset: str | None = None
        self._cached: tuple[tuple[int, int, int], dict[str, Any]] | None = None

    def _read_locked(self) -> dict[str, Any]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return self._empty()
        except OSError as exc:
            raise StoreUnavailable(f"{self.path} could not be read ({exc.strerror})") from exc
        found = _parse(raw, self.limit)
        if found is None:
            try:
                aside = set_aside(self.path)
            except OSError as exc:
                raise StoreUnavailable(f"{self.path} is unreadable and could not be set aside") from exc
            self.reset = (
                f"{self.path.name} could not be read whole, so it was set aside as {aside.name} and started empty"
            )
            return self._empty()
        return found

    def read(self) -> dict[str, Any]:
        """The store's content; re-read only when the file's inode, size or mtime moved, so a
        page's refresh costs a ``stat``."""
        with self._lock:
            try:
                st = self.path.stat()
                signature: tuple[int, int, int] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
            except OSError:
                signature = None
            if signature is not None and self._cached is not None and self._cached[0] == signature:
                return copy.deepcopy(self._cached[1])
            data = self._read_locked()
            if signature is not None:
                self._cached = (signature, copy.deepcopy(data))
            return data

    def update(self, change: Callable[[dict[str, Any]], Any]) -> Any:
        """Re-read the file, apply *change* to it in place, write it back; returns what
        *change* returned. Raises :class:`StoreUnavailable` when it cannot be written."""
        with self._lock:
            data = self._read_locked()
            result = change(data)
            data["version"] = VERSION
            payload = orjson.dumps(data)
            if len(payload) > self.limit:
                raise StoreUnavailable(f"{self.path.name} would exceed {self.limit} bytes")
            self._cached = None
            try:
                write_atomic(self.path, payload)
            except OSError as exc:
                raise StoreUnavailable(f"{self.path} could not be written ({exc.strerror})") from exc
            return result

    def own_store(self) -> OwnStore:
        if self.reset is not None:
            return OwnStore(name=self.name, path=str(self.path), status="reset", detail=self.reset)
        with contextlib.suppress(StoreUnavailable):
            self.read()
            if self.reset is not None:
                return OwnStore(name=self.name, path=str(self.path), status="reset", detail=self.reset)
            return OwnStore(name=self.name, path=str(self.path), status="read" if self.path.exists() else "absent")
        return OwnStore(name=self.name, path=str(self.path), status="unreadable", detail="it could not be read")
