"""``--daemon``, ``--status``, ``--stop``, a busy port and a stale state file, as real processes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CARGENTO = str(Path(sys.executable).parent / "cargento")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    out = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CARGENTO_", "CLAUDE_", "CODEX_", "COPILOT_", "PI_", "GEMINI_"))
    }
    out.update(
        {
            "HOME": str(home),
            "CARGENTO_HOME": str(tmp_path / "state"),
            "CARGENTO_LOAD_PLUGINS": "",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return out


def run(env: dict[str, str], *args: str, timeout: float = 40) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CARGENTO, *args], env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def state_path(env: dict[str, str], port: int) -> Path:
    return Path(env["CARGENTO_HOME"]) / f"cargento-{port}.json"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); treat it as gone.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


@pytest.fixture
def daemons(env: dict[str, str]) -> Iterator[list[int]]:
    """Ports of daemons started by a test; stopped if the test did not stop them."""
    ports: list[int] = []
    yield ports
    for port in ports:
        state = state_path(env, port)
        if state.exists():
            pid = json.loads(state.read_text())["pid"]
            run(env, "--port", str(port), "--stop")
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_daemon_status_stop(env: dict[str, str], daemons: list[int]) -> None:
    port = free_port()
    daemons.append(port)
    started = run(env, "--port", str(port), "--daemon")
    assert started.returncode == 0, started.stderr
    lines = started.stdout.splitlines()
    url = f"http://127.0.0.1:{port}/"
    log = Path(env["CARGENTO_HOME"]) / f"cargento-{port}.log"
    assert lines[0] == f"Cargento dashboard: {url}"
    pid = int(lines[1].removeprefix("pid: "))
    assert lines[2] == f"log: {log}"
    assert log.exists() and alive(pid)

    state = json.loads(state_path(env, port).read_text())
    assert state["pid"] == pid and state["port"] == port and state["host"] == "127.0.0.1"
    assert state["url"] == url and state["log"] == str(log)
    assert isinstance(state["capability"], str) and len(state["capability"]) >= 32
    assert state["version"] and state["started_at"].endswith("Z")
    assert not list(Path(env["CARGENTO_HOME"]).glob("*.tmp"))

    health = httpx.get(url + "api/health").json()
    assert health["pid"] == pid and health["started_at"] == state["started_at"]
    assert httpx.get(url + "api/data").json()["schema"] == 1

    status = run(env, "--port", str(port), "--status")
    assert status.returncode == 0
    assert f"pid {pid}" in status.stdout and state["started_at"] in status.stdout and "running" in status.stdout

    stopped = run(env, "--port", str(port), "--stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "the port is free" in stopped.stdout
    with socket.socket() as s:  # the port is free the moment --stop returns
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
    assert not state_path(env, port).exists()
    # --stop returns only once the process itself has exited, not merely its socket.
    assert not alive(pid)

    after = run(env, "--port", str(port), "--status")
    assert after.returncode == 1 and f"not running on port {port}" in after.stdout


def test_daemon_on_a_port_a_dashboard_already_holds(env: dict[str, str], daemons: list[int]) -> None:
    port = free_port()
    daemons.append(port)
    assert run(env, "--port", str(port), "--daemon", "--no-events").returncode == 0
    assert json.loads(state_path(env, port).read_text())["capability"] is None  # --no-events publishes none
    again = run(env, "--port", str(port), "--daemon")
    assert again.returncode == 1
    assert again.stderr.count("\n") == 1 and "Traceback" not in again.stderr
    assert "a Cargento dashboard already runs on port" in again.stderr


@pytest.fixture
def foreign(env: dict[str, str]) -> Iterator[int]:
    """A port held by a listener that is not Cargento (it accepts and says nothing useful)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    yield int(sock.getsockname()[1])
    sock.close()


@pytest.mark.parametrize("mode", [[], ["--daemon"]])
def test_busy_port_is_one_line(env: dict[str, str], foreign: int, mode: list[str]) -> None:
    result = run(env, "--port", str(foreign), *mode)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    assert result.stderr.count("\n") == 1
    assert f"port {foreign} on 127.0.0.1 is already in use by another process" in result.stderr
    assert not state_path(env, foreign).exists()


def test_status_and_stop_leave_another_process_alone(env: dict[str, str], foreign: int) -> None:
    state = state_path(env, foreign)
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"pid": 1, "port": foreign}))
    before = state.stat()

    status = run(env, "--port", str(foreign), "--status")
    assert status.returncode == 3
    assert f"port {foreign} belongs to another process" in status.stdout

    stop = run(env, "--port", str(foreign), "--stop")
    assert stop.returncode == 3
    assert "nothing was stopped or removed" in stop.stderr
    assert state.exists() and state.stat().st_mtime_ns == before.st_mtime_ns


def test_stale_state_file(env: dict[str, str]) -> None:
    port = free_port()
    state = state_path(env, port)
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"pid": 999999, "port": port, "url": f"http://127.0.0.1:{port}/"}))

    status = run(env, "--port", str(port), "--status")
    assert status.returncode == 1
    assert "not running" in status.stdout and "stale state file from pid 999999" in status.stdout
    assert state.exists()  # --status changes nothing

    stop = run(env, "--port", str(port), "--stop")
    assert stop.returncode == 0
    assert "cleared a stale state file" in stop.stdout
    assert not state.exists()


