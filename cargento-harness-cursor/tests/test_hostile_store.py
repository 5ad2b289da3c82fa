"""An unreadable or corrupt ``store.db`` is named with its cause by ``--diagnose``, which then
exits non-zero; the other chats are still served. The real ``cargento`` runs in a child
process with a timeout (as an unprivileged user for the permission case)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import (
    run_cli,
    shared_home,
    unreadable_for_nobody,
    unreadable_paths,
)
from cargento_harness_cursor.fixtures import CursorChat

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "cursor"}


def _two(home: Path) -> list[CursorChat]:
    chats = []
    for name in ("alpha", "beta"):
        chat = CursorChat(home, created_at=NOW - timedelta(minutes=3), workspace=f"/w/{name}")
        chat.user("hello", NOW - timedelta(minutes=2))
        chats.append(chat)
    return chats


def test_an_unreadable_store_is_named_with_its_cause() -> None:
    with shared_home() as home:
        chats = _two(home)
        assert unreadable_for_nobody(home, "cursor", [chats[0].path], env=ENV) == {
            str(chats[0].path): "permission denied"
        }


def test_a_corrupt_store_is_named_and_the_other_chat_served(tmp_path: Path) -> None:
    home = tmp_path / "home"
    chats = _two(home)
    chats[0].path.write_bytes(b"this is not a database" * 100)
    run = run_cli(["--json", "--all"], home, env=ENV)
    assert run.returncode == 0, run.stderr
    assert chats[1].id in {s["session_id"] for s in run.json()["sessions"]}
    report = run_cli(["--diagnose", "--json"], home, env=ENV)
    assert report.returncode == 1
    assert unreadable_paths(report.json(), "cursor") == {str(chats[0].path): "not an SQLite database"}
