"""The local history store, ``cargento-history.json``: what this server observed.

Reading it (the API other features use)
---------------------------------------

The running history feature holds one :class:`HistoryStore`; another feature reaches it with
:func:`cargento_web.history.running_store` (``None`` under ``--no-history`` or before the
feature started), or opens one itself over a state directory::

    store = HistoryStore(state_dir, days=14, max_bytes=1_048_576)
    store.load()
    store.session("claude", "abc123")   # that session's observations, oldest first
    store.project("/home/me/app")       # every observation of sessions in that project
    store.window()                      # Window: the span actually observed, and why it starts there

Every :class:`Observation` carries the session (``harness``, ``session_id``), its ``project``
(the board's project key when the row had one), ``kind`` (one of :data:`KINDS`), ``at`` (the
server's clock), ``source`` (who published it: ``store`` for a harness store read, or the
event overlay's source such as ``event:Stop``), and for a state change the ``state`` it moved
to and the ``previous`` one; ``detail`` is a short redacted text (a task's subject, a wait's
kind, a session end's reason).

The rules it keeps
------------------

* Age first, then size: an observation older than *days* is dropped, and while the serialised
  store would exceed *max_bytes* the oldest observations go. Narrowing *days* drops what falls
  outside; widening it again brings nothing back.
* *max_bytes* is the read cap too: a file larger than it is set aside unread.
* A file that cannot be read whole (not JSON, not this schema, a malformed observation, not a
  regular file) is set aside as ``cargento-history.json.unreadable-<stamp>`` and never written
  over or repaired; :attr:`HistoryStore.reset` says so, for the header.
* Written whole and atomically (:func:`cargento.atomicfile.write_atomic`: temp, fsync, rename),
  so a kill at any moment leaves the previous or the next version; at most one write every
  *min_interval_s* on a thread of its own, never one per refresh, and none when nothing changed.
* Re-read before every write: when the file on disk is not the one this store last wrote, it is
  read again and its observations merged in (or, unreadable, set aside) before the write.
* Redacted on the way to disk (:func:`cargento.redact.redact_tree`).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import orjson
from cargento import redact as redaction
from cargento.atomicfile import write_atomic
from cargento.redact import redact_tree
from cargento.serde import right_sized
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso, parse_ts

from cargento_web.runtime.journal import open_regular_nonblocking
from cargento_web.runtime.setaside import set_aside

__all__ = [
    "DEFAULT_DAYS",
    "DEFAULT_MAX_BYTES",
    "HISTORY_FILE",
    "KINDS",
    "SCHEMA",
    "HistoryStore",
    "Observation",
    "Window",
    "parse_history",
]

HISTORY_FILE = "cargento-history.json"
SCHEMA = 1
DEFAULT_DAYS = 14.0
DEFAULT_MAX_BYTES = 1_048_576
#: What an observation can say happened.
KINDS = (
    "state",  # the session's state changed (state, previous)
    "turn_started",
    "turn_ended",
    "wait_started",  # it began waiting on the reader (detail: the wait's kind)
    "wait_ended",
    "session_ended",  # detail: the end's reason when one was published
    "task_completed",  # detail: the task's subject
    "subagent_started",  # a subagent of this session was seen running (detail: its name)
    "subagent_ended",  # it stopped running (detail: its name)
)
_DETAIL_LIMIT = 200
_HEAD = b'{"schema":1,"store":"history","observations":['


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Observation:
    """One thing the server observed about one session."""

    harness: str
    session_id: str
    kind: str
    at: datetime
    source: str
    project: str | None = None
    state: str | None = None
    previous: str | None = None
    detail: str | None = None

    def record(self) -> dict[str, Any]:
        """The observation as it is stored (and served)."""
        out: dict[str, Any] = {
            "harness": self.harness,
            "sid": self.session_id,
            "kind": self.kind,
            "at": iso(self.at),
            "source": self.source,
        }
        for name in _OPTIONAL:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Window:
    """The span the history actually holds, for a caption."""

    #: The oldest observation kept (``None``: nothing observed yet).
    first: datetime | None
    #: The newest.
    last: datetime | None
    #: How far back the store may reach (``--history-days``).
    days: float
    #: When this run began observing (earlier spans come from the file it read).
    run_started_at: datetime
    #: True when observations were dropped for age or size, so the window starts later than
    #: the first observation ever made.
    evicted: bool


#: The optional fields of a stored observation, in the order :meth:`Observation.record` writes them.
_OPTIONAL = ("project", "state", "previous", "detail")

#: A stored observation's fields once checked: harness, session id, kind, time, source and the
#: optional fields (absent ones left out), each as stored.
_Fields = tuple[str, str, str, datetime, str, dict[str, str]]


def _fields(raw: object) -> _Fields | None:
    """The fields of a stored observation, or ``None`` when it is not one this build wrote."""
    if type(raw) is not dict:
        return None
    get = raw.get
    harness, sid, kind, source, stamp = get("harness"), get("sid"), get("kind"), get("source"), get("at")
    if not (type(harness) is str and type(sid) is str and type(kind) is str and type(source) is str):
        return None
    if kind not in KINDS or type(stamp) is not str:
        return None
    at = parse_ts(stamp)
    if at is None:
        return None
    optional: dict[str, str] = {}
    for name in _OPTIONAL:
        value = get(name)
        if value is None:
            continue
        if type(value) is not str:
            return None
        optional[name] = value
    return harness, sid, kind, at, source, optional


def _observation(raw: object) -> Observation | None:
    fields = _fields(raw)
    if fields is None:
        return None
    harness, sid, kind, at, source, optional = fields
    return Observation(harness=harness, session_id=sid, kind=kind, at=at, source=source, **optional)


def _stored(data: bytes) -> list[object] | None:
    """The stored observations of a history file's bytes, as JSON values, or ``None`` when the
    bytes are not a history store of this schema."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("store") != "history":
        return None
    raw = doc.get("observations")
    return raw if isinstance(raw, list) else None


