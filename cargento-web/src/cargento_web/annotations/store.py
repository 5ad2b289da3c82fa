"""``cargento-annotations.json``: the goal and expected-outcome lines typed against sessions.

API for other features (the drift feature uses exactly this)
-------------------------------------------------------------

Get the one store of a run from the annotations extension (``context`` is the
:class:`~cargento_web.extensions.ExtensionContext`; the extension is ``None`` under
``--no-annotations`` and when the feature is not loaded)::

    from cargento_web.annotations import store_of
    store = store_of(extensions)          # AnnotationStore | None

or open one yourself over the same file (every write re-reads the file under a file lock, so two
instances, two threads or two processes never lose each other's words)::

    store = AnnotationStore(context.state_dir / ANNOTATIONS_FILE)

Read:

* ``store.get(harness, sid)`` -> :class:`Words` | :class:`Discard` | :class:`Foreign` | ``None``.
  For :class:`Words`, ``entry.current`` is the current :class:`Revision` (``.number``,
  ``.goal``, ``.goal_source``, ``.lines`` of :class:`Line`, ``.at``); ``entry.revisions`` are
  all retained revisions, oldest first; ``entry.unsettled_after`` is the moment after which a
  session's instructions are a "later direction" (newest save, or ``settle_through`` recorded
  against the current revision); ``entry.readings`` are the readings recorded so far.
* ``store.entries()`` -> every retained entry (words, discard records, foreign), oldest write
  first; ``store.annotated()`` -> the ``(harness, sid)`` keys holding words.
* ``store.view()`` -> :class:`Loaded` (``state`` ``absent``/``read``/``untrusted``, ``detail``).
  Reads are cached by the file's (inode, size, mtime), so calling them per board is a ``stat``.

Write (each returns a :class:`Result` with ``outcome``, ``persisted``, ``reason``, ``entry``):

* ``store.annotate(harness, sid, Change(...), now)``: what ``POST /api/annotate`` does.
* ``store.add_reading(harness, sid, reading, now)``: append one JSON object (a reading, or a
  departure an unasked check raised) to the session's words. Give it ``"revision"`` (the
  revision it read against; filled in with the current one when missing) and ``"at"``. At most
  :data:`MAX_READINGS` are kept per entry, oldest dropped. Refused when the session has no words.
  "Discard everything" removes every reading with the words; the :class:`Discard` left behind
  says only that a check had run (``checked``).
* ``store.update(harness, sid, change_fn, now)``: the general read-modify-write:
  ``change_fn(entry | None) -> Entry | None`` (``None``: nothing to write, outcome ``refused``).
* ``store.forget_discards(now)``: remove every discard record (for ``--forget``).
* ``store.on_discard(callback)``: ``callback(harness, sid)`` after this instance put a discard
  on disk; :func:`on_any_discard` registers one for every instance in the process (the
  dashboard's own store included), so a store holding quotations of the words (departures) can
  withdraw them whichever instance took the discard.

Rules the store keeps: bounded (:data:`MAX_RECORDS` entries, :data:`MAX_REVISIONS` revisions
each, :data:`MAX_BYTES` on disk; discard records are evicted before words, then oldest first);
written with :func:`cargento.atomicfile.write_atomic` (temporary file, fsync, rename); a file
that exists and cannot be read whole is never written over (outcome ``untrusted`` until it is
moved or repaired); an entry a newer build wrote is kept as it was (outcome ``unreadable`` for
that session); a write that fails holds the words for this run only (``unwritable``).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import attrs
import orjson
from cargento.atomicfile import write_atomic
from cargento.ownstore import OwnStore
from cargento.redact import redact, redact_tree
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso

from cargento_web.annotations.records import (
    MAX_CHARS,
    MAX_LINES,
    Discard,
    Entry,
    Foreign,
    Line,
    LineMemo,
    Malformed,
    Revision,
    Words,
    entry_from_json,
    entry_to_json,
)
from cargento_web.runtime.journal import open_regular_nonblocking

try:  # POSIX: an advisory lock on a sidecar file serialises writers across processes
    import fcntl
except ImportError:  # pragma: no cover - Windows: one process's threads are still serialised
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "ANNOTATIONS_FILE",
    "FILE_SCHEMA",
    "MAX_BYTES",
    "MAX_READINGS",
    "MAX_RECORDS",
    "MAX_REVISIONS",
    "OUTCOMES",
    "AnnotationStore",
    "Change",
    "Draft",
    "Loaded",
    "Outcome",
    "Result",
    "on_any_discard",
    "read_document",
]

ANNOTATIONS_FILE = "cargento-annotations.json"
#: The file layout this build writes and reads; a higher one is a newer build's file.
FILE_SCHEMA = 1
MAX_RECORDS = 256
MAX_REVISIONS = 16
MAX_READINGS = 32
#: The store file is never read or written past this size.
MAX_BYTES = 4 * 1024 * 1024

Outcome = Literal["stored", "unchanged", "refused", "unwritable", "untrusted", "unreadable"]
OUTCOMES: tuple[Outcome, ...] = ("stored", "unchanged", "refused", "unwritable", "untrusted", "unreadable")

Key = tuple[str, str]
log = logging.getLogger("cargento_web")
#: The signature of a file that cannot even be stat'ed: never cached.
_UNSTATABLE = (-1, -1, -1, -1)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Draft:
    """One line of a checklist as a save sends it."""

    text: str
    #: The saved position (in the revision the list was drafted against) the line came from,
    #: or ``None`` for a line typed afresh.
    origin: int | None = None
    #: The entry the line was added from (``your prompt``, ``published goal``...), if any.
    entry: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Change:
    """What one request asks of a session's words (validated by the route's parser)."""

    #: Set the goal (to :attr:`goal`; ``None`` or empty empties it); otherwise leave it.
    set_goal: bool = False
    goal: str | None = None
    #: ``typed``, or ``prompt`` for a goal adopted from the session's own prompt.
    goal_source: Literal["typed", "prompt"] | None = None
    #: The whole checklist, or ``None`` to leave it.
    lines: tuple[Draft, ...] | None = None
    #: Whether the request sent ``origins`` (then a line without one is typed afresh).
    origins_sent: bool = False
    #: The revision the words were drafted against (0: drafted with nothing stored).
    expected_revision: int | None = None
    clear: bool = False
    settle_through: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Result:
    """What the store did with one request."""

    outcome: Outcome
    #: Are the words on disk (true for ``unchanged``: the same words were already there).
    persisted: bool
    reason: str | None = None
    entry: Entry | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Loaded:
    """The store file as last read."""

    #: ``absent`` (no file yet), ``read`` or ``untrusted`` (exists, cannot be read whole).
    state: Literal["absent", "read", "untrusted"]
    entries: Mapping[Key, Entry] = attrs.field(factory=dict)
    detail: str | None = None


def read_document(data: bytes) -> dict[Key, Entry]:
    """The entries a store file's bytes hold, oldest write first; raises :class:`Malformed`
    unless the bytes are exactly a store this build can read whole."""
    if len(data) > MAX_BYTES:
        raise Malformed(f"it is larger than {MAX_BYTES} bytes")
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise Malformed("it is not valid JSON") from None
    if not isinstance(doc, dict):
        raise Malformed("it is not a JSON object")
    schema = doc.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise Malformed("it names no format")
    if schema > FILE_SCHEMA:
        raise Malformed(f"a newer Cargento wrote it (format {schema}; this build reads {FILE_SCHEMA})")
    if schema < 1:
        raise Malformed(f"its format {schema} is unknown")
    raw = doc.get("entries")
    if not isinstance(raw, list):
        raise Malformed("it holds no list of entries")
    if len(raw) > MAX_RECORDS:
        raise Malformed(f"it holds more than {MAX_RECORDS} entries")
    out: dict[Key, Entry] = {}
    lines: LineMemo = {}
    for item in raw:
        entry = entry_from_json(item, lines)
        if entry.key in out:
            raise Malformed(f"it holds two entries for {entry.harness} {entry.sid}")
        out[entry.key] = entry
    return out


def _encode(entries: Mapping[Key, Entry]) -> bytes:
    doc = {"schema": FILE_SCHEMA, "store": "annotations", "entries": [entry_to_json(e) for e in entries.values()]}
    return orjson.dumps(doc)


def _eviction_order(entries: Mapping[Key, Entry], keep: Key) -> list[Key]:
    """Which entries go first when the store is over its bound: discard records, then words,
    oldest first; an entry a newer build wrote only after those; never *keep*."""

    def rank(key: Key) -> tuple[int, str]:
        e = entries[key]
        if isinstance(e, Discard):
            return (0, iso(e.at) or "")
        if isinstance(e, Words):
            return (1, iso(e.updated_at) or "")
        return (2, "")

    return sorted((k for k in entries if k != keep), key=rank)


_ANY_DISCARD: list[Callable[[str, str], None]] = []
_ANY_DISCARD_LOCK = threading.Lock()


def on_any_discard(callback: Callable[[str, str], None]) -> Callable[[], None]:
    """Call ``callback(harness, sid)`` after any store in this process puts a discard on disk;
    returns the function that removes the callback again."""
    with _ANY_DISCARD_LOCK:
        _ANY_DISCARD.append(callback)

    def remove() -> None:
        with _ANY_DISCARD_LOCK:
            if callback in _ANY_DISCARD:
                _ANY_DISCARD.remove(callback)

    return remove


class _FileLock:
    """An exclusive advisory lock on ``.<store>.lock`` beside the store (and a thread lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.threads = threading.RLock()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self.threads:
            fd: int | None = None
            if fcntl is not None:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except OSError:
                    if fd is not None:
                        os.close(fd)
                    fd = None  # an unwritable directory: the write itself will say so
            try:
                yield
            finally:
                if fd is not None:
                    with contextlib.suppress(OSError):
                        fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)


