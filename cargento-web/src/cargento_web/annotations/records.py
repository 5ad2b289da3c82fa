"""What one entry of ``cargento-annotations.json`` holds, and how it is written and read back.

An entry belongs to one session (harness + full session id) and is one of three kinds:

* :class:`Words`: the goal and the expected-outcome checklist you typed (or adopted) against
  the session, as numbered :class:`Revision` s. A revision is never edited once written: a
  save mints the next number, so anything citing revision 1 still means what it meant. The
  entry also carries the moment directions were settled through (``settle_through``) and the
  readings a check recorded against it (:attr:`Words.readings`, opaque JSON objects added by
  the drift feature, each naming the revision it read against).
* :class:`Discard`: what is left after "discard everything": when it happened, whether a check
  had run, and the last revision number (so new words never reuse a number). No text at all.
* :class:`Foreign`: an entry saved by a newer build (its ``v`` is above :data:`ENTRY_VERSION`).
  It is kept byte-for-byte as it was and never saved over.

:func:`entry_from_json` is strict: anything that is not exactly what this build writes raises
:class:`Malformed`, so a store is either read whole or not trusted at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import attrs
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso, parse_ts

__all__ = [
    "ENTRY_VERSION",
    "GOAL_SOURCES",
    "LINE_SOURCES",
    "MAX_CHARS",
    "MAX_LINES",
    "OFF_REASON",
    "Discard",
    "Entry",
    "Foreign",
    "Line",
    "LineMemo",
    "Malformed",
    "Revision",
    "Words",
    "entry_from_json",
    "entry_to_json",
]

#: The entry layout this build writes; an entry with a higher ``v`` is kept as :class:`Foreign`.
ENTRY_VERSION = 1
#: A goal, and each expected-outcome line, is one line of at most this many characters.
MAX_CHARS = 240
#: The expected-outcome checklist holds at most this many lines.
MAX_LINES = 6
#: What the routes and the page say under ``--no-annotations`` (here, not in :mod:`.routes`, so
#: the page's configuration does not import the routes at start).
OFF_REASON = (
    "Annotations are off for this run (--no-annotations): the goal and expected outcome lines you typed "
    "are neither read nor saved."
)
#: Where a goal came from: typed, or adopted from the session's own prompt ("from your prompt").
GOAL_SOURCES = ("typed", "prompt")
#: Where a checklist line came from: typed, or added from an entry (a prompt, a published goal).
LINE_SOURCES = ("typed", "entry")

GoalSource = Literal["typed", "prompt"]
LineSource = Literal["typed", "entry"]


class Malformed(ValueError):
    """An entry (or the file around it) is not what this build writes."""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Line:
    """One expected-outcome line and where it came from."""

    text: str
    source: LineSource = "typed"
    #: For ``source == "entry"``: which entry it was added from (``your prompt``...).
    entry: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Revision:
    """One numbered, never-edited state of a session's words."""

    number: int
    at: datetime
    goal: str | None = None
    goal_source: GoalSource = "typed"
    lines: tuple[Line, ...] = ()

    @property
    def empty(self) -> bool:
        return self.goal is None and not self.lines

    def same_words(self, other: Revision) -> bool:
        """The same goal, goal source and lines (text and source), ignoring number and time."""
        return (self.goal, self.goal_source, self.lines) == (other.goal, other.goal_source, other.lines)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Words:
    """A session's typed words: its revisions (oldest first, the last is current)."""

    harness: str
    sid: str
    revisions: tuple[Revision, ...]
    #: Directions given up to this moment are settled against the current revision.
    settled_through: datetime | None = None
    #: The revision :attr:`settled_through` was recorded against.
    settled_revision: int | None = None
    #: What checks recorded against these words (the drift feature's readings and raises),
    #: oldest first; JSON objects, each naming the ``revision`` it read against.
    readings: tuple[Mapping[str, Any], ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return (self.harness, self.sid)

    @property
    def current(self) -> Revision:
        return self.revisions[-1]

    @property
    def updated_at(self) -> datetime:
        return self.current.at

    @property
    def unsettled_after(self) -> datetime:
        """Directions given after this moment are a "later direction" still to settle: the
        newest save, or the settle moment when one was recorded against the current revision."""
        settled = self.settled_through if self.settled_revision == self.current.number else None
        return max(self.current.at, settled) if settled is not None else self.current.at


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Discard:
    """A session you discarded everything for: when, and nothing you typed."""

    harness: str
    sid: str
    at: datetime
    #: Whether a check had read the session before the discard (the fact stays, the text goes).
    checked: bool = False
    #: The last revision number the words reached, so new words continue after it.
    last_revision: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.harness, self.sid)

    @property
    def updated_at(self) -> datetime:
        return self.at


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Foreign:
    """An entry a newer build wrote: kept exactly as read, never saved over."""

    harness: str
    sid: str
    version: int
    raw: Mapping[str, Any] = attrs.field(eq=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.harness, self.sid)


