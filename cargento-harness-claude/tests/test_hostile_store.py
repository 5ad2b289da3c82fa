"""A named pipe or a link loop in a Claude store never blocks the board nor hides a session.

Each check runs the real ``cargento`` in a child process with a timeout: a reader that blocks
on the pipe fails the test (``TimeoutExpired``) instead of hanging the suite.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import NOBODY, open_up, run_cli, shared_home, unreadable_paths
from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime.now(UTC).replace(microsecond=0)


def _two_sessions(home: Path) -> tuple[ClaudeStore, list[str], Path]:
    store = ClaudeStore(home)
    ids = []
    for n, cwd in enumerate(("/w/alpha", "/w/beta")):
        session = store.session(f"0000000{n}-0000-4000-8000-000000000000", cwd=cwd)
        session.prompt("hello", NOW - timedelta(minutes=2))
        ids.append(session.session_id)
    return store, ids, store.project_dir("/w/alpha")


def _served(home: Path) -> set[str]:
    run = run_cli(["--json", "--all"], home, env={"CARGENTO_LOAD_PLUGINS": "claude"}, timeout=90)
    assert run.returncode == 0, run.stderr
    return {s["session_id"] for s in run.json()["sessions"]}


def test_a_named_pipe_with_a_transcript_name_is_skipped_and_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _store, ids, project = _two_sessions(home)
    fifo = project / "11111111-0000-4000-8000-000000000000.jsonl"
    os.mkfifo(fifo)
    assert _served(home) >= set(ids)
    run = run_cli(["--diagnose", "--json"], home, env={"CARGENTO_LOAD_PLUGINS": "claude"}, timeout=90)
    assert run.returncode == 1, run.stdout
    assert unreadable_paths(run.json(), "claude") == {str(fifo): "not a regular file (named pipe)"}


def test_link_loops_in_the_projects_folder_and_a_project_hide_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store, ids, project = _two_sessions(home)
    top_loop = store.root / "projects" / "-w-loop"
    os.symlink(top_loop.name, top_loop)  # a project folder that is a link to itself
    inner_loop = project / "22222222-0000-4000-8000-000000000000.jsonl"
    os.symlink(inner_loop.name, inner_loop)
    folder_loop = project / "33333333-0000-4000-8000-000000000000"
    os.symlink(folder_loop.name, folder_loop)
    assert _served(home) >= set(ids)
    run = run_cli(["--diagnose", "--json"], home, env={"CARGENTO_LOAD_PLUGINS": "claude"}, timeout=90)
    assert run.returncode == 1, run.stdout
    named = unreadable_paths(run.json(), "claude")
    assert named[str(top_loop)] == "symlink loop"
    assert named[str(inner_loop)] == "symlink loop"


def test_a_transcript_the_reader_may_not_read_is_named_with_its_cause() -> None:
    with shared_home() as home:
        _store, ids, project = _two_sessions(home)
        open_up(home)
        secret = project / f"{ids[0]}.jsonl"
        secret.chmod(0o600)  # root's, unreadable once the child is the unprivileged user
        run = run_cli(["--diagnose", "--json"], home, env={"CARGENTO_LOAD_PLUGINS": "claude"}, as_uid=NOBODY)
        assert run.returncode == 1, run.stdout + run.stderr
        assert unreadable_paths(run.json(), "claude") == {str(secret): "permission denied"}