def parse_history(data: bytes) -> list[Observation] | None:
    """The observations of a history file's bytes, oldest first, or ``None`` when the bytes are
    not a history store this build can read whole (one malformed observation is enough)."""
    raw = _stored(data)
    if raw is None:
        return None
    out: list[Observation] = []
    for item in raw:
        found = _observation(item)
        if found is None:
            return None
        out.append(found)
    out.sort(key=lambda o: o.at)
    return out


def _encoded(o: Observation, memo: dict[str, str] | None = None) -> bytes:
    # What the store holds for as long as it keeps the observation: right-sized, or each
    # ~200-byte observation would hold orjson's 4 KiB buffer (20 MB at the byte cap).
    # *memo*: the redactions of a batch's strings, which repeat from one observation to the
    # next (harness, kind, source, project, state): a store read back at its cap redacted each
    # of ~39,000 strings one by one.
    return right_sized(orjson.dumps(redact_tree(o.record(), memo=memo)))


#: One held observation: its time, session and project (what the store's questions are asked
#: by) and its stored bytes, which is all that is kept of it. An :class:`Observation` beside
#: its bytes cost about 630 bytes an observation (900 read back from the file, each string its
#: own): 3 to 4.5 MB at the 1 MB cap, against about 360 held as bytes with one string for each
#: session and project the store names.
_Held = tuple[datetime, str, str, "str | None", bytes]
#: How a state observation's stored bytes name its kind (orjson writes no spaces).
_STATE_KIND = b'"kind":"state"'


def _held(o: Observation, shared: dict[str, str], memo: dict[str, str] | None = None) -> _Held:
    harness = shared.setdefault(o.harness, o.harness)
    sid = shared.setdefault(o.session_id, o.session_id)
    project = None if o.project is None else shared.setdefault(o.project, o.project)
    return (o.at, harness, sid, project, _encoded(o, memo))


#: The key orders an observation this build writes has (:meth:`Observation.record`'s order,
#: with any of the optional fields).
_WRITTEN_KEYS = frozenset(
    ("harness", "sid", "kind", "at", "source", *present)
    for n in range(len(_OPTIONAL) + 1)
    for present in itertools.combinations(_OPTIONAL, n)
)
#: A time as :func:`iso` writes a UTC moment: whole seconds, or six digits of them.
_WRITTEN_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{6})?Z").fullmatch


