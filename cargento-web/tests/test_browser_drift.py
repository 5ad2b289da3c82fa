"""The Drift section in a real browser: the first press shows the disclosure and Allow and
analyze, the "Analyzing drift" box lists the real steps with the one under way marked, a second
tab shows the same analysis at the same step and offers no second press, Cancel stops the call
in both, and a remembered answer reads straight away."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


kit: Any = _load("observer_kit")
_spec = importlib.util.spec_from_file_location(
    "cargento_web_tests_test_browser", Path(__file__).with_name("test_browser.py")
)
assert _spec is not None and _spec.loader is not None
_TBM = sys.modules.get("cargento_web_tests_test_browser") or importlib.util.module_from_spec(_spec)
if "cargento_web_tests_test_browser" not in sys.modules:
    sys.modules["cargento_web_tests_test_browser"] = _TBM
    _spec.loader.exec_module(_TBM)
browser = _TBM.browser


def _type_goal(server: Any, sid: str) -> None:
    """Type the goal 'Fix the retry test' against one Claude Code session, as the page saves it."""
    httpx.post(
        server.url + "/api/annotate",
        headers={"Origin": server.url, "Content-Type": "application/json"},
        content=json.dumps({"harness": "claude", "sid": sid, "goal": "Fix the retry test"}),
        timeout=10,
    )


def _drift_primary_page(context: Any, server: Any, sid: str) -> Any:
    """The page of one session once Analyze drift is drawn, checked to be its one primary."""
    page = context.new_page()
    page.goto(f"{server.url}/#n=session::claude:{sid}")
    page.locator("section.drift").get_by_role("button", name="Analyze drift").wait_for()
    assert page.locator("section.session-page .primary").count() == 1
    return page


def _serve(serve: Any, builder_for: Any, tmp_path: Path) -> Any:
    from cargento_harness_claude import plugin as claude

    home = kit.claude_home(tmp_path)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    kit.set_mode(bin_dir, "hang")
    server = serve(
        builder_for([("claude", claude)], home, env={"PATH": str(bin_dir)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        state_dir=tmp_path / "state",
    )
    answer = httpx.post(
        server.url + "/api/annotate",
        headers={"Origin": server.url, "Content-Type": "application/json"},
        content=json.dumps(
            {"harness": "claude", "sid": kit.SID, "goal": "Fix the retry test", "lines": ["tests pass"]}
        ),
        timeout=10,
    )
    assert answer.json()["outcome"] == "stored"
    httpx.get(server.url + "/api/data", timeout=10)  # the first board
    return server


def test_the_steps_box_two_tabs_and_cancel(serve: Any, builder_for: Any, tmp_path: Path, browser: Any) -> None:
    server = _serve(serve, builder_for, tmp_path)
    url = f"{server.url}/#n=session::claude:{kit.SID}"
    first = browser.new_context(viewport={"width": 1280, "height": 1000})
    second = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        a = first.new_page()
        a.goto(url)
        drift = a.locator("section.drift")
        drift.get_by_role("button", name="Analyze drift").click()
        consent = drift.get_by_role("group", name="Allow readings")
        consent.wait_for()
        assert "Anthropic, through the Claude Code CLI" in consent.inner_text(), "the disclosure names the destination"
        assert kit.calls(tmp_path / "bin", "claude") == [], "the first press sends nothing"
        consent.get_by_role("button", name="Allow and analyze").click()
        box = drift.locator(".analyzing")
        box.wait_for()
        a.wait_for_selector(
            "section.drift .analyzing li[aria-current='step']:has-text('Waiting for the Claude Code CLI')"
        )
        steps = box.locator("ol.steps li").all_inner_texts()
        assert [" ".join(t.replace("(under way)", "").split()[1:]) for t in steps] == [
            "Preparing what is sent",
            "Waiting for the Claude Code CLI",
            "Checking the reply",
        ]
        assert "attempt 1" in box.inner_text()
        assert box.locator("details.drift-disclosure").count() == 1, "the disclosure stays beside the box"
        b = second.new_page()
        b.goto(url)
        b.wait_for_selector(
            "section.drift .analyzing li[aria-current='step']:has-text('Waiting for the Claude Code CLI')"
        )
        assert b.locator("section.drift").get_by_role("button", name="Analyze drift").count() == 0, (
            "no second press is offered"
        )
        assert kit.press(server).status_code == 409, "and a second press starts nothing"
        assert len(kit.calls(tmp_path / "bin", "claude")) == 1
        b.locator("section.drift .analyzing").get_by_role("button", name="Cancel").click()
        for page in (a, b):
            page.wait_for_selector("section.drift .drift-attempt[data-ending='cancelled']")
            assert "It counts against the budget" in page.locator("section.drift .drift-attempt").inner_text()
            assert page.locator("section.drift .analyzing").count() == 0
        kit.set_mode(tmp_path / "bin", "consistent")
        drift.get_by_role("button", name="Analyze drift").click()  # remembered: no disclosure this time
        a.wait_for_selector("section.drift table.drift-rows td.v-consistent")
        assert drift.locator("table.drift-rows tr").first.inner_text().startswith("tests pass")
        b.wait_for_selector("section.drift table.drift-rows td.v-consistent")
        assert "2 of 12 readings recorded" in drift.inner_text()
    finally:
        first.close()
        second.close()


def test_a_departure_marks_and_ranks_the_row(serve: Any, builder_for: Any, tmp_path: Path, browser: Any) -> None:
    server = _serve(serve, builder_for, tmp_path)
    kit.set_mode(tmp_path / "bin", "departs")
    assert kit.press(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool(kit.session_of(d).get("departed_at")))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url + "/#n=sessions")
        row = page.locator(f"li.row[data-key$='{kit.SID}']")
        row.locator(".drift-mark").wait_for()
        # Its age short, as the age column says it, and whole in its title.
        assert re.fullmatch(r"drift · \d+[smhd]", row.locator(".drift-mark").inner_text())
        assert re.search(
            r"raised (just now|\d+ (s|min|h|d) ago)", row.locator(".drift-mark").get_attribute("title") or ""
        )
        active = page.locator("section[aria-labelledby='h-active']")
        assert active.locator(f"li.row[data-key$='{kit.SID}']").count() == 1, "a departed idle session ranks in Active"
        # The figure and the rows read in one go: a revision landing between two reads (the
        # session's last write turning it idle) would compare two boards.
        heading, states = active.evaluate(
            "a => [a.querySelector('h3 .count').textContent, [...a.querySelectorAll('li.row')].map(r => r.dataset.state)]"
        )
        assert int(heading) == sum(1 for s in states if s != "idle"), "it does not add to the Active figure"
        page.goto(f"{server.url}/#n=session::claude:{kit.SID}")
        deps = page.locator("section.departures")
        deps.wait_for()
        assert deps.locator("[data-collection='asked'] li").count() == 1
        assert "No later check has read the session" in deps.inner_text()
        assert "not measured" in deps.inner_text(), "the away checks never read it: not a zero"
        reach = deps.locator(".departure-reach")
        assert reach.get_by_role("button", name="COPY RESUME").count() == 1
        assert "Not offered here: raising a terminal is off for this run." in reach.inner_text(), "why, once"
    finally:
        context.close()


def test_no_reader_and_a_harness_whose_work_cannot_be_read(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    from cargento.testing.fakes import FakeHarness, FakeSession

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    sid = "gem-1"
    harness = FakeHarness("gemini", [FakeSession(sid, title="A gemini session")])
    server = serve(
        builder_for([("gemini", harness)], tmp_path / "home", env={"PATH": str(empty)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        state_dir=tmp_path / "state",
    )
    httpx.post(
        server.url + "/api/annotate",
        headers={"Origin": server.url, "Content-Type": "application/json"},
        content=json.dumps({"harness": "gemini", "sid": sid, "goal": "Summarise the parser"}),
        timeout=10,
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/#n=session::gemini:{sid}")
        drift = page.locator("section.drift")
        drift.locator(".drift-reason").wait_for()
        assert "No reader is installed on this machine" in drift.locator(".drift-reason").inner_text()
        assert drift.get_by_role("button", name="Analyze drift").count() == 0, (
            "the reason stands where the control would be"
        )
        assert drift.locator(".drift-level").inner_text() == "Cargento can't read work from this harness."
    finally:
        context.close()


def test_a_spent_unasked_limit_is_said_out_loud(serve: Any, builder_for: Any, tmp_path: Path, browser: Any) -> None:
    from cargento.cli import Options
    from cargento_harness_claude import plugin as claude
    from cargento_web.observer.departures import DEPARTURES_FILE
    from cargento_web.observer.unasked import PER_SESSION

    home = kit.claude_home(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    now = datetime.now(UTC).isoformat()
    checks = [
        {"harness": "claude", "sid": kit.SID, "at": now, "found": "nothing raised", "revision": 1}
        for _ in range(PER_SESSION)
    ]
    (state / DEPARTURES_FILE).write_text(json.dumps({"version": 1, "raises": [], "checks": checks}))
    server = serve(
        builder_for([("claude", claude)], home, env={"PATH": str(kit.fake_bin(tmp_path / "bin"))}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        options=Options(unasked_readings=True),
        state_dir=state,
    )
    _type_goal(server, kit.SID)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/#n=session::claude:{kit.SID}")
        deps = page.locator("section.departures")
        deps.locator("[data-limit='session']").wait_for()
        assert f"limit of {PER_SESSION} unasked checks a day is spent" in deps.inner_text()
        assert "The away checks ran and raised nothing." in deps.inner_text(), "checked and clean is its own sentence"
    finally:
        context.close()


def test_a_later_direction_is_a_conflict_to_settle_and_still_applies_settles_it(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    import time

    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    session = store.session(kit.SID)
    session.prompt("make the retry test pass", time.time() - 300)
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(kit.fake_bin(tmp_path / "bin"))}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        state_dir=tmp_path / "state",
    )
    _type_goal(server, kit.SID)
    time.sleep(1.1)
    session.prompt("actually, rewrite the fetcher instead", time.time())
    kit.wait_for(server, lambda d: bool(kit.session_of(d).get("conflict")))
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/#n=session::claude:{kit.SID}")
        conflict = page.get_by_role("group", name="Conflict to settle")
        conflict.wait_for()
        assert "actually, rewrite the fetcher instead" in conflict.inner_text()
        conflict.get_by_role("button", name="retype").click()
        assert page.evaluate("document.activeElement && document.activeElement.id") == "intent-goal"
        conflict.get_by_role("button", name="still applies").click()
        page.wait_for_selector("section.drift .conflict", state="detached")
        assert kit.session_of(kit.observer_doc(server))["conflict"] == [], "settled through the newest one shown"
    finally:
        context.close()


def test_analyze_drift_is_the_one_primary_unless_a_question_is_open(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    import time

    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    calm = store.session(kit.SID)
    calm.prompt("make the retry test pass", time.time() - 600)
    asking = store.session(kit.OTHER)
    asking.prompt("pick a database", time.time() - 60)
    asking.wait("Postgres or SQLite?", time.time() - 50)
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(kit.fake_bin(tmp_path / "bin"))}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        state_dir=tmp_path / "state",
    )
    for sid in (kit.SID, kit.OTHER):
        _type_goal(server, sid)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = _drift_primary_page(context, server, kit.SID)
        page.goto(f"{server.url}/#n=session::claude:{kit.OTHER}")
        page.wait_for_selector(
            "section.session-page[data-key$='" + kit.OTHER + "'] section.drift button:has-text('Analyze drift')"
        )
        assert page.locator(".question").count() == 1, "the session waits on you"
        assert page.locator("section.session-page .primary").count() == 0, (
            "nothing is primary while its question is open"
        )
    finally:
        context.close()


def test_nothing_is_primary_while_an_ask_operator_question_of_the_session_is_open(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    """A question the session asked through ask_operator is its question open to you, as a
    native wait is: Analyze drift gives up the primary until it is answered."""
    import time
    from datetime import UTC, datetime

    from cargento.statedir import CAPABILITY_HEADER
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore
    from cargento_web.runtime import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier

    store = ClaudeStore(tmp_path / "home")
    store.session(kit.SID).prompt("make the retry test pass", time.time() - 600)
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "events", notifier=MemoryNotifier())
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(kit.fake_bin(tmp_path / "bin"))}),
        hub=hub,
        features=["cargento_web.annotations", "cargento_web.observer", "cargento_web.ask"],
        state_dir=tmp_path / "state",
    )
    _type_goal(server, kit.SID)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = _drift_primary_page(context, server, kit.SID)
        asked = httpx.post(
            f"{server.url}/api/ask",
            content=json.dumps(
                {
                    "question": "Keep the old retry?",
                    "options": ["Keep", "Drop"],
                    "harness": "claude",
                    "session_id": kit.SID,
                }
            ),
            headers={"Content-Type": "application/json", CAPABILITY_HEADER: hub.capability or ""},
            timeout=5,
        )
        assert asked.status_code == 201, asked.text
        page.wait_for_selector(".session-asks .ask-question", timeout=10_000)
        assert page.locator("section.session-page .primary").count() == 0, "nothing is primary while it is open"
    finally:
        context.close()


def test_the_intent_log_carries_the_raises_after_the_session_leaves_the_board(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    import time

    server = _serve(serve, builder_for, tmp_path)
    kit.set_mode(tmp_path / "bin", "departs")
    assert kit.press(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool(kit.session_of(d).get("departed_at")))
    for transcript in (tmp_path / "home").rglob(f"{kit.SID}.jsonl"):
        transcript.unlink()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        board = httpx.get(server.url + "/api/data", timeout=10).json()
        if not any(s["session_id"] == kit.SID for s in board["sessions"]):
            break
        time.sleep(0.3)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url + "/#n=intent")
        row = page.locator(f"li.log-row[data-key='claude:{kit.SID}']")
        row.locator(".log-raises li").wait_for()
        assert "not on the board" in row.inner_text()
        line = row.locator(".log-raises li").inner_text()
        assert (
            "tests pass" in line and "raised by a reading you asked for" in line and "read against revision 1" in line
        )
    finally:
        context.close()


def test_the_drift_mark_says_the_words_moved_and_an_unknown_age(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    kit.set_mode(tmp_path / "bin", "departs")
    assert kit.press(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool(kit.session_of(d).get("departed")))
    httpx.post(
        server.url + "/api/annotate",
        headers={"Origin": server.url, "Content-Type": "application/json"},
        content=json.dumps(
            {
                "harness": "claude",
                "sid": kit.SID,
                "goal": "Fix the retry test",
                "lines": ["tests pass", "no new dependency"],
                "expected_revision": 1,
            }
        ),
        timeout=10,
    )
    kit.wait_for(server, lambda d: kit.session_of(d).get("revision") == 2)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url + "/#n=sessions")
        mark = page.locator(f"li.row[data-key$='{kit.SID}'] .drift-mark")
        mark.wait_for()
        assert mark.inner_text().endswith("· words moved")
        assert "read revision 1 and the words have since moved to revision 2" in (mark.get_attribute("title") or "")
        page.goto(f"{server.url}/#n=session::claude:{kit.SID}")
        page.locator("section.drift .drift-reading").wait_for()
        assert (
            "read against revision 1; the words have since moved to revision 2"
            in page.locator("section.drift .drift-reading").inner_text()
        )
    finally:
        context.close()
    sidecar = next((tmp_path / "state" / "observer").glob("claude_*.json"))
    data = json.loads(sidecar.read_text())
    del data["readings"][-1]["at"]  # a legacy reading without a reading time
    sidecar.write_text(json.dumps(data))
    again = _serve_again(serve, builder_for, tmp_path)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(again.url + "/#n=sessions")
        mark = page.locator(f"li.row[data-key$='{kit.SID}'] .drift-mark")
        mark.wait_for()
        assert "age unknown" in mark.inner_text()
    finally:
        context.close()


def _serve_again(serve: Any, builder_for: Any, tmp_path: Path) -> Any:
    from cargento_harness_claude import plugin as claude

    server = serve(
        builder_for([("claude", claude)], tmp_path / "home", env={"PATH": str(tmp_path / "bin")}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        state_dir=tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)
    return server
