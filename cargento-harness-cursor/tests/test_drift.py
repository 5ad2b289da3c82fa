"""Schema drift in a Cursor chat store: meta payload keys and message roles this build does not
know are counted (the store names no CLI version, so they are counted without one); the
secret key the payload carries and every key the reader knows are not drift."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.diagnose import as_dict, diagnose
from cargento.drift import UnknownRecord
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_cursor import plugin
from cargento_harness_cursor.fixtures import CursorChat

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _builder(home: Path) -> BoardBuilder:
    registry = load_registry(entry_points=False, extra=[("cursor", plugin)])
    return BoardBuilder(
        registry, env={"HOME": str(home)}, home=home, clock=lambda: NOW, processes=StaticProcesses(), platform="linux"
    )


def test_unknown_meta_keys_and_message_roles_are_counted(tmp_path: Path) -> None:
    chat = CursorChat(tmp_path, workspace=str(tmp_path), created_at=NOW - timedelta(minutes=5), name="Fix the build")
    chat.payload["memoryBankId"] = "mb-1"
    chat.user("Fix the build", at=NOW - timedelta(minutes=4))
    chat.assistant("Done.", at=NOW - timedelta(minutes=3))
    # The reader probes the newest messages back to the first naming a model.
    chat.add({"role": "critic", "id": "c1", "content": []}, at=NOW - timedelta(minutes=2))
    chat.add({"role": "critic", "id": "c2", "content": []}, at=NOW - timedelta(minutes=2))
    builder = _builder(tmp_path)
    (row,) = builder.build().sessions
    assert row.unknown_records == (
        UnknownRecord(kind="record type", name="message role critic", count=2),
        UnknownRecord(kind="field", name="meta.memoryBankId", count=1),
    )
    assert (row.title, row.model, row.harness_version) == ("Fix the build", "vega", None)

    report = as_dict(diagnose(builder.registry, _builder(tmp_path), now=NOW))
    (harness,) = report["harnesses"]
    assert [(d["version"], d["name"], d["count"]) for d in harness["drift"]] == [
        (None, "message role critic", 2),
        (None, "meta.memoryBankId", 1),
    ]


def test_a_store_of_known_keys_and_roles_reports_no_drift(tmp_path: Path) -> None:
    chat = CursorChat(tmp_path, workspace=str(tmp_path), created_at=NOW - timedelta(minutes=5))
    chat.user("hi", at=NOW - timedelta(minutes=4))
    chat.add({"role": "system", "id": "s", "content": []}, at=NOW - timedelta(minutes=4))
    call = chat.tool_call("Shell", at=NOW - timedelta(minutes=3))
    chat.tool_result(call, at=NOW - timedelta(minutes=3))
    chat.assistant("ok", at=NOW - timedelta(minutes=2))
    chat.subagent("explore", at=NOW - timedelta(minutes=1)).assistant("reading", at=NOW - timedelta(seconds=30))
    board = _builder(tmp_path).build()
    assert board.sessions and all(s.unknown_records == () for s in board.sessions)
    assert "blobEncryptionKey" in chat.payload, "the secret is in the payload, and is not drift"
