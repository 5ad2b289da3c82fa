"""Process liveness fused with the Copilot store, with real child processes started and killed:
a session killed at its permission prompt is not shown waiting once no copilot process runs in
its directory, and a copilot process with no session in its directory is starting."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import Board, BoardBuilder, liveness
from cargento.plugins import load_registry
from cargento.processes import LocalProcesses
from cargento_harness_copilot import plugin
from cargento_harness_copilot.fixtures import CopilotStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake CLI is a script run by its shebang")


def fake_cli(folder: Path) -> Path:
    """An executable named ``copilot``: under its interpreter its argv is ``[python, …/copilot]``,
    the shape a node-installed CLI has (``[node, …/copilot]``)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "copilot"
    script.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(120)\n")
    script.chmod(0o755)
    return script


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def start(children: list[subprocess.Popen[bytes]], script: Path, cwd: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([str(script)], cwd=cwd)
    children.append(proc)
    deadline = time.monotonic() + 10
    table = LocalProcesses()
    while time.monotonic() < deadline:
        info = table.get(proc.pid)
        if info is not None and info.argv and info.argv[-1].endswith("copilot"):
            return proc
        time.sleep(0.05)
    raise AssertionError("the fake CLI did not start")


def build(home: Path) -> Board:
    registry = load_registry(entry_points=False, extra=[("copilot", plugin)])
    builder = BoardBuilder(registry, env={"HOME": str(home)}, home=home, processes=LocalProcesses())
    return builder.build(all_sessions=True)


def test_a_session_killed_at_its_prompt_is_not_shown_waiting(
    tmp_path: Path, children: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(liveness, "LISTING_TTL_S", 0.0)
    home = tmp_path / "home"
    work = tmp_path / "work" / "webapp"
    work.mkdir(parents=True)
    now = datetime.now(UTC)
    session = CopilotStore(home).session(cwd=str(work), at=now - timedelta(seconds=30))
    session.prompt("write hi to a file", at=now - timedelta(seconds=29))
    session.wait(now - timedelta(seconds=20))
    cli = start(children, fake_cli(tmp_path / "bin"), work)

    [row] = build(home).sessions
    assert row.state == "needs_input" and row.waiting is not None, "its process runs there: the wait stands"

    cli.kill()
    cli.wait(timeout=10)
    [row] = build(home).sessions
    assert row.state == "idle" and row.waiting is None
    assert row.detail.startswith("process exited")
    assert row.state_source == "process table"
    [overrule] = [e for e in row.evidence if e.signal == "process table"]
    assert overrule.reading == "wait" and str(work) in overrule.said
    assert overrule.overruled is not None and overrule.overruled.said == "the store reads needs input"
    assert overrule.overruled.source.endswith("events.jsonl")


def test_a_running_cli_with_no_session_in_its_directory_is_starting(
    tmp_path: Path, children: list[subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(liveness, "LISTING_TTL_S", 0.0)
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True)
    fresh = tmp_path / "work" / "fresh"
    fresh.mkdir(parents=True)
    cli = start(children, fake_cli(tmp_path / "bin"), fresh)
    [entry] = build(home).harnesses
    assert [(s.pid, os.path.realpath(s.cwd)) for s in entry.starting] == [(cli.pid, os.path.realpath(fresh))]
    assert entry.starting[0].started_at is not None
    assert "working directory" in entry.process_coverage
    cli.kill()
    cli.wait(timeout=10)
    assert build(home).harnesses[0].starting == ()
