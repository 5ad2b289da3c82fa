"""Tying a harness's running CLI to a session's directory through the process table."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento import hookimpl
from cargento.board import BoardBuilder, liveness
from cargento.board.liveness import match
from cargento.models import Gate, HarnessInfo, ProcessTie
from cargento.plugins import load_registry
from cargento.processes import LocalProcesses, ProcessInfo, StaticProcesses, pid_alive
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TIE = ProcessTie(names=("copilot",), ties=("cwd",), coverage="by working directory")


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("/usr/local/bin/copilot", "--resume"), True),
        (("node", "/usr/lib/node_modules/@github/copilot/index.js"), False),
        (("/usr/bin/node", "--no-warnings", "/home/u/.npm/bin/copilot"), True),
        (("C:\\Program Files\\nodejs\\node.exe", "C:\\Users\\u\\AppData\\npm\\copilot.cmd"), True),
        (("C:\\tools\\copilot.exe",), True),
        (("/usr/bin/vim", "copilot"), False),
        ((), False),
    ],
)
def test_a_cli_is_recognised_by_its_executable_or_the_script_its_interpreter_runs(
    argv: tuple[str, ...], expected: bool
) -> None:
    assert match(ProcessInfo(pid=1, argv=argv), TIE) is expected


class Tied(FakeHarness):
    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key=self.key, label="Tied", process=TIE)


def _board(table: object, gate: Gate | None = None) -> object:
    session = FakeSession("s", age_s=20, cwd="/w/app", gate=gate)
    reg = load_registry(entry_points=False, extra=[("tied", Tied("tied", [session]))])
    return BoardBuilder(reg, env={}, clock=lambda: NOW, processes=table).build()  # type: ignore[arg-type]


def _cli(pid: int, cwd: str | None) -> ProcessInfo:
    return ProcessInfo(
        pid=pid, argv=("/usr/bin/copilot",), cwd=cwd, started_at=(NOW - timedelta(minutes=1)).timestamp()
    )


def test_a_table_that_cannot_be_listed_claims_nothing() -> None:
    board = _board(StaticProcesses(), Gate(kind="permission", source="events.jsonl"))
    (row,) = board.sessions  # type: ignore[attr-defined]
    assert row.state == "needs_input"
    assert board.harnesses[0].starting == ()  # type: ignore[attr-defined]


def test_no_process_in_its_directory_reads_idle_and_one_elsewhere_is_starting() -> None:
    table = StaticProcesses([_cli(41, "/w/other")], listed=True)
    board = _board(table, Gate(kind="permission", source="events.jsonl"))
    row, starting = sorted(board.sessions, key=lambda s: s.session_id != "s")  # type: ignore[attr-defined]
    assert (row.state, row.waiting, row.state_source) == ("idle", None, "process table")
    assert (starting.session_id, starting.state, starting.cwd) == ("pid-41", "starting", "/w/other")
    (entry,) = board.harnesses  # type: ignore[attr-defined]
    assert [(s.pid, s.cwd) for s in entry.starting] == [(41, "/w/other")]
    assert entry.process_coverage == "by working directory"


def test_a_process_whose_directory_cannot_be_read_leaves_the_row_as_the_store_reads_it() -> None:
    board = _board(StaticProcesses([_cli(41, None)], listed=True))
    (row,) = board.sessions  # type: ignore[attr-defined]
    assert row.state == "working"


def test_its_process_running_there_keeps_the_row() -> None:
    board = _board(StaticProcesses([_cli(41, "/w/app")], listed=True))
    (row,) = board.sessions  # type: ignore[attr-defined]
    assert row.state == "working" and board.harnesses[0].starting == ()  # type: ignore[attr-defined]


def test_the_live_table_reads_a_real_child_and_forgets_it_once_killed() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], cwd=os.path.dirname(sys.executable))
    try:
        table = LocalProcesses()
        info = table.get(child.pid)
        deadline = time.monotonic() + 10
        while info is not None and not info.argv and time.monotonic() < deadline:
            # Read between the child's fork and its exec: no argument vector yet.
            time.sleep(0.01)
            info = table.get(child.pid)
        assert info is not None and info.started_at is not None and info.argv[0] == sys.executable
        listed = table.listing()
        assert listed is not None
        (mine,) = [p for p in listed if p.pid == child.pid]
        assert mine.cwd is None or os.path.realpath(mine.cwd) == os.path.realpath(os.path.dirname(sys.executable))
        assert pid_alive(child.pid)
    finally:
        child.kill()
        child.wait(timeout=10)
    assert table.get(child.pid) is None and not pid_alive(child.pid)
    assert LocalProcesses(listing=False).listing() is None


# -- starting rows: a running CLI with no session store yet -------------------------------------

CLI_TIE = ProcessTie(names=("fakecli",), ties=("cwd",), coverage="by working directory")


class Cli(FakeHarness):
    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key=self.key, label="Fake CLI", process=CLI_TIE)


def _spawn(tmp_path: Path, cwd: Path) -> subprocess.Popen[bytes]:
    """A real process whose executable is named ``fakecli``, running in *cwd*."""
    link = tmp_path / "bin" / "fakecli"
    if not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(sys.executable)
    return subprocess.Popen([str(link), "-c", "import time; time.sleep(120)"], cwd=cwd)


def _stop(child: subprocess.Popen[bytes]) -> None:
    child.kill()
    child.wait(timeout=10)


def _wait_listed(table: LocalProcesses, pid: int) -> None:
    for _ in range(100):
        listed = table.listing() or ()
        if any(p.pid == pid and p.cwd for p in listed):
            return
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} never listed with its directory")


def test_a_running_cli_with_no_store_is_a_starting_row_until_its_store_appears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(liveness, "LISTING_TTL_S", 0.0)
    project = tmp_path / "work" / "app"
    elsewhere = tmp_path / "work" / "old"
    project.mkdir(parents=True)
    elsewhere.mkdir(parents=True)
    # A session in the other directory, last written an hour before its process starts: that
    # process has written nothing yet either.
    harness = Cli("cli", [FakeSession("old-session", age_s=3600, cwd=str(elsewhere), title="Old work")])
    registry = load_registry(entry_points=False, extra=[("cli", harness)])
    table = LocalProcesses()
    builder = BoardBuilder(registry, env={}, home=tmp_path, processes=table)
    first = _spawn(tmp_path, project)
    second = _spawn(tmp_path, elsewhere)
    try:
        _wait_listed(table, first.pid)
        _wait_listed(table, second.pid)
        board = builder.build()
        rows = {s.session_id: s for s in board.sessions}
        row = rows[f"pid-{first.pid}"]
        assert (row.state, row.title, row.model, row.output_tokens_total, row.waiting, row.turn) == (
            "starting",
            None,
            None,
            None,
            None,
            None,
        )
        assert os.path.realpath(row.cwd or "") == os.path.realpath(project) and row.project == "work/app"
        assert row.detail == "starting · no session store yet" and row.state_source == "process table"
        (item,) = row.evidence
        assert (item.signal, item.source) == ("process table", f"process table · pid {first.pid}")
        assert f"pid {first.pid}" in item.said and "no session of this harness there has written" in item.said
        assert f"pid-{second.pid}" in rows, "an hour-old session in its directory does not account for it"
        assert rows["old-session"].state == "idle"
        assert board.counts.starting == 2 and board.counts.sessions == 3
        assert [s.state for s in board.sessions] == ["starting", "starting", "idle"]
        assert {s.pid for s in board.harnesses[0].starting} == {first.pid, second.pid}

        # Its store appears: the session's own row takes over, in the same directory.
        harness.sessions["fresh"] = FakeSession("fresh", age_s=0, cwd=os.path.realpath(project), title="New work")
        rows = {s.session_id: s for s in builder.build().sessions}
        assert f"pid-{first.pid}" not in rows and rows["fresh"].state == "working"
        assert f"pid-{second.pid}" in rows
    finally:
        _stop(first)
        _stop(second)
    # Both killed: no starting row is left, and the session whose process is gone is not working.
    board = builder.build()
    assert [(s.session_id, s.state) for s in board.sessions] == [("fresh", "idle"), ("old-session", "idle")]
    assert board.counts.starting == 0 and board.harnesses[0].starting == ()


def test_a_replay_table_makes_no_starting_row(tmp_path: Path) -> None:
    harness = Cli("cli", [])
    registry = load_registry(entry_points=False, extra=[("cli", harness)])
    table = StaticProcesses([ProcessInfo(pid=7, argv=("/usr/bin/fakecli",), cwd="/w/x", started_at=1.0)])
    assert BoardBuilder(registry, env={}, home=tmp_path, processes=table).build().sessions == ()


class PidFileTied(FakeHarness):
    @hookimpl
    def harness_info(self) -> HarnessInfo:
        tie = ProcessTie(names=("copilot",), ties=("pid file",), coverage="by its pid file")
        return HarnessInfo(key=self.key, label="Pid-file tied", process=tie)


def test_a_harness_tied_by_its_pid_file_gets_starting_rows_but_no_directory_verdict() -> None:
    session = FakeSession("s", age_s=20, cwd="/w/app")
    reg = load_registry(entry_points=False, extra=[("pidtied", PidFileTied("pidtied", [session]))])
    table = StaticProcesses([_cli(41, "/w/new")], listed=True)
    board = BoardBuilder(reg, env={}, clock=lambda: NOW, processes=table).build()
    rows = {s.session_id: s for s in board.sessions}
    assert rows["s"].state == "working", "no process in /w/app: the pid file, not the directory, decides"
    assert (rows["pid-41"].state, rows["pid-41"].cwd) == ("starting", "/w/new")


def test_a_waiting_row_accounts_for_the_process_in_its_directory_whatever_its_start() -> None:
    # The process started after the row's last write (a wait stands still): it is that row's.
    later = ProcessInfo(pid=41, argv=("/usr/bin/copilot",), cwd="/w/app", started_at=NOW.timestamp())
    board = _board(StaticProcesses([later], listed=True), Gate(kind="permission", source="events.jsonl"))
    assert [(s.session_id, s.state) for s in board.sessions] == [("s", "needs_input")]  # type: ignore[attr-defined]
