"""Schema drift in a Pi session: entry types and message roles this build does not know."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.drift import UnknownRecord
from cargento.testing.homes import make_context
from cargento_harness_pi import plugin
from cargento_harness_pi.fixtures import PiStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
T0 = NOW - timedelta(minutes=10)


def test_unknown_entry_types_and_roles_are_counted_and_known_ones_are_not(tmp_path: Path) -> None:
    session = PiStore(tmp_path).session(cwd="/w/a", at=T0)
    session.model_change("openai", "gpt-5", T0)
    session.prompt("hi", T0)
    session.entry("thinking_level_change", T0, thinkingLevel="high")
    session.entry("tool_budget", T0, remaining=3)
    session.entry("tool_budget", T0, remaining=2)
    session.entry("message", T0, message={"role": "critic", "content": []})
    session.reply("done", T0 + timedelta(seconds=2))
    ctx = make_context(tmp_path, now=NOW)
    (ref,) = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert reading.unknown_records == (
        UnknownRecord(kind="record type", name="tool_budget", count=2),
        UnknownRecord(kind="record type", name="message role critic", count=1),
    )
