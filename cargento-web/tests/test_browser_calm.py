"""The calm board in a real browser: one line per session, caveats said once, keys, focus and
the live region, a stalled page, notification precision, the empty board and axe-core.

Uses the scripted servers of ``test_browser.py`` (loaded from beside this file, since the suite
imports test modules by path) and, for accessibility, axe-core fetched from npm at test time
into a cache folder: never vendored into the package. Outside CI a machine without npm or
network skips the axe checks with the reason; under ``CI=true`` that is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import pytest
from cargento import hookimpl
from cargento.models import Gate, SessionReading, SessionRef, StoreLocation, Subagent, TurnEvidence
from cargento.testing.fakes import FakeHarness

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
board_server = _TB.board_server
row = _TB.row
wait_until = _TB.wait_until
CHROMIUM, ARGS = _TB.CHROMIUM, _TB.ARGS

AXE_CACHE = Path(os.environ.get("CARGENTO_AXE_CACHE") or Path(tempfile.gettempdir()) / "cargento-axe-core")
AXE_VERSION = "4"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's ``axe.min.js``, installed from npm into a cache folder on first use."""
    script = AXE_CACHE / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        problem = None
        if npm is None:
            problem = "npm is not installed, so axe-core cannot be fetched (apt-get install npm)"
        else:
            AXE_CACHE.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(AXE_CACHE),
                    "--no-save",
                    "--no-audit",
                    "--no-fund",
                    "--no-package-lock",
                    f"axe-core@{AXE_VERSION}",
                ],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            if done.returncode != 0 or not script.exists():
                problem = f"npm could not install axe-core: {(done.stderr or done.stdout)[-500:]}"
        if problem is not None:
            if os.environ.get("CI") == "true":
                pytest.fail(problem)
            pytest.skip(problem)
    return script.read_text(encoding="utf-8")


def axe_violations(page: Any, source: str) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations on the page as it stands."""
    page.add_script_tag(content=source)
    found: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const r = await axe.run(document, { resultTypes: ["violations"] });
          return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "")) }));
        }"""
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.fixture
def axe_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """Pages whose policy lets the test inject axe-core (the page's own scripts are unchanged)."""
    contexts: list[Any] = []

    def open_page(url: str, *, width: int = 1440, height: int = 900) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
        contexts.append(context)
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("main .row, main .empty, main .session-page, main .empty-board", timeout=10_000)
        return page

    yield open_page
    for context in contexts:
        context.close()


VIEWS = (
    "#n=sessions",
    "#n=projects",
    "#n=project:code%2Fapi",
    "#n=attention",
    "#n=session:code%2Fapi:codex:codex-quick-0002",
    "#n=session::claude:no-such-session",
)


def check_every_view(
    open_page: Callable[..., Any], base: str, views: tuple[str, ...], source: str, *, width: int = 1440
) -> None:
    for view in views:
        page = open_page(base + "/" + view, width=width)
        page.wait_for_timeout(300)
        # open one row's details too, so the hidden half of a row is checked as well
        more = page.locator("main button.more-btn")
        if more.count():
            more.first.click()
        bad = axe_violations(page, source)
        assert not bad, f"{view}: {bad}"


# -- the scripted board -------------------------------------------------------------------------


def test_axe_finds_nothing_serious_on_any_view(board_server: Any, axe_page: Any, axe_source: str) -> None:
    server = board_server()
    check_every_view(axe_page, server.url, VIEWS, axe_source)
    page = axe_page(server.url + "/", width=420, height=900)
    assert not axe_violations(page, axe_source)


