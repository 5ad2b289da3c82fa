"""The page's side of reaching you, in Debian's Chromium: RAISE TERMINAL in NEEDS YOU NOW
against a real tmux server, the tab's presence report, and the browser lane's precision (a
wait answered within the confirmation delay raises nothing; one that stands raises once)."""

from __future__ import annotations

import importlib.util
import shutil
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from cargento.cli import Options
from cargento.forwarders.slim import TERMINAL_FIELD, terminal_identity
from cargento.models import Gate
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

pytestmark = pytest.mark.browser


def _sibling(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"cargento_web_tests_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TB = _sibling("test_browser")
_TF = _sibling("test_focus")
browser = _TB.browser
page_for = _TB.page_for
wait_until = _TB.wait_until
GATE = Gate(kind="permission", source="events.jsonl", text="Bash: make deploy")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Any]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    server = _TF.TmuxServer(tmp_path)
    yield server
    server.close()


def _server(
    serve: Any,
    builder_for: Any,
    tmp_path: Path,
    sessions: list[FakeSession],
    *,
    platform: str | None = None,
    env: dict[str, str] | None = None,
    **hub: Any,
) -> Any:
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731
    events = EventHub(clock=clock, state_dir=tmp_path / "state", **hub)
    fake = FakeHarness("claude", sessions, label="Claude Code")
    server = serve(
        builder_for([("claude", fake)], tmp_path, clock=clock, platform=platform, env=env),
        hub=events,
        features=["cargento_web.reach", "cargento_web.focus"],
        options=Options(),
    )
    return server, events, fake


def test_raise_terminal_in_needs_you_now_selects_the_sessions_pane(
    serve: Any, builder_for: Any, tmp_path: Path, tmux: Any, page_for: Any
) -> None:
    server, hub, _ = _server(
        serve, builder_for, tmp_path, [FakeSession("s1", title="Orders API", gate=GATE)], notifier=MemoryNotifier()
    )
    env = tmux.pane_env("work:1", tmp_path / "env1")
    hub.ingest(
        "claude",
        {
            "session_id": "s1",
            "hook_event_name": "SessionStart",
            "source": "startup",
            TERMINAL_FIELD: terminal_identity(env),
        },
    )
    tmux.attach()
    assert tmux.shown()[1] == "0"
    page = page_for(server.url + "/#n=attention")
    button = page.wait_for_selector('.needs [data-focus="claude:s1"]', timeout=10_000)
    assert "primary" in (button.get_attribute("class") or ""), "a blocked session gives the primary to the raise"
    assert "Terminal raise: 1 of 1 session on this board can be raised" in page.inner_text(".coverage")
    assert "Reach nudges: none are posted: no reach URL is set" in page.inner_text(".coverage")
    button.click()
    assert wait_until(page, "document.querySelector('.focus-raise [role=status]').textContent.startsWith('Raised')")
    assert tmux.shown() == (env["TMUX_PANE"], "1")
    assert page.errors == []


def test_the_cockpit_command_line_raises_a_waiting_sessions_terminal(
    serve: Any, builder_for: Any, tmp_path: Path, tmux: Any, page_for: Any
) -> None:
    """The cockpit keeps a project session that waits on you above its tabs, with the same
    raise control as Attention."""
    server, hub, _ = _server(
        serve, builder_for, tmp_path, [FakeSession("s1", title="Orders API", gate=GATE)], notifier=MemoryNotifier()
    )
    env = tmux.pane_env("work:1", tmp_path / "env1")
    hub.ingest(
        "claude",
        {
            "session_id": "s1",
            "hook_event_name": "SessionStart",
            "source": "startup",
            TERMINAL_FIELD: terminal_identity(env),
        },
    )
    tmux.attach()
    project = httpx.get(server.url + "/api/data", timeout=5).json()["sessions"][0]["project"]
    page = page_for(server.url + "/#n=project:" + quote(project, safe=""))
    button = page.wait_for_selector('[data-part="command"] [data-focus="claude:s1"]', timeout=15_000)
    button.click()
    page.locator('[data-part="command"] .focus-raise [role=status]', has_text="Raised").wait_for(timeout=10_000)
    assert tmux.shown() == (env["TMUX_PANE"], "1")


def test_a_session_with_two_terminals_attached_shows_no_control(
    serve: Any, builder_for: Any, tmp_path: Path, tmux: Any, page_for: Any
) -> None:
    server, hub, _ = _server(
        serve, builder_for, tmp_path, [FakeSession("s1", title="Orders API", gate=GATE)], notifier=MemoryNotifier()
    )
    env = tmux.pane_env("work:1", tmp_path / "env1")
    hub.ingest(
        "claude", {"session_id": "s1", "hook_event_name": "SessionStart", TERMINAL_FIELD: terminal_identity(env)}
    )
    tmux.attach()
    tmux.attach()
    page = page_for(server.url + "/#n=attention")
    page.wait_for_selector(".needs", timeout=10_000)
    # The coverage line follows the board that counted both clients: wait for it, not race it.
    page.locator(".coverage", has_text="1 have more than one terminal attached").wait_for(timeout=20_000)
    assert page.query_selector("[data-focus]") is None


