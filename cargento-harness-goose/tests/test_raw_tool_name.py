"""A Goose extension tool shows ``developer · shell`` and keeps its wire name beside it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import make_context
from cargento_harness_goose import plugin
from cargento_harness_goose.fixtures import GooseStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def test_an_extension_tool_keeps_its_wire_name(tmp_path: Path) -> None:
    s = GooseStore(tmp_path).session(working_dir="/w/p", created_at=NOW - timedelta(seconds=100), name="t")
    s.prompt("please run the tests", at=NOW - timedelta(seconds=100))
    s.tool("developer__text_editor", at=NOW - timedelta(seconds=30))
    ctx = make_context(tmp_path, now=NOW)
    [ref] = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert (reading.last_tool, reading.last_tool_raw) == ("developer · text editor", "developer__text_editor")