def test_foreground_serves_and_cleans_up_on_sigterm(env: dict[str, str]) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [CARGENTO, "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 20
        while not state_path(env, port).exists() and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        state: dict[str, Any] = json.loads(state_path(env, port).read_text())
        assert state["pid"] == proc.pid and state["log"] is None
        for _ in range(100):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"Cargento dashboard: http://127.0.0.1:{port}/ (pid {proc.pid})" in out
    assert not state_path(env, port).exists()


def test_stop_when_nothing_runs(env: dict[str, str]) -> None:
    port = free_port()
    result = run(env, "--port", str(port), "--stop")
    assert result.returncode == 0 and f"not running on port {port}" in result.stdout


def test_every_interface_is_an_explicit_opt_in_and_says_so(env: dict[str, str]) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [CARGENTO, "--port", str(port), "--host", "0.0.0.0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while not state_path(env, port).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert json.loads(state_path(env, port).read_text())["host"] == "0.0.0.0"
        assert httpx.get(f"http://127.0.0.1:{port}/api/health").json()["host"] == "0.0.0.0"
        assert (
            httpx.get(f"http://127.0.0.1:{port}/api/health", headers={"Host": f"rebind.example:{port}"}).status_code
            == 421
        )
        assert run(env, "--port", str(port), "--stop").returncode == 0
        _out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "listening on every interface (--host 0.0.0.0)" in err


def test_the_default_bind_is_loopback(env: dict[str, str], daemons: list[int]) -> None:
    port = free_port()
    daemons.append(port)
    assert run(env, "--port", str(port), "--daemon", "--no-events").returncode == 0
    assert json.loads(state_path(env, port).read_text())["host"] == "127.0.0.1"
    addresses = {a for a in _listening_addresses(port)}
    assert addresses == {"127.0.0.1"}


def _listening_addresses(port: int) -> list[str]:
    """Local addresses listening on *port*, from /proc/net/tcp (Linux)."""
    if not Path("/proc/net/tcp").exists():
        pytest.skip("no /proc/net/tcp on this platform")
    out = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hexport = local.split(":")
        if state == "0A" and int(hexport, 16) == port:
            raw = bytes.fromhex(address)[::-1]
            out.append(".".join(str(b) for b in raw))
    return out


@pytest.mark.parametrize("mode", [[], ["--daemon"]], ids=["foreground", "daemon"])
def test_an_unusable_state_directory_is_named_with_its_path(
    env: dict[str, str], tmp_path: Path, mode: list[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    env = {**env, "CARGENTO_HOME": str(blocker / "state")}
    done = run(env, "--port", str(free_port()), "--no-events", *mode)
    assert done.returncode == 1
    assert str(blocker / "state") in done.stderr and "Not a directory" in done.stderr


def test_a_named_pipe_as_the_state_file_does_not_hang_status_or_stop(env: dict[str, str]) -> None:
    port = free_port()
    state = state_path(env, port)
    state.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(state)
    status = run(env, "--port", str(port), "--status", timeout=20)  # a blocking open would hang here
    assert status.returncode == 1 and f"not running on port {port}" in status.stdout
    assert state.is_fifo(), "left as it was"


def test_start_up_survives_a_named_pipe_store_and_clears_a_dead_writers_temporaries(
    env: dict[str, str], daemons: list[int]
) -> None:
    home = Path(env["CARGENTO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    os.mkfifo(home / "cargento-deliveries.json")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = home / f".cargento-ends.json.{gone.pid}.k3j2.tmp"
    dead.write_text("half a write")
    live = home / f".cargento-ends.json.{os.getpid()}.x9q1.tmp"
    live.write_text("a live writer's file in progress")
    port = free_port()
    daemons.append(port)
    started = run(env, "--port", str(port), "--daemon", timeout=40)
    assert started.returncode == 0, started.stderr
    answer = httpx.get(f"http://127.0.0.1:{port}/api/data", timeout=10)
    assert answer.status_code == 200
    assert not dead.exists() and live.exists()
    assert (home / "cargento-deliveries.json").is_fifo(), "refused and left alone, never written over"
    page = httpx.get(f"http://127.0.0.1:{port}/", timeout=10).text
    assert "cargento-deliveries.json" in page and "not a regular file" in page
    assert run(env, "--port", str(port), "--stop").returncode == 0


def test_the_state_file_is_written_whole_without_waiting_for_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It describes a running process and goes with it: a sync of it (0.5 to 12 ms of every
    # start) would keep nothing a reader could use after a crash.
    from cargento.statedir import read_state
    from cargento_web.statefile import write_state

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    env = {"CARGENTO_HOME": str(tmp_path / "state")}
    document = {"pid": os.getpid(), "port": 4553, "url": "http://127.0.0.1:4553/"}
    path = write_state(4553, document, env)
    assert synced == []
    assert read_state(4553, env) == document
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left beside it
