"""Schema drift in a Droid session: line types, roles and content blocks this build does not know."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.drift import UnknownRecord
from cargento.testing.homes import make_context
from cargento_harness_droid import plugin
from cargento_harness_droid.fixtures import DroidSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=10)


def test_unknown_lines_roles_and_blocks_are_counted_and_known_ones_are_not(tmp_path: Path) -> None:
    session = DroidSession.create(tmp_path, "d-1", cwd="/w/a", at=T0, title="t")
    session.message("user", [{"type": "text", "text": "hi"}], T0)
    session.append({"type": "todo_state", "todos": []}, T0)
    session.append({"type": "compaction_v2", "summary": "…"}, T0)
    session.message("assistant", [{"type": "text", "text": "ok"}, {"type": "citation", "url": "x"}], T0)
    session.message("critic", [{"type": "text", "text": "no"}], T0)
    ctx = make_context(tmp_path, now=NOW)
    (ref,) = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert set(reading.unknown_records) == {
        UnknownRecord(kind="record type", name="compaction_v2", count=1),
        UnknownRecord(kind="field", name="content block citation", count=1),
        UnknownRecord(kind="record type", name="message role critic", count=1),
    }
    assert reading.instruction is not None and reading.instruction.text == "hi"
