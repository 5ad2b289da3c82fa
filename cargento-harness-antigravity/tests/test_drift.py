"""Schema drift in an Antigravity conversation: a protobuf field this build reads (step metadata
1, 9, 30, 31; trajectory 5, 6, 8) met in a wire type it does not read is counted, for the steps
kept in detail and the steps folded into totals alike. Field numbers it does not read are not
drift (the schema is not public and most fields are content, which is never decoded)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import BoardBuilder
from cargento.diagnose import as_dict, diagnose
from cargento.drift import UnknownRecord
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.homes import make_context
from cargento_harness_antigravity import database, plugin
from cargento_harness_antigravity.fixtures import AntigravityStore, field_bytes, field_varint, step_metadata

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=5)
ROOT = "4c1d0000-0000-4000-8000-0000000000d1"


def _builder(home: Path) -> BoardBuilder:
    registry = load_registry(entry_points=False, extra=[("antigravity", plugin)])
    return BoardBuilder(registry, env={"HOME": str(home)}, home=home, clock=lambda: NOW, processes=StaticProcesses())


def test_a_known_field_in_another_wire_type_is_counted(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, workspace="/w/proj")
    conv.prompt("show open issues", at=T0 + timedelta(seconds=1))
    # A new build writes usage (9) as a plain number and the tool summary (30) as a number too.
    for n in range(2):
        conv.step(15, step_metadata(T0) + field_varint(9, 120), T0 + timedelta(seconds=2 + n))
    conv.step(21, step_metadata(T0) + field_varint(30, 1) + field_bytes(44, "new field"), T0 + timedelta(seconds=4))
    conv.trajectory += field_varint(8, 3)
    conv.respond(at=T0 + timedelta(seconds=5), output_tokens=40)
    builder = _builder(tmp_path)
    (row,) = builder.build().sessions
    assert row.unknown_records == (
        UnknownRecord(kind="field", name="step metadata field 9 as wire type 0", count=2),
        UnknownRecord(kind="field", name="step metadata field 30 as wire type 0", count=1),
        UnknownRecord(kind="field", name="trajectory field 8 as wire type 0", count=1),
    )
    assert row.output_tokens_total == 40, "the reading itself is unchanged"

    report = as_dict(diagnose(builder.registry, _builder(tmp_path), now=NOW))
    (harness,) = report["harnesses"]
    assert next((d["version"], d["name"], d["count"]) for d in harness["drift"]) == (
        None,
        "step metadata field 9 as wire type 0",
        2,
    )


def test_steps_folded_out_of_detail_keep_their_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, workspace="/w/proj")
    conv.step(15, step_metadata(T0) + field_varint(9, 1), T0)
    for n in range(4):
        conv.respond(at=T0 + timedelta(seconds=n + 1), output_tokens=10)
    monkeypatch.setattr(database, "DETAIL_STEPS", 2)
    ctx = make_context(tmp_path, now=NOW)
    first = database.read_conversation(conv.path, ctx)
    assert first.settled_unknown == {"step metadata field 9 as wire type 0": 1}
    conv.respond(at=T0 + timedelta(seconds=9), output_tokens=10)
    again = database.read_conversation(conv.path, ctx)
    assert again.unknown_records() == (
        UnknownRecord(kind="field", name="step metadata field 9 as wire type 0", count=1),
    )


def test_the_fields_this_build_writes_and_reads_are_not_drift(tmp_path: Path) -> None:
    store = AntigravityStore(tmp_path)
    conv = store.conversation(ROOT, at=T0, workspace="/w/proj")
    conv.prompt("hi", at=T0)
    conv.tool("Ran ls", "ls", at=T0 + timedelta(seconds=1))
    conv.respond(at=T0 + timedelta(seconds=2))
    store.conversation("7e2a0000-0000-4000-8000-0000000000d2", at=T0, parent=conv, role="Auditor", kind="research")
    board = _builder(tmp_path).build()
    assert board.sessions and all(s.unknown_records == () for s in board.sessions)
