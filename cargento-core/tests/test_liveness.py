"""Tying a harness's running CLI to a session's directory through the process table."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from cargento import hookimpl
from cargento.board import BoardBuilder
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
    (row,) = board.sessions  # type: ignore[attr-defined]
    assert (row.state, row.waiting, row.state_source) == ("idle", None, "process table")
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
