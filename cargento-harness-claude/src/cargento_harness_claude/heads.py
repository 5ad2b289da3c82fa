"""What a transcript's first records say it is: a teammate (``agentName`` + ``teamName``) or not.

The verdict is taken from the records up to and including the first conversation message,
within the first 50 complete lines and 64 KiB. Once a message was seen (or either bound was
reached) the verdict is a function of the bytes read so far, which appending cannot change:
such a final verdict is kept for as long as the file still begins with those bytes (checked
by reading them again, not by parsing the head again). Any other verdict is kept only while
the file's identity, size and mtime are unchanged.
"""

from __future__ import annotations

# ``hashlib``'s BLAKE2 is this same built-in class; importing ``hashlib`` loads OpenSSL
# (about 12 ms at every start) for digests these readers never use.
from _blake2 import blake2b
from typing import Protocol

import attrs
from cargento.readers import head_bytes, loads_record
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

from cargento_harness_claude.records import record_type

__all__ = ["HEAD_BYTES", "HEAD_LINES", "FileFigures", "Head", "HeadCache", "classify"]

HEAD_LINES = 50
HEAD_BYTES = 64 * 1024


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Head:
    """What a transcript's first records say about what it is."""

    agent_name: str | None = None
    team_name: str | None = None
    #: Appending to the file can no longer change this verdict.
    final: bool = False


def classify(path: str) -> Head:
    """Read the head of the transcript at *path* (an unreadable one reads as an empty head)."""
    return _classify(path)[0]


def _classify(path: str) -> tuple[Head, bytes]:
    """The head, and (when final) the leading bytes that decided it."""
    try:
        data = head_bytes(path, HEAD_BYTES)
    except OSError:
        return Head(), b""
    agent = team = None
    start = lines = 0
    decided = -1
    while lines < HEAD_LINES:
        end = data.find(b"\n", start)
        if end < 0:
            break
        lines += 1
        record = loads_record(data[start:end])
        start = end + 1
        if record is None:
            continue
        name, group = record.get("agentName"), record.get("teamName")
        if agent is None and isinstance(name, str) and name.strip():
            agent = name.strip()
        if team is None and isinstance(group, str) and group.strip():
            team = group.strip()
        if record_type(record) in ("user", "assistant"):
            decided = start
            break
    if decided < 0 and lines >= HEAD_LINES:
        decided = start
    if decided < 0 and len(data) >= HEAD_BYTES:
        decided = len(data)
    head = Head(agent_name=agent, team_name=team, final=decided >= 0)
    return head, data[:decided] if decided >= 0 else b""


def _digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=16).digest()


class FileFigures(Protocol):
    """What a head is kept against: an ``os.stat_result``, or a listing entry that kept these."""

    @property
    def st_dev(self) -> int: ...
    @property
    def st_ino(self) -> int: ...
    @property
    def st_size(self) -> int: ...
    @property
    def st_mtime_ns(self) -> int: ...


@shared_repr
@attrs.frozen(repr=False, eq=False)
class _Known:
    dev: int
    ino: int
    size: int
    mtime_ns: int
    head: Head
    #: Length and digest of the leading bytes that decided a final head.
    extent: int
    digest: bytes


class HeadCache:
    """Heads by transcript path, re-read only when the verdict may have changed."""

    def __init__(self) -> None:
        self._known: dict[str, _Known] = {}

    def head(self, path: str, st: FileFigures) -> Head:
        """The head of *path*, whose current ``stat`` is *st*."""
        known = self._known.get(path)
        if known is not None:
            if (known.dev, known.ino, known.size, known.mtime_ns) == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
                return known.head
            if known.head.final and st.st_size >= known.extent and _begins(path, known):
                return known.head
        head, decisive = _classify(path)
        self._known[path] = _Known(
            st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, head, len(decisive), _digest(decisive)
        )
        return head

    def forget(self, path: str) -> None:
        """Drop what is known about *path*."""
        self._known.pop(path, None)

    def retain(self, paths: set[str]) -> None:
        """Forget every path not in *paths*."""
        for gone in [p for p in self._known if p not in paths]:
            del self._known[gone]

    def __len__(self) -> int:
        return len(self._known)


def _begins(path: str, known: _Known) -> bool:
    """True when *path* still begins with the bytes that decided *known*."""
    try:
        return _digest(head_bytes(path, known.extent)) == known.digest
    except OSError:
        return False
