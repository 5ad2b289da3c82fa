"""CLOSE THE LOOP, COMING NEXT, At risk's uncommitted work and the session page's history in a
real browser, over sessions whose working directories are real git repositories."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier
from cargento_web.runtime.stores import End

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"]
FEATURES = ["cargento_web.history", "cargento_web.endings", "cargento_web.dismissals"]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    pytest.skip(f"{CHROMIUM} is absent and CI is unset", allow_module_level=True)


@pytest.fixture
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def repo(path: Path, *, dirty: bool | None) -> str:
    path.mkdir(parents=True)
    if dirty is None:
        return str(path)  # not a repository
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q"], cwd=path, env=env, check=True)
    (path / "f").write_text("x")
    subprocess.run(["git", "add", "-A"], cwd=path, env=env, check=True)
    subprocess.run(["git", "commit", "-qm", "c"], cwd=path, env=env, check=True)
    if dirty:
        (path / "f").write_text("y")
        (path / "g").write_text("new")
    return str(path)


def attention_page(browser: Any, url: str) -> tuple[Any, Any, list[str]]:
    """A fresh browser context on *url*'s Attention view, and the page errors it collects."""
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url + "/#n=attention")
    return context, page, errors


def wait_for(server: Any, predicate: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    doc: dict[str, Any] = {}
    while time.monotonic() < deadline:
        doc = httpx.get(server.url + "/api/data", timeout=5).json()
        if predicate(doc):
            return doc
        time.sleep(0.1)
    raise AssertionError(f"never true: {doc.get('endings')}")


def test_every_group_and_the_remembered_timeline_filter(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    work = tmp_path / "work"
    shapes = {"dirty": True, "clean": False, "plain": None}
    sessions: dict[str, FakeSession] = {}
    start = datetime.now(UTC) - timedelta(seconds=4)
    for kind in ("stop", "end"):
        for shape, dirty in shapes.items():
            sid = f"{kind}-{shape}"
            cwd = repo(work / kind / shape, dirty=dirty)
            sessions[sid] = FakeSession(sid, at=start, cwd=cwd, turn="open", title=f"{kind} {shape} session")
    sessions["busy"] = FakeSession("busy", age_s=1, cwd=str(work / "busy"), turn="open", title="busy session")
    state = tmp_path / "state"
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=state, notifier=MemoryNotifier())
    builder = builder_for([("fake", FakeHarness("fake", list(sessions.values())))], tmp_path)
    server = serve(builder, hub=hub, features=FEATURES, state_dir=state)
    wait_for(server, lambda d: sum(s["state"] == "working" for s in d["sessions"]) == 7)
    now = datetime.now(UTC)
    for sid, s in sessions.items():
        if sid != "busy":
            s.turn = "ended"
        if sid.startswith("end-"):
            assert hub.ends is not None
            hub.ends.record(End(harness="fake", session_id=sid, at=now, reason="test"), now)
    doc = wait_for(
        server,
        lambda d: (
            len(d["endings"]["readings"]) == 6 and not any(r["probing"] for r in d["endings"]["readings"].values())
        ),
    )
    outcomes = {r["sid"]: r["outcome"] for r in doc["endings"]["readings"].values()}
    assert outcomes == {
        "stop-dirty": "stop-dirty",
        "stop-clean": "stop-clean",
        "stop-plain": "stop-unmeasured",
        "end-dirty": "end-dirty",
        "end-clean": "end-clean",
        "end-plain": "end-unmeasured",
    }

    context, page, errors = attention_page(browser, server.url)
    page.locator(".close-loop .ending").first.wait_for(timeout=10_000)
    shown = sorted(page.locator(".close-loop .ending").evaluate_all("els => els.map(e => e.dataset.outcome)"))
    assert shown == ["end-clean", "end-unmeasured", "stop-clean", "stop-dirty", "stop-unmeasured"]
    assert "Stopped with uncommitted work (2 changed files)" in page.locator(".close-loop").inner_text()
    assert "whether commits reached a remote" in page.locator(".close-loop .caveat").inner_text(), "the caveats, once"
    at_risk = page.locator(".attention .rows").filter(has_text="end dirty session")
    assert at_risk.locator('[data-mark="dirty"]').inner_text() == "uncommitted · 2", (
        "an end left uncommitted work: at risk"
    )
    brief = page.locator(".attention .brief").inner_text()
    assert "1 session is at risk, 5 to close the loop; of the other 1: 1 moving" in brief
    next_lines = page.locator(".coming-next li").evaluate_all(
        "els => els.map(e => [e.dataset.project, e.dataset.rank])"
    )
    by_project = dict(next_lines)
    project_of = {s["session_id"]: s["project"] for s in doc["sessions"]}
    assert by_project[project_of["end-dirty"]] == "2", "an end with uncommitted work: commit or set it aside"
    assert by_project[project_of["stop-clean"]] == "6" and by_project[project_of["stop-plain"]] == "7"
    assert project_of["busy"] not in by_project, "a working session offers no next action"
    assert "Commit or set aside the 2 uncommitted files" in page.locator(".coming-next").inner_text()
    assert "Read the result of “stop clean session” (clean git state)" in page.locator(".coming-next").inner_text()

    # The row marks on Sessions: dirty with its count, clean, and nothing where unmeasured.
    page.goto(server.url + "/#n=sessions")
    page.locator("main .row").first.wait_for(timeout=10_000)
    marks = {
        name: page.locator("main .row")
        .filter(has_text=name)
        .locator("[data-mark]")
        .evaluate_all("els => els.map(e => e.dataset.mark + ':' + e.textContent)")
        for name in ("stop dirty session", "stop clean session", "stop plain session", "busy session")
    }
    assert marks == {
        "stop dirty session": ["dirty:uncommitted · 2"],
        "stop clean session": ["clean:clean"],
        "stop plain session": [],
        "busy session": [],
    }

    # The session page: how it landed, the history, and a filter remembered per session.
    page.goto(server.url + "/#n=session::fake:stop-dirty")
    page.locator(".history .timeline").wait_for(timeout=10_000)
    assert "Stopped with uncommitted work" in page.locator(".landed").inner_text()
    assert page.locator(".history .timeline").get_attribute("data-filter") == "active"
    kinds = page.locator(".timeline-list li").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert "turn_ended" in kinds and "state" in kinds
    assert "Observed from" in page.locator(".window-caption").inner_text()
    page.locator(".timeline-filter input[value=decisions]").check()
    assert page.locator(".history .timeline").get_attribute("data-filter") == "decisions"
    fresh = context.new_page()
    fresh.goto(server.url + "/#n=session::fake:stop-dirty")
    fresh.locator(".history .timeline").wait_for(timeout=10_000)
    assert fresh.locator(".history .timeline").get_attribute("data-filter") == "decisions", "remembered in this browser"
    fresh.goto(server.url + "/#n=session::fake:stop-clean")
    fresh.locator('.history[data-session="fake:stop-clean"] .timeline').wait_for(timeout=10_000)
    assert fresh.locator(".history .timeline").get_attribute("data-filter") == "active", "per session"
    # Marking one handled takes it out of CLOSE THE LOOP and the brief's count.
    httpx.post(
        server.url + "/api/dismiss",
        json={"harness": "fake", "sid": "stop-clean"},
        headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin"},
        timeout=5,
    )
    page.goto(server.url + "/#n=attention")
    deadline = time.monotonic() + 10
    while page.locator(".close-loop .ending").count() != 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert page.locator('.close-loop .ending[data-session="fake:stop-clean"]').count() == 0
    assert "1 session is marked handled and not counted" in page.locator(".attention .brief").inner_text()
    assert errors == []
    context.close()
    hub.close()


@pytest.mark.parametrize("name", ["cargento-history.json", "cargento-dismissals.json"])
def test_the_header_names_a_reset_store_and_when(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any, name: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / name).write_bytes(b'{"schema":1,"half a wr')
    server = serve(
        builder_for([("fake", FakeHarness("fake", [FakeSession("a")]))], tmp_path), features=FEATURES, state_dir=state
    )
    page = browser.new_page()
    page.goto(server.url + "/")
    item = page.locator(f'header .store-reset[data-store="{name}"]')
    item.wait_for(timeout=10_000)
    text = item.inner_text()
    assert "was reset at" in text and "kept as" in text
    assert list(state.glob(name + ".unreadable-*")), "set aside, not repaired"
    page.close()


def test_a_session_marked_handled_leaves_the_published_counts(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    from cargento.models import Gate

    past = datetime.now(UTC) - timedelta(minutes=2)
    waiting = FakeSession("w", at=past, title="waiting session", gate=Gate(kind="permission", text="Allow bash?"))
    server = serve(
        builder_for([("fake", FakeHarness("fake", [waiting, FakeSession("q", at=past)]))], tmp_path), features=FEATURES
    )
    page = browser.new_page()
    page.goto(server.url + "/#n=attention")
    page.locator("header .blocks").wait_for(timeout=10_000)
    assert page.locator("header .blocks").get_attribute("data-count") == "1"
    assert "1 session needs you now" in page.locator(".attention .brief").inner_text()
    answer = httpx.post(
        server.url + "/api/dismiss",
        json={"harness": "fake", "sid": "w"},
        headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin"},
        timeout=5,
    )
    assert answer.json()["persisted"] is True
    page.locator("header .blocks").wait_for(state="detached", timeout=10_000)
    brief = page.locator(".attention .brief").inner_text()
    assert "0 sessions need you now" in brief and "1 session is marked handled and not counted" in brief
    page.close()


def test_two_sessions_of_one_title_are_told_apart_by_id(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any, monkeypatch: Any
) -> None:
    """CLOSE THE LOOP, COMING NEXT and the project's endings name a session by its title, with
    its display id beside it when another session on the board shows the same title."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    start = datetime.now(UTC) - timedelta(seconds=4)
    cwd = repo(tmp_path / "org" / "app", dirty=None)  # one project, no repository
    sessions = {
        sid: FakeSession(sid, at=start, cwd=cwd, turn="open", title=title)
        for sid, title in (("twin-one", "Fix the retry loop"), ("twin-two", "Fix the retry loop"), ("solo", "Tidy"))
    }
    state = tmp_path / "state"
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=state, notifier=MemoryNotifier())
    server = serve(
        builder_for([("fake", FakeHarness("fake", list(sessions.values())))], tmp_path),
        hub=hub,
        features=[*FEATURES, "cargento_web.cockpit"],
        state_dir=state,
    )
    wait_for(server, lambda d: sum(s["state"] == "working" for s in d["sessions"]) == 3)
    for s in sessions.values():
        s.turn = "ended"
    doc = wait_for(server, lambda d: len(d["endings"]["readings"]) == 3)
    ids = {s["session_id"]: s["display_id"] for s in doc["sessions"]}
    context, page, errors = attention_page(browser, server.url)
    page.locator(".close-loop .ending >> nth=2").wait_for(timeout=10_000)
    names = sorted(page.locator(".close-loop .ending a").all_inner_texts())
    assert names == sorted(
        [f"Fix the retry loop ({ids['twin-one']})", f"Fix the retry loop ({ids['twin-two']})", "Tidy"]
    )
    assert ids["twin-one"] != ids["twin-two"]
    project = doc["sessions"][0]["project"]
    page.goto(server.url + "/#n=project:" + project.replace("/", "%2F"))
    page.locator(".ck-part .ending >> nth=2").wait_for(timeout=10_000)
    names = sorted(page.locator(".ck-part .ending a").all_inner_texts())
    assert names == sorted(
        [f"Fix the retry loop ({ids['twin-one']})", f"Fix the retry loop ({ids['twin-two']})", "Tidy"]
    )
    assert errors == []
    context.close()
    hub.close()


def test_two_waiting_sessions_of_one_title_are_told_apart_where_they_wait(
    serve: Any, builder_for: Any, tmp_path: Path, browser: Any
) -> None:
    """Attention's Needs you now and the cockpit's Waiting on you name each waiting session by
    its title, with its display id beside it when another session shows the same title: two
    retries of one task waiting at once are two different answers to give."""
    from cargento.models import Gate

    cwd = str(tmp_path / "org" / "app")
    now = datetime.now(UTC)
    twins = [
        FakeSession(
            sid, cwd=cwd, title="Fix the retry loop", gate=Gate(kind="permission", text=f"run {sid}?", since=now)
        )
        for sid in ("twin-one", "twin-two")
    ]
    server = serve(
        builder_for([("fake", FakeHarness("fake", twins))], tmp_path),
        features=[*FEATURES, "cargento_web.cockpit"],
        state_dir=tmp_path / "state",
    )
    doc = wait_for(server, lambda d: sum(s["state"] == "needs_input" for s in d["sessions"]) == 2)
    ids = {s["session_id"]: s["display_id"] for s in doc["sessions"]}
    named = sorted(f"Fix the retry loop ({ids[sid]})" for sid in ("twin-one", "twin-two"))
    context, page, errors = attention_page(browser, server.url)
    page.locator("li.needs >> nth=1").wait_for(timeout=10_000)
    assert sorted(page.locator("li.needs a.title").all_inner_texts()) == named
    project = doc["sessions"][0]["project"]
    page.goto(server.url + "/#n=project:" + project.replace("/", "%2F") + ":console")
    waiting = page.locator("[data-rail=waiting] li")
    waiting.nth(1).wait_for(timeout=10_000)
    assert sorted(page.locator("[data-rail=waiting] li a").all_inner_texts()) == named
    assert errors == []
    context.close()
