"""The project cockpit in a real browser: Scope rail, briefing, every tab and its cue, the
fragment rules, the stage strips and a typed stage condition, over real Claude stores and a
Spacedock workflow built in the test."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cargento import hookimpl
from cargento.models import (
    Discovery,
    Gate,
    HarnessContext,
    HarnessInfo,
    SessionReading,
    SessionRef,
    StoreLocation,
    Task,
)
from cargento_harness_claude import plugin as claude

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    pytest.skip(f"{CHROMIUM} is absent and CI is unset", allow_module_level=True)

ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]
FEATURES = ["cargento_web.history", "cargento_web.cockpit"]


def _load_world() -> ModuleType:
    name = "cargento_web_tests_spacedock_world"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("spacedock_world.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


W = _load_world()


class Untitled:
    """A harness whose sessions publish no title: two alike, one waiting on you."""

    __name__ = "scripted:untitled"

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key="sct", label="Scripted", reports_waits=True, resumable=True)

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        refs = tuple(
            SessionRef(harness="sct", session_id=sid, path=f"/scripted/{sid}", modified_at=ctx.now)
            for sid in ("alike-aaaa-0001", "alike-aaaa-0002", "waits-bbbb-0003")
        )
        return Discovery(locations=(StoreLocation(path="/scripted", status="present"),), sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        waits = ref.session_id.startswith("waits")
        return SessionReading(
            ref=ref,
            title="Deploy the docs" if waits else None,
            cwd=self.cwd,
            started_at=ctx.now - timedelta(minutes=20),
            last_active_at=ctx.now - timedelta(seconds=30 if waits else 4000),
            resume_command=f"sct resume {ref.session_id}",
            tasks=(Task(subject="Build the docs", status="completed"), Task(subject="Publish", status="pending"))
            if waits
            else (),
        )

    @hookimpl
    def gate_state(self, reading: SessionReading, ctx: HarnessContext) -> Gate | None:
        if reading.ref.session_id.startswith("waits"):
            return Gate(
                kind="permission",
                text="Allow rm -rf site/?",
                since=ctx.now - timedelta(seconds=20),
                source="transcript",
            )
        return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def cockpit(serve: Any, builder_for: Any, tmp_path: Path, browser: Any) -> Iterator[tuple[Any, Any, Any, str]]:
    home = tmp_path / "home"
    cwd = str(tmp_path / "w" / "ship")
    wf = W.Workflow(Path(cwd))
    wf.entity("fix-login", "implementation")
    wf.entity("add-search", "backlog")
    W.claude_first_officer(home, cwd, wf)
    W.claude_ensign(home, cwd, "fix-login")
    server = serve(
        builder_for([("claude", claude), ("sct", Untitled(cwd))], home), features=FEATURES, state_dir=tmp_path / "st"
    )
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield server, page, wf, "w/ship"
    context.close()
    assert not errors, errors


def _open(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector(".cockpit .ck-panel", timeout=10_000)


def test_scope_rail_briefing_and_the_fragment_rules(cockpit: tuple[Any, Any, Any, str]) -> None:
    server, page, _wf, _project = cockpit
    p = "w%2Fship"
    _open(page, f"{server.url}/#n=project:{p}")
    rail = page.locator(".scope")
    assert rail.locator(".scope-row").count() == 1 + 5, "the project row and its five sessions"
    untitled = rail.locator(".scope-row", has_text="title never published")
    assert untitled.count() == 2, "an unpublished title is said in place of the title, never an id"
    for n in range(2):
        assert untitled.nth(n).locator(".sc-key").inner_text().startswith("sct:alike-aaaa-000"), (
            "alike rows carry the key"
        )
    assert rail.locator(".scope-row", has_text="Deploy the docs").locator(".sc-key").count() == 0
    assert "Scripted · Needs input" in rail.locator(".scope-row", has_text="Deploy the docs").inner_text()
    brief = page.locator(".briefing")
    assert "Run the plans workflow" in brief.locator("[data-part=assignment]").inner_text()
    assert "Source: your newest request" in brief.locator("[data-part=assignment]").inner_text()
    command = brief.locator("[data-part=command]")
    assert "Allow rm -rf site/?" in command.inner_text(), "a session waiting on you stays above the tabs"
    assert command.locator("button", has_text="COPY RESUME").count() == 1
    # Pick one exact session: the fragment carries it; the briefing follows it.
    rail.locator(".scope-row", has_text="title never published").first.locator("a").click()
    assert page.evaluate("location.hash").startswith(f"#n=project:{p}:sct:alike-aaaa-000")
    assert (
        brief.locator("[data-goal=none]")
        .inner_text()
        .startswith("No goal available: this session published no request")
    )
    assert "Allow rm -rf site/?" in command.inner_text(), "Command keeps the project's waits whatever the scope"
    # Tabs: the fragment appends the open tab after the session.
    page.locator("[role=tab][data-tab=console]").click()
    hash_now = page.evaluate("location.hash")
    assert hash_now.endswith(":console") and ":sct:alike-aaaa-000" in hash_now
    page.reload()
    page.wait_for_selector(".ck-panel[data-panel=console]")
    assert page.locator(".scope-row.on").get_attribute("data-scope").startswith("sct:alike-aaaa-000"), (
        "reload keeps the pick"
    )
    page.go_back()
    page.wait_for_selector(".ck-panel[data-panel=now]")
    # Escape from a selected session returns to its whole project, and from there to Sessions.
    assert page.locator(".scope-row.on").get_attribute("data-scope").startswith("sct:alike-aaaa-000")
    page.keyboard.press("Escape")
    assert page.evaluate("location.hash") == f"#n=project:{p}"
    assert page.locator(".scope-row.on").get_attribute("data-scope") == "project"
    page.keyboard.press("Escape")
    assert page.evaluate("location.hash") == "#n=sessions"
    # A link ending in the retired held-to tab opens that session's page.
    page.goto(f"{server.url}/#n=project:{p}:claude:{W.FO_SID}:held-to")
    page.wait_for_selector(".session-page")
    assert page.evaluate("location.hash") == f"#n=session:{p}:claude:{W.FO_SID}"


def test_every_tab_names_its_panel_and_the_cues_are_told_apart(cockpit: tuple[Any, Any, Any, str]) -> None:
    server, page, wf, _project = cockpit
    _open(page, f"{server.url}/#n=project:w%2Fship")
    names = {}
    for tab in ("now", "course", "decisions", "console"):
        page.locator(f"[role=tab][data-tab={tab}]").click()
        page.wait_for_selector(f".ck-panel[data-panel={tab}]")
        assert page.locator(f"[role=tab][data-tab={tab}]").get_attribute("aria-selected") == "true"
        names[tab] = page.locator(".panel-name").inner_text()
    assert names["now"].startswith("Now:") and names["console"].startswith("Console:")
    assert len(set(names.values())) == 4
    decisions = page.locator("[role=tab][data-tab=decisions] .cue")
    assert decisions.get_attribute("data-cue") == "unpublished"
    assert decisions.locator("[aria-hidden=true]").inner_text() == "·"
    assert "no source on this board publishes decisions" in decisions.locator(".sr-only").inner_text()
    page.locator("[role=tab][data-tab=course]").click()
    tasks = page.locator(".done-tasks")
    assert "Build the docs" in tasks.inner_text() and "Publish" not in tasks.inner_text()
    course = page.locator("[role=tab][data-tab=course] .cue")
    page.wait_for_function("document.querySelector('[data-tab=course] .cue').dataset.cue !== 'loading'")
    count = int(course.get_attribute("data-cue"))
    assert count >= 1, "the local history observed at least the first sight of each session"
    assert "observed state change" in course.locator(".sr-only").inner_text()
    # Console: the operations rail, and the started disclosure naming both capabilities.
    page.locator("[role=tab][data-tab=console]").click()
    rail = page.locator(".rail")
    for part in ("delegation", "waiting", "capacity", "tripwires"):
        assert rail.locator(f"[data-rail={part}]").count() == 1
    figure = rail.locator("[data-figure=delegation]")
    figure.wait_for()
    assert "turn start" in figure.inner_text() and "subagent start" in figure.inner_text()
    assert "Observed from" in rail.locator("[data-rail=delegation] .muted.small").last.inner_text()
    summary = page.locator("details.started summary").inner_text()
    assert "terminal off" in summary and "observer model off" in summary
    assert page.locator("details.started").get_attribute("open") is None
    page.locator("details.started summary").click()
    assert "Started with no run switch: every default." in page.locator("details.started").inner_text()
    assert "Off: it needs both --interaction-origin-session" in page.locator("details.started").inner_text()
    # Now: current activity and the workflow evidence with the held entity in bold.
    page.locator("[role=tab][data-tab=now]").click()
    strip = page.locator(f".ck-panel .sd-workflow[data-workflow='{wf.dir}']")
    strip.wait_for()
    assert strip.locator(".sd-stage").count() == 5
    held = strip.locator("li[data-entity=fix-login]")
    assert held.locator("b").inner_text() == "Fix Login", "the entity a worker holds is bold"
    assert strip.locator("li[data-entity=add-search] b").count() == 0


def test_strip_on_the_first_officers_row_and_a_typed_condition(cockpit: tuple[Any, Any, Any, str]) -> None:
    server, page, wf, _project = cockpit
    page.goto(server.url + "/#n=sessions")
    row = page.locator(f"li.row[data-key='claude:{W.FO_SID}']")
    row.locator(".sd-strip.compact").wait_for()
    assert row.locator(".sd-seg.has").count() == 2
    assert row.locator(".role").inner_text() == "spacedock:first-officer"
    _open(page, f"{server.url}/#n=project:w%2Fship:course")
    page.locator(".tw-new").click()
    page.locator(".tw-draft select").select_option("validation")
    page.keyboard.press("Escape")
    assert page.locator(".tw-draft").count() == 0, "Escape inside the draft cancels the draft"
    assert page.evaluate("location.hash").endswith(":course"), "and does not leave the cockpit"
    page.locator(".tw-new").click()
    page.locator(".tw-draft select").select_option("validation")
    page.locator(".tw-draft button[type=submit]").click()
    card = page.locator(".tw-rule")
    card.wait_for()
    assert card.get_attribute("data-state") == "armed"
    stored = json.loads((server.extensions.items[1].tripwires.store.path).read_text())
    assert [r["stage"] for r in stored["rules"]] == ["validation"]
    wf.entity("fix-login", "validation")
    page.wait_for_selector(".tw-rule[data-state=tripped]", timeout=10_000)
    assert "fix-login entered validation" in page.locator(".tw-rule").inner_text()
    page.locator(".tw-rule button", has_text="Rearm").click()
    page.wait_for_selector(".tw-rule[data-state=armed]")
    page.goto(server.url + "/#n=projects")
    page.locator(".project-conditions .tw-rule").wait_for()
    assert page.locator(".project-conditions .tw-rule button", has_text="Remove").count() == 1


def test_the_note_to_yourself_stays_in_this_browser_and_sends_nothing(cockpit: tuple[Any, Any, Any, str]) -> None:
    server, page, _wf, _project = cockpit
    _open(page, f"{server.url}/#n=project:w%2Fship")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method != "GET" else None)
    page.locator("#note-to-self").fill("check the migration before lunch")
    page.locator(".note-composer button[type=submit]").click()
    assert "check the migration before lunch" in page.locator(".notes-self").inner_text()
    page.reload()
    page.wait_for_selector(".notes-self")
    assert "check the migration before lunch" in page.locator(".notes-self").inner_text()
    assert posts == [], "the note is written into no session and sent nowhere"
    page.locator(".notes-self button").click()
    assert page.locator(".notes-self").count() == 0


def test_with_tripwires_and_spacedock_off_the_cockpit_says_so(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    from cargento.cli import Options

    home = tmp_path / "home"
    cwd = str(tmp_path / "w" / "ship")
    wf = W.Workflow(Path(cwd))
    wf.entity("fix-login", "implementation")
    W.claude_first_officer(home, cwd, wf)
    server = serve(
        builder_for([("claude", claude)], home),
        features=FEATURES,
        options=Options(no_spacedock=True, no_tripwires=True),
        state_dir=tmp_path / "st",
    )
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        page = context.new_page()
        _open(page, f"{server.url}/#n=project:w%2Fship:course")
        assert "Workflow stage conditions are off: --no-tripwires" in page.locator(".ck-panel").inner_text()
        page.locator("[role=tab][data-tab=now]").click()
        assert (
            "--no-spacedock: this run reads no Spacedock workflow definitions" in page.locator(".ck-panel").inner_text()
        )
        assert page.locator(".sd-workflow").count() == 0
        page.goto(server.url + "/#n=sessions")
        page.wait_for_selector(f"li.row[data-key='claude:{W.FO_SID}']")
        assert page.locator(".sd-strip").count() == 0, "no strip under --no-spacedock"
        assert page.locator(f"li.row[data-key='claude:{W.FO_SID}'] .role").inner_text() == "spacedock:first-officer"
    finally:
        context.close()
