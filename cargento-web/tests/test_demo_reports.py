"""``cargento --demo`` shows an irreversible-command report within its first minute.

The Claude demo force-pushes its branch early in its first turn and hands over the
``PostToolUse`` body Claude Code's hook would post; the demo forwards it to the dashboard's
event hub through ``ingest``, the path a real hook's ``POST /api/events/claude`` takes.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from cargento.cli import Options
from cargento.demo import Demo
from cargento.plugins import load_registry
from cargento_harness_claude.demo import PUSH
from cargento_web.environment import Served
from cargento_web.probe import bind_socket
from cargento_web.server import build_app
from cargento_web.settings import Settings


def _live_claude_ids(doc: dict[str, Any]) -> set[str]:
    return {s["session_id"] for s in doc["sessions"] if s["harness"] == "claude" and s["title"] == "Orders API work"}


def test_the_demo_clock_brings_the_force_push_report_inside_the_first_minute(tmp_path: Path) -> None:
    start = datetime.now(UTC).replace(microsecond=0)
    clock = [start]
    base = {"PATH": os.environ.get("PATH", ""), "CARGENTO_LOAD_PLUGINS": "claude", "HOME": str(tmp_path / "real")}
    demo = Demo(load_registry(env=base), base_env=base, clock=lambda: clock[0], interval_s=3600, root=tmp_path)
    demo.start()
    served = Served(env=demo.env, home=demo.home, close=demo.stop, forward_events=demo.forward_events)
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    settings = Settings(port=port, pid=os.getpid(), started_at=start, version="test")
    app, _hub = build_app(Options(demo=True), served, settings)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.started
        assert httpx.get(url + "/api/reports").json()["reports"] == [], "nothing is reported before the push"
        arrived = None
        for second in range(0, 61):
            clock[0] = start + timedelta(seconds=second)
            demo.step()
            if httpx.get(url + "/api/reports").json()["reports"]:
                arrived = second
                break
        assert arrived is not None and arrived < 60, "the report shows within the demo's first minute"
        [report] = httpx.get(url + "/api/reports").json()["reports"]
        assert report["harness"] == "claude" and report["shape"] == "force-push"
        assert PUSH in report["command"]
        assert report["session_id"] in _live_claude_ids(httpx.get(url + "/api/data", timeout=30).json())
        assert demo.events_refused == 0
    finally:
        server.should_exit = True
        thread.join(10)
        served.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_demo_server_run_lists_the_report_within_its_first_minute(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "XDG_"))}
    env.update(
        {"HOME": str(tmp_path / "real"), "CARGENTO_HOME": str(tmp_path / "state"), "CARGENTO_LOAD_PLUGINS": "claude"}
    )
    exe = Path(sys.executable).parent / "cargento"
    began = time.monotonic()
    proc = subprocess.Popen(
        [str(exe), "--demo", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        reports: list[dict[str, Any]] = []
        while time.monotonic() - began < 60 and not reports:
            try:
                reports = httpx.get(url + "/api/reports", timeout=2).json()["reports"]
            except httpx.HTTPError:
                pass
            if not reports:
                time.sleep(0.5)
        assert reports, "no irreversible-command report within the demo's first minute"
        assert {(r["harness"], r["shape"]) for r in reports} == {("claude", "force-push")}
        assert reports[0]["session_id"] in _live_claude_ids(httpx.get(url + "/api/data", timeout=30).json())
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
