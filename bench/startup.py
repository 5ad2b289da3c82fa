"""Whole-process figures for ``nox -s bench``: what a person waits for, from process start.

- ``first_board_json_<n>_s``: ``cargento --json`` over a synthetic store of *n* active
  sessions (ten harnesses) plus 5,000 old one-record Claude files, start to exit;
- ``first_board_server_<n>_s``: a fresh ``cargento`` server, from process start until
  ``/api/data`` first answers 200;
- ``forwarder_ms`` (dashboard answering) and ``forwarder_no_dashboard_ms``: one
  ``cargento-event-hook`` process, start to exit;
- ``idle_cpu_percent``: the server's CPU over a quiet window with one stream client open and
  nothing changing, as a share of one core.

Every process runs with Python's bytecode cache, as an installed Cargento does
(``PYTHONDONTWRITEBYTECODE`` is removed from its environment).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import stores

BIN = Path(sys.executable).parent


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def _env(home: Path, state: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("CLAUDE_", "CODEX_"))
    }
    env.update(
        {
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "CARGENTO_HOME": str(state),
        }
    )
    return env


def _old_files(home: Path, count: int) -> None:
    """*count* one-record Claude transcripts, days old: history a scan walks past."""
    folder = home / ".claude" / "projects" / "-old-history"
    folder.mkdir(parents=True, exist_ok=True)
    old = (datetime.now(UTC) - timedelta(days=30)).timestamp()
    for i in range(count):
        path = folder / f"{i:08x}-0000-4000-8000-000000000000.jsonl"
        path.write_text('{"type":"user","message":{"role":"user","content":"old"}}\n')
        os.utime(path, (old, old))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _serve(env: dict[str, str], port: int) -> tuple[subprocess.Popen[bytes], float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN / "cargento"), "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/data", timeout=5).status_code == 200:
                return proc, time.perf_counter() - started
        except httpx.HTTPError:
            time.sleep(0.005)
    proc.kill()
    raise RuntimeError("the server never answered /api/data")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def figures(per_harness: int, *, runs: int, old: int = 5000, idle_s: float = 60.0) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="cargento-startup-"))
    try:
        home = root / "home"
        stores.populate(home, per_harness, datetime.now(UTC))
        _old_files(home, old)
        env = _env(home, root / "state")
        n = per_harness * 10
        subprocess.run([str(BIN / "cargento"), "--json"], env=env, capture_output=True, check=True)  # warm the caches
        json_s = []
        for _ in range(runs):
            started = time.perf_counter()
            out = subprocess.run([str(BIN / "cargento"), "--json"], env=env, capture_output=True, check=True)
            json_s.append(time.perf_counter() - started)
        sessions = len(json.loads(out.stdout)["sessions"])
        server_s = []
        for _ in range(runs):
            proc, took = _serve(env, _free_port())
            server_s.append(took)
            _stop(proc)
        result: dict[str, Any] = {
            "sessions": sessions,
            f"first_board_json_{n}_s": _summary(json_s),
            f"first_board_server_{n}_s": _summary(server_s),
        }
        if idle_s > 0:
            result["idle"] = _idle(env, idle_s)
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _idle(env: dict[str, str], seconds: float) -> dict[str, Any]:
    import psutil

    port = _free_port()
    proc, _ = _serve(env, port)
    stop = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/stream", timeout=None) as response:
            for _ in response.iter_lines():
                if stop.is_set():
                    return

    threading.Thread(target=listen, daemon=True).start()
    try:
        time.sleep(5)  # the first build, the watcher and the stream settle
        watched = psutil.Process(proc.pid)
        before = watched.cpu_times()
        time.sleep(seconds)
        after = watched.cpu_times()
        used = (after.user - before.user) + (after.system - before.system)
        return {"window_s": seconds, "cpu_s": used, "idle_cpu_percent": 100.0 * used / seconds}
    finally:
        stop.set()
        _stop(proc)


def forwarder(runs: int) -> dict[str, Any]:
    """One ``cargento-event-hook`` process, start to exit, with no dashboard and with one."""
    root = Path(tempfile.mkdtemp(prefix="cargento-forwarder-"))
    try:
        home = root / "home"
        home.mkdir()
        env = _env(home, root / "state")
        payload = json.dumps(
            {"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash", "cwd": "/w"}
        ).encode()
        hook = str(BIN / "cargento-event-hook")

        def once(port: int) -> float:
            started = time.perf_counter()
            subprocess.run([hook, "claude", str(port)], input=payload, env=env, check=True, capture_output=True)
            return (time.perf_counter() - started) * 1000.0

        port = _free_port()
        once(port)
        none = [once(port) for _ in range(runs)]
        proc, _ = _serve(env, port)
        try:
            once(port)
            answering = [once(port) for _ in range(runs)]
        finally:
            _stop(proc)
        return {"forwarder_no_dashboard_ms": _summary(none), "forwarder_ms": _summary(answering)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
