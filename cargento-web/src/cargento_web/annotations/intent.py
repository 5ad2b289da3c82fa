"""The Intent log: every current board session and every retained entry, once each.

A row names its session (title, project or the fact there is none, whether it is on the board)
and lists each source of intent separately, never merged: the typed goal (or the goal adopted
"from your prompt"), each expected outcome line with where it came from, and the latest prompt
the harness recorded where its source permits (a harness declaring ``prompt_as_goal``: Claude Code and Codex). Every source line says
its currentness has not been checked and gives its observation time, or says that time is
unknown. Harness evidence is bounded and scrubbed. A discard record is a row with no text.
Building the log reads what is stored and on the board; it never derives a goal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cargento.board import Board, BoardSession
from cargento.redact import redact
from cargento.timestamps import iso

from cargento_web.annotations.records import Discard, Entry, Foreign, Words
from cargento_web.annotations.store import AnnotationStore
from cargento_web.annotations.summary import bindings

__all__ = ["EVIDENCE_CHARS", "intent_log", "prompt_harnesses"]

#: Harness evidence (a recorded prompt) is cut to this many characters.
EVIDENCE_CHARS = 240
NOT_CHECKED = "currentness not checked"


def _bounded(text: str) -> str:
    clean = redact(" ".join(text.split()))
    return clean if len(clean) <= EVIDENCE_CHARS else clean[: EVIDENCE_CHARS - 1] + "…"


def _source(label: str, text: str, at: datetime | None, **extra: Any) -> dict[str, Any]:
    return {"label": label, "text": text, "observed_at": iso(at), "currentness": NOT_CHECKED, **extra}


def _typed_sources(entry: Words) -> list[dict[str, Any]]:
    current = entry.current
    out: list[dict[str, Any]] = []
    if current.goal is not None:
        label = "goal from your prompt" if current.goal_source == "prompt" else "typed goal"
        out.append(_source(label, current.goal, current.at, kind="goal", revision=current.number))
    for index, line in enumerate(current.lines, start=1):
        origin = "typed" if line.source == "typed" else f"added from {line.entry or 'an entry'}"
        out.append(
            _source(
                f"expected outcome line {index}",
                line.text,
                current.at,
                kind="line",
                origin=origin,
                revision=current.number,
            )
        )
    return out


def prompt_harnesses(board: Board | None) -> frozenset[str]:
    """The harnesses whose recorded latest prompt is your own words (``prompt_as_goal``)."""
    return frozenset(h.key for h in board.harnesses if h.prompt_as_goal) if board is not None else frozenset()


def _harness_sources(session: BoardSession, prompts: frozenset[str]) -> list[dict[str, Any]]:
    instruction = session.instruction
    if session.harness not in prompts or instruction is None or instruction.source == "agent":
        return []
    return [
        _source(
            f"latest prompt, as {session.harness_label} recorded it",
            _bounded(instruction.text),
            instruction.at,
            kind="prompt",
        )
    ]


def _row(
    entry: Entry | None,
    session: BoardSession | None,
    shared: dict[str, dict[str, Any]],
    held: bool,
    prompts: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    harness = session.harness if session is not None else entry.harness if entry is not None else ""
    sid = session.session_id if session is not None else entry.sid if entry is not None else ""
    row: dict[str, Any] = {
        "key": f"{harness}:{sid}",
        "harness": harness,
        "harness_label": session.harness_label if session is not None else harness,
        "sid": sid,
        "on_board": session is not None,
        "title": session.title if session is not None else None,
        "project": session.project if session is not None else None,
        "state": session.state if session is not None else None,
        "binding": shared.get(sid, {"exact": True}),
        "sources": [],
    }
    if isinstance(entry, Words):
        row["annotation"] = "words"
        row["persisted"] = not held
        row["revision"] = entry.current.number
        row["revisions"] = len(entry.revisions)
        row["readings"] = len(entry.readings)
        row["sources"].extend(_typed_sources(entry))
    elif isinstance(entry, Discard):
        row["annotation"] = "discard"
        row["discarded_at"] = iso(entry.at)
        row["checked"] = entry.checked
    elif isinstance(entry, Foreign):
        row["annotation"] = "foreign"
    else:
        row["annotation"] = "none"
    if session is not None:
        row["sources"].extend(_harness_sources(session, prompts))
    return row


def intent_log(store: AnnotationStore, board: Board | None, *, now: datetime) -> list[dict[str, Any]]:
    """Every board session, then every retained entry off the board (newest first), once."""
    entries = {e.key: e for e in store.entries()}
    held = store.held
    sids: dict[str, list[str]] = {}
    sessions = list(board.sessions) if board is not None else []
    for s in sessions:
        sids.setdefault(s.harness, []).append(s.session_id)
    shared = {h: bindings(ids) for h, ids in sids.items()}
    prompts = prompt_harnesses(board)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for s in sessions:
        key = (s.harness, s.session_id)
        if key in seen:
            continue
        seen.add(key)
        rows.append(_row(entries.get(key), s, shared.get(s.harness, {}), key in held, prompts))
    off_board = [e for k, e in entries.items() if k not in seen]
    off_board.sort(key=lambda e: iso(e.updated_at) or "" if not isinstance(e, Foreign) else "", reverse=True)
    for entry in off_board:
        rows.append(_row(entry, None, shared.get(entry.harness, {}), entry.key in held))
    return rows
