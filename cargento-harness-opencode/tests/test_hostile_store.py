"""A corrupt OpenCode database or a named pipe in place of one is named by ``--diagnose``.

Each check runs the real ``cargento`` in a child process with a timeout: a reader that blocks
on the pipe fails the test (``TimeoutExpired``) instead of hanging the suite.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import run_cli, unreadable_paths
from cargento_harness_opencode.fixtures import OpenCodeStore

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "opencode"}


def test_a_corrupt_database_and_a_pipe_are_named_with_their_causes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = OpenCodeStore(home)
    session = store.session(cwd="/w/alpha", at=NOW - timedelta(minutes=2))
    session.prompt("hello", NOW - timedelta(minutes=2))
    corrupt = store.data_dir / "opencode-dev.db"
    corrupt.write_bytes(b"this is not an SQLite database at all" * 200)
    fifo = store.data_dir / "opencode-beta.db"
    os.mkfifo(fifo)

    served = run_cli(["--json", "--all"], home, env=ENV, timeout=90)
    assert served.returncode == 0, served.stderr
    assert session.session_id in {s["session_id"] for s in served.json()["sessions"]}, "neighbours stay"

    run = run_cli(["--diagnose", "--json"], home, env=ENV, timeout=90)
    assert run.returncode == 1, run.stdout + run.stderr
    assert unreadable_paths(run.json(), "opencode") == {
        str(corrupt): "not an SQLite database",
        str(fifo): "not a regular file (named pipe)",
    }
    [report] = [h for h in run.json()["harnesses"] if h["key"] == "opencode"]
    assert set(report["problems"]) >= {f"{corrupt}: not an SQLite database", f"{fifo}: not a regular file (named pipe)"}


def test_a_database_corrupt_past_its_header_and_a_link_loop_are_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = OpenCodeStore(home, wal=False)
    session = store.session(cwd="/w/alpha", at=NOW - timedelta(minutes=2))
    session.prompt("hello", NOW - timedelta(minutes=2))
    image = bytearray(store.path.read_bytes())
    image[100:] = b"\xab" * (len(image) - 100)  # the header stays, every page is garbage
    late = store.data_dir / "opencode-late.db"
    late.write_bytes(bytes(image))
    loop = store.data_dir / "opencode-loop.db"
    os.symlink(loop.name, loop)

    run = run_cli(["--diagnose", "--json"], home, env=ENV, timeout=90)
    assert run.returncode == 1, run.stdout + run.stderr
    assert unreadable_paths(run.json(), "opencode") == {str(late): "corrupt database", str(loop): "symlink loop"}
    [report] = [h for h in run.json()["harnesses"] if h["key"] == "opencode"]
    assert f"{late}: corrupt database" in report["problems"]
    assert f"{loop}: symlink loop" in report["problems"], "the skipped entry is named in the problems"
