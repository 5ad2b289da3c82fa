"""The OTel mark and the session page's telemetry figures, in a real browser."""

from __future__ import annotations

import importlib.util
import time
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.cli import Options

pytestmark = pytest.mark.browser


def _sibling(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"cargento_web_tests_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TB = _sibling("test_browser")
browser = _TB.browser
_RX = _sibling("test_telemetry_receiver")
SID = "77777777-7777-4777-8777-777777777777"


def test_a_row_fed_by_telemetry_says_so_and_its_page_lists_the_figures(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    now = time.time()
    session = store.session(SID)
    session.prompt("refactor the parser", now - 30)
    session.tool("Bash", now - 20)
    port = _RX._free_port()
    server = serve(
        builder_for([("claude", claude)], store.home),
        features=["cargento_web.telemetry"],
        options=Options(otlp_port=port),
    )
    body = _RX._metric_request(
        "claude_code.token.usage",
        4321,
        SID,
        cumulative=False,
        service="claude-code",
        extra={"type": "output"},
        at=datetime.now(UTC),
    )
    reply = httpx.post(
        f"http://127.0.0.1:{port}/v1/metrics", content=body, headers={"Content-Type": "application/x-protobuf"}
    )
    assert reply.status_code == 200
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        mark = page.locator(f"main li.row[data-key='claude:{SID}'] .otel-mark")
        mark.wait_for(timeout=15_000)
        assert mark.get_attribute("data-otel") == "live"
        title = mark.get_attribute("title") or ""
        assert "4,321 output tokens" in title and "tok/min" in title and "[object" not in title
        page.locator(f"main li.row[data-key='claude:{SID}'] a.title").click()
        section = page.locator("section.telemetry")
        section.wait_for(timeout=10_000)
        text = section.inner_text()
        assert "4,321" in text and "not reported by this harness" not in text.split("Cost")[0]
        assert "[object" not in text
        assert "tok/min" in text.split("Output rate (10 min)")[1].split("Cost")[0]
        assert "they never decide its state" in text
        # When the export was first heard, so a total is read against its span.
        assert "just now" in text.split("First heard")[1].split("Last heard")[0]
        page.goto(server.url + "/#n=attention")
        coverage = page.locator(".telemetry-coverage")
        coverage.wait_for(timeout=10_000)
        said = coverage.inner_text()
        assert f"listening on 127.0.0.1:{port}" in said and "claude last fed" in said
    finally:
        context.close()