class AnnotationStore:
    """The annotation store of one run (see the module docstring for the API)."""

    def __init__(
        self,
        path: Path,
        *,
        max_records: int = MAX_RECORDS,
        max_revisions: int = MAX_REVISIONS,
        max_bytes: int = MAX_BYTES,
        max_readings: int = MAX_READINGS,
    ) -> None:
        self.path = path
        self.max_records = max_records
        self.max_revisions = max_revisions
        self.max_bytes = max_bytes
        self.max_readings = max_readings
        self._lock = _FileLock(path.with_name(f".{path.name}.lock"))
        self._cache: tuple[tuple[int, int, int, int] | None, Loaded] | None = None
        #: Entries whose write failed, held for this run only.
        self._held: dict[Key, Entry] = {}
        #: The last write failure, for the header and ``--diagnose``.
        self.write_error: str | None = None
        self._discard_listeners: list[Callable[[str, str], None]] = []
        self._change_listeners: list[Callable[[], None]] = []

    # -- reading ---------------------------------------------------------------------------

    def _signature(self) -> tuple[int, int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError:
            return _UNSTATABLE
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def _read(self) -> Loaded:
        try:
            fd = open_regular_nonblocking(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return Loaded(state="absent")
        except OSError as exc:
            cause = "it is not a regular file" if exc.errno == errno.EINVAL else (exc.strerror or str(exc)).lower()
            return Loaded(state="untrusted", detail=f"{self.path.name} could not be read: {cause}")
        try:
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            return Loaded(state="untrusted", detail=f"{self.path.name} could not be read: {exc.strerror or exc}")
        try:
            return Loaded(state="read", entries=read_document(data))
        except Malformed as exc:
            return Loaded(state="untrusted", detail=f"{self.path.name} could not be read whole: {exc}")

    def view(self) -> Loaded:
        """The file as it stands now (re-read only when its inode, size or mtime moved)."""
        signature = self._signature()
        cached = self._cache
        if cached is not None and cached[0] == signature and signature != _UNSTATABLE:
            return cached[1]
        loaded = self._read()
        self._cache = (signature, loaded)
        return loaded

    def _merged(self, loaded: Loaded) -> dict[Key, Entry]:
        merged = dict(loaded.entries)
        for key, held in self._held.items():
            merged.pop(key, None)
            merged[key] = held
        return merged

    def entries(self) -> tuple[Entry, ...]:
        """Every retained entry, oldest write first (words held after a failed write included)."""
        return tuple(self._merged(self.view()).values())

    def get(self, harness: str, sid: str) -> Entry | None:
        return self._merged(self.view()).get((harness, sid))

    def annotated(self) -> frozenset[Key]:
        """The sessions holding words (not discard records, not a newer build's entries)."""
        return frozenset(e.key for e in self.entries() if isinstance(e, Words))

    def version(self) -> tuple[object, ...]:
        """What moves whenever what this store would show does: the file's signature, the
        words held for this run and the last write failure (a ``stat``, no read)."""
        return (self._signature(), tuple(sorted(self._held)), self.write_error)

    @property
    def held(self) -> frozenset[Key]:
        """The sessions whose words are held for this run only (their write failed)."""
        return frozenset(self._held)

    def own_store(self) -> OwnStore:
        """The store as ``--diagnose`` and the page header name it."""
        loaded = self.view()
        if loaded.state == "untrusted":
            return OwnStore(
                name="annotations",
                path=str(self.path),
                status="unreadable",
                detail=f"{loaded.detail}; nothing is written over it until it is moved or repaired",
            )
        if loaded.state == "absent" and not self._held:
            return OwnStore(name="annotations", path=str(self.path), status="absent", detail=self.write_error)
        entries = self.entries()
        words = sum(isinstance(e, Words) for e in entries)
        discards = sum(isinstance(e, Discard) for e in entries)
        foreign = sum(isinstance(e, Foreign) for e in entries)
        parts = [
            f"{words} session{'s' if words != 1 else ''} with words",
            f"{discards} discard record{'s' if discards != 1 else ''}",
        ]
        if foreign:
            parts.append(f"{foreign} saved by a newer build, kept as they were")
        if self.write_error:
            parts.append(self.write_error)
        return OwnStore(name="annotations", path=str(self.path), status="read", detail=", ".join(parts))

    def on_discard(self, callback: Callable[[str, str], None]) -> None:
        self._discard_listeners.append(callback)

    def on_change(self, callback: Callable[[], None]) -> None:
        """*callback()* after any write this store made (stored words, a reading, a discard)."""
        self._change_listeners.append(callback)

    # -- writing ---------------------------------------------------------------------------

    def update(self, harness: str, sid: str, change: Callable[[Entry | None], Entry | Result], now: datetime) -> Result:
        """Read the file, apply *change* to this session's entry and write the result.

        *change* returns the new entry, or a :class:`Result` to answer without writing.
        """
        key = (harness, sid)
        with self._lock.held():
            self._cache = None
            loaded = self.view()
            if loaded.state == "untrusted":
                return Result(
                    outcome="untrusted",
                    persisted=False,
                    reason=f"{loaded.detail}; nothing was written over it. Move or repair it to save again.",
                )
            current = self._merged(loaded).get(key)
            if isinstance(current, Foreign):
                return Result(
                    outcome="unreadable",
                    persisted=False,
                    reason=(
                        f"a newer Cargento saved this session's words (entry version {current.version}); "
                        "they are kept as they were and not saved over"
                    ),
                    entry=current,
                )
            made = change(current)
            if isinstance(made, Result):
                return made
            return self._commit(loaded, key, made, discarded=isinstance(made, Discard))

    def _commit(self, loaded: Loaded, key: Key, entry: Entry, *, discarded: bool) -> Result:
        entries = dict(loaded.entries)
        # Words a failed write held for this run go to disk with the next write, unless another
        # process has written that session since.
        for held_key, held in self._held.items():
            on_disk = entries.get(held_key)
            if held_key != key and (on_disk is None or _newer(held, on_disk)):
                entries.pop(held_key, None)
                entries[held_key] = held
        entries.pop(key, None)
        entries[key] = entry
        for victim in _eviction_order(entries, key)[: max(0, len(entries) - self.max_records)]:
            del entries[victim]
        data = _encode(entries)
        order = _eviction_order(entries, key)
        while len(data) > self.max_bytes and order:
            del entries[order.pop(0)]
            data = _encode(entries)
        if len(data) > self.max_bytes:
            return Result(
                outcome="unwritable",
                persisted=False,
                reason=f"this session's words could not fit the store ({self.max_bytes} bytes) even alone; nothing was saved",
            )
        try:
            write_atomic(self.path, data)
        except OSError as exc:
            self.write_error = f"{self.path.name} could not be written: {exc.strerror or exc}"
            self._held[key] = entry
            self._cache = None
            self._notify(discarded=False, key=key)
            return Result(
                outcome="unwritable",
                persisted=False,
                reason=f"{self.write_error}; the words are held for this run only",
                entry=entry,
            )
        self.write_error = None
        self._held.clear()
        self._cache = None
        self._notify(discarded=discarded, key=key)
        return Result(outcome="stored", persisted=True, entry=entry)

    def _notify(self, *, discarded: bool, key: Key) -> None:
        if discarded:
            with _ANY_DISCARD_LOCK:
                everywhere = list(_ANY_DISCARD)
            for listener in [*self._discard_listeners, *everywhere]:
                try:
                    listener(*key)
                except Exception:
                    log.exception("a discard listener failed")
        for callback in self._change_listeners:
            callback()

    def annotate(self, harness: str, sid: str, change: Change, now: datetime) -> Result:
        """Do what one ``POST /api/annotate`` asks (see :class:`Change`)."""

        def apply(current: Entry | None) -> Entry | Result:
            return _apply(current, change, harness=harness, sid=sid, now=now, max_revisions=self.max_revisions)

        held_before = (harness, sid) in self._held
        result = self.update(harness, sid, apply, now)
        if result.outcome == "unchanged" and held_before:
            return attrs.evolve(result, persisted=False, reason="the same words are held for this run only")
        return result

    def forget_discards(self, now: datetime) -> Result:
        """Remove every discard record (what ``--forget`` does to this store); the words you
        typed stay. ``unchanged`` when there was none."""
        with self._lock.held():
            self._cache = None
            loaded = self.view()
            if loaded.state == "untrusted":
                return Result(
                    outcome="untrusted", persisted=False, reason=f"{loaded.detail}; nothing was written over it"
                )
            if loaded.state == "absent" or not any(isinstance(e, Discard) for e in loaded.entries.values()):
                return Result(outcome="unchanged", persisted=True)
            kept = {k: e for k, e in loaded.entries.items() if not isinstance(e, Discard)}
            try:
                write_atomic(self.path, _encode(kept))
            except OSError as exc:
                return Result(
                    outcome="unwritable",
                    persisted=False,
                    reason=f"{self.path.name} could not be written: {exc.strerror or exc}",
                )
            self._cache = None
            self._notify(discarded=False, key=("", ""))
            return Result(outcome="stored", persisted=True)

    def add_reading(self, harness: str, sid: str, reading: Mapping[str, Any], now: datetime) -> Result:
        """Append *reading* (a JSON object) to the session's words (see the module docstring)."""

        def apply(current: Entry | None) -> Entry | Result:
            if not isinstance(current, Words):
                return Result(outcome="refused", persisted=False, reason="no words are typed against this session")
            item = dict(redact_tree(dict(reading)))
            item.setdefault("revision", current.current.number)
            item.setdefault("at", iso(now))
            return attrs.evolve(current, readings=(*current.readings, item)[-self.max_readings :])

        return self.update(harness, sid, apply, now)


def _newer(a: Entry, b: Entry) -> bool:
    if isinstance(a, Foreign) or isinstance(b, Foreign):
        return False
    return a.updated_at > b.updated_at


def _resolve_lines(drafts: Sequence[Draft], base: Revision | None, *, origins_sent: bool) -> tuple[Line, ...]:
    """Each drafted line with its source: an entry it was added from, the saved line it came
    from (by position when origins were sent, else the first unused saved line of the same
    text), or typed."""
    saved = base.lines if base is not None else ()
    used: set[int] = set()
    out: list[Line] = []
    for draft in drafts:
        if draft.entry is not None:
            out.append(Line(text=draft.text, source="entry", entry=draft.entry))
            continue
        position: int | None = None
        if origins_sent:
            o = draft.origin
            if o is not None and 0 <= o < len(saved) and saved[o].text == draft.text and o not in used:
                position = o
        else:
            position = next((i for i, s in enumerate(saved) if s.text == draft.text and i not in used), None)
        if position is None:
            out.append(Line(text=draft.text))
        else:
            used.add(position)
            out.append(saved[position])
    return tuple(out)


def _apply(
    current: Entry | None, change: Change, *, harness: str, sid: str, now: datetime, max_revisions: int
) -> Entry | Result:
    def refused(reason: str) -> Result:
        return Result(outcome="refused", persisted=False, reason=reason, entry=current)

    words = current if isinstance(current, Words) else None
    if change.clear:
        if words is None:
            return refused("no words are typed against this session, so there is nothing to discard")
        return Discard(
            harness=harness, sid=sid, at=now, checked=bool(words.readings), last_revision=words.current.number
        )
    if not change.set_goal and change.lines is None:
        if change.settle_through is None:
            return refused("the request names no goal, no lines, no clear and no settle")
        if words is None:
            return refused("no words are typed against this session, so there is no direction to settle")
        if (
            words.settled_revision == words.current.number
            and words.settled_through is not None
            and words.settled_through >= change.settle_through
        ):
            return Result(outcome="unchanged", persisted=True, entry=words)
        return attrs.evolve(words, settled_through=change.settle_through, settled_revision=words.current.number)
    base = words.current if words is not None else None
    standing = base.number if base is not None else 0
    if change.lines is not None and base is not None and change.expected_revision is None:
        return refused(
            f"a list must say which revision it was drafted against (expected_revision); the words are at revision {standing}"
        )
    if change.expected_revision is not None and change.expected_revision != standing:
        return refused(
            f"this was drafted against revision {change.expected_revision}, and the words are now at revision "
            f"{standing}; reload them and save again"
        )
    goal = base.goal if base is not None else None
    goal_source = base.goal_source if base is not None else "typed"
    if change.set_goal:
        new_goal = change.goal or None
        if change.goal_source is not None:
            goal_source = change.goal_source
        elif new_goal != goal:
            goal_source = "typed"  # editing a goal makes typed words
        goal = new_goal
        if goal is None:
            goal_source = "typed"
    lines = (
        _resolve_lines(change.lines, base, origins_sent=change.origins_sent)
        if change.lines is not None
        else (base.lines if base is not None else ())
    )
    if isinstance(current, Discard):
        number = current.last_revision + 1
    else:
        number = standing + 1
    candidate = Revision(number=number, at=now, goal=goal, goal_source=goal_source, lines=lines)
    if base is not None and candidate.same_words(base):
        return Result(outcome="unchanged", persisted=True, entry=words)
    if base is None and candidate.empty:
        return refused("the request names nothing to store: the goal and the lines are empty")
    if words is None:
        return Words(harness=harness, sid=sid, revisions=(candidate,))
    return attrs.evolve(words, revisions=(*words.revisions, candidate)[-max_revisions:])


def check_one_line(value: str, what: str) -> str | None:
    """Why *value* cannot be a goal or a line (``None`` when it can): one line, at most
    :data:`MAX_CHARS` characters. Refused, never clipped."""
    if "\n" in value or "\r" in value:
        return f"{what} must be one line"
    if len(value) > MAX_CHARS:
        return f"{what} has {len(value)} characters; the limit is {MAX_CHARS}. Shorten it: nothing is clipped"
    return None


def scrub(value: str) -> str:
    """A typed text as the store keeps it: trimmed and with credential-shaped values redacted."""
    return redact(value.strip())


#: Re-exported so a route parser can name the checklist limit.
LINE_LIMIT = MAX_LINES
