"""``cargento --demo`` as a user meets it: one command, a populated live board, nothing of theirs touched.

Runs the real console script in a subprocess against a fake "real" home that holds a Claude
store of its own, and drives the page in Debian's Chromium.
"""

from __future__ import annotations

import os
import re
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
from cargento.testing.homes import snapshot_tree, write_jsonl

HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DemoProcess:
    def __init__(self, real_home: Path, state: Path) -> None:
        self.port = _free_port()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("CLAUDE_", "CODEX_", "GEMINI_", "COPILOT_", "PI_CODING", "XDG_"))
        }
        env.update({"HOME": str(real_home), "CARGENTO_HOME": str(state)})
        exe = Path(sys.executable).parent / "cargento"
        self.proc = subprocess.Popen(
            [str(exe), "--demo", "--port", str(self.port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError("the demo did not start: " + self.output())

    def board(self) -> dict[str, Any]:
        data: dict[str, Any] = httpx.get(self.url + "/api/data", timeout=30).json()
        return data

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def output(self) -> str:
        out, err = self.proc.communicate(timeout=10) if self.proc.poll() is not None else ("", "")
        return (out or "") + (err or "")


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[tuple[DemoProcess, Path]]:
    real_home = tmp_path / "real-home"
    write_jsonl(
        real_home / ".claude" / "projects" / "-w-mine" / "11111111-2222-4333-8444-555555555555.jsonl",
        [
            {
                "type": "user",
                "sessionId": "11111111-2222-4333-8444-555555555555",
                "cwd": "/w/mine",
                "timestamp": "2026-11-30T10:00:00.000Z",
                "message": {"role": "user", "content": "my own private session"},
            }
        ],
    )
    before = snapshot_tree(real_home)
    proc = DemoProcess(real_home, tmp_path / "state")
    try:
        yield proc, real_home
    finally:
        proc.stop()
    assert snapshot_tree(real_home) == before, "the demo never touches the user's own stores"


def test_demo_serves_every_harness_live_and_cleans_up(demo: tuple[DemoProcess, Path]) -> None:
    proc, _ = demo
    board = proc.board()
    discovered = {h["key"] for h in board["harnesses"] if h["discovered"] and not h["error"]}
    assert discovered == set(HARNESSES)
    assert {s["harness"] for s in board["sessions"]} == set(HARNESSES)
    assert not any(s["session_id"].startswith("11111111") for s in board["sessions"]), "the real store is not read"
    seen_states: set[tuple[str, str]] = set()
    waits: set[str] = set()
    rates = False
    deadline = time.monotonic() + 150
    first_revision = board["revision"]
    while time.monotonic() < deadline:
        board = proc.board()
        for s in board["sessions"]:
            seen_states.add((s["harness"], s["state"]))
            if s["state"] == "needs_input":
                waits.add(s["harness"])
            if s["output_tokens_per_min"]:
                rates = True
        if {"claude", "copilot", "cursor"} <= waits and rates and board["revision"] > first_revision + 3:
            break
        time.sleep(2)
    assert rates, "token output flows"
    assert {"claude", "copilot", "cursor"} <= waits, f"permission waits seen: {sorted(waits)}"
    assert board["revision"] > first_revision, "the board keeps changing"
    assert any(state == "working" for _, state in seen_states)
    code = proc.stop()
    out = proc.output()
    assert code == 0
    match = re.search(r"demo home (\S+)", out)
    assert match, out
    assert not Path(match.group(1)).exists(), "the demo home is removed on exit"


@pytest.mark.browser
def test_demo_page_shows_rows_changing_without_a_reload(demo: tuple[DemoProcess, Path]) -> None:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is absent under CI")
        print(f"skipping: {CHROMIUM} is absent (apt-get install chromium)")
        pytest.skip("chromium is absent and CI is unset")
    from playwright.sync_api import sync_playwright

    proc, _ = demo
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(proc.url + "/")
            page.wait_for_selector("li.row")
            for key in HARNESSES:
                assert page.locator(f'.strip li.harness.on[data-harness="{key}"]').count() == 1, key

            def states() -> dict[str, str]:
                pairs = page.eval_on_selector_all(
                    "li.row[data-key]", "els => els.map(e => [e.dataset.key, e.dataset.state])"
                )
                return {k: v for k, v in pairs}

            first = states()
            changed = False
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not changed:
                page.wait_for_timeout(1000)
                now = states()
                changed = any(now.get(k) not in (None, v) for k, v in first.items())
            assert changed, "a row changes state on the page without a reload"
        finally:
            browser.close()
