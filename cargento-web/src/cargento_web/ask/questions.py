"""The questions a session registered through the ask lane, and what became of each.

A question is text and two to six short options, stored here at registration; an answer is an
index into those options and nothing else, so what reaches the agent is always one of the
strings it offered. A question is open until it is answered, declined (the dashboard stops,
the asking tool withdraws it) or expires; once closed it is kept a short while so the asking
server's next poll learns how it ended, then forgotten. Nothing here is written to disk: a
question does not survive its dashboard, and the asking server reads a restart as a decline.

Everything is bounded: the text and each option are length-capped, at most
:data:`OUTSTANDING_LIMIT` questions are open at once (past it a registration is refused, which
the asking server turns into a decline), and at most :data:`CLOSED_LIMIT` closed ones are kept.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, Literal

import attrs
from cargento.sharedmethods import shared_methods
from cargento.timestamps import iso

__all__ = [
    "CLOSED_LIFE",
    "CLOSED_LIMIT",
    "DEFAULT_TIMEOUT_S",
    "MAX_TIMEOUT_S",
    "MIN_TIMEOUT_S",
    "OPTIONS_MAX",
    "OPTIONS_MIN",
    "OPTION_LIMIT",
    "OUTSTANDING_LIMIT",
    "PER_SESSION_LIMIT",
    "QUESTION_LIMIT",
    "Invalid",
    "Question",
    "Questions",
    "Refused",
    "Status",
    "parse_question",
]

#: Longest question text, in characters.
QUESTION_LIMIT = 500
#: Longest option, in characters: an option is a button label, not a paragraph.
OPTION_LIMIT = 80
OPTIONS_MIN = 2
OPTIONS_MAX = 6
#: Questions open at once, across every session.
OUTSTANDING_LIMIT = 20
#: Questions one named session may have open at once, so a runaway session cannot take
#: every place (unattributed questions share the overall cap only).
PER_SESSION_LIMIT = 5
#: How long an unanswered question waits by default, and the bounds a caller may ask for.
DEFAULT_TIMEOUT_S = 300
MIN_TIMEOUT_S = 10
MAX_TIMEOUT_S = 1800
#: Closed questions kept so a late poll still learns the outcome.
CLOSED_LIMIT = 256
CLOSED_LIFE = timedelta(minutes=10)
_SESSION_LIMIT = 256
_PROJECT_LIMIT = 1024
_HARNESS = re.compile(r"^[a-z][a-z0-9-]{1,31}$")
# C0/C1 controls except tab and newline: text is rendered as text, but a control character
# has no business in a button label or a notification.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

Status = Literal["open", "answered", "declined", "expired"]


class Invalid(ValueError):
    """A registration body that is not a question this lane takes (the message says why)."""


class Refused(Exception):
    """A valid question the lane will not take now (the cap is reached)."""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Question:
    id: str
    #: The asking session, when the harness named it to the asking server; both ``None``
    #: for an unattributed question (never guessed).
    harness: str | None
    session_id: str | None
    project: str | None
    text: str
    options: tuple[str, ...]
    asked_at: datetime
    expires_at: datetime
    status: Status = "open"
    #: The chosen option's index, once answered.
    index: int | None = None
    closed_at: datetime | None = None
    reason: str | None = None

    def document(self) -> dict[str, Any]:
        """The question as ``/api/data`` carries it."""
        return {
            "id": self.id,
            "harness": self.harness,
            "session_id": self.session_id,
            "project": self.project,
            "text": self.text,
            "options": list(self.options),
            "asked_at": iso(self.asked_at),
            "expires_at": iso(self.expires_at),
        }

    def outcome(self) -> dict[str, Any]:
        """What the asking server's poll is told."""
        return {
            "id": self.id,
            "status": self.status,
            "index": self.index,
            "reason": self.reason,
            "expires_at": iso(self.expires_at),
        }


def _text(value: object, limit: int, what: str) -> str:
    if not isinstance(value, str):
        raise Invalid(f"{what} must be a string")
    cleaned = _CONTROLS.sub("", value).strip()
    if not cleaned:
        raise Invalid(f"{what} is empty")
    if len(cleaned) > limit:
        raise Invalid(f"{what} is longer than {limit} characters")
    return cleaned


