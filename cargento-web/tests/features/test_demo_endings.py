"""``cargento --demo`` ends some sessions with uncommitted work and some clean (real
repositories made in the demo home), so Attention shows every group from the first minute."""

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
import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
SIX = {"stop-dirty", "stop-clean", "stop-unmeasured", "end-dirty", "end-clean", "end-unmeasured"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_demo_shows_every_reading_and_group(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    state = tmp_path / "state"
    env = {**os.environ, "HOME": str(tmp_path / "home"), "CARGENTO_HOME": str(state)}
    (tmp_path / "home").mkdir()
    exe = Path(sys.executable).parent / "cargento"
    proc = subprocess.Popen(
        [str(exe), "--demo", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        doc: dict[str, Any] = {}
        outcomes: set[str] = set()
        while time.monotonic() < deadline:
            try:
                doc = httpx.get(url + "/api/data", timeout=5).json()
            except httpx.HTTPError:
                time.sleep(0.3)
                continue
            readings = doc.get("endings", {}).get("readings", {}).values()
            outcomes = {r["outcome"] for r in readings if not r["probing"]}
            if outcomes >= SIX:
                break
            time.sleep(0.3)
        assert outcomes >= SIX, f"the demo shows all six readings: {outcomes}"
        history = httpx.get(
            url + "/api/history",
            params={"harness": doc["sessions"][0]["harness"], "sid": doc["sessions"][0]["session_id"]},
            timeout=5,
        ).json()
        assert history["on"] and history["observations"], "the demo's history shows from the first minute"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            page.goto(url + "/#n=attention")
            page.locator(".close-loop .ending").first.wait_for(timeout=15_000)
            assert page.locator(".coming-next li").count() > 0
            assert page.locator('.attention [data-mark="dirty"]').count() > 0, (
                "At risk holds an end with uncommitted work"
            )
            assert "to close the loop" in page.locator(".attention .brief").inner_text()
            browser.close()
        mine = ("cargento-history.json", "cargento-ends.json", "cargento-dismissals.json")
        assert not any((state / name).exists() for name in mine), "the demo's stores live in its own home"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
