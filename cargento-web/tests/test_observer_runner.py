"""One provider call: the prompt on standard input, an empty scratch folder, the time limit and
Cancel killing the whole process group, a program that exits without reading, one that cannot
be started."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from cargento_web.observer.runner import run_call


def _script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "provider.py"
    path.write_text(body)
    return [sys.executable, str(path)]


def test_the_prompt_arrives_on_standard_input_in_an_empty_folder(tmp_path: Path) -> None:
    command = _script(tmp_path, "import os, sys\nprint(sys.stdin.read().upper(), os.listdir('.'), sep='|')\n")
    call = run_call(command, "hello", env=dict(os.environ), cancelled=threading.Event())
    assert call.ending == "answered" and call.stdout.strip() == "HELLO|[]"


def test_a_program_that_exits_without_reading_fails_cleanly(tmp_path: Path) -> None:
    command = _script(tmp_path, "import sys\nsys.exit(7)\n")
    call = run_call(command, "x" * 2_000_000, env=dict(os.environ), cancelled=threading.Event())
    assert call.ending == "failed" and call.exit_code == 7


def test_a_program_that_cannot_start_fails_with_a_sentence(tmp_path: Path) -> None:
    call = run_call([str(tmp_path / "missing")], "x", env={}, cancelled=threading.Event())
    assert call.ending == "failed" and "could not be started" in (call.detail or "")


def test_the_time_limit_and_cancel_kill_the_whole_group(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    body = (
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(600)\n"
    )
    command = _script(tmp_path, body)
    started = time.monotonic()
    call = run_call(command, "x", env=dict(os.environ), cancelled=threading.Event(), timeout_s=1.0)
    assert call.ending == "timeout" and time.monotonic() - started < 10
    child = int(marker.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child), "the provider's own child outlived the time limit"
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    call = run_call(command, "x", env=dict(os.environ), cancelled=cancel)
    assert call.ending == "cancelled"


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper that is not us counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((line.split()[1] for line in status.splitlines() if line.startswith("State:")), "")
    return state not in ("Z", "X")
