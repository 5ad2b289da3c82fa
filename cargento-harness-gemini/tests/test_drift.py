"""Schema drift in a Gemini CLI chat: unknown lines, message types, fields and patch keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.drift import UnknownRecord
from cargento.testing.homes import make_context
from cargento_harness_gemini import plugin
from cargento_harness_gemini.fixtures import GeminiStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=10)


def test_what_this_build_does_not_know_is_counted(tmp_path: Path) -> None:
    chat = GeminiStore(tmp_path).session("5e55a000-1111-4222-8333-444455556666", cwd="/w/a", at=T0)
    chat.prompt("hi", at=T0)
    chat.append({"id": "x1", "timestamp": "2026-11-30T11:50:01Z", "type": "plan", "content": ""}, T0)
    chat.append(
        {"id": "x2", "timestamp": "2026-11-30T11:50:02Z", "type": "gemini", "content": "ok", "citations": []}, T0
    )
    chat.append({"$set": {"lastUpdated": "2026-11-30T11:50:02Z", "memory": {}}}, T0)
    chat.append({"$checkpoint": "c1"}, T0)
    chat.reply("done", at=T0 + timedelta(seconds=3))
    ctx = make_context(tmp_path, now=NOW)
    (ref,) = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert set(reading.unknown_records) == {
        UnknownRecord(kind="record type", name="message type plan", count=1),
        UnknownRecord(kind="field", name="citations", count=1),
        UnknownRecord(kind="field", name="$set.memory", count=1),
        UnknownRecord(kind="record type", name="line with $checkpoint", count=1),
    }
    assert reading.instruction is not None and reading.instruction.text == "hi"
