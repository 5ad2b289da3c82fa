"""``cargento --demo`` shows the observer's surfaces: one session with a recorded departure (a
Drift mark, DEPARTURES RAISED TO YOU) and one with a consistent reading, both recorded against
the demo's annotated words, and a goal summary on record, with nothing sent anywhere and no
budget spent."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx


def test_the_demo_shows_a_departure_and_a_consistent_reading(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "CARGENTO_", "XDG_"))}
    env.update(
        {"HOME": str(tmp_path / "home"), "CARGENTO_HOME": str(tmp_path / "state"), "PATH": str(tmp_path / "no-bin")}
    )
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "cargento"), "--demo", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        observer: dict[str, Any] = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                observer = httpx.get(url + "/api/data", timeout=5).json().get("observer") or {}
                found = (observer.get("sessions") or {}).values()
                if sum(bool(v["readings"]) for v in found) >= 2 and any(v.get("summary") for v in found):
                    break
            time.sleep(0.3)
        read = {k: v for k, v in observer["sessions"].items() if v["readings"]}
        departed = [v for v in read.values() if v["departed_at"]]
        consistent = [v for v in read.values() if all(r["verdict"] == "consistent" for r in v["readings"][-1]["rows"])]
        assert len(departed) == 1 and len(consistent) == 1
        assert departed[0]["asked"], "DEPARTURES RAISED TO YOU has a row"
        assert all(v["readings"][-1]["recorded"] for v in read.values()), "recorded against the demo's words"
        assert all(v["revision"] == v["readings"][-1]["revision"] for v in read.values())
        assert observer["budget"]["used"] == 0, "nothing was sent"
        summarised = [v for v in observer["sessions"].values() if v.get("summary")]
        assert len(summarised) == 1 and summarised[0]["summary"]["demo"] is True, "a goal summary is on record"
        assert summarised[0]["revision"] is None, "on a session with no words typed, so adopting it means something"
        assert summarised[0]["summary"]["label"] == "Codex CLI" and summarised[0]["summary"]["text"]
        for v in read.values():
            if v["harness"] not in ("claude", "pi"):
                assert not any(
                    r["evidence"].startswith(("check ran", "file written", "work result"))
                    for r in v["readings"][-1]["rows"]
                ), "no work cited where none is read"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
