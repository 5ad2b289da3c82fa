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
from cargento_web.focus import FOCUS_HEADER, IN_FRONT_TTL_S, FocusExtension
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

    def attach(self) -> int:
        """Attach one more terminal; returns the pty end that terminal writes from."""
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
        return leader

    def focus(self, leader: int, focused: bool) -> None:
        """The terminal on *leader* reports its focus as a terminal does (``CSI I`` / ``CSI O``)."""
        os.write(leader, b"\x1b[I" if focused else b"\x1b[O")
        want = "focused" if focused else ""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            flags = self.run("list-clients", "-F", "#{client_flags}")
            if ("focused" in flags.split(",")) == bool(want):
                return
            time.sleep(0.05)
        raise AssertionError(f"the client's focus did not become {focused}")

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
    def start(
        options: Options | None = None,
        *,
        platform: str | None = None,
        env: dict[str, str] | None = None,
        clock: Clock | None = None,
        **hub_options: Any,
    ) -> tuple[Any, EventHub]:
        clock = clock or Clock()
        hub = EventHub(clock=clock, state_dir=tmp_path / "state", notifier=MemoryNotifier(), **hub_options)
        sessions = [FakeSession("s1", title="Orders API"), FakeSession("s2", title="Docs")]
        builder = builder_for(
            [("claude", FakeHarness("claude", sessions))], tmp_path, clock=clock, platform=platform, env=env
        )
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


# -- macOS: the terminal application's tab ---------------------------------------------------


def _fake_osascript(folder: Path, answer: str = "Terminal", code: int = 0, stderr: str = "") -> Path:
    """An ``osascript`` stand-in: records the arguments and the script it was given, answers
    *answer* and exits *code*."""
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    record = folder / "scripts.jsonl"
    tool = folder / "osascript"
    tool.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "script = sys.stdin.read()\n"
        f"with open({str(record)!r}, 'a') as out:\n"
        "    out.write(json.dumps({'argv': sys.argv[1:], 'script': script}) + '\\n')\n"
        f"sys.stdout.write({answer!r} + '\\n')\n"
        f"sys.stderr.write({stderr!r})\n"
        f"sys.exit({code})\n"
    )
    tool.chmod(0o755)
    return record


def _scripts(record: Path) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def _darwin(served: Callable[..., Any], tmp_path: Path, **fake: Any) -> tuple[Any, EventHub, Path]:
    record = _fake_osascript(tmp_path / "bin", **fake)
    path = f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    server, hub = served(platform="darwin", env={"PATH": path})
    return server, hub, record


