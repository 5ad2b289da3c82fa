"""Goal summaries in a real browser: under --observer-model the first press shows the summary's
own disclosure and Allow and summarise, the proposal appears beside the goal field, "use it as
the goal" puts it in the field and save stores it as your words; without the flag the reason
stands where the control would be."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.cli import Options

pytestmark = pytest.mark.browser


def _load(name: str, file: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


kit: Any = _load("observer_kit", "observer_kit.py")
browser = _load("cargento_web_tests_test_browser", "test_browser.py").browser


def _serve(serve: Any, builder_for: Any, tmp_path: Path, options: Options) -> Any:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_codex import plugin as codex

    home = kit.claude_home(tmp_path)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    server = serve(
        builder_for([("claude", claude), ("codex", codex)], home, env={"PATH": str(bin_dir)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        options=options,
        state_dir=tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)
    return server


def test_allow_a_summary_then_adopt_and_save_it(serve: Any, builder_for: Any, tmp_path: Path, browser: Any) -> None:
    server = _serve(serve, builder_for, tmp_path, Options(observer_model=True))
    url = f"{server.url}/#n=session::claude:{kit.SID}"
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    other = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(url)
        intent = page.locator("section.intent-panel")
        intent.get_by_role("button", name="Propose a goal summary").click()
        consent = intent.get_by_role("group", name="Allow goal summaries")
        consent.wait_for()
        said = consent.inner_text()
        assert "OpenAI, through the Codex CLI" in said and "codex exec --sandbox read-only" in said
        assert "allows no drift reading" in said
        assert kit.calls(tmp_path / "bin", "codex") == [], "the first press sends nothing"
        consent.get_by_role("button", name="Allow and summarise").click()
        page.wait_for_selector("section.intent-panel .summary-text:has-text('Make the retry test pass')")
        assert len(kit.calls(tmp_path / "bin", "codex")) == 1
        assert "proposed by the Codex CLI" in intent.locator(".summary-proposal").inner_text()
        assert intent.get_by_role("button", name="Turn off goal summaries").count() == 1, "remembered"
        second = other.new_page()
        second.goto(url)
        second.wait_for_selector("section.intent-panel .summary-text:has-text('Make the retry test pass')")
        assert second.locator("section.intent-panel").get_by_role("button", name="Allow and summarise").count() == 0
        drift = page.locator("section.drift")
        assert "1 of 12 readings recorded" in drift.inner_text(), "the summary spent one of the twelve"
        assert intent.locator("#intent-goal").input_value() == "", "showing a summary saves nothing"
        intent.get_by_role("button", name="use the summary as the goal").click()
        assert intent.locator("#intent-goal").input_value() == "Make the retry test pass without new dependencies"
        intent.get_by_role("button", name="save").click()
        page.wait_for_selector("section.intent-panel .intent-message:has-text('Saved as revision 1')")
        stored = httpx.get(server.url + "/api/annotations", timeout=10).json()["annotations"]
        entry = next(a for a in stored if a["sid"] == kit.SID)
        assert entry["goal"] == "Make the retry test pass without new dependencies"
        assert entry["goal_source"] == "typed", "saved, it is your typed goal"
        drift.get_by_role("button", name="Analyze drift").click()
        drift.get_by_role("group", name="Allow readings").wait_for()  # summary permission allows no reading
    finally:
        context.close()
        other.close()


def test_without_the_flag_the_reason_stands_where_the_control_would_be(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path, Options())
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/#n=session::claude:{kit.SID}")
        reason = page.locator("section.intent-panel .summary-reason")
        reason.wait_for()
        assert "offered only when Cargento is started with --observer-model" in reason.inner_text()
        assert page.get_by_role("button", name="Propose a goal summary").count() == 0
    finally:
        context.close()


@pytest.mark.parametrize(
    ("options", "said", "step"),
    [
        (Options(no_annotations=True), "annotations are off for this run", "without --no-annotations"),
        (Options(observer_model=False), "every model call is refused for this run", "without --no-observer-model"),
    ],
)
def test_analyze_drift_stays_on_the_page_inert_and_names_the_next_step(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any, options: Options, said: str, step: str
) -> None:
    server = _serve(serve, builder_for, tmp_path, options)
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/#n=session::claude:{kit.SID}")
        drift = page.locator("section.drift")
        button = drift.get_by_role("button", name="Analyze drift")
        button.wait_for()
        assert button.get_attribute("aria-disabled") == "true"
        why = drift.locator(".drift-reason").inner_text()
        assert said in why and f"Next step: start Cargento {step}" in why
        button.click(force=True)  # aria-disabled keeps it pressable (and focusable): the press is refused
        drift.get_by_role("alert").wait_for()
        assert "nothing was sent or spent" in drift.get_by_role("alert").inner_text()
        assert kit.calls(tmp_path / "bin", "claude") == [] and kit.calls(tmp_path / "bin", "codex") == []
    finally:
        context.close()


def test_the_summary_under_way_shows_in_every_tab_and_cancel_stops_it(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path, Options(observer_model=True))
    kit.set_mode(tmp_path / "bin", "hang")
    url = f"{server.url}/#n=session::claude:{kit.SID}"
    first = browser.new_context(viewport={"width": 1280, "height": 1000})
    second = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        a = first.new_page()
        a.goto(url)
        a.locator("section.intent-panel").get_by_role("button", name="Propose a goal summary").click()
        a.get_by_role("button", name="Allow and summarise").click()
        waiting = "section.intent-panel .summarising li[aria-current='step']:has-text('Waiting for the Codex CLI')"
        a.wait_for_selector(waiting)
        b = second.new_page()
        b.goto(url)
        b.wait_for_selector(waiting)
        assert b.get_by_role("button", name="Propose a goal summary").count() == 0, "no second press is offered"
        b.locator(".summarising").get_by_role("button", name="Cancel").click()
        for page in (a, b):
            page.wait_for_selector("section.intent-panel .summary-attempt[data-ending='cancelled']")
            assert "It counts against the budget" in page.locator(".summary-attempt").inner_text()
        assert len(kit.calls(tmp_path / "bin", "codex")) == 1
    finally:
        first.close()
        second.close()
