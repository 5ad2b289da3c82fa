"""Board rows and boards as core publishes them, for tests of whatever reads a board (the
server's hub, an operator feature, a third-party consumer): every field a test does not name is
empty, whatever fields core's row carries today."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import attrs

from cargento.board import Board, BoardSession, Counts

__all__ = ["T0", "board_of", "board_row"]

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def board_row(sid: str, **given: Any) -> BoardSession:
    """A row for session *sid* of ``harness`` (default ``claude``), idle in ``w/proj``; any
    field of :class:`~cargento.board.BoardSession` may be given."""
    harness = given.pop("harness", "claude")
    values: dict[str, Any] = {
        "harness": harness,
        "harness_label": harness.title(),
        "session_id": sid,
        "key": f"{harness}:{sid}",
        "display_id": sid[:8],
        "identity": (harness, "w/proj", sid),
        "project": "w/proj",
        "cwd": "/w/proj",
        "title": None,
        "state": "idle",
        "detail": "",
        "waiting": None,
        "subagents": (),
        "tasks": (),
        "tasks_done": 0,
        "last_active_at": T0,
        "read_by_scanning": False,
        "ended": False,
        "missing": (),
        "notes": (),
        "faults": (),
        "rate_limits": (),
        "state_source": "store",
    }
    values.update(given)
    kept: dict[str, Any] = {
        f.name: values.get(f.name) for f in attrs.fields(BoardSession) if f.default is attrs.NOTHING or f.name in values
    }
    return BoardSession(**kept)


def board_of(now: datetime, *sessions: BoardSession, **given: Any) -> Board:
    """A board of *sessions* generated at *now* (its counts all zero unless given)."""
    values: dict[str, Any] = {
        "schema": 1,
        "revision": 1,
        "generated_at": now,
        "as_of": None,
        "window_hours": 24.0,
        "all": False,
        "harnesses": (),
        "counts": Counts(sessions=len(sessions), working=0, needs_input=0, idle=0, subagents_running=0, subagents=0),
        "sessions": tuple(sessions),
    }
    values.update(given)
    kept: dict[str, Any] = {
        f.name: values.get(f.name) for f in attrs.fields(Board) if f.default is attrs.NOTHING or f.name in values
    }
    return Board(**kept)