def _held_as_written(raw: object, shared: dict[str, str], memo: dict[str, str]) -> _Held | None:
    """The held form of a stored observation that is exactly what this build writes (its keys
    in :meth:`Observation.record`'s order, its time as :func:`iso` writes it, every text
    already redacted): its stored form is then its record, and is encoded as it is. ``None``
    for anything else, which :func:`_held_of` then reads field by field.

    At a start this is nearly every observation: a store at its cap read back in about half
    the time of making each record anew (27 ms at 5,500 observations)."""
    if type(raw) is not dict or tuple(raw) not in _WRITTEN_KEYS:
        return None
    stamp = raw["at"]
    if type(stamp) is not str or not _WRITTEN_STAMP(stamp) or raw["kind"] not in KINDS:
        return None
    try:
        at = _from_written(stamp)  # Python 3.11 reads the Z as UTC
    except ValueError:
        return None
    if (at.microsecond == 0) != (len(stamp) == 20):
        return None  # iso writes no fraction for a whole second, and six digits otherwise
    for name, value in raw.items():
        if name != "kind" and name != "at" and (type(value) is not str or _clean(value, memo) != value):
            return None
    return _holding(at, raw["harness"], raw["sid"], raw.get("project"), raw, shared)


_from_written = datetime.fromisoformat


def _held_of(raw: object, shared: dict[str, str], memo: dict[str, str]) -> _Held | None:
    """What ``_held(_observation(raw), shared, memo)`` holds, made straight from a stored
    observation: ``None`` where :func:`_observation` refuses it.

    A store read back at its cap holds about 4,900 observations; making an
    :class:`Observation` of each, then its record, then walking that record to redact it cost
    45 ms of every start. The record is written here field by field in :meth:`Observation.record`'s
    order, each text field redacted once per batch (*memo*), as ``redact_tree`` would; the
    time and the kind are left as they are, as no redaction changes them (the kind is one of
    :data:`KINDS`, the time :func:`iso`'s digits: the tests hold both)."""
    written = _held_as_written(raw, shared, memo)
    if written is not None:
        return written
    fields = _fields(raw)
    if fields is None:
        return None
    harness, sid, kind, at, source, optional = fields
    record = {
        "harness": _clean(harness, memo),
        "sid": _clean(sid, memo),
        "kind": kind,
        "at": iso(at) or "",
        "source": _clean(source, memo),
    }
    for name, value in optional.items():
        record[name] = _clean(value, memo)
    return _holding(at, harness, sid, optional.get("project"), record, shared)


def _holding(
    at: datetime, harness: str, sid: str, project: str | None, record: Mapping[str, Any], shared: dict[str, str]
) -> _Held:
    """The held form of an observation at *at* whose stored form is *record*, its names shared
    with the store's other observations (*shared*)."""
    return (
        at,
        shared.setdefault(harness, harness),
        shared.setdefault(sid, sid),
        None if project is None else shared.setdefault(project, project),
        right_sized(orjson.dumps(record)),
    )


def _clean(text: str, memo: dict[str, str]) -> str:
    """*text* redacted, once per batch (*memo*), as ``redact_tree`` redacts a string."""
    found = memo.get(text)
    if found is None:
        found = memo[text] = redaction.redact(text)
    return found


def _read_held(data: bytes, shared: dict[str, str]) -> list[_Held] | None:
    """The held form of every observation in a history file's bytes, oldest first; ``None``
    where :func:`parse_history` would say ``None``."""
    raw = _stored(data)
    if raw is None:
        return None
    memo: dict[str, str] = {}
    out: list[_Held] = []
    for item in raw:
        found = _held_of(item, shared, memo)
        if found is None:
            return None
        out.append(found)
    out.sort(key=_at)
    return out


def _at(held: _Held) -> datetime:
    return held[0]


def _decoded(held: _Held) -> Observation:
    """The observation *held* stands for, as stored (redacted), at its exact time."""
    found = _observation(orjson.loads(held[4]))
    if found is None:  # bytes this store encoded itself
        raise AssertionError("a held observation does not decode")
    return attrs.evolve(found, at=held[0])


