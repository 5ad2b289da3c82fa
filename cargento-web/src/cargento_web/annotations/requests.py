"""The body of ``POST /api/annotate``, checked: a harness, a session id, and what to change.

``{"harness", "sid", "goal"?, "goal_source"?, "lines"?, "origins"?, "expected_revision"?,
"clear"?, "settle_through"?}``. ``lines`` is the whole checklist (a list of strings); ``origins``
is a list beside it, each the saved position the line came from (a whole number), ``null`` for a
line typed afresh, or ``{"entry": "<what it was added from>"}``. A seventh line, a line over
240 characters or a line with a line break is refused, never clipped; blank lines are dropped.
"""

from __future__ import annotations

import re
from datetime import datetime

import attrs
import orjson
from cargento.sharedmethods import shared_methods
from cargento.timestamps import FUTURE_TOLERANCE_S, parse_ts

from cargento_web.annotations.records import MAX_LINES
from cargento_web.annotations.store import Change, Draft, check_one_line, scrub

__all__ = ["BODY_LIMIT", "Annotate", "Refusal", "parse_annotate"]

#: Six lines and a goal of 240 characters, each character JSON-escaped, fit with room to spare.
BODY_LIMIT = 16_384
_HARNESS = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_ENTRY_LABEL_LIMIT = 80


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Annotate:
    harness: str
    sid: str
    change: Change


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Refusal:
    reason: str


def _sid(value: object) -> str | None:
    if not isinstance(value, str) or not value or len(value) > 512:
        return None
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return None
    return value


def parse_annotate(body: bytes, now: datetime) -> Annotate | Refusal:
    """The request *body* holds, or why the store takes nothing from it."""
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError:
        return Refusal(reason="the body is not JSON")
    if not isinstance(doc, dict):
        return Refusal(reason="the body is not a JSON object")
    harness = doc.get("harness")
    if not isinstance(harness, str) or not _HARNESS.match(harness):
        return Refusal(reason="harness must name a harness (such as claude or codex)")
    sid = _sid(doc.get("sid"))
    if sid is None:
        return Refusal(reason="sid must be the session's full id")
    clear = doc.get("clear", False)
    if not isinstance(clear, bool):
        return Refusal(reason="clear must be true or false")
    expected = doc.get("expected_revision")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        return Refusal(reason="expected_revision must be a revision number")
    set_goal = "goal" in doc
    goal: str | None = None
    if set_goal:
        raw_goal = doc["goal"]
        if raw_goal is not None and not isinstance(raw_goal, str):
            return Refusal(reason="goal must be a string or null")
        if isinstance(raw_goal, str):
            # Checked as it will be stored (credential-shaped values redacted), so what is on
            # disk is always within the limits the reader holds it to.
            scrubbed = scrub(raw_goal)
            why = check_one_line(scrubbed, "the goal")
            if why is not None:
                return Refusal(reason=why)
            goal = scrubbed or None
    goal_source = doc.get("goal_source")
    if goal_source is not None and goal_source not in ("typed", "prompt"):
        return Refusal(reason="goal_source must be typed or prompt")
    if goal_source == "prompt" and not set_goal:
        return Refusal(reason="goal_source prompt needs the goal it adopts")
    drafts: tuple[Draft, ...] | None = None
    origins_sent = "origins" in doc and doc["origins"] is not None
    if "lines" in doc:
        lines = doc["lines"]
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            return Refusal(reason="lines must be a list of strings (the whole checklist)")
        origins = doc.get("origins")
        if origins_sent and (not isinstance(origins, list) or len(origins) != len(lines)):
            return Refusal(reason="origins must be a list beside lines, one per line")
        made: list[Draft] = []
        for index, text in enumerate(lines):
            stripped = scrub(text)
            why = check_one_line(stripped, f"line {index + 1}")
            if why is not None:
                return Refusal(reason=why)
            if not stripped:
                continue
            origin: int | None = None
            entry: str | None = None
            if origins_sent:
                assert isinstance(origins, list)
                o = origins[index]
                if isinstance(o, dict):
                    label = o.get("entry")
                    if not isinstance(label, str) or not label.strip() or len(label) > _ENTRY_LABEL_LIMIT:
                        return Refusal(reason=f"origin {index + 1} names no entry")
                    entry = label.strip()
                elif o is not None:
                    if isinstance(o, bool) or not isinstance(o, int) or o < 0:
                        return Refusal(reason=f"origin {index + 1} must be a saved position, null or an entry")
                    origin = o
            made.append(Draft(text=stripped, origin=origin, entry=entry))
        if len(made) > MAX_LINES:
            return Refusal(
                reason=f"the checklist holds at most {MAX_LINES} lines; replace or merge a line instead of adding a seventh"
            )
        drafts = tuple(made)
    elif origins_sent:
        return Refusal(reason="origins go beside lines")
    settle: datetime | None = None
    if "settle_through" in doc and doc["settle_through"] is not None:
        raw_settle = doc["settle_through"]
        settle = parse_ts(raw_settle) if isinstance(raw_settle, str | int | float) else None
        if settle is None:
            return Refusal(reason="settle_through must be a timestamp")
        if (settle - now).total_seconds() > FUTURE_TOLERANCE_S:
            return Refusal(reason="settle_through is in the future")
    if settle is not None and (set_goal or drafts is not None):
        return Refusal(reason="settle_through marks directions settled against the current words; send it alone")
    if clear and (set_goal or drafts is not None or settle is not None):
        return Refusal(reason="clear forgets the session's words entirely; send it alone")
    return Annotate(
        harness=harness,
        sid=sid,
        change=Change(
            set_goal=set_goal,
            goal=goal,
            goal_source=goal_source,
            lines=drafts,
            origins_sent=origins_sent,
            expected_revision=expected,
            clear=clear,
            settle_through=settle,
        ),
    )
