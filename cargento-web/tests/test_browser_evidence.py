"""The session page's "Why this state" and the row badge's tooltip, in a real browser, over a
store the real Claude Code wrote: its pid file says waiting, its process is gone."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.testing.homes import copy_golden

pytestmark = pytest.mark.browser


def _sibling(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"cargento_web_tests_evidence_{name}", Path(__file__).with_name(f"{name}.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_TB = _sibling("test_browser")
browser = _TB.browser
page_for = _TB.page_for


def test_why_this_state_and_the_badge_tooltip_say_what_the_state_rests_on(
    serve: Any, builder_for: Any, page_for: Any, tmp_path: Path
) -> None:
    from cargento_harness_claude import plugin as claude

    home, _truth = copy_golden("claude-code-2.1.332/D1-permission-wait", tmp_path)
    server = serve(builder_for([("claude", claude)], home), all_sessions=True)
    [row] = httpx.get(server.url + "/api/data").json()["sessions"]
    page = page_for(server.url + "/")
    badge = page.locator(f"main li.row[data-key='{row['key']}'] .c-state .badge")
    title = badge.get_attribute("title") or ""
    shown = badge.inner_text().strip()
    assert title.startswith(f"{shown} because:")
    assert "~/.claude/sessions/16336.json" in title and "was overruled by" in title

    page.click(f"main li.row[data-key='{row['key']}'] a.title")
    page.wait_for_selector(".session-page .evidence")
    section = page.locator(".session-page .evidence")
    assert section.locator("h3").inner_text() == "Why this state"
    lead = section.locator(".why-lead").inner_text()
    assert lead.startswith(f"Reads {shown} because the session's last write")
    nowait = section.locator(".why-nowait").inner_text()
    assert nowait.startswith("No wait is shown: pid file of process 16336 says waiting (permission prompt)")
    overrule = section.locator(".why-item.overrule").first
    text = overrule.inner_text()
    assert "was overruled by process 16336 that wrote the pid file is not running" in text
    assert "a pid file left by an exited process keeps claiming what it said last" in text
    groups = [g.get_attribute("data-reading") for g in section.locator(".why-group").all()]
    assert groups[: len(groups)] == [g for g in ("state", "wait", "detail", "model") if g in groups]
    assert "model" in groups
    section.scroll_into_view_if_needed()
    _TB.shot(page, "evidence")
    assert page.errors == []


def test_the_session_page_says_when_a_store_holds_records_this_build_does_not_understand(
    serve: Any, builder_for: Any, page_for: Any, tmp_path: Path
) -> None:
    import time

    from cargento_harness_copilot import plugin as copilot
    from cargento_harness_copilot.fixtures import CopilotStore

    home = tmp_path / "home"
    t0 = time.time() - 60
    session = CopilotStore(home).session(cwd=str(home / "w"), at=t0, version="1.4.0")
    session.prompt("go", at=t0)
    session.emit("assistant.plan_delta", {}, t0 + 1)
    session.emit("assistant.plan_delta", {}, t0 + 2)
    session.end_turn(t0 + 3)
    server = serve(builder_for([("copilot", copilot)], home), all_sessions=True)
    [row] = httpx.get(server.url + "/api/data").json()["sessions"]
    page = page_for(server.url + "/")
    page.click(f"main li.row[data-key='{row['key']}'] a.title")
    note = page.locator(".session-page .evidence .drift")
    note.wait_for()
    text = note.inner_text()
    assert text.startswith("This store holds 2 records this build does not understand: assistant.plan_delta (2).")
    assert "Written by GitHub Copilot CLI 1.4.0" in text
    assert page.errors == []


def test_a_running_cli_with_no_session_yet_is_shown_starting(serve: Any, page_for: Any, tmp_path: Path) -> None:
    import time

    from cargento.board import BoardBuilder
    from cargento.plugins import load_registry
    from cargento.processes import ProcessInfo, StaticProcesses
    from cargento_harness_copilot import plugin as copilot
    from cargento_harness_copilot.fixtures import CopilotStore

    home = tmp_path / "home"
    t0 = time.time() - 60
    CopilotStore(home).session(cwd="/w/old", at=t0).prompt("hi", at=t0)
    table = StaticProcesses(
        [
            ProcessInfo(pid=4242, argv=("/usr/bin/node", "/usr/local/bin/copilot"), cwd="/w/fresh", started_at=t0),
            ProcessInfo(pid=4243, argv=("/usr/local/bin/copilot",), cwd="/w/old", started_at=t0),
        ],
        listed=True,
    )
    registry = load_registry(entry_points=False, extra=[("copilot", copilot)])
    builder = BoardBuilder(registry, env={"HOME": str(home)}, home=home, processes=table)
    server = serve(builder, all_sessions=True, features=["cargento_web.cockpit"])
    data = httpx.get(server.url + "/api/data").json()
    rows = {r["session_id"]: r for r in data["sessions"]}
    starting = rows["pid-4242"]
    assert (starting["state"], starting["title"], starting["model"], starting["output_tokens_total"]) == (
        "starting",
        None,
        None,
        None,
    )
    assert starting["evidence"][0]["source"] == "process table · pid 4242" and data["counts"]["starting"] == 1
    assert "pid-4243" not in rows, "the process in /w/old is that session's: it wrote there since it started"
    page = page_for(server.url + "/")
    row = page.locator(f"main li.row[data-key='{starting['key']}']")
    assert row.locator(".c-state .badge").inner_text().strip() == "Starting"
    assert (row.locator(".c-state .badge").get_attribute("title") or "").startswith("Starting because:")
    assert row.locator("a.title").inner_text() == "new session, nothing written yet"
    assert row.locator(".c-now").inner_text().strip() == "starting · no session store yet"
    assert row.locator(".c-model").inner_text().strip() == "no model recorded"
    item = page.locator(".strip li.harness[data-harness='copilot']")
    assert item.locator(".hstarting").inner_text() == "+1 starting"
    assert "1 starting (a running process with no session yet: /w/fresh)" in (item.get_attribute("title") or "")
    page.keyboard.press("a")
    page.wait_for_selector(".attention .liveness li[data-harness='copilot'] .starting")
    text = page.locator(".attention .liveness li[data-harness='copilot']").inner_text()
    assert "tied to a session by its working directory" in text and "pid 4242 in /w/fresh" in text
    # The project's cockpit counts it as the Projects view does.
    page.goto(server.url + "/#n=project:" + starting["project"].replace("/", "%2F"))
    heading = page.locator("main h2.view-h")
    heading.wait_for(timeout=10_000)
    assert "1 starting" in heading.inner_text()
    assert page.errors == []
