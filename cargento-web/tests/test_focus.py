"""The terminal raise against a real tmux server made here: one attached client means the
session's window and pane are selected; a second attached client means no control at all.

A client is a real ``tmux attach`` on a pseudo-terminal. The session's terminal identity comes
from a real pane's own environment (``TMUX``, ``TMUX_PANE``), read through the forwarders'
:func:`terminal_identity`, as a hook running in that pane would send it.
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento.cli import Options
from cargento.forwarders.event_hook import main as event_hook_main
from cargento.forwarders.slim import TERMINAL_FIELD, terminal_identity
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.focus import FOCUS_HEADER, FocusExtension
from cargento_web.focus.coverage import coverage_sentence
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class TmuxServer:
    def __init__(self, root: Path) -> None:
        self.socket = str(root / "tmux.sock")
        self.clients: list[tuple[subprocess.Popen[bytes], int]] = []
        self.run("-f", "/dev/null", "new-session", "-d", "-s", "work", "-x", "100", "-y", "30", "sh")
        self.run("new-window", "-d", "-t", "work", "sh")  # window 1 (not selected)

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=10)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def pane_env(self, target: str, out: Path) -> dict[str, str]:
        """The environment a command started in pane *target*'s window gets (what a hook
        run by the harness in that pane inherits)."""
        self.run("respawn-pane", "-k", "-t", target, f"env > {out}; exec sh")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (out.exists() and "TMUX_PANE" in out.read_text()):
            time.sleep(0.05)
        return dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)

    def attach(self) -> None:
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            ["tmux", "-S", self.socket, "attach", "-t", "work"],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env={**os.environ, "TERM": "xterm", "TMUX": ""},
            start_new_session=True,
        )
        os.close(follower)
        self.clients.append((proc, leader))
        want = len(self.clients)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(self.run("list-clients").splitlines()) < want:
            time.sleep(0.05)
        assert len(self.run("list-clients").splitlines()) == want

    def shown(self) -> tuple[str, str]:
        """The pane id the session's current window shows, and that window's index."""
        return self.run("display-message", "-p", "-t", "work", "#{pane_id}"), self.run(
            "display-message", "-p", "-t", "work", "#{window_index}"
        )

    def close(self) -> None:
        for proc, leader in self.clients:
            proc.terminate()
            proc.wait(5)
            os.close(leader)
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[TmuxServer]:
    server = TmuxServer(tmp_path)
    yield server
    server.close()


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 9, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _started_in_pane(hub: EventHub, env: dict[str, str], sid: str = "s1") -> None:
    terminal = terminal_identity(env)
    assert terminal is not None
    hub.ingest(
        "claude", {"session_id": sid, "hook_event_name": "SessionStart", "source": "startup", TERMINAL_FIELD: terminal}
    )


@pytest.fixture
def served(serve: Callable[..., Any], builder_for: Callable[..., Any], tmp_path: Path) -> Callable[..., Any]:
    def start(options: Options | None = None, **hub_options: Any) -> tuple[Any, EventHub]:
        clock = Clock()
        hub = EventHub(clock=clock, state_dir=tmp_path / "state", notifier=MemoryNotifier(), **hub_options)
        sessions = [FakeSession("s1", title="Orders API"), FakeSession("s2", title="Docs")]
        builder = builder_for([("claude", FakeHarness("claude", sessions))], tmp_path, clock=clock)
        return serve(builder, hub=hub, features=["cargento_web.focus"], options=options or Options()), hub

    return start


def _raise(server: Any, capability: str | None, sid: str = "s1") -> httpx.Response:
    headers = {"Origin": server.url, "Sec-Fetch-Site": "same-origin"}
    if capability is not None:
        headers[FOCUS_HEADER] = capability
    return httpx.post(server.url + "/api/focus", json={"harness": "claude", "session_id": sid}, headers=headers)


def test_the_forwarder_sends_the_pane_it_runs_in(
    tmux: TmuxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import json

    from cargento.forwarders import event_hook

    env = tmux.pane_env("work:0", tmp_path / "env0")
    found = terminal_identity(env)
    pane = tmux.run("display-message", "-p", "-t", "work:0", "#{pane_id}")
    assert found == {"tmux": env["TMUX"], "pane": pane}
    assert terminal_identity({"HOME": "/x"}) is None, "outside tmux: nothing is sent"
    posted: list[bytes] = []
    monkeypatch.setattr(event_hook, "capability_for", lambda port, env: "cap")
    monkeypatch.setattr(event_hook, "proven", lambda port, cap, env: True)
    monkeypatch.setattr(event_hook, "post", lambda target, body, cap, hook_at: posted.append(body))
    payload = io.BytesIO(b'{"session_id": "s1", "hook_event_name": "SessionStart"}')
    assert event_hook_main(["claude"], stdin=payload, env=env) == 0
    (body,) = posted
    assert json.loads(body)[TERMINAL_FIELD] == found


def test_one_attached_client_raises_the_sessions_window_and_pane(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub = served()
    (ext,) = server.extensions.items
    assert isinstance(ext, FocusExtension)
    env = tmux.pane_env("work:1", tmp_path / "env1")  # the session runs in the window not shown
    _started_in_pane(hub, env)
    tmux.attach()
    before = tmux.shown()
    assert before[1] == "0"
    assert _raise(server, None).status_code == 403, "no capability, no raise"
    assert _raise(server, "wrong").status_code == 403
    done = _raise(server, ext.capability)
    assert done.status_code == 200 and done.json()["raised"] is True
    assert tmux.shown() == (env["TMUX_PANE"], "1"), "the attached terminal now shows the session's pane"
    doc = httpx.get(server.url + "/api/data").json()
    assert doc["focus"]["raisable"] == ["claude:s1"], "the row carries the control; s2 does not"
    assert doc["focus"]["coverage"].startswith("Terminal raise: 1 of 2 sessions on this board can be raised")
    assert "1 sent no lifecycle event from inside tmux" in doc["focus"]["coverage"]


def test_a_second_attached_client_means_no_control(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub = served()
    (ext,) = server.extensions.items
    env = tmux.pane_env("work:1", tmp_path / "env1")
    _started_in_pane(hub, env)
    tmux.attach()
    tmux.attach()
    before = tmux.shown()
    refused = _raise(server, ext.capability)
    assert refused.status_code == 409 and refused.json() == {"raised": False, "reason": "clients"}
    assert tmux.shown() == before, "nothing changed on either terminal"
    assert ext.reason_for("claude", "s1", fresh=True) == "clients"
    # The published reading follows the next board: wait for it rather than race it.
    deadline = time.monotonic() + 10
    doc = httpx.get(server.url + "/api/data").json()
    while doc["focus"]["raisable"] and time.monotonic() < deadline:
        time.sleep(0.1)
        doc = httpx.get(server.url + "/api/data").json()
    assert doc["focus"]["raisable"] == []
    assert "1 have more than one terminal attached" in doc["focus"]["coverage"]


def test_a_session_started_before_this_dashboard_carries_no_control(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub = served()
    (ext,) = server.extensions.items
    env = tmux.pane_env("work:1", tmp_path / "env1")
    terminal = terminal_identity(env)
    tmux.attach()
    # Its first event this run is a prompt, not a start: it was already running.
    hub.ingest("claude", {"session_id": "old", "hook_event_name": "UserPromptSubmit", TERMINAL_FIELD: terminal})
    assert ext.reason_for("claude", "old") == "started-before"
    assert _raise(server, ext.capability, "old").status_code == 409


def test_no_focus_records_no_terminal_and_offers_nothing(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub = served(Options(no_focus=True), record_terminals=False)
    assert server.extensions.items == ()
    _started_in_pane(hub, tmux.pane_env("work:1", tmp_path / "env1"))
    assert hub.terminal_of("claude", "s1") is None, "no terminal identity is recorded"
    assert httpx.post(server.url + "/api/focus", json={}).status_code in (404, 405)
    off_server, _ = served(Options(no_events=True), events=False)
    assert off_server.extensions.items == (), "--no-events turns it off as well"


def test_the_coverage_line_says_how_far_it_reached() -> None:
    line = coverage_sentence(5, {"claude:a": "ok", "claude:b": "clients", "codex:c": "started-before"})
    assert line.startswith("Terminal raise: 1 of 5 sessions on this board can be raised")
    assert "2 sent no lifecycle event from inside tmux" in line
    assert "1 have more than one terminal attached" in line and "1 started before this dashboard did" in line