def test_the_page_has_one_h1_and_a_route_change_focuses_the_new_views_heading(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    assert page.locator("h1").count() == 1 and page.locator("h1").inner_text() == "Cargento"
    for key, view, heading in (
        ("a", "attention", "Attention"),
        ("p", "projects", "Projects"),
        ("s", "sessions", "Sessions"),
    ):
        page.keyboard.press(key)
        page.wait_for_selector(f"main[data-view='{view}']")
        assert wait_until(page, "document.activeElement && document.activeElement.classList.contains('view-h')")
        assert page.evaluate("document.activeElement.textContent").startswith(heading)
    page.locator("main li.row[data-key^='codex:codex-quick'] a.title").click()
    page.wait_for_selector(".session-page")
    assert wait_until(page, "document.activeElement && document.activeElement.id === 'view-h'")
    assert page.evaluate("document.activeElement.textContent") == "Fix flaky test"


def test_escape_returns_to_sessions_from_every_view_but_a_session(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    for hash_, view in (
        ("#n=attention", "attention"),
        ("#n=projects", "projects"),
        ("#n=project:code%2Fapi", "project"),
    ):
        page.evaluate(f"location.hash = {hash_!r}")
        # The new view, not the heading the previous one still shows while the hash changes.
        page.wait_for_selector(f"main[data-view='{view}'] .view-h")
        page.keyboard.press("Escape")
        page.wait_for_selector("main[data-view='sessions']")
        assert page.url.endswith("#n=sessions"), hash_
    page.evaluate("location.hash = '#n=session:code%2Fapi:codex:codex-quick-0002'")
    page.wait_for_selector(".session-page")
    page.keyboard.press("Escape")
    assert page.url.endswith("#n=project:code%2Fapi")  # a session returns to its project
    page.evaluate("location.hash = '#n=session::codex:codex-quick-0002'")
    page.wait_for_selector(".session-page")
    page.keyboard.press("Escape")
    assert page.url.endswith("#n=sessions")  # ...and to Sessions when it has none


def test_the_live_region_says_state_changes_and_nothing_else(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    live = page.locator("[aria-live]")
    assert live.count() == live.locator("xpath=self::*[@id='announce' or contains(@class, 'copied')]").count()
    page.wait_for_timeout(2500)  # several refreshes with nothing changing state
    assert page.locator("#announce").inner_text() == ""
    server.copilot.wait(at=time.time() - 5, kind="url")
    assert wait_until(page, "document.getElementById('announce').textContent.includes('needs input')", timeout=8)
    said = page.locator("#announce").inner_text()
    assert "add a login page (GitHub Copilot CLI) needs input" in said


def test_a_stalled_page_dims_its_rows_stops_its_timers_and_says_as_of_when(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    page.wait_for_selector(".live:has-text('live · updated')")
    server.stop()
    page.wait_for_selector(".live.stalled", timeout=8000)
    assert "the board is shown as of then" in page.locator(".live").inner_text()
    assert float(page.locator("main .rows").first.evaluate("e => getComputedStyle(e).opacity")) < 0.7
    pi = row(page, "pi:pi-busy")
    before = pi.locator(".c-turn").get_attribute("title")
    ages = [e.inner_text() for e in page.locator("main .c-age").all()]
    page.wait_for_timeout(2200)
    assert pi.locator(".c-turn").get_attribute("title") == before  # the turn timer stood still
    assert [e.inner_text() for e in page.locator("main .c-age").all()] == ages
    assert "stalled" in page.locator("#announce").inner_text()


def test_a_session_that_needs_you_shows_its_details_and_how_long_the_wait_has_stood(
    board_server: Any, page_for: Any
) -> None:
    server = board_server()
    server.pi.gates["pi-busy-0001"] = Gate(
        kind="question",
        text="Proceed with the rewrite?",
        since=datetime.now(UTC) - timedelta(seconds=130),
        source="pi extension",
    )
    page = page_for(server.url + "/")
    pi = row(page, "pi:pi-busy")
    page.wait_for_selector("main li.row[data-key^='pi:pi-busy'][data-state='needs_input']")
    assert pi.locator("button.more-btn").count() == 0  # nothing to open: it is open
    assert pi.locator(".more .task").count() == 3
    assert pi.locator(".wait-age").inner_text() == " · 2m"
    assert "question:" in pi.locator(".c-now").inner_text()


def test_two_pills_of_one_name_are_told_apart(board_server: Any, page_for: Any) -> None:
    server = board_server()
    busy = server.pi.scripts["pi-busy-0001"]

    def twins(ref: SessionRef, now: datetime) -> SessionReading:
        reading: SessionReading = busy(ref, now)
        return attrs.evolve(
            reading,
            subagents=(
                Subagent(name="explore", running=True, session_id="a1b2c3d4e5"),
                Subagent(name="explore", running=False, session_id="f6e5d4c3b2"),
                Subagent(name="review", running=False),
                Subagent(name="scan", running=True, session_id="ses_61920aa"),  # ids sharing a long prefix
                Subagent(name="scan", running=True, session_id="ses_61920bb"),
                Subagent(name="lint", running=True),  # no ids to tell these apart: their places do
                Subagent(name="lint", running=False),
            ),
        )

    server.pi.scripts["pi-busy-0001"] = twins
    page = page_for(server.url + "/")
    pi = row(page, "pi:pi-busy")
    pi.locator("button.more-btn").click()
    labels = [p.inner_text().split(",")[0].strip("●○ \n") for p in pi.locator(".pill").all()]
    assert labels == [
        "explore · a1b2c3",
        "explore · f6e5d4",
        "review",
        "scan · ses_61920a",
        "scan · ses_61920b",
        "lint #1",
        "lint #2",
    ]


def test_the_empty_board_says_where_cargento_looked(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Any
) -> None:
    class Looked(FakeHarness):
        @hookimpl
        def discover(self, ctx: Any) -> Any:
            found = super().discover(ctx)
            return attrs.evolve(
                found, locations=(StoreLocation(path=str(tmp_path / ".fake" / "sessions"), status="missing"),)
            )

    server = serve(builder_for([("fake", Looked("fake", [], label="Fake Harness"))], tmp_path))
    page = page_for(server.url + "/")
    page.wait_for_selector(".empty-board")
    text = page.locator(".empty-board").inner_text()
    assert "Cargento looked here" in text
    assert f"Fake Harness: {tmp_path / '.fake' / 'sessions'} (missing)" in text
    assert "cargento --demo" in text and "cargento --diagnose" in text


# -- notification precision ---------------------------------------------------------------------


def test_gone_quiet_fires_once_per_turn_only_after_30_s_of_work_and_can_be_turned_off(
    board_server: Any, page_for: Any
) -> None:
    server = board_server()
    t0 = datetime.now(UTC)
    phase: dict[str, Any] = {"turn": TurnEvidence(state="open", started_at=t0 - timedelta(seconds=60)), "active": t0}

    def scripted(ref: SessionRef, now: datetime) -> SessionReading:
        return SessionReading(
            ref=ref,
            title="Fix flaky test",
            cwd="/home/dev/code/api",
            started_at=t0 - timedelta(seconds=400),
            last_active_at=phase["active"],
            turn=phase["turn"],
        )

    server.codex.scripts["codex-quick-0002"] = scripted
    page = page_for(server.url + "/", notifications=True)
    quick = "main li.row[data-key='codex:codex-quick-0002']"

    def go(state: str, turn: TurnEvidence, active: datetime) -> None:
        phase.update(turn=turn, active=active)
        page.wait_for_selector(f"{quick}[data-state='{state}']", timeout=8000)
        page.wait_for_timeout(1200)  # a few more boards in this state

    def quiet() -> list[str]:
        return [t for t, _ in page.evaluate("window.__shown") if t.endswith("has gone quiet")]

    page.wait_for_selector(f"{quick}[data-state='working']")
    # a turn that worked 60 s goes quiet: one notification
    go("idle", TurnEvidence(state="ended", started_at=t0 - timedelta(seconds=60), ended_at=t0), t0)
    assert quiet() == ["Codex: Fix flaky test has gone quiet"]
    # the same turn reads working again and quiet again (a store re-read): no second one
    go("working", TurnEvidence(state="open", started_at=t0 - timedelta(seconds=60)), datetime.now(UTC))
    go(
        "idle",
        TurnEvidence(state="ended", started_at=t0 - timedelta(seconds=60), ended_at=datetime.now(UTC)),
        datetime.now(UTC),
    )
    assert len(quiet()) == 1
    # a new turn that worked a few seconds goes quiet: not worth a notification
    t1 = datetime.now(UTC)
    go("working", TurnEvidence(state="open", started_at=t1), t1)
    go("idle", TurnEvidence(state="ended", started_at=t1, ended_at=datetime.now(UTC)), datetime.now(UTC))
    assert len(quiet()) == 1
    # keep only "waiting on you": a long turn going quiet says nothing, a wait still does
    page.locator(".only-waits input").check()
    assert page.evaluate("localStorage.getItem('cargento:notify-only-waits')") == "1"
    t2 = datetime.now(UTC)
    go("working", TurnEvidence(state="open", started_at=t2 - timedelta(seconds=120)), t2)
    go(
        "idle",
        TurnEvidence(state="ended", started_at=t2 - timedelta(seconds=120), ended_at=datetime.now(UTC)),
        datetime.now(UTC),
    )
    assert len(quiet()) == 1
    server.copilot.wait(at=time.time() - 5, kind="url")
    assert wait_until(page, "window.__shown.some(([t]) => t.endsWith('is waiting on you'))", timeout=8)
    page.reload()
    page.wait_for_selector(".only-waits input")
    assert page.locator(".only-waits input").is_checked()  # the choice is remembered in this browser


def test_attention_shows_the_irreversible_command_reports(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Any
) -> None:
    from cargento.testing.fakes import FakeSession
    from cargento_web.runtime.hub import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier

    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=MemoryNotifier())
    try:
        fake = FakeHarness("claude", [FakeSession("s1", title="Tidy the release branch")], label="Claude Code")
        server = serve(builder_for([("claude", fake)], tmp_path), hub=hub)
        page = page_for(server.url + "/#n=attention")
        page.wait_for_selector(".attention .report, .attention .empty:has-text('No irreversible command')")
        hub.ingest(
            "claude",
            {
                "session_id": "s1",
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "git push --force origin main"},
            },
        )
        page.wait_for_selector(".attention .report[data-session='claude:s1']", timeout=10_000)
        report = page.locator(".attention .report").first
        assert "Tidy the release branch" in report.inner_text()
        assert "git push --force origin main" in report.inner_text()
        assert "not proof" in page.locator(".attention").inner_text()
    finally:
        hub.close()


def test_the_now_tooltip_carries_a_tools_full_recorded_name(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    """An MCP tool shows under its display name; the tooltip adds the recorded wire name."""
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    now = time.time()
    session = store.session("44444444-4444-4444-8444-444444444444")
    session.prompt("list my issues", now - 30)
    session.tool("mcp__linear__list_issues", now - 25)
    server = serve(builder_for([("claude", claude)], store.home))
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("main li.row[data-key^='claude:'] .c-now")
        now_cell = page.locator("main li.row[data-key^='claude:'] .c-now")
        assert now_cell.inner_text() == "Linear · list issues"
        assert now_cell.get_attribute("title") == "Linear · list issues (mcp__linear__list_issues)"
    finally:
        context.close()
