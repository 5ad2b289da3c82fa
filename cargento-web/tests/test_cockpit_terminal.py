"""The read-only terminal prototype against a real tmux server made in the test: it exists only
with both interaction flags, registers only from inside the session's pane with the capability
from the private file, shows the pane's output, and accepts no input."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento.cli import Options
from cargento_harness_claude import plugin as claude
from cargento_harness_claude.fixtures import ClaudeStore

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

SID = "7e7e7e7e-0000-4000-8000-000000000007"
SESSION = f"claude:{SID}"
FEATURE = ["cargento_web.cockpit"]


class Tmux:
    """A private tmux server (its own socket) with one pane running a plain shell in *cwd*."""

    def __init__(self, root: Path, cwd: Path) -> None:
        self.socket = str(root / "tmux.sock")
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        env["PS1"] = "$ "
        self.env = env
        self.run("new-session", "-d", "-s", "ck", "-x", "160", "-y", "40", "-c", str(cwd), "sh")
        self.pane = self.run("display-message", "-p", "-t", "ck", "#{pane_id}").strip()

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", self.socket, *args], env=self.env, capture_output=True, text=True, check=True, timeout=10
        ).stdout

    def type(self, line: str) -> None:
        self.run("send-keys", "-t", self.pane, "-l", line)
        self.run("send-keys", "-t", self.pane, "Enter")

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.pane)

    def stop(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], env=self.env, capture_output=True, timeout=10)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Path, Path, Tmux]]:
    home = tmp_path / "home"
    cwd = tmp_path / "w" / "term"
    cwd.mkdir(parents=True)
    s = ClaudeStore(home).session(SID, cwd=str(cwd))
    s.prompt("watch the build", time.time() - 20)
    tmux = Tmux(tmp_path, cwd)
    yield home, cwd, tmux
    tmux.stop()


def _register_from_the_pane(tmux: Tmux, url: str, capability_expr: str, out: Path) -> dict[str, Any]:
    body = '{"capability":"' + capability_expr + '","session":"' + SESSION + '","tmux":"$TMUX","pane":"$TMUX_PANE"}'
    tmux.type(
        f"curl -s -o {out} -X POST -H 'Content-Type: application/json' --data \"{body.replace(chr(34), chr(92) + chr(34))}\" {url}/api/terminal/register"
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if out.exists() and out.stat().st_size:
            return json.loads(out.read_text())  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError(f"the pane never answered; screen:\n{tmux.screen()}")


def test_off_without_both_flags(serve: Any, builder_for: Any, world: tuple[Path, Path, Tmux], tmp_path: Path) -> None:
    home, _, _ = world
    for options in (Options(), Options(interaction_origin_session=SESSION)):
        server = serve(builder_for([("claude", claude)], home), features=FEATURE, options=options)
        assert httpx.get(server.url + "/api/terminal", timeout=5).status_code == 404
        assert httpx.get(server.url + "/terminal", timeout=5).status_code == 404
        doc = httpx.get(server.url + "/api/data", timeout=5).json()
        assert doc["cockpit"]["terminal"]["offered"] is False


def test_registration_from_inside_the_pane_shows_output_and_takes_no_input(
    serve: Any, builder_for: Any, world: tuple[Path, Path, Tmux], tmp_path: Path
) -> None:
    home, _cwd, tmux = world
    private = tmp_path / "private" / "registration"
    server = serve(
        builder_for([("claude", claude)], home),
        features=FEATURE,
        options=Options(interaction_origin_session=SESSION, interaction_origin_registration_file=str(private)),
    )
    assert stat.S_IMODE(private.stat().st_mode) == 0o600, "the generated capability file is private"
    capability = private.read_text().strip()
    assert len(capability) >= 32
    httpx.get(server.url + "/api/data", timeout=5)  # the board holds the session
    assert httpx.get(server.url + "/api/terminal", timeout=5).json()["registered"] is False
    headers = {"Content-Type": "application/json"}

    def post(body: dict[str, Any]) -> httpx.Response:
        return httpx.post(server.url + "/api/terminal/register", content=json.dumps(body), headers=headers, timeout=10)

    real = {"session": SESSION, "tmux": f"{tmux.socket},1,0", "pane": tmux.pane}
    assert post({**real}).status_code == 403, "no capability"
    assert post({**real, "capability": "guess"}).status_code == 403, "a wrong capability"
    assert post({**real, "capability": capability, "session": "claude:other"}).status_code == 403
    assert post({**real, "capability": capability, "pane": "%999"}).status_code == 422, "no such pane"
    # The capability read from the file, and $TMUX / $TMUX_PANE, from inside the pane itself.
    tmux.type("echo hello-from-the-pane")
    answer = _register_from_the_pane(tmux, server.url, f"$(cat {private})", tmp_path / "answer.json")
    assert answer == {"registered": True, "pane": tmux.pane}
    shown = httpx.get(server.url + "/api/terminal", timeout=5).json()
    assert shown["registered"] and shown["available"] and shown["pane"] == tmux.pane
    assert any("hello-from-the-pane" in line for line in shown["lines"])
    assert len(shown["lines"]) <= shown["max_lines"]
    # No input, by any route or method.
    assert httpx.post(server.url + "/api/terminal", content="echo injected", timeout=5).status_code == 405
    for path in ("/api/terminal/input", "/api/terminal/keys", "/api/terminal/send"):
        assert httpx.post(server.url + path, content="x", timeout=5).status_code in (404, 405)
    assert "injected" not in tmux.screen()


def test_a_pane_outside_the_sessions_directory_is_refused(
    serve: Any, builder_for: Any, world: tuple[Path, Path, Tmux], tmp_path: Path
) -> None:
    home, _, tmux = world
    tmux.type(f"cd {tmp_path}")
    time.sleep(0.5)
    private = tmp_path / "reg"
    server = serve(
        builder_for([("claude", claude)], home),
        features=FEATURE,
        options=Options(interaction_origin_session=SESSION, interaction_origin_registration_file=str(private)),
    )
    httpx.get(server.url + "/api/data", timeout=5)
    answer = _register_from_the_pane(tmux, server.url, f"$(cat {private})", tmp_path / "answer.json")
    assert answer["registered"] is False and "working directory" in answer["error"]


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists("/usr/bin/chromium") and not os.environ.get("CI"), reason="chromium is absent")
def test_the_console_frames_the_pane_in_xterm_and_typing_there_reaches_nothing(
    serve: Any, builder_for: Any, world: tuple[Path, Path, Tmux], tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    home, _, tmux = world
    private = tmp_path / "reg"
    server = serve(
        builder_for([("claude", claude)], home),
        features=FEATURE,
        options=Options(interaction_origin_session=SESSION, interaction_origin_registration_file=str(private)),
    )
    httpx.get(server.url + "/api/data", timeout=5)
    tmux.type("echo shown-in-xterm")
    assert _register_from_the_pane(tmux, server.url, f"$(cat {private})", tmp_path / "a.json")["registered"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            project = "w%2Fterm"
            page.goto(f"{server.url}/#n=project:{project}:claude:{SID}:console")
            page.wait_for_selector(".ck-panel[data-panel=console]")
            summary = page.locator("details.started summary").inner_text()
            assert "terminal on" in summary
            cap = page.locator(".ck-panel > [data-capability=terminal]")
            assert cap.count() == 1, "a capability that is on renders outside the disclosure"
            frame = page.frame_locator("iframe.terminal-frame")
            frame.locator(".xterm-rows").wait_for()
            page.wait_for_function(
                "() => { const f = document.querySelector('iframe.terminal-frame');"
                " return f && f.contentDocument && f.contentDocument.querySelector('.xterm-rows')"
                " && f.contentDocument.querySelector('.xterm-rows').textContent.includes('shown-in-xterm'); }",
                timeout=10_000,
            )
            frame.locator(".xterm").click()
            page.keyboard.type("echo typed-into-xterm")
            page.keyboard.press("Enter")
            time.sleep(1.0)
            assert "typed-into-xterm" not in tmux.screen(), "nothing typed in the page reaches the pane"
            assert not [e for e in errors if "Content Security Policy" in e], errors
        finally:
            browser.close()