Entry = Words | Discard | Foreign


def _text(value: object, what: str, *, limit: int | None = None) -> str:
    if not isinstance(value, str) or not value:
        raise Malformed(f"{what} is not a non-empty string")
    if limit is not None and len(value) > limit:
        raise Malformed(f"{what} is longer than {limit} characters")
    return value


def _moment(value: object, what: str) -> datetime:
    if not isinstance(value, str):
        raise Malformed(f"{what} is not a timestamp")
    moment = parse_ts(value)
    if moment is None:
        raise Malformed(f"{what} is not a timestamp")
    return moment


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Malformed(f"{what} is not a whole number")
    return value


def _one_line(value: object, what: str) -> str:
    text = _text(value, what, limit=MAX_CHARS)
    if "\n" in text or "\r" in text:
        raise Malformed(f"{what} is more than one line")
    return text


#: The lines one read made, by their stored ``(text, source, entry)``: a session's revisions
#: repeat most of their checklist, and a line is a frozen value, so one object serves each.
LineMemo = dict[tuple[object, object, object], Line]


def _line_from_json(value: object, memo: LineMemo | None = None) -> Line:
    if not isinstance(value, dict):
        raise Malformed("a line is not an object")
    key = (value.get("text"), value.get("source", "typed"), value.get("entry"))
    if memo is not None and type(key[0]) is str and type(key[1]) is str and (key[2] is None or type(key[2]) is str):
        # What is made of a line is a function of these three alone: a repeat is the line
        # already made (validated then), and a line refused is never remembered.
        made = memo.get(key)
        if made is None:
            made = memo[key] = _line_from_json(value)
        return made
    source = value.get("source", "typed")
    if source not in LINE_SOURCES:
        raise Malformed(f"a line's source {source!r} is unknown")
    entry = value.get("entry")
    if entry is not None and not isinstance(entry, str):
        raise Malformed("a line's entry is not a string")
    return Line(text=_one_line(value.get("text"), "a line"), source=source, entry=entry)


def _revision_from_json(value: object, memo: LineMemo | None = None) -> Revision:
    if not isinstance(value, dict):
        raise Malformed("a revision is not an object")
    goal = value.get("goal")
    goal_source = value.get("goal_source", "typed")
    if goal_source not in GOAL_SOURCES:
        raise Malformed(f"a goal source {goal_source!r} is unknown")
    lines = value.get("lines", [])
    if not isinstance(lines, list) or len(lines) > MAX_LINES:
        raise Malformed(f"a revision's lines are not a list of at most {MAX_LINES}")
    number = _int(value.get("n"), "a revision number")
    if number < 1:
        raise Malformed("a revision number is below 1")
    return Revision(
        number=number,
        at=_moment(value.get("at"), "a revision's time"),
        goal=None if goal is None else _one_line(goal, "a goal"),
        goal_source=goal_source,
        lines=tuple(_line_from_json(line, memo) for line in lines),
    )


