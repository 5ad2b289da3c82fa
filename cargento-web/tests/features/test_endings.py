"""Ending readings: a stop or an end, each probed once in the session's real repository, every
one of the six readings, retirement on resumed work, and --no-git running no git at all."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from cargento.board import Board, BoardSession, BoardTask
from cargento.cli import Options
from cargento.models import LoopReading
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.endings.git import GitReading, probe_git
from cargento_web.endings.readings import EndingReadings

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
Row = Callable[..., BoardSession]
Boards = Callable[..., Board]
Task = Callable[..., BoardTask]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def repo(path: Path, *, dirty: bool) -> Path:
    path.mkdir(parents=True)
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=path, env=env, check=True)
    (path / "f").write_text("x")
    subprocess.run(["git", "add", "-A"], cwd=path, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "c"], cwd=path, env=env, check=True)
    if dirty:
        (path / "f").write_text("y")
    return path


class Counting:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.runs: list[str | None] = []

    def __call__(self, cwd: str | None) -> GitReading:
        self.runs.append(cwd)
        return probe_git(cwd, env=self.env)


def test_six_readings_from_real_repositories(tmp_path: Path, row: Row, board_of: Boards) -> None:
    dirty = repo(tmp_path / "dirty", dirty=True)
    clean = repo(tmp_path / "clean", dirty=False)
    plain = tmp_path / "plain"
    plain.mkdir()
    probe = Counting({**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    changes: list[int] = []
    readings = EndingReadings(probe=probe, changed=lambda: changes.append(1))
    cwds = {"d": dirty, "c": clean, "p": plain}
    working = [row(f"{kind}{k}", state="working", cwd=str(p)) for kind in ("stop", "end") for k, p in cwds.items()]
    readings.on_board(board_of(T0, *working))
    assert readings.all() == (), "nothing has stopped yet"
    t1 = T0 + timedelta(seconds=30)
    landed = [
        row(s.session_id, state="idle", cwd=s.cwd, ended=s.session_id.startswith("end"), last_active_at=T0)
        for s in working
    ]
    readings.on_board(board_of(t1, *landed))
    assert readings.wait_idle()
    got = {e.session_id: e.document()["outcome"] for e in readings.all()}
    assert got == {
        "stopd": "stop-dirty",
        "stopc": "stop-clean",
        "stopp": "stop-unmeasured",
        "endd": "end-dirty",
        "endc": "end-clean",
        "endp": "end-unmeasured",
    }
    assert readings.get("claude", "stopd").git.changed == 1  # type: ignore[union-attr]
    assert len(probe.runs) == 6, "one probe per ending"
    readings.on_board(board_of(t1 + timedelta(seconds=5), *landed))
    assert len(probe.runs) == 6, "a board where nothing moved runs no git"
    # Work resumes: one session is working again, another's store was written after its stop.
    resumed = [
        row("stopd", state="working", cwd=str(dirty)),
        row("stopc", state="idle", cwd=str(clean), last_active_at=t1 + timedelta(seconds=20)),
    ]
    readings.on_board(board_of(t1 + timedelta(seconds=30), *resumed, *landed[2:]))
    assert readings.get("claude", "stopd") is None and readings.get("claude", "stopc") is None
    assert readings.get("claude", "stopp") is not None
    readings.close()


def test_a_subagent_write_retires_a_reading_too(tmp_path: Path, row: Row, board_of: Boards) -> None:
    from cargento.models import Subagent

    readings = EndingReadings(probe=lambda cwd: GitReading(status="clean", changed=0), changed=lambda: None)
    readings.on_board(board_of(T0, row("s", state="working")))
    readings.on_board(board_of(T0 + timedelta(seconds=10), row("s", state="idle")))
    assert readings.get("claude", "s") is not None
    sub = Subagent(name="child", session_id="child", running=True, last_active_at=T0 + timedelta(seconds=60))
    readings.on_board(board_of(T0 + timedelta(seconds=70), row("s", state="idle", subagents=(sub,))))
    assert readings.get("claude", "s") is None
    readings.close()


def test_conflicting_completion_evidence(row: Row, board_of: Boards, task_of: Task) -> None:
    readings = EndingReadings(probe=None, changed=lambda: None)
    loop = LoopReading(kind="run", failures=4, successes=0, note="four failed")
    done = (task_of("a", "completed"), task_of("b", "completed"))
    open_ = (task_of("a", "completed"), task_of("b", "in_progress"))
    readings.on_board(board_of(T0, row("looped", state="working"), row("open", state="working")))
    readings.on_board(
        board_of(
            T0 + timedelta(seconds=9),
            row("looped", state="idle", tasks=done, loop=loop),
            row("open", state="idle", ended=True, tasks=open_),
        )
    )
    assert "all 2 tasks completed while the last tool calls failed" in (readings.get("claude", "looped").conflict or "")  # type: ignore[union-attr]
    assert readings.get("claude", "open").conflict == "the session ended with 1 of 2 tasks still open"  # type: ignore[union-attr]
    assert readings.get("claude", "open").document()["outcome"] == "end-unmeasured"  # type: ignore[union-attr]


def _wait_for(server: Any, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    doc: dict[str, Any] = {}
    while time.monotonic() < deadline:
        doc = httpx.get(server.url + "/api/data", timeout=5).json()
        if predicate(doc):
            return doc
        time.sleep(0.1)
    return doc


def test_no_git_runs_no_git_and_leaves_the_reading_empty(
    serve: Any, builder_for: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    marker = tmp_path / "git-ran"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(f"#!/bin/sh\ntouch {marker}\nexit 0\n")
    (fake / "git").chmod(0o755)
    project = repo(tmp_path / "proj", dirty=True)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    session = FakeSession("s1", age_s=1, cwd=str(project), turn="open")
    harness = FakeHarness("fake", [session])
    server = serve(
        builder_for([("fake", harness)], tmp_path), features=["cargento_web.endings"], options=Options(no_git=True)
    )
    _wait_for(server, lambda d: d["sessions"] and d["sessions"][0]["state"] == "working")
    session.turn = "ended"
    doc = _wait_for(server, lambda d: bool(d["endings"]["readings"]))
    reading = next(iter(doc["endings"]["readings"].values()))
    assert reading["kind"] == "stop" and reading["outcome"] == "stop-unmeasured"
    assert reading["dirty"] is None and reading["changed"] is None and reading["git"] is None
    assert doc["endings"]["git"] is False and "--no-git" in doc["endings"]["git_off_reason"]
    time.sleep(0.5)
    assert not marker.exists(), "no git command ran at all"


def test_the_probe_never_holds_the_board(row: Row, board_of: Boards) -> None:
    import threading

    release = threading.Event()

    def slow(cwd: str | None) -> GitReading:
        release.wait(10)
        return GitReading(status="clean", changed=0)

    changes: list[int] = []
    readings = EndingReadings(probe=slow, changed=lambda: changes.append(1))
    readings.on_board(board_of(T0, row("s", state="working")))
    started = time.monotonic()
    readings.on_board(board_of(T0 + timedelta(seconds=5), row("s", state="idle")))
    assert time.monotonic() - started < 0.5, "the board goes on while git runs"
    ending = readings.get("claude", "s")
    assert ending is not None and ending.probing and ending.document()["outcome"] == "stop-unmeasured"
    release.set()
    assert readings.wait_idle()
    assert readings.get("claude", "s").document()["outcome"] == "stop-clean"  # type: ignore[union-attr]
    assert len(changes) == 2, "told once when the ending appeared, once when git answered"
    readings.close()
