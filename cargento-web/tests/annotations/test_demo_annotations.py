"""``cargento --demo`` ships annotated sessions: every surface of the feature has something to
show, typed against sessions the demo really produces, in the demo's own state directory."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from cargento_web.annotations.demo import OFF_BOARD_SID
from cargento_web.annotations.store import ANNOTATIONS_FILE


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_demo_seeds_words_on_its_own_sessions_and_off_the_board(tmp_path: Path) -> None:
    port = _free_port()
    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "XDG_"))}
    env.update({"HOME": str(tmp_path / "home"), "CARGENTO_HOME": str(state)})
    exe = Path(sys.executable).parent / "cargento"
    proc = subprocess.Popen(
        [str(exe), "--demo", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        share: dict[str, Any] = {}
        board: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                board = httpx.get(url + "/api/data", timeout=10).json()
            except httpx.HTTPError:
                time.sleep(0.3)
                continue
            share = board.get("annotations") or {}
            if len(share.get("sessions") or {}) >= 4:
                break
            time.sleep(0.3)
        sessions = share["sessions"]
        assert isinstance(sessions, dict)
        kinds = {key.split(":")[0]: row.get("kind") for key, row in sessions.items()}
        assert kinds.get("claude") == "words" and kinds.get("codex") == "words"
        assert "discard" in kinds.values(), "a discard record is on a board session"
        board_keys = {s["key"] for s in board["sessions"]}
        assert set(sessions) <= board_keys, "the words sit on sessions the demo produces"
        adopted = [r for r in sessions.values() if r.get("goal_source") == "prompt"]
        assert len(adopted) == 1 and adopted[0]["revision"] == 2, "a goal adopted from a prompt, in a second revision"
        assert any(r.get("kind") == "words" and r["goal"] is None and r["lines"] for r in sessions.values())
        listed = httpx.get(url + "/api/annotations", timeout=10).json()
        off = [a for a in listed["annotations"] if a["sid"] == OFF_BOARD_SID]
        assert off and off[0]["kind"] == "words", "words retained for a session no longer on the board"
        assert any(r["sid"] == OFF_BOARD_SID and not r["on_board"] for r in listed["log"])
        assert not (state / ANNOTATIONS_FILE).exists(), "the demo never writes the user's own store"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