def _optional(value: object, limit: int, what: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > limit or _CONTROLS.search(value):
        raise Invalid(f"{what} must be a short string")
    return value


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Asked:
    """A registration body, validated."""

    harness: str | None
    session_id: str | None
    project: str | None
    text: str
    options: tuple[str, ...]
    timeout_s: float


def parse_question(body: Mapping[str, Any]) -> Asked:
    """The question in a ``POST /api/ask`` body; raises :class:`Invalid`. Unknown fields are
    ignored; a session id without a harness (or the reverse) is refused rather than guessed."""
    text = _text(body.get("question"), QUESTION_LIMIT, "question")
    raw = body.get("options")
    if not isinstance(raw, list) or not OPTIONS_MIN <= len(raw) <= OPTIONS_MAX:
        raise Invalid(f"options must be a list of {OPTIONS_MIN} to {OPTIONS_MAX} strings")
    options = tuple(_text(o, OPTION_LIMIT, "an option") for o in raw)
    if len({o.casefold() for o in options}) != len(options):
        raise Invalid("two options read the same")
    timeout = body.get("timeout_s", DEFAULT_TIMEOUT_S)
    if timeout is None:
        timeout = DEFAULT_TIMEOUT_S
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout != timeout:
        raise Invalid("timeout_s must be a number of seconds")
    if not MIN_TIMEOUT_S <= timeout <= MAX_TIMEOUT_S:
        raise Invalid(f"timeout_s must be from {MIN_TIMEOUT_S} to {MAX_TIMEOUT_S} seconds")
    harness = _optional(body.get("harness"), 32, "harness")
    if harness is not None and not _HARNESS.match(harness):
        raise Invalid("harness must be a harness key")
    session_id = _optional(body.get("session_id"), _SESSION_LIMIT, "session_id")
    if (harness is None) != (session_id is None):
        raise Invalid("harness and session_id name a session together, or neither is given")
    project = _optional(body.get("project"), _PROJECT_LIMIT, "project")
    return Asked(
        harness=harness, session_id=session_id, project=project, text=text, options=options, timeout_s=float(timeout)
    )


class Questions:
    """The open and recently closed questions of one dashboard run; thread-safe."""

    def __init__(self, *, limit: int = OUTSTANDING_LIMIT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._open: OrderedDict[str, Question] = OrderedDict()
        self._closed: OrderedDict[str, Question] = OrderedDict()

    def register(self, asked: Asked, now: datetime) -> Question:
        """Open *asked*; raises :class:`Refused` at the cap."""
        with self._lock:
            self._expire_locked(now)
            if len(self._open) >= self.limit:
                raise Refused(f"{self.limit} questions are already waiting for an answer")
            if asked.session_id is not None:
                mine = sum(
                    1 for q in self._open.values() if (q.harness, q.session_id) == (asked.harness, asked.session_id)
                )
                if mine >= PER_SESSION_LIMIT:
                    raise Refused(f"this session already has {PER_SESSION_LIMIT} questions waiting for an answer")
            question = Question(
                id=secrets.token_urlsafe(12),
                harness=asked.harness,
                session_id=asked.session_id,
                project=asked.project,
                text=asked.text,
                options=asked.options,
                asked_at=now,
                expires_at=now + timedelta(seconds=asked.timeout_s),
            )
            self._open[question.id] = question
            return question

    def get(self, question_id: str, now: datetime) -> Question | None:
        """The question, open or recently closed (expiring it if its time is up)."""
        with self._lock:
            self._expire_locked(now)
            return self._open.get(question_id) or self._closed.get(question_id)

    def answer(self, question_id: str, index: object, now: datetime) -> Question:
        """Answer an open question with an option's index; raises :class:`LookupError` for
        an unknown or closed question and :class:`Invalid` for an index that is not one of
        its options. Nothing changes unless the answer is taken."""
        with self._lock:
            self._expire_locked(now)
            question = self._open.get(question_id)
            if question is None:
                raise LookupError("closed" if question_id in self._closed else "unknown")
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(question.options):
                raise Invalid(f"index must be a whole number from 0 to {len(question.options) - 1}")
            return self._close_locked(question, "answered", now, index=index)

    def decline(self, question_id: str, reason: str, now: datetime) -> Question | None:
        """Decline one open question (the asker withdrew it); ``None`` when it is not open."""
        with self._lock:
            question = self._open.get(question_id)
            return None if question is None else self._close_locked(question, "declined", now, reason=reason)

    def decline_all(self, reason: str, now: datetime) -> list[Question]:
        """Decline every open question (the dashboard is stopping)."""
        with self._lock:
            return [self._close_locked(q, "declined", now, reason=reason) for q in list(self._open.values())]

    def expire(self, now: datetime) -> list[Question]:
        """Close every question whose time is up; returns them."""
        with self._lock:
            return self._expire_locked(now)

    def outstanding(self, now: datetime) -> list[Question]:
        """The open questions, oldest first."""
        with self._lock:
            self._expire_locked(now)
            return list(self._open.values())

    def next_expiry(self) -> datetime | None:
        with self._lock:
            return min((q.expires_at for q in self._open.values()), default=None)

    def _expire_locked(self, now: datetime) -> list[Question]:
        due = [q for q in self._open.values() if q.expires_at <= now]
        closed = [self._close_locked(q, "expired", now, reason="nobody answered in time") for q in due]
        cutoff = now - CLOSED_LIFE
        while self._closed and (
            len(self._closed) > CLOSED_LIMIT or next(iter(self._closed.values())).closed_at < cutoff  # type: ignore[operator]
        ):
            self._closed.popitem(last=False)
        return closed

    def _close_locked(
        self, question: Question, status: Status, now: datetime, *, index: int | None = None, reason: str | None = None
    ) -> Question:
        closed = attrs.evolve(question, status=status, index=index, closed_at=now, reason=reason)
        self._open.pop(question.id, None)
        self._closed[question.id] = closed
        while len(self._closed) > CLOSED_LIMIT:
            self._closed.popitem(last=False)
        return closed
