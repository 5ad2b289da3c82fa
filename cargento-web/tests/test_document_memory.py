"""Rendering ``/api/data``: the trees a render makes are let go as it goes, and what is kept
for the pages' fetches is the document's length."""

from __future__ import annotations

import gc
import tracemalloc
from datetime import UTC, datetime

from cargento.board import Board, BoardSession, Counts
from cargento.testing.boards import board_of, board_row
from cargento_web.app import document

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _row(n: int) -> BoardSession:
    sid = f"{n:08x}-0000-4000-8000-000000000000"
    project = f"w/p{n % 40}"
    return board_row(
        sid,
        harness_label="Claude Code",
        identity=("claude", project, sid),
        project=project,
        cwd=f"/home/me/{project}",
        title=f"Session {n}: paginate the orders API and fix the flaky test",
        state="working",
        detail=f"running Bash: pytest -q tests/test_orders.py -k case_{n}",
        last_active_at=None,
    )


def _board(rows: int) -> Board:
    working = Counts(sessions=rows, working=rows, needs_input=0, idle=0, subagents_running=0, subagents=0)
    return board_of(AT, *(_row(n) for n in range(rows)), counts=working)


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
