"""Where the Cursor chats are searched."""

from __future__ import annotations

from pathlib import Path

from cargento.testing import make_context
from cargento_harness_cursor import plugin


def test_chats_below_dot_cursor_are_reported_even_when_missing(tmp_path: Path) -> None:
    found = plugin.discover(ctx=make_context(tmp_path))
    (where,) = found.locations
    assert where.path == str(tmp_path / ".cursor" / "chats") and where.status == "missing"


def test_a_directory_without_store_db_is_not_a_session(tmp_path: Path) -> None:
    (tmp_path / ".cursor/chats/abc/agent-1").mkdir(parents=True)
    (tmp_path / ".cursor/chats/abc/agent-1/meta.json").write_text("{}")
    found = plugin.discover(ctx=make_context(tmp_path))
    assert found.sessions == () and found.locations[0].status == "present"
