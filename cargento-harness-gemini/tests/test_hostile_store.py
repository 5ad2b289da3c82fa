"""A named pipe or an unreadable chat file never blocks the board, hides a session or is
blamed on its content. The real ``cargento`` runs in a child process with a timeout."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import (
    NOBODY,
    open_up,
    run_cli,
    served_and_unreadable,
    shared_home,
    unreadable_paths,
)
from cargento_harness_gemini.fixtures import GeminiChat, GeminiStore

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "gemini"}


def _two(home: Path) -> list[GeminiChat]:
    store = GeminiStore(home)
    chats = []
    for n, name in enumerate(("alpha", "beta")):
        chats.append(
            store.session(f"0000000{n}-0000-4000-8000-000000000000", cwd=f"/w/{name}", at=NOW - timedelta(minutes=3))
        )
    return chats


def test_a_pipe_and_a_link_loop_with_chat_names_hide_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    chats = _two(home)
    folder = chats[0].path.parent
    fifo = folder / "session-2026-01-01T00-00-11111111.jsonl"
    os.mkfifo(fifo)
    loop = folder / "session-2026-01-01T00-01-22222222.jsonl"
    os.symlink(loop.name, loop)
    served, unreadable = served_and_unreadable(home, "gemini", env=ENV)
    assert served >= {c.session_id for c in chats}
    assert unreadable == {
        str(fifo): "not a regular file (named pipe)",
        str(loop): "symlink loop",
    }


def test_a_permission_denied_chat_is_called_that_not_a_missing_session_id() -> None:
    with shared_home() as home:
        chats = _two(home)
        open_up(home)
        chats[0].path.chmod(0o600)
        report = run_cli(["--diagnose", "--json"], home, env=ENV, as_uid=NOBODY)
        assert report.returncode == 1, report.stdout + report.stderr
        doc = report.json()
        assert unreadable_paths(doc, "gemini") == {str(chats[0].path): "permission denied"}
        gemini = next(h for h in doc["harnesses"] if h["key"] == "gemini")
        assert not any("sessionId" in p for p in gemini["problems"])