def entry_from_json(value: object, lines: LineMemo | None = None) -> Entry:
    """The entry *value* holds; raises :class:`Malformed` for anything this build did not write
    (except an entry of a newer version, which comes back as :class:`Foreign`). *lines*: the
    lines made so far by the read this entry is part of, shared by every entry of it (each
    line stored again in a later revision is then the one object)."""
    if not isinstance(value, dict):
        raise Malformed("an entry is not an object")
    harness = _text(value.get("harness"), "a harness", limit=64)
    sid = _text(value.get("sid"), "a session id", limit=512)
    version = _int(value.get("v"), "an entry version")
    if version > ENTRY_VERSION:
        return Foreign(harness=harness, sid=sid, version=version, raw=value)
    kind = value.get("kind")
    if kind == "discard":
        checked = value.get("checked", False)
        if not isinstance(checked, bool):
            raise Malformed("a discard's checked is not true or false")
        return Discard(
            harness=harness,
            sid=sid,
            at=_moment(value.get("at"), "a discard's time"),
            checked=checked,
            last_revision=_int(value.get("last_revision", 0), "a discard's last revision"),
        )
    if kind != "words":
        raise Malformed(f"an entry's kind {kind!r} is unknown")
    revisions = value.get("revisions")
    if not isinstance(revisions, list) or not revisions:
        raise Malformed("an entry has no revisions")
    memo: LineMemo = {} if lines is None else lines
    parsed = tuple(_revision_from_json(r, memo) for r in revisions)
    numbers = [r.number for r in parsed]
    if numbers != sorted(set(numbers)):
        raise Malformed("an entry's revision numbers do not rise")
    readings = value.get("readings", [])
    if not isinstance(readings, list) or not all(isinstance(r, dict) for r in readings):
        raise Malformed("an entry's readings are not a list of objects")
    settled = value.get("settled_through")
    settled_revision = value.get("settled_revision")
    return Words(
        harness=harness,
        sid=sid,
        revisions=parsed,
        settled_through=None if settled is None else _moment(settled, "a settle time"),
        settled_revision=None if settled_revision is None else _int(settled_revision, "a settled revision"),
        readings=tuple(readings),
    )


def _line_to_json(line: Line) -> dict[str, Any]:
    out: dict[str, Any] = {"text": line.text, "source": line.source}
    if line.entry is not None:
        out["entry"] = line.entry
    return out


def revision_to_json(revision: Revision) -> dict[str, Any]:
    return {
        "n": revision.number,
        "at": iso(revision.at),
        "goal": revision.goal,
        "goal_source": revision.goal_source,
        "lines": [_line_to_json(line) for line in revision.lines],
    }


def entry_to_json(entry: Entry) -> dict[str, Any]:
    """The JSON this build writes for *entry* (a :class:`Foreign` entry exactly as it was read)."""
    if isinstance(entry, Foreign):
        return dict(entry.raw)
    if isinstance(entry, Discard):
        return {
            "v": ENTRY_VERSION,
            "kind": "discard",
            "harness": entry.harness,
            "sid": entry.sid,
            "at": iso(entry.at),
            "checked": entry.checked,
            "last_revision": entry.last_revision,
        }
    return {
        "v": ENTRY_VERSION,
        "kind": "words",
        "harness": entry.harness,
        "sid": entry.sid,
        "revisions": [revision_to_json(r) for r in entry.revisions],
        "settled_through": iso(entry.settled_through),
        "settled_revision": entry.settled_revision,
        "readings": [dict(r) for r in entry.readings],
    }


def lines_of(texts: Sequence[str]) -> tuple[Line, ...]:
    """Typed lines from plain texts (for the demo and tests)."""
    return tuple(Line(text=t) for t in texts)