def test_the_tab_reports_which_session_it_shows(serve: Any, builder_for: Any, tmp_path: Path, page_for: Any) -> None:
    server, hub, _ = _server(
        serve, builder_for, tmp_path, [FakeSession("s1", title="Orders API")], notifier=MemoryNotifier()
    )
    page = page_for(server.url + "/")
    page.click("a.title")
    page.wait_for_selector(".session-page", timeout=10_000)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not hub.presence.showing("claude", "s1", hub.clock()):
        time.sleep(0.05)
    assert hub.presence.showing("claude", "s1", hub.clock())
    assert hub.presence.away_for(hub.clock()).total_seconds() == 0
    page.evaluate("location.hash = '#n=sessions'")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and hub.presence.showing("claude", "s1", hub.clock()):
        time.sleep(0.05)
    assert not hub.presence.showing("claude", "s1", hub.clock())


def test_the_browser_lane_raises_a_standing_wait_once_and_a_quick_answer_never(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Any
) -> None:
    # No desktop backend: the page's lane is the one that raises here.
    server, _hub, fake = _server(
        serve,
        builder_for,
        tmp_path,
        [FakeSession("quick", title="Quick one"), FakeSession("slow", title="Slow one")],
        notifier=MemoryNotifier(available=False),
    )
    page = page_for(server.url + "/", notifications=True)
    page.wait_for_selector('[data-key="claude:quick"]', timeout=10_000)
    fake.sessions["quick"].gate = GATE
    assert wait_until(page, "!!document.querySelector('[data-key=\"claude:quick\"][data-state=needs_input]')", 10)
    fake.sessions["quick"].gate = None  # answered within a second
    assert wait_until(page, "!document.querySelector('[data-key=\"claude:quick\"][data-state=needs_input]')", 10)
    fake.sessions["slow"].gate = GATE
    assert wait_until(page, "window.__shown.length > 0", 15)
    time.sleep(7)  # well past the confirmation delay, with the slow wait still standing
    shown = page.evaluate("window.__shown")
    assert [title for title, _ in shown] == ["Claude Code: Slow one is waiting on you"]


def test_a_session_whose_pane_is_in_front_of_you_is_not_pinged_by_the_page_and_its_record_says_why(
    serve: Any, builder_for: Any, tmp_path: Path, tmux: Any, page_for: Any
) -> None:
    tmux.run("set-option", "-s", "focus-events", "on")  # before attaching, as tmux asks
    server, hub, fake = _server(
        serve,
        builder_for,
        tmp_path,
        [FakeSession("front", title="In front"), FakeSession("behind", title="Behind")],
        notifier=MemoryNotifier(available=False),  # the page's lane is the one that pings here
    )
    env = tmux.pane_env("work:1", tmp_path / "env1")
    hub.ingest(
        "claude",
        {
            "session_id": "front",
            "hook_event_name": "SessionStart",
            "source": "startup",
            TERMINAL_FIELD: terminal_identity(env),
        },
    )
    tmux.attach()
    (focus,) = [e for e in server.extensions.items if e.name == "focus"]
    assert focus.raise_session("claude", "front")[0]["raised"] is True
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if httpx.get(server.url + "/api/data", timeout=5).json()["focus"]["in_front"] == ["claude:front"]:
            break
        time.sleep(0.1)
    page = page_for(server.url + "/", notifications=True)
    page.wait_for_selector('[data-key="claude:front"]', timeout=10_000)
    fake.sessions["front"].gate = GATE
    fake.sessions["behind"].gate = GATE
    assert wait_until(page, "window.__shown.length > 0", 15)
    time.sleep(7)  # past the confirmation delay for both
    shown = [title for title, _ in page.evaluate("window.__shown")]
    assert shown == ["Claude Code: Behind is waiting on you"], "the page's lane skipped the session in front of you"
    page.click('[data-key="claude:front"] a.title')
    item = page.locator('.withheld [data-rule="in-front"]').first
    item.wait_for(timeout=15_000)
    assert "its tmux pane is in front of you" in item.inner_text()
    assert page.errors == []


def _page_at_quarter_past_six(browser: Any, server: Any) -> tuple[Any, Any]:
    """A page whose clock reads 06:14:30 local (the browser's zone is this machine's): inside a
    quiet window that ends at 06:15, half a minute before it does; notifications recorded."""
    local = datetime.now().astimezone()
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=server.url)
    context.add_init_script(
        "window.__shown = []; window.Notification = class { constructor(t, o) { window.__shown.push([t, o && o.body]); }"
        " static get permission() { return 'granted'; } static requestPermission() { return Promise.resolve('granted'); } };"
    )
    page = context.new_page()
    page.clock.install(time=local.replace(hour=6, minute=14, second=30, microsecond=0))
    page.goto(server.url + "/")
    return context, page