def test_on_macos_the_raise_selects_the_terminal_tab_by_the_clients_tty_without_activating(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub, record = _darwin(served, tmp_path)
    (ext,) = server.extensions.items
    env = tmux.pane_env("work:1", tmp_path / "env1")
    _started_in_pane(hub, env)
    tmux.attach()
    tty = tmux.run("list-clients", "-F", "#{client_tty}")
    done = _raise(server, ext.capability)
    assert done.status_code == 200, done.text
    reply = done.json()
    assert reply["raised"] is True and tmux.shown() == (env["TMUX_PANE"], "1"), "the tmux part first"
    assert reply["tab"] == {
        "outcome": "selected",
        "detail": f"the Terminal tab showing {tty} is selected",
        "application": "Terminal",
    }
    (call,) = _scripts(record)
    script = call["script"]
    assert f'"{tty}"' in script, "the script names the attached terminal's tty"
    assert "tty of t is wanted" in script and "set selected of t to true" in script
    lowered = script.lower()
    for never in ("activate", "keystroke", "do script", "key code", "frontmost"):
        assert never not in lowered, f"the script must never {never}"
    assert 'application "Terminal" is running' in script, "only an application already running is asked"
    doc = httpx.get(server.url + "/api/data").json()
    assert "on macOS also the Terminal.app or iTerm2 tab showing that terminal" in doc["focus"]["coverage"]


def test_on_macos_a_failing_osascript_is_reported_and_the_tmux_part_still_done(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub, record = _darwin(
        served, tmp_path, answer="", code=1, stderr="execution error: Not authorised to send Apple events (-1743)\n"
    )
    (ext,) = server.extensions.items
    env = tmux.pane_env("work:1", tmp_path / "env1")
    _started_in_pane(hub, env)
    tmux.attach()
    done = _raise(server, ext.capability)
    assert done.status_code == 200
    reply = done.json()
    assert reply["raised"] is True and tmux.shown() == (env["TMUX_PANE"], "1")
    assert reply["tab"]["outcome"] == "failed"
    assert reply["tab"]["detail"] == "osascript refused: execution error: Not authorised to send Apple events (-1743)"
    assert len(_scripts(record)) == 1


def test_on_macos_no_tab_showing_the_tty_is_said_as_such(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    server, hub, _record = _darwin(served, tmp_path, answer="none")
    (ext,) = server.extensions.items
    _started_in_pane(hub, tmux.pane_env("work:1", tmp_path / "env1"))
    tmux.attach()
    tab = _raise(server, ext.capability).json()["tab"]
    assert tab["outcome"] == "no-tab" and tab["detail"].startswith("no running Terminal.app or iTerm2 tab shows /dev/")


def test_off_macos_only_tmux_is_asked_and_the_coverage_says_so(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    record = _fake_osascript(tmp_path / "bin")
    path = f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    server, hub = served(platform="linux", env={"PATH": path})
    (ext,) = server.extensions.items
    _started_in_pane(hub, tmux.pane_env("work:1", tmp_path / "env1"))
    tmux.attach()
    tab = _raise(server, ext.capability).json()["tab"]
    assert tab["outcome"] == "tmux-only" and _scripts(record) == [], "no osascript runs off macOS"
    doc = httpx.get(server.url + "/api/data").json()
    assert "tmux only: terminal application tabs are named on macOS alone" in doc["focus"]["coverage"]


def test_the_tab_script_refuses_anything_but_a_tty_path() -> None:
    from cargento_web.focus.terminal_tab import tab_script

    assert '"/dev/ttys003"' in tab_script("/dev/ttys003")
    for bad in ('/dev/ttys1" & do shell script "x', "ttys003", "/dev/../etc/passwd", ""):
        with pytest.raises(ValueError):
            tab_script(bad)


# -- a session whose terminal is in front of you is not also pinged --------------------------


def _gate(hub: EventHub, sid: str = "s1") -> None:
    hub.ingest("claude", {"session_id": sid, "hook_event_name": "PermissionRequest", "tool_name": "Bash"})


def _answer(hub: EventHub, sid: str = "s1") -> None:
    hub.ingest("claude", {"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Bash"})


def _confirmed(hub: EventHub, clock: Clock) -> None:
    from datetime import timedelta

    for _ in range(6):
        clock.now += timedelta(seconds=1)
        hub.tick(clock.now)
    assert hub.alerts.drain()


def test_a_session_whose_pane_is_in_front_of_you_is_not_pinged(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    from datetime import timedelta

    tmux.run("set-option", "-s", "focus-events", "on")  # before attaching, as tmux asks
    clock = Clock()
    server, hub = served(clock=clock)
    (ext,) = server.extensions.items
    heard: list[str] = []
    hub.alerts.listen(lambda item, now: heard.append(item.session_id))  # the reach lane's view
    env = tmux.pane_env("work:1", tmp_path / "env1")
    _started_in_pane(hub, env)
    leader = tmux.attach()

    # The terminal shows window 0, not the session's pane: pinged.
    _gate(hub)
    _confirmed(hub, clock)
    assert [d.session_id for d in hub.deliveries.all()] == ["s1"] and heard == ["s1"]
    _answer(hub)

    # Raised: its pane is the active pane of the one attached, focused terminal. Not pinged.
    assert _raise(server, ext.capability).json()["raised"] is True
    # tmux has one second to answer each question a raise asks; on a loaded machine the first
    # answer after the raise can miss it (and the reading is then unknown, so the session is
    # pinged): wait until tmux has said so once, as it would by the time a person looks.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = ext.reading("claude", "s1", max_age_s=0)
        if found is not None and found.in_front is True:
            break
        time.sleep(0.1)
    clock.now += timedelta(minutes=2)  # past the desktop's cooldown
    _gate(hub)
    _confirmed(hub, clock)
    assert len(hub.deliveries.all()) == 1 and heard == ["s1"], "no lane pinged the session in front of you"
    assert hub.alerts.withheld["in-front"] == 1
    (skipped, *_) = hub.session_record("claude", "s1")["withheld"]
    assert skipped["rule"] == "in-front" and "its tmux pane is in front of you" in skipped["words"]
    doc = httpx.get(server.url + "/api/data").json()
    deadline = time.monotonic() + 10
    while doc["focus"]["in_front"] != ["claude:s1"] and time.monotonic() < deadline:
        time.sleep(0.1)
        doc = httpx.get(server.url + "/api/data").json()
    assert doc["focus"]["in_front"] == ["claude:s1"], "the page's own lane is told the same"
    _answer(hub)

    # The terminal loses focus (you switched to another application): pinged again.
    tmux.focus(leader, False)
    time.sleep(IN_FRONT_TTL_S + 0.1)  # a raise reads tmux at most this stale
    clock.now += timedelta(minutes=2)
    _gate(hub)
    _confirmed(hub, clock)
    assert len(hub.deliveries.all()) == 2 and heard == ["s1", "s1"]


def test_without_focus_events_tmux_cannot_tell_and_the_session_is_pinged(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    clock = Clock()
    server, hub = served(clock=clock)
    (ext,) = server.extensions.items
    _started_in_pane(hub, tmux.pane_env("work:1", tmp_path / "env1"))
    tmux.attach()
    assert _raise(server, ext.capability).json()["raised"] is True
    assert ext.reading("claude", "s1", max_age_s=0).in_front is None, "focused is only believed with focus-events on"
    _gate(hub)
    _confirmed(hub, clock)
    assert [d.session_id for d in hub.deliveries.all()] == ["s1"]
    assert hub.alerts.withheld["in-front"] == 0


def test_a_second_attached_terminal_means_the_pane_is_not_read_as_in_front(
    tmux: TmuxServer, served: Callable[..., Any], tmp_path: Path
) -> None:
    tmux.run("set-option", "-s", "focus-events", "on")
    clock = Clock()
    server, hub = served(clock=clock)
    (ext,) = server.extensions.items
    env = tmux.pane_env("work:0", tmp_path / "env0")  # the pane the terminals show
    _started_in_pane(hub, env)
    tmux.attach()
    tmux.attach()
    assert ext.reading("claude", "s1", max_age_s=0).in_front is not True
    _gate(hub)
    _confirmed(hub, clock)
    assert [d.session_id for d in hub.deliveries.all()] == ["s1"]
