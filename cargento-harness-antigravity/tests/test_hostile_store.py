"""A permission-denied conversation database is called that, not "not an SQLite database".
The real ``cargento`` runs in a child process with a timeout, as an unprivileged user."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import NOBODY, open_up, run_cli, shared_home, unreadable_paths
from cargento_harness_antigravity.fixtures import AntigravityStore

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "antigravity"}


def test_a_permission_denied_conversation_is_named_with_its_cause() -> None:
    with shared_home() as home:
        store = AntigravityStore(home)
        convs = []
        for n in range(2):
            conv = store.conversation(f"0000000{n}-0000-4000-8000-000000000000", at=NOW - timedelta(minutes=3))
            conv.prompt("hello", NOW - timedelta(minutes=2))
            convs.append(conv)
        open_up(home)
        convs[0].path.chmod(0o600)
        report = run_cli(["--diagnose", "--json"], home, env=ENV, as_uid=NOBODY)
        assert report.returncode == 1, report.stdout + report.stderr
        doc = report.json()
        assert unreadable_paths(doc, "antigravity") == {str(convs[0].path): "permission denied"}
        mine = next(h for h in doc["harnesses"] if h["key"] == "antigravity")
        assert not any("not an SQLite database" in p for p in mine["problems"])


def test_a_pipe_with_a_conversation_name_is_named_and_not_opened(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = AntigravityStore(home)
    conv = store.conversation("00000000-0000-4000-8000-000000000000", at=NOW - timedelta(minutes=3))
    conv.prompt("hello", NOW - timedelta(minutes=2))
    fifo = store.root / "conversations" / "11111111-0000-4000-8000-000000000000.db"
    os.mkfifo(fifo)
    run = run_cli(["--json", "--all"], home, env=ENV)
    assert run.returncode == 0, run.stderr
    assert conv.id in {s["session_id"] for s in run.json()["sessions"]}
    report = run_cli(["--diagnose", "--json"], home, env=ENV)
    assert unreadable_paths(report.json(), "antigravity") == {str(fifo): "not a regular file (named pipe)"}
