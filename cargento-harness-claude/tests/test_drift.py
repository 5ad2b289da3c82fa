"""Schema drift in a Claude Code transcript: record types this build does not know, counted
with the version the transcript names; the bookkeeping types it writes are not drift."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.drift import UnknownRecord
from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def test_unknown_record_types_are_counted_and_bookkeeping_is_not(tmp_path: Path, board: Any) -> None:
    t0 = NOW - timedelta(minutes=5)
    session = ClaudeStore(tmp_path).session(cwd="/w/proj")
    session.bookkeeping(t0)
    session.prompt("fix the parser", t0)
    session.append({"type": "queue-operation", "operation": "enqueue"}, t0)
    session.append({"type": "turn-summary", "text": "…"}, t0)
    session.append({"type": "turn-summary", "text": "…"}, t0)
    session.append({"note": "no type at all"}, t0)
    session.end_turn(t0 + timedelta(seconds=30), text="done", tokens=40)
    (row,) = board(tmp_path).sessions
    assert row.unknown_records == (
        UnknownRecord(kind="record type", name="turn-summary", count=2),
        UnknownRecord(kind="record type", name="line without a type", count=1),
    )
    assert row.harness_version is not None
    assert row.state == "idle" and row.title
