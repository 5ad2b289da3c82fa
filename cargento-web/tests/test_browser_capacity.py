"""The capacity strip and its consent switch in the real browser (Debian Chromium), over a real
server whose vendor endpoint is stood in for by httpx's MockTransport."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cargento.testing.fakes import FakeHarness, FakeSession

pytestmark = pytest.mark.browser


def _sibling(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"cargento_web_tests_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TB = _sibling("test_browser")
browser = _TB.browser
page_for = _TB.page_for
_CALM = _sibling("test_browser_calm")
axe_source = _CALM.axe_source
axe_page = _CALM.axe_page
_SERVED = _sibling("test_capacity_served")
standin = _SERVED.standin
FEATURE, TOKEN = _SERVED.FEATURE, _SERVED.TOKEN


def _axe(axe_page: Callable[..., Any], url: str, source: str) -> list[dict[str, Any]]:
    checked = axe_page(url + "/")
    checked.locator("section.capacity").wait_for(timeout=30_000)
    found: list[dict[str, Any]] = _CALM.axe_violations(checked, source)
    return found


def test_the_consent_disclosure_then_the_switch(
    serve: Any,
    builder_for: Any,
    tmp_path: Path,
    page_for: Callable[..., Any],
    axe_page: Callable[..., Any],
    axe_source: str,
) -> None:
    standin.HANDLER.clear()
    standin.REQUESTS.clear()
    standin.READS.clear()
    standin.HANDLER.append(_SERVED.claude_reply)
    _SERVED.write_login(tmp_path)
    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1", age_s=30)]))], tmp_path)
    server = serve(builder, features=[FEATURE], state_dir=tmp_path / "state")
    page = page_for(server.url + "/")
    strip = page.locator("section.capacity")
    strip.wait_for(timeout=30_000)
    assert "Until you answer, nothing is read and nothing is asked" in strip.inner_text()
    assert strip.inner_text().count("Claude Code publish their allowance") == 1, "the disclosure names the vendors"
    assert standin.READS == [] and standin.REQUESTS == []
    assert not _axe(axe_page, server.url, axe_source), "the disclosure passes axe-core"

    page.get_by_role("button", name="Allow vendor quota").click()
    row = page.locator('.cap-row[data-key="claude:5h"]')
    row.wait_for(timeout=30_000)
    assert "80% spent" in row.inner_text() and row.get_attribute("data-tone") in {"accent", "amber", "clay"}
    assert "runs out in" in row.inner_text() and "resets in" in row.inner_text()
    assert len(standin.REQUESTS) == 1
    assert TOKEN not in page.content()
    switch = page.get_by_role("switch")
    assert switch.is_checked()
    assert not _axe(axe_page, server.url, axe_source), "the strip and its switch pass axe-core"

    page.goto(server.url + "/#n=attention")
    page.locator('.off-count li[data-kind="quota"]').first.wait_for(timeout=30_000)
    assert "Claude Code quota 5h: 80% spent" in page.locator(".off-count").inner_text()
    brief = page.locator(".attention .brief").inner_text()
    assert "of the other 1:" in brief, "quota pressure never joins the session count"
    page.goto(server.url + "/")
    page.locator("section.capacity").wait_for(timeout=30_000)

    page.get_by_role("switch").click()
    page.locator('.cap-row[data-key="claude:5h"]').wait_for(state="detached", timeout=30_000)
    assert json.loads((tmp_path / "state" / "capacity.json").read_text())["vendor_quota"] == "off"
    assert not page.get_by_role("switch").is_checked()
    page.reload()
    page.locator("section.capacity").wait_for(timeout=30_000)
    assert not page.get_by_role("switch").is_checked(), "the answer is remembered"
    assert "Allow vendor quota" not in page.locator("section.capacity").inner_text()
    assert page.errors == []


def test_an_empty_board_still_shows_capacity_and_its_consent(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Callable[..., Any]
) -> None:
    """No session in the display window (a quiet morning, or an allowance spent yesterday) is
    when the remaining allowance matters most: the empty board says where Cargento looked and
    still carries the capacity strip, with its consent question, under it."""
    standin.HANDLER.clear()
    standin.REQUESTS.clear()
    standin.READS.clear()
    standin.HANDLER.append(_SERVED.claude_reply)
    _SERVED.write_login(tmp_path)
    builder = builder_for([("fake", FakeHarness("fake", []))], tmp_path)
    server = serve(builder, features=[FEATURE], state_dir=tmp_path / "state")
    page = page_for(server.url + "/")
    page.wait_for_selector(".empty-board", timeout=30_000)
    strip = page.locator("section.capacity")
    strip.wait_for(timeout=30_000)
    assert "Until you answer, nothing is read and nothing is asked" in strip.inner_text()
    page.get_by_role("button", name="Allow vendor quota").click()
    page.locator('.cap-row[data-key="claude:5h"]').wait_for(timeout=30_000)
    assert len(standin.REQUESTS) == 1
    assert page.errors == []