def test_the_page_holds_a_wait_through_quiet_hours_and_raises_it_when_they_end_if_it_still_stands(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    from cargento.quiethours import parse_window

    server, _hub, fake = _server(
        serve,
        builder_for,
        tmp_path,
        [FakeSession("stands", title="Still waiting"), FakeSession("answered", title="Answered at night")],
        notifier=MemoryNotifier(available=False),  # the page's lane is the one that pings here
        quiet=parse_window("23:30-06:15"),
    )
    context, page = _page_at_quarter_past_six(browser, server)
    try:
        page.wait_for_selector('[data-key="claude:stands"]', timeout=10_000)
        fake.sessions["stands"].gate = GATE
        fake.sessions["answered"].gate = GATE
        for key in ("stands", "answered"):
            assert wait_until(
                page, f"!!document.querySelector('[data-key=\"claude:{key}\"][data-state=needs_input]')", 10
            )
        time.sleep(7)  # both confirmed, inside quiet hours: held
        assert page.evaluate("window.__shown") == []
        fake.sessions["answered"].gate = None  # answered while quiet hours hold it
        assert wait_until(page, "!document.querySelector('[data-key=\"claude:answered\"][data-state=needs_input]')", 10)
        page.clock.fast_forward(60_000)  # 06:15:30: the window is over
        assert wait_until(page, "window.__shown.length > 0", 10)
        time.sleep(1)
        shown = [title for title, _ in page.evaluate("window.__shown")]
        assert shown == ["Claude Code: Still waiting is waiting on you"], "the one answered meanwhile raised nothing"
    finally:
        context.close()


def test_the_page_holds_a_turn_gone_quiet_through_quiet_hours_and_raises_it_after(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    """A turn that worked a while and went quiet inside quiet hours is held, not dropped: raised
    when the window ends if the session is still idle; one at work again by then raises nothing."""
    from cargento.quiethours import parse_window

    started = datetime.now(UTC) - timedelta(seconds=60)
    sessions = [
        FakeSession("rests", title="Long build", turn="open", at=started),
        FakeSession("resumes", title="Back at it", turn="open", at=started),
    ]
    server, _hub, fake = _server(
        serve,
        builder_for,
        tmp_path,
        sessions,
        notifier=MemoryNotifier(available=False),
        quiet=parse_window("23:30-06:15"),
    )
    context, page = _page_at_quarter_past_six(browser, server)
    try:
        for key in ("rests", "resumes"):
            assert wait_until(page, f"!!document.querySelector('[data-key=\"claude:{key}\"][data-state=working]')", 10)
        for key in ("rests", "resumes"):
            fake.sessions[key].turn = "ended"
        for key in ("rests", "resumes"):
            assert wait_until(page, f"!!document.querySelector('[data-key=\"claude:{key}\"][data-state=idle]')", 10)
        time.sleep(1.5)
        assert page.evaluate("window.__shown") == [], "inside quiet hours: held"
        fake.sessions["resumes"].turn = "open"
        fake.sessions["resumes"].at = datetime.now(UTC)
        assert wait_until(page, "!!document.querySelector('[data-key=\"claude:resumes\"][data-state=working]')", 10)
        page.clock.fast_forward(60_000)  # 06:15:30: the window is over
        assert wait_until(page, "window.__shown.length > 0", 10)
        time.sleep(1)
        shown = [title for title, _ in page.evaluate("window.__shown")]
        assert shown == ["Claude Code: Long build has gone quiet"], "the one at work again raised nothing"
    finally:
        context.close()


def test_on_macos_the_raise_says_which_terminal_tab_it_selected(
    serve: Any, builder_for: Any, tmp_path: Path, tmux: Any, page_for: Any
) -> None:
    import os

    record = _TF._fake_osascript(tmp_path / "bin")
    server, hub, _ = _server(
        serve,
        builder_for,
        tmp_path,
        [FakeSession("s1", title="Orders API", gate=GATE)],
        platform="darwin",
        env={"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"},
        notifier=MemoryNotifier(),
    )
    env = tmux.pane_env("work:1", tmp_path / "env1")
    hub.ingest(
        "claude",
        {
            "session_id": "s1",
            "hook_event_name": "SessionStart",
            "source": "startup",
            TERMINAL_FIELD: terminal_identity(env),
        },
    )
    tmux.attach()
    tty = tmux.run("list-clients", "-F", "#{client_tty}")
    page = page_for(server.url + "/#n=attention")
    assert "on macOS also the Terminal.app or iTerm2 tab" in page.locator(".coverage").inner_text()
    page.wait_for_selector('.needs [data-focus="claude:s1"]', timeout=10_000).click()
    status = page.locator(".needs .focus-raise [role=status]", has_text="Raised")
    status.wait_for(timeout=10_000)
    assert (
        status.inner_text()
        == f"Raised: the terminal shows this session's pane, and the Terminal tab showing {tty} is selected."
    )
    assert len(_TF._scripts(record)) == 1 and tmux.shown() == (env["TMUX_PANE"], "1")
    assert page.errors == []
