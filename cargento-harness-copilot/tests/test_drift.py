"""Schema drift: event types this build does not know are counted per session, named with the
CLI version the store records, summed per version by --diagnose, and never mistaken for the
known types it skips on purpose."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.diagnose import as_dict, diagnose, render_text
from cargento.drift import UnknownRecord
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_copilot import plugin
from cargento_harness_copilot.fixtures import CopilotStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _builder(home: Path) -> BoardBuilder:
    registry = load_registry(entry_points=False, extra=[("copilot", plugin)])
    return BoardBuilder(registry, env={"HOME": str(home)}, home=home, clock=lambda: NOW, processes=StaticProcesses())


def test_unknown_event_types_are_counted_with_the_version_that_wrote_them(tmp_path: Path) -> None:
    t0 = NOW - timedelta(minutes=5)
    store = CopilotStore(tmp_path)
    old = store.session(cwd="/w/a", at=t0, version="1.0.102")
    old.prompt("hi", at=t0)
    old.emit("system.message", {"content": "known, unused"}, t0)
    new = store.session(cwd="/w/b", at=t0, version="1.2.0")
    new.prompt("go", at=t0)
    for n in range(3):
        new.emit("assistant.plan_delta", {"step": n}, t0 + timedelta(seconds=n))
    new.emit("session.checkpoint", {}, t0 + timedelta(seconds=5))
    new.end_turn(t0 + timedelta(seconds=6))
    board = _builder(tmp_path).build()
    rows = {s.cwd: s for s in board.sessions}
    assert rows["/w/a"].harness_version == "1.0.102" and rows["/w/a"].unknown_records == ()
    assert rows["/w/b"].harness_version == "1.2.0"
    assert rows["/w/b"].unknown_records == (
        UnknownRecord(kind="record type", name="assistant.plan_delta", count=3),
        UnknownRecord(kind="record type", name="session.checkpoint", count=1),
    )
    assert rows["/w/b"].state == "idle", "the reading itself is unchanged by what it skipped"

    builder = _builder(tmp_path)
    report = diagnose(builder.registry, builder, now=NOW)
    (harness,) = as_dict(report)["harnesses"]
    assert [(d["version"], d["name"], d["count"], d["sessions"]) for d in harness["drift"]] == [
        ("1.2.0", "assistant.plan_delta", 3, 1),
        ("1.2.0", "session.checkpoint", 1, 1),
    ]
    text = render_text(report)
    assert "schema drift (1.2.0): 3 × record type 'assistant.plan_delta' in 1 session not understood" in text


def test_appended_unknown_records_are_counted_once_each(tmp_path: Path) -> None:
    t0 = NOW - timedelta(minutes=5)
    session = CopilotStore(tmp_path).session(cwd="/w/a", at=t0)
    session.prompt("hi", at=t0)
    builder = _builder(tmp_path)
    assert builder.build().sessions[0].unknown_records == ()
    session.emit("tool.progress_v2", {}, t0 + timedelta(seconds=1))
    assert builder.build().sessions[0].unknown_records == (
        UnknownRecord(kind="record type", name="tool.progress_v2", count=1),
    )
    session.emit("tool.progress_v2", {}, t0 + timedelta(seconds=2))
    assert builder.build().sessions[0].unknown_records[0].count == 2
