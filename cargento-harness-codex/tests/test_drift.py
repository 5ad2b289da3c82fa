"""Schema drift in a Codex rollout: envelope types and ``response_item`` types this build does
not know are counted with the CLI version line 1 records, both by the cold backward walk and by
the forward read of appended records; an unfamiliar ``event_msg`` type is not drift (the CLI
persists much of its event vocabulary, on purpose unused here)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.diagnose import as_dict, diagnose
from cargento.drift import UnknownRecord
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_codex import plugin
from cargento_harness_codex.fixtures import CodexStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=5)


def _builder(home: Path) -> BoardBuilder:
    registry = load_registry(entry_points=False, extra=[("codex", plugin)])
    return BoardBuilder(registry, env={"HOME": str(home)}, home=home, clock=lambda: NOW, processes=StaticProcesses())


def test_unknown_envelopes_and_items_are_counted_and_the_reading_is_unchanged(tmp_path: Path) -> None:
    session = CodexStore(tmp_path).session(cwd="/w/a", at=T0)
    session.turn_start(T0)
    session.turn_context("gpt-5-codex", T0)
    session.prompt("Port the scheduler", T0)
    session.record("thread_checkpoint", {"id": 1}, T0 + timedelta(seconds=1))
    session.record("thread_checkpoint", {"id": 2}, T0 + timedelta(seconds=2))
    session.item("plan_snapshot", T0 + timedelta(seconds=3), steps=[])
    session.event("collab_waiting_begin", T0 + timedelta(seconds=4))
    session.agent("On it.", T0 + timedelta(seconds=5))
    session.end_turn(T0 + timedelta(seconds=6))
    builder = _builder(tmp_path)
    (row,) = builder.build().sessions
    assert row.harness_version == "0.171.0"
    assert row.unknown_records == (
        UnknownRecord(kind="record type", name="thread_checkpoint", count=2),
        UnknownRecord(kind="record type", name="response_item plan_snapshot", count=1),
    )
    assert (row.state, row.title, row.model) == ("idle", "Port the scheduler", "gpt-5-codex")

    session.record("thread_checkpoint", {"id": 3}, T0 + timedelta(seconds=7))
    (row,) = builder.build().sessions
    assert row.unknown_records[0] == UnknownRecord(kind="record type", name="thread_checkpoint", count=3)

    report = as_dict(diagnose(builder.registry, _builder(tmp_path), now=NOW))
    (harness,) = report["harnesses"]
    assert [(d["version"], d["name"], d["count"]) for d in harness["drift"]] == [
        ("0.171.0", "thread_checkpoint", 3),
        ("0.171.0", "response_item plan_snapshot", 1),
    ]


def test_a_rollout_of_known_types_reports_no_drift(tmp_path: Path) -> None:
    session = CodexStore(tmp_path).session(cwd="/w/a", at=T0)
    session.turn_start(T0)
    session.turn_context("gpt-5-codex", T0)
    session.prompt("hi", T0)
    session.reasoning(200, T0)
    call = session.tool("shell", T0, arguments={"command": ["ls"]})
    session.tool_output(call, T0)
    session.tokens(10, T0)
    session.compact(T0)
    session.end_turn(T0 + timedelta(seconds=2))
    (row,) = _builder(tmp_path).build().sessions
    assert row.unknown_records == ()
