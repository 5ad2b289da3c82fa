"""Shared builders for the operator features' tests: board rows and boards as core publishes
them, with only the fields a feature reads set."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import attrs
import pytest
from cargento.board import Board, BoardSession, BoardTask, Counts

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def make_row(sid: str, **given: Any) -> BoardSession:
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


def make_board(now: datetime, *sessions: BoardSession) -> Board:
    given: dict[str, Any] = {
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
    kept: dict[str, Any] = {
        f.name: given.get(f.name) for f in attrs.fields(Board) if f.default is attrs.NOTHING or f.name in given
    }
    return Board(**kept)


def task(subject: str, status: str, id: str | None = None) -> BoardTask:
    return BoardTask(subject=subject, status=status, id=id)


@pytest.fixture
def row() -> Callable[..., BoardSession]:
    return make_row


@pytest.fixture
def board_of() -> Callable[..., Board]:
    return make_board


@pytest.fixture
def task_of() -> Callable[..., BoardTask]:
    return task
