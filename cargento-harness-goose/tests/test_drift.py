"""Schema drift in a Goose database: message roles, content part types and session types this
build does not know are counted (the database names no Goose version, so they are counted
without one); every known type, read or skipped, is not drift."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.diagnose import as_dict, diagnose
from cargento.drift import UnknownRecord
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_goose import plugin
from cargento_harness_goose.fixtures import GooseStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=5)


def _builder(home: Path) -> BoardBuilder:
    registry = load_registry(entry_points=False, extra=[("goose", plugin)])
    return BoardBuilder(
        registry, env={"HOME": str(home)}, home=home, clock=lambda: NOW, processes=StaticProcesses(), platform="linux"
    )


def test_unknown_roles_content_and_session_types_are_counted(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    session = store.session(working_dir="/w/a", created_at=T0, name="Tidy the repo", session_type="workflow")
    session.prompt("Tidy the repo", T0)
    store.add_message(session.id, "assistant", [{"type": "citation", "url": "x"}, {"type": "text", "text": "ok"}], T0)
    store.add_message(session.id, "system", [{"type": "text", "text": "note"}], T0 + timedelta(seconds=1))
    session.end_turn(T0 + timedelta(seconds=2))
    builder = _builder(tmp_path)
    (row,) = builder.build().sessions
    assert row.unknown_records == (
        UnknownRecord(kind="field", name="content type citation", count=1),
        UnknownRecord(kind="record type", name="message role system", count=1),
        UnknownRecord(kind="record type", name="session type workflow", count=1),
    )
    assert (row.title, row.model, row.state) == ("Tidy the repo", "goose-demo-model", "idle")
    assert row.harness_version is None

    report = as_dict(diagnose(builder.registry, _builder(tmp_path), now=NOW))
    (harness,) = report["harnesses"]
    assert {(d["version"], d["name"], d["count"]) for d in harness["drift"]} == {
        (None, "content type citation", 1),
        (None, "message role system", 1),
        (None, "session type workflow", 1),
    }


def test_known_types_are_not_drift(tmp_path: Path) -> None:
    store = GooseStore(tmp_path)
    session = store.session(working_dir="/w/a", created_at=T0, name="t")
    session.prompt("go", T0)
    store.add_message(session.id, "assistant", [{"type": "thinking", "thinking": "hm"}], T0)
    call = session.tool("developer__shell", T0)
    session.tool_result(T0, call_id=call)
    session.end_turn(T0 + timedelta(seconds=2))
    session.subagent("helper", T0 + timedelta(seconds=3)).prompt("sub", T0 + timedelta(seconds=3))
    board = _builder(tmp_path).build()
    assert board.sessions and all(s.unknown_records == () for s in board.sessions)
