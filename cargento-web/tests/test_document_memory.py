"""Rendering ``/api/data``: the trees a render makes are let go as it goes, and what is kept
for the pages' fetches is the document's length."""

from __future__ import annotations

import gc
import tracemalloc
from datetime import UTC, datetime
from typing import Any

import attrs
from cargento.board import Board, BoardSession, Counts
from cargento_web.app import document

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _row(n: int) -> BoardSession:
    sid = f"{n:08x}-0000-4000-8000-000000000000"
    given: dict[str, Any] = {
        "harness": "claude",
        "harness_label": "Claude Code",
        "session_id": sid,
        "key": f"claude:{sid}",
        "display_id": sid[:8],
        "identity": ("claude", f"w/p{n % 40}", sid),
        "project": f"w/p{n % 40}",
        "cwd": f"/home/me/w/p{n % 40}",
        "title": f"Session {n}: paginate the orders API and fix the flaky test",
        "state": "working",
        "detail": f"running Bash: pytest -q tests/test_orders.py -k case_{n}",
        "waiting": None,
        "subagents": (),
        "tasks": (),
        "tasks_done": 0,
        "read_by_scanning": False,
        "ended": False,
        "missing": (),
        "notes": (),
        "faults": (),
        "rate_limits": (),
        "state_source": "store",
    }
    values: dict[str, Any] = {
        f.name: given.get(f.name) for f in attrs.fields(BoardSession) if f.default is attrs.NOTHING or f.name in given
    }
    return BoardSession(**values)


def _board(rows: int) -> Board:
    sessions = tuple(_row(n) for n in range(rows))
    given: dict[str, Any] = {
        "schema": 1,
        "revision": 1,
        "generated_at": AT,
        "window_hours": 24.0,
        "all": False,
        "harnesses": (),
        "counts": Counts(sessions=rows, working=rows, needs_input=0, idle=0, subagents_running=0, subagents=0),
        "sessions": sessions,
    }
    values: dict[str, Any] = {
        f.name: given.get(f.name) for f in attrs.fields(Board) if f.default is attrs.NOTHING or f.name in given
    }
    return Board(**values)


def test_a_render_holds_one_tree_at_a_time_and_keeps_the_length_of_the_document() -> None:
    board = _board(400)
    document(board)  # warm every converter and cache first
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        body = document(board)
        kept, peak = (figure - before for figure in tracemalloc.get_traced_memory())
    finally:
        tracemalloc.stop()
    assert kept < 1.1 * len(body) + 64 * 1024, f"{kept} bytes kept for a {len(body)}-byte document"
    # The unstructured tree, its redacted copy and orjson's buffer alive at once came to
    # about 4.8 times the document at 640 sessions.
    assert peak < 4.0 * len(body), f"a {len(body)}-byte document peaked at {peak} bytes"
