"""The start's hold on cyclic garbage collection (docs/benchmark.md, "Whole processes"): off
from ``main`` until the first board is out, given back after, never taken from a caller that
had it off, and the console script's exit leaves the live objects out of the last collection."""

from __future__ import annotations

import atexit
import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cargento import cli, starthold
from cargento.cli import Options


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    starthold.release()
    if was:
        gc.enable()
    else:
        gc.disable()


def test_main_holds_collection_off_while_it_runs_and_gives_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[bool, bool]] = []

    def snapshot(options: Options) -> int:
        seen.append((gc.isenabled(), starthold.held()))
        return 0

    monkeypatch.setattr(cli, "_snapshot", snapshot)
    assert cli.main(["--json"]) == 0
    assert seen == [(False, True)]
    assert gc.isenabled() and not starthold.held()


def test_the_server_can_end_the_hold_early(monkeypatch: pytest.MonkeyPatch) -> None:
    from cargento import entrypoints

    seen: list[bool] = []

    def run(options: Options) -> int:
        seen.append(gc.isenabled())
        starthold.release()  # what the server does once its first /api/data is answered
        seen.append(gc.isenabled())
        return 0

    class _EntryPoint:
        name = "web"

        def load(self) -> object:
            return run

    monkeypatch.setattr(entrypoints, "entry_points", lambda group: [_EntryPoint()])
    assert cli.main(["--port", "4999"]) == 0
    assert seen == [False, True]
    assert gc.isenabled()


def test_a_collector_already_off_stays_off_and_a_nested_hold_does_nothing() -> None:
    gc.disable()
    with starthold.held_for_start():
        assert not starthold.held()
    assert not gc.isenabled()
    gc.enable()
    with starthold.held_for_start():
        with starthold.held_for_start():
            pass
        assert not gc.isenabled(), "the inner hold must not give back the outer one's"
    assert gc.isenabled()


def test_a_release_before_the_hold_ends_is_final() -> None:
    with starthold.held_for_start():
        starthold.release()
        assert gc.isenabled()
        gc.disable()  # someone else's choice after the release is theirs
    assert not gc.isenabled()


_ENTRY = """
import atexit, gc, json, sys
from cargento.cli import main

atexit.register(lambda: print("at exit", gc.get_freeze_count() > 0, gc.isenabled(), flush=True))
sys.argv = ["cargento", "--json"] if sys.argv[1] == "script" else ["x"]
code = main() if sys.argv[0] == "cargento" else main(["--json"])
sys.exit(code)
"""


@pytest.mark.parametrize(("form", "frozen"), [("script", True), ("call", False)])
def test_only_the_console_script_freezes_what_is_alive_at_its_exit(tmp_path: Path, form: str, frozen: bool) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))},
        "HOME": str(tmp_path),
        "CARGENTO_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _ENTRY, form], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    *board, last = done.stdout.splitlines()
    assert json.loads("\n".join(board))["schema"]  # the whole answer, flushed before the exit
    assert last.split() == ["at", "exit", str(frozen), "True"], done.stderr  # the exit handlers ran


_GIVEN_BACK = """
import atexit, gc, sys
from cargento.cli import main

seen = []
enable = gc.enable


def watched_enable():
    seen.append(gc.get_freeze_count() > 0)
    enable()


gc.enable = watched_enable
atexit.register(lambda: print("frozen when given back", seen, flush=True))
sys.argv = ["cargento", "--json"]
sys.exit(main())
"""


def test_the_console_script_freezes_the_start_before_it_gives_the_collector_back(tmp_path: Path) -> None:
    # Given back first, the collector's next run walks everything the start made (12 to 22 ms
    # of a 0.4 s --json at 160 sessions) in a process that is about to exit.
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))},
        "HOME": str(tmp_path),
        "CARGENTO_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _GIVEN_BACK], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "frozen when given back [True]", done.stderr


@pytest.mark.parametrize(("args", "ends_at_once"), [(["--json"], True), (["--diagnose"], True), (["--help"], False)])
def test_the_console_script_ends_a_printed_answer_without_the_interpreter_s_teardown(
    monkeypatch: pytest.MonkeyPatch, args: list[str], ends_at_once: bool
) -> None:
    ended: list[int] = []

    def exit_now(code: int) -> None:
        ended.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(cli, "_snapshot", lambda options: 0)
    monkeypatch.setattr(cli, "_diagnose", lambda options: 1)
    monkeypatch.setattr(os, "_exit", exit_now)
    handlers: list[bool] = []
    monkeypatch.setattr(atexit, "_run_exitfuncs", lambda: handlers.append(True))  # not this process's
    monkeypatch.setattr(sys, "argv", ["cargento", *args])
    monkeypatch.setattr(gc, "freeze", lambda: None)  # this test process goes on
    with pytest.raises(SystemExit) as stopped:
        cli.main()
    assert ended == ([0 if args == ["--json"] else 1] if ends_at_once else [])
    assert handlers == ([True] if ends_at_once else [])
    assert stopped.value.code == (ended[0] if ended else 0)


def test_an_immediate_exit_flushes_runs_the_exit_handlers_and_keeps_the_code() -> None:
    script = """
import atexit, sys
from cargento import starthold
atexit.register(lambda: sys.stderr.write("handler ran\\n"))
sys.stdout.write("answer")  # buffered: a pipe is not a terminal
starthold.exit_at_once(3)
print("not reached")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (3, "answer", "handler ran\n")


def test_an_immediate_exit_waits_as_the_interpreter_would_for_a_running_thread() -> None:
    script = """
import threading, time
from cargento import starthold
go = threading.Event()
worker = threading.Thread(target=lambda: (go.wait(), time.sleep(0.2), print("worker done", flush=True)))
worker.start()
starthold.exit_at_once(3)  # a thread the interpreter waits for is running: this returns
go.set()
print("returned", flush=True)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.split("\n")) == (0, ["returned", "worker done", ""])