class HistoryStore:
    """The history this server observed, held in memory and persisted in ``cargento-history.json``.

    Thread-safe: the board's worker records, routes read, the writer thread writes.
    """

    def __init__(
        self,
        directory: Path,
        *,
        days: float = DEFAULT_DAYS,
        max_bytes: int = DEFAULT_MAX_BYTES,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        min_interval_s: float = 5.0,
    ) -> None:
        if days <= 0 or max_bytes <= 0:
            raise ValueError("the history's days and byte cap must be more than zero")
        self.path = directory / HISTORY_FILE
        self.days = days
        self.max_bytes = max_bytes
        self.clock = clock
        self.min_interval_s = min_interval_s
        self.run_started_at = clock()
        #: What the last load found wrong and did about it (for the header), or ``None``.
        self.reset: str | None = None
        self.reset_at: datetime | None = None
        #: The last write failure (the observations are still held in memory), or ``None``.
        self.write_error: str | None = None
        #: Whole-store writes made by this run (the write rate is bounded; tests read it).
        self.writes = 0
        self._lock = threading.RLock()
        self._items: list[_Held] = []
        #: One string for each harness, session id and project held (see :data:`_Held`).
        self._shared: dict[str, str] = {}
        #: How many observations are held of each session (``holds`` on every first sight).
        self._counts: dict[tuple[str, str], int] = {}
        #: Each session's newest state observation held (a first sight compares the row with it).
        self._last_states: dict[tuple[str, str], _Held] = {}
        self._bytes = len(_HEAD) + 2  # "]}" closes the document
        self._evicted = False
        self._known: tuple[int, int, int] | None = None  # (inode, size, mtime_ns) as we left it
        self._refused = False
        self._dirty = False
        self._timer: threading.Timer | None = None
        self._last_write = 0.0
        self._closed = False
        self._written = threading.Condition(self._lock)

    # -- reading ------------------------------------------------------------------------------

    def load(self) -> None:
        """Read the file back (once, at start). An unreadable or oversized file is set aside."""
        with self._lock:
            self.reset = None
            self.reset_at = None
            found = self._read_disk()
            self._items, self._bytes, self._counts, self._last_states = [], len(_HEAD) + 2, {}, {}
            if found:
                self._add_held(found)
            if self._trim():
                self._dirty = True
                self._schedule()

    def _read_disk(self) -> list[_Held]:
        try:
            fd = open_regular_nonblocking(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self._known = None
            return []
        except OSError as exc:
            cause = exc.strerror or str(exc)
            self._refused = True
            self._say_reset(
                f"{self.path.name} could not be read ({cause}); it was left alone and this run keeps its history in memory"
            )
            self.write_error = f"{self.path}: {cause}; nothing is written there this run"
            return []
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(self.max_bytes + 1)
            info = os.fstat(fh.fileno())
        if len(data) > self.max_bytes:
            self._set_aside(
                f"is larger than its {self.max_bytes}-byte cap (--history-max-bytes) and was discarded unread"
            )
            return []
        parsed = _read_held(data, self._shared)
        if parsed is None:
            self._set_aside("could not be read whole")
            return []
        self._known = (info.st_ino, info.st_size, info.st_mtime_ns)
        return parsed

    def _say_reset(self, text: str) -> None:
        self.reset_at = datetime.now(UTC)
        self.reset = text

    def _set_aside(self, why: str) -> None:
        try:
            aside = set_aside(self.path)
        except OSError as exc:
            self._refused = True
            self._say_reset(
                f"{self.path.name} {why}; it could not be set aside ({exc.strerror or exc}), so this run keeps its history in memory"
            )
            return
        self._known = None
        self._say_reset(f"{self.path.name} {why}; kept as {aside.name}, and the history started empty")

    def session(self, harness: str, session_id: str) -> tuple[Observation, ...]:
        """One session's observations, oldest first."""
        with self._lock:
            return tuple(_decoded(h) for h in self._items if h[2] == session_id and h[1] == harness)

    def project(self, project: str) -> tuple[Observation, ...]:
        """Every observation of the sessions seen in *project*, oldest first (a session's
        observations made before its project was known are included once any names it)."""
        with self._lock:
            keys = {(h[1], h[2]) for h in self._items if h[3] == project}
            return tuple(_decoded(h) for h in self._items if (h[1], h[2]) in keys)

    def records(
        self, *, harness: str | None = None, session_id: str | None = None, project: str | None = None, limit: int
    ) -> tuple[int, list[dict[str, Any]]]:
        """What :meth:`session` (with *harness* and *session_id*) or :meth:`project` (with
        *project*) would return, as stored (:meth:`Observation.record`, redacted): how many, and
        the newest *limit* of them, oldest first. Read from the held bytes, so an answer costs
        no :class:`Observation` for each observation held."""
        with self._lock:
            if project is not None:
                keys = {(h[1], h[2]) for h in self._items if h[3] == project}
                held = [h for h in self._items if (h[1], h[2]) in keys]
            else:
                held = [h for h in self._items if h[2] == session_id and h[1] == harness]
        shown = held[-limit:] if limit > 0 else []
        return len(held), [orjson.loads(h[4]) for h in shown]

    def all(self) -> tuple[Observation, ...]:
        with self._lock:
            return tuple(_decoded(h) for h in self._items)

    def holds(self, harness: str, session_id: str) -> bool:
        """Whether anything of the session is held (without looking through what is)."""
        with self._lock:
            return (harness, session_id) in self._counts

    def last(self, harness: str, session_id: str, kind: str | None = None) -> Observation | None:
        """The session's newest observation (of *kind*, when given)."""
        with self._lock:
            for h in reversed(self._items):
                if h[2] == session_id and h[1] == harness:
                    o = _decoded(h)
                    if kind is None or o.kind == kind:
                        return o
        return None

    def last_state(self, harness: str, session_id: str) -> str | None:
        """The state the session's newest state observation held records, if any: what
        ``last(harness, session_id, "state")`` answers, from an index instead of a walk back
        through every observation (a server's first board asks it of every session it knows)."""
        with self._lock:
            held = self._last_states.get((harness, session_id))
            return None if held is None else _decoded(held).state

    def open_wait(self, harness: str, session_id: str) -> str | None:
        """The kind of the session's open wait: the detail of its newest wait observation when
        that is a start, else ``None`` (a walk back through what is held: ask it of the few
        sessions that wait)."""
        with self._lock:
            for h in reversed(self._items):
                if h[2] == session_id and h[1] == harness:
                    o = _decoded(h)
                    if o.kind == "wait_started":
                        return o.detail or "wait"
                    if o.kind == "wait_ended":
                        return None
        return None

    def window(self, harness: str | None = None, session_id: str | None = None) -> Window:
        """The span held: the whole store's, or one session's when named."""
        with self._lock:
            items = [h for h in self._items if harness is None or (h[1] == harness and h[2] == session_id)]
            return Window(
                first=items[0][0] if items else None,
                last=items[-1][0] if items else None,
                days=self.days,
                run_started_at=self.run_started_at,
                evicted=self._evicted,
            )

    @property
    def size(self) -> int:
        """The serialised size of what is held, in bytes (never above *max_bytes* after a trim)."""
        with self._lock:
            return self._bytes - 1 if self._items else self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    # -- recording ----------------------------------------------------------------------------

    def record(self, observations: Iterable[Observation]) -> int:
        """Keep *observations* and schedule a write; returns how many were kept."""
        batch = list(observations)
        if not batch:
            return 0
        with self._lock:
            self._add(batch)
            self._trim()
            self._dirty = True
            self._schedule()
            return len(batch)

    def _add(self, batch: list[Observation]) -> None:
        memo: dict[str, str] = {}
        self._add_held([_held(o, self._shared, memo) for o in batch])

    def _add_held(self, entries: list[_Held]) -> None:
        counts, states = self._counts, self._last_states
        for e in entries:
            key = (e[1], e[2])
            counts[key] = counts.get(key, 0) + 1
            if _STATE_KIND in e[4]:
                newest = states.get(key)
                if newest is None or e[0] >= newest[0]:
                    states[key] = e
        # In order when each entry is no older than the one before it, the newest held included
        # (a batch into an empty store too: the trims drop from the front, the oldest).
        in_order = all(a[0] <= b[0] for a, b in itertools.pairwise(self._items[-1:] + entries))
        self._items.extend(entries)
        if not in_order:
            self._items.sort(key=lambda e: e[0])
        self._bytes += sum(len(e[4]) + 1 for e in entries)

    def _trim(self) -> bool:
        """Age first, then size; True when anything went."""
        cutoff = self.clock() - timedelta(days=self.days)
        drop = 0
        while drop < len(self._items) and self._items[drop][0] < cutoff:
            drop += 1
        size = self._bytes - sum(len(e[4]) + 1 for e in self._items[:drop])
        # size counts a comma after every observation; the document has one fewer.
        while drop < len(self._items) and size - 1 > self.max_bytes:
            size -= len(self._items[drop][4]) + 1
            drop += 1
        if drop:
            counts, states = self._counts, self._last_states
            for e in self._items[:drop]:
                key = (e[1], e[2])
                if states.get(key) is e:  # the oldest go first: none of its states is left
                    del states[key]
                left = counts[key] - 1
                if left:
                    counts[key] = left
                else:
                    del counts[key]
            del self._items[:drop]
            self._bytes = size
            self._evicted = True
            if len(self._shared) > len(self._items) // 4 + 256:
                # The names of the sessions evicted go too (seldom: a few hundred names
                # accumulate between two passes over what is held).
                self._shared = {v: v for e in self._items for v in e[1:4] if v is not None}
        return drop > 0

    # -- writing ------------------------------------------------------------------------------

    def _schedule(self) -> None:
        if self._refused or self._closed or self._timer is not None:
            return
        delay = max(0.0, self._last_write + self.min_interval_s - _monotonic())
        timer = threading.Timer(delay, lambda: self._on_timer(timer))
        timer.daemon = True
        timer.name = "cargento-history-writer"
        self._timer = timer
        timer.start()

    def _on_timer(self, timer: threading.Timer) -> None:
        with self._lock:
            if self._timer is not timer:  # cancelled by a flush that wrote already
                return
            self._write_now()

    def _write_now(self) -> None:
        with self._lock:
            self._timer = None
            if not self._dirty or self._refused:
                self._written.notify_all()
                return
            try:
                self._reread_if_changed()
                if self._refused:
                    return
                data = self._serialise()
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with contextlib.suppress(FileNotFoundError):
                    if not stat.S_ISREG(os.stat(self.path, follow_symlinks=False).st_mode):
                        raise OSError(errno.EINVAL, "not a regular file; left alone", str(self.path))
                write_atomic(self.path, data)
                info = os.stat(self.path)
                self._known = (info.st_ino, info.st_size, info.st_mtime_ns)
                self._dirty = False
                self.writes += 1
                self.write_error = None
            except OSError as exc:
                self.write_error = (
                    f"{self.path}: could not be written ({exc.strerror or exc}); the history is held in memory"
                )
            finally:
                self._last_write = _monotonic()
                self._written.notify_all()
                if self._dirty and not self._refused and not self._closed and self.write_error is None:
                    self._schedule()

    def _reread_if_changed(self) -> None:
        """Re-read before write: another writer's file is merged in, an unreadable one set aside."""
        try:
            info = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return
        if self._known == (info.st_ino, info.st_size, info.st_mtime_ns):
            return
        found = self._read_disk()
        if not found:
            return
        mine = {e[4] for e in self._items}
        fresh = [h for h in found if h[4] not in mine]
        if fresh:
            self._add_held(fresh)
            self._trim()

    def _serialise(self) -> bytes:
        return _HEAD + b",".join(e[4] for e in self._items) + b"]}"

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Write what is pending now (skipping the rate bound); False when it could not."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._dirty and not self._refused:
                self._last_write = 0.0
                self._write_now()
            return not self._dirty or self._refused

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def status(self) -> Mapping[str, Any]:
        with self._lock:
            return {
                "path": str(self.path),
                "observations": len(self._items),
                "bytes": self.size,
                "writes": self.writes,
                "reset": self.reset,
                "write_error": self.write_error,
            }


def _monotonic() -> float:
    return time.monotonic()
