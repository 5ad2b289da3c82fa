"""Redaction of the board: credential-shaped values never reach a page or the API.

Every text a row or a strip entry shows goes through :func:`cargento.redact.redact` (memoised,
since the same titles and details recur on every build). A record comes back as the same
object when nothing in it changed, so unchanged rows keep their identity across builds.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from cargento.board.document import Board, BoardHarness, BoardSession, BoardTask
from cargento.models import Evidence, Instruction, Subagent
from cargento.redact import redact

__all__ = ["redact_board", "redact_harness", "redact_session"]


def redact_board(board: Board) -> Board:
    """Replace credential-shaped values in every text a page or the API shows (the builder
    already does this for every board it builds)."""
    return attrs.evolve(
        board,
        sessions=tuple(redact_session(s) for s in board.sessions),
        harnesses=tuple(redact_harness(h) for h in board.harnesses),
    )


@functools.lru_cache(maxsize=8192)
def _redact(text: str) -> str:
    return redact(text)


def _redact_optional(text: str | None) -> str | None:
    return _redact(text) if text else text


def redact_session(s: BoardSession) -> BoardSession:
    """The row with its title, detail, raw tool name, wait text, tasks, instruction, subagent names and notes redacted."""
    changes: dict[str, Any] = {}
    title, detail = _redact_optional(s.title), _redact(s.detail)
    if title != s.title:
        changes["title"] = title
    if detail != s.detail:
        changes["detail"] = detail
    raw = _redact_optional(s.last_tool_raw)
    if raw != s.last_tool_raw:
        changes["last_tool_raw"] = raw
    if s.waiting is not None and s.waiting.text and _redact(s.waiting.text) != s.waiting.text:
        changes["waiting"] = attrs.evolve(s.waiting, text=_redact(s.waiting.text))
    tasks = tuple(_redact_task(t) for t in s.tasks)
    if any(a is not b for a, b in zip(tasks, s.tasks, strict=True)):
        changes["tasks"] = tasks
    if s.instruction is not None:
        instruction = _redact_instruction(s.instruction)
        if instruction is not s.instruction:
            changes["instruction"] = instruction
    subagents = tuple(_redact_subagent(a) for a in s.subagents)
    if any(a is not b for a, b in zip(subagents, s.subagents, strict=True)):
        changes["subagents"] = subagents
    notes = tuple(_redact(n) for n in s.notes)
    if notes != s.notes:
        changes["notes"] = notes
    evidence = tuple(_redact_evidence(e) for e in s.evidence)
    if any(a is not b for a, b in zip(evidence, s.evidence, strict=True)):
        changes["evidence"] = evidence
    return attrs.evolve(s, **changes) if changes else s


def _redact_evidence(e: Evidence) -> Evidence:
    """The item with what it said (and what it overruled said) redacted; itself when clean."""
    said = _redact(e.said)
    lost = e.overruled
    if lost is not None and _redact(lost.said) != lost.said:
        lost = attrs.evolve(lost, said=_redact(lost.said))
    if said == e.said and lost is e.overruled:
        return e
    return attrs.evolve(e, said=said, overruled=lost)


def redact_harness(h: BoardHarness) -> BoardHarness:
    """The strip entry with its error, problems and location details redacted."""
    error = _redact_optional(h.error)
    problems = tuple(_redact(p) for p in h.problems)
    locations = tuple(
        attrs.evolve(loc, detail=_redact(loc.detail)) if loc.detail and _redact(loc.detail) != loc.detail else loc
        for loc in h.locations
    )
    if error == h.error and problems == h.problems and all(a is b for a, b in zip(locations, h.locations, strict=True)):
        return h
    return attrs.evolve(h, error=error, problems=problems, locations=locations)


def _redact_task(t: BoardTask) -> BoardTask:
    subject, active = _redact(t.subject), _redact_optional(t.active_form)
    return (
        t if subject == t.subject and active == t.active_form else attrs.evolve(t, subject=subject, active_form=active)
    )


def _redact_instruction(i: Instruction) -> Instruction:
    text = _redact(i.text)
    return i if text == i.text else attrs.evolve(i, text=text)


def _redact_subagent(a: Subagent) -> Subagent:
    name = _redact(a.name)
    return a if name == a.name else attrs.evolve(a, name=name)
