"""With no edit to Cargento's core or web, the example plugin's declared event lane drives its
row on the real dashboard, ``cargento hooks show`` lists its declared target, and the page
draws its declared mark and its wait-coverage line (in a real browser)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cargento_harness_example.plugin as plugin
import httpx
import pytest
import uvicorn
from cargento.board import BoardBuilder
from cargento.cli import Options
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.statedir import CAPABILITY_HEADER
from cargento.testing.homes import write_jsonl
from cargento_web.app import create_app
from cargento_web.ingress import create_hub
from cargento_web.probe import bind_socket
from cargento_web.settings import Settings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]


def _stamp(seconds_ago: float) -> str:
    return datetime.fromtimestamp(time.time() - seconds_ago, UTC).isoformat().replace("+00:00", "Z")


class Dashboard:
    """The real dashboard app (hub included, built by cargento-web's own seam) on a loopback
    port, over a registry holding only the example plugin."""

    def __init__(self, home: Path) -> None:
        env = {"HOME": str(home), "CARGENTO_HOME": str(home / "state")}
        registry = load_registry(entry_points=False, extra=[("example", plugin)])
        builder = BoardBuilder(registry, env=env, home=home, processes=StaticProcesses())
        sock = bind_socket("127.0.0.1", 0)
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        settings = Settings(port=self.port, heartbeat_s=0.5, rescan_s=0.5, debounce_s=0.05)
        self.hub: Any = create_hub(builder=builder, settings=settings, options=Options(port=self.port, no_notify=True))
        self.app = create_app(builder=builder, settings=settings, hub=self.hub)
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
        )
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started

    def post(self, body: dict[str, Any]) -> httpx.Response:
        headers = {"Content-Type": "application/json", CAPABILITY_HEADER: self.hub.capability}
        return httpx.post(
            self.url + "/api/events/example", content=json.dumps(body).encode(), headers=headers, timeout=10
        )

    def row(self, sid: str) -> dict[str, Any]:
        board = httpx.get(self.url + "/api/data", timeout=10).json()
        return next(s for s in board["sessions"] if s["session_id"] == sid)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def dashboard(tmp_path: Path) -> Iterator[Dashboard]:
    home = tmp_path / "home"
    write_jsonl(
        home / ".example-agent" / "sessions" / "s1.jsonl",
        [
            {"type": "start", "cwd": "/w/acme/api", "at": _stamp(900)},
            {"type": "prompt", "text": "Add a retry to the fetcher", "at": _stamp(899)},
            {"type": "turn_end", "at": _stamp(890)},
        ],
    )
    old = time.time() - 890
    os.utime(home / ".example-agent" / "sessions" / "s1.jsonl", (old, old))
    made = Dashboard(home)
    yield made
    made.stop()


def _until(check: Any, timeout: float = 5.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_the_example_lane_drives_its_rows_state(dashboard: Dashboard) -> None:
    assert dashboard.row("s1")["state"] == "idle"
    asked = dashboard.post(
        {"event": "approval.asked", "session_id": "s1", "request_id": "a1", "question": "Delete the cache?"}
    )
    assert asked.status_code == 202, asked.text
    assert _until(lambda: dashboard.row("s1")["state"] == "needs_input")
    waiting = dashboard.row("s1")["waiting"]
    assert (waiting["kind"], waiting["text"]) == ("question", "Delete the cache?"), "refine_event worded the gate"
    assert dashboard.post({"event": "approval.answered", "session_id": "s1", "request_id": "a1"}).status_code == 202
    assert dashboard.post({"event": "prompt", "session_id": "s1"}).status_code == 202
    assert _until(lambda: dashboard.row("s1")["state"] == "working")
    assert dashboard.post({"event": "turn.end", "session_id": "s1"}).status_code == 202
    assert _until(lambda: dashboard.row("s1")["state"] == "idle")


def test_cargento_hooks_show_lists_the_example_target(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "CARGENTO_LOAD_PLUGINS": "example"}
    shown = subprocess.run(
        [sys.executable, "-m", "cargento.cli", "hooks", "show"], capture_output=True, text=True, env=env, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    assert (
        shown.stdout
        == f"example        not installed; 0 other handler(s) left alone: {tmp_path / '.example-agent' / 'settings.json'}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "cargento.cli", "hooks", "install", "example", "--script"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads((tmp_path / ".example-agent" / "settings.json").read_text())
    assert list(settings["hooks"]) == list(plugin.HOOK_EVENTS)
    assert settings["hooks"]["prompt"][0]["hooks"][0]["command"] == "cargento-event-hook example"


@pytest.mark.browser
def test_the_page_draws_the_example_mark_and_its_coverage_line(dashboard: Dashboard) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.goto(dashboard.url + "/#n=attention")
            page.wait_for_selector(".attention .coverage li[data-harness='example']", timeout=10_000)
            mark = page.locator(".strip li[data-harness='example'] svg")
            assert mark.locator("text").text_content() == "EX"
            assert mark.locator("g").get_attribute("fill") == "hsl(140 55% 42%)", "the declared hue"
            assert mark.locator("path").get_attribute("d") == "M6.5 1.5 H17.5 L23 12 L17.5 22.5 H6.5 L1 12 Z", (
                "the declared hex"
            )
            line = page.locator(".attention .coverage li[data-harness='example']").inner_text()
            assert line.split(None, 1) == ["EX", f"Example Agent: {plugin.WAIT_COVERAGE}"], (
                "its mark, then its coverage line"
            )
        finally:
            browser.close()
