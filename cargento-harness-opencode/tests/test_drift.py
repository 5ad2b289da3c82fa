"""Schema drift in an OpenCode database: message roles and part types this build does not know,
among the rows the reader reads, are counted with the version the session row records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.diagnose import as_dict, diagnose
from cargento.drift import UnknownRecord
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_opencode import plugin
from cargento_harness_opencode.fixtures import OpenCodeStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=5)


def _builder(home: Path) -> BoardBuilder:
    registry = load_registry(entry_points=False, extra=[("opencode", plugin)])
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")}
    return BoardBuilder(registry, env=env, home=home, clock=lambda: NOW, processes=StaticProcesses())


def test_unknown_roles_and_part_types_are_counted_with_the_session_version(tmp_path: Path) -> None:
    session = OpenCodeStore(tmp_path).session(cwd="/w/a", at=T0, title="Fix the parser")
    session.prompt("Fix the parser", T0)
    session.part({"type": "voice-note", "url": "file:///a.ogg"}, T0 + timedelta(seconds=1))
    session.message({"role": "system-notice", "time": {"created": 0}}, T0 + timedelta(seconds=2))
    session.reply(T0 + timedelta(seconds=3))
    session.part({"type": "citation", "source": "x"}, T0 + timedelta(seconds=4))
    session.part({"type": "citation", "source": "y"}, T0 + timedelta(seconds=5))
    session.text("Done.", T0 + timedelta(seconds=6))
    session.end_turn(T0 + timedelta(seconds=7), output_tokens=12)
    builder = _builder(tmp_path)
    (row,) = builder.build().sessions
    assert row.harness_version == "1.18.33"
    assert row.unknown_records == (
        UnknownRecord(kind="field", name="part type citation", count=2),
        UnknownRecord(kind="field", name="part type voice-note", count=1),
        UnknownRecord(kind="record type", name="message role system-notice", count=1),
    )
    assert (row.state, row.title, row.output_tokens_total) == ("idle", "Fix the parser", 12)
    assert row.instruction is not None and row.instruction.text == "Fix the parser"

    report = as_dict(diagnose(builder.registry, _builder(tmp_path), now=NOW))
    (harness,) = report["harnesses"]
    assert {(d["version"], d["name"], d["count"]) for d in harness["drift"]} == {
        ("1.18.33", "part type citation", 2),
        ("1.18.33", "message role system-notice", 1),
        ("1.18.33", "part type voice-note", 1),
    }


def test_the_known_part_types_are_not_drift(tmp_path: Path) -> None:
    session = OpenCodeStore(tmp_path).session(cwd="/w/a", at=T0)
    session.prompt("hi", T0)
    session.attach("notes.txt", T0)
    session.synthetic("context", T0)
    session.reply(T0 + timedelta(seconds=1))
    for kind in ("reasoning", "snapshot", "patch", "agent", "retry", "compaction", "subtask"):
        session.part({"type": kind}, T0 + timedelta(seconds=2))
    call = session.tool("bash", T0 + timedelta(seconds=3))
    session.tool_done(call, T0 + timedelta(seconds=4))
    session.end_turn(T0 + timedelta(seconds=5))
    (row,) = _builder(tmp_path).build().sessions
    assert row.unknown_records == ()
