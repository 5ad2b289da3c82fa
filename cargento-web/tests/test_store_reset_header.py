"""A reset of the server's own stores is named in the page's header, with when it happened."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier
from cargento_web.runtime.stores import DELIVERIES_FILE

pytestmark = pytest.mark.browser

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

if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    pytest.skip(f"{CHROMIUM} is absent and CI is unset", allow_module_level=True)


def test_the_header_names_a_reset_store_and_when(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    state = tmp_path / "state"
    state.mkdir()
    (state / DELIVERIES_FILE).write_bytes(b"{broken")
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=state, notifier=MemoryNotifier())
    server = serve(builder_for([("claude", FakeHarness("claude", [FakeSession("s1", age_s=5)]))], tmp_path), hub=hub)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.goto(server.url + "/")
            item = page.locator(f'header .store-reset[data-store="{DELIVERIES_FILE}"]')
            item.wait_for(timeout=10_000)
            text = item.inner_text()
        finally:
            browser.close()
    assert "was reset at" in text and "kept as" in text and "started empty" in text
    hub.close()


def test_no_reset_no_line(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=MemoryNotifier())
    server = serve(builder_for([("claude", FakeHarness("claude", [FakeSession("s1", age_s=5)]))], tmp_path), hub=hub)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.goto(server.url + "/")
            page.locator("header nav").wait_for(timeout=10_000)
            count = page.locator("header .store-reset").count()
        finally:
            browser.close()
    assert count == 0
    hub.close()
