"""A corrupt ``session.db`` or ledger, or a pipe in place of ``events.jsonl`` is named by ``--diagnose``,
which then exits non-zero; nothing blocks. The real ``cargento`` runs in a child process with
a timeout."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import run_cli, unreadable_paths
from cargento_harness_copilot.fixtures import CopilotStore

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "copilot"}


def test_a_corrupt_todo_database_and_a_piped_events_file_are_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = CopilotStore(home)
    sessions = [store.session(cwd=f"/w/{name}", at=NOW - timedelta(minutes=3)) for name in ("alpha", "beta", "gamma")]
    for s in sessions:
        s.prompt("hello", NOW - timedelta(minutes=2))
    sessions[0].todos([("1", "a task", "pending")], NOW - timedelta(minutes=2))
    corrupt = sessions[0].folder / "session.db"
    corrupt.write_bytes(b"garbage, not sqlite " * 50)
    piped = sessions[2].folder / "events.jsonl"
    piped.unlink()
    os.mkfifo(piped)
    ledger = store.root / "session-store.db"
    ledger.write_bytes(b"not a ledger either " * 50)
    run = run_cli(["--json", "--all"], home, env=ENV)
    assert run.returncode == 0, run.stderr
    assert sessions[1].session_id in {s["session_id"] for s in run.json()["sessions"]}
    report = run_cli(["--diagnose", "--json"], home, env=ENV)
    assert report.returncode == 1
    assert unreadable_paths(report.json(), "copilot") == {
        str(corrupt): "not an SQLite database",
        str(piped): "not a regular file (named pipe)",
        str(ledger): "not an SQLite database",
    }
