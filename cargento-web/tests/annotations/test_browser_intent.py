"""The Intent section, the goal beside NOW and the Intent log in a real browser (Debian's
Chromium through Playwright) against a real server and store file."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import attrs
import httpx
import orjson
import pytest
from cargento import hookimpl
from cargento.cli import Options
from cargento.models import Gate, HarnessContext, HarnessInfo, Instruction, SessionReading, SessionRef
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.annotations.store import ANNOTATIONS_FILE

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]
FEATURE = "cargento_web.annotations"
SID = "5b1c9e2a-0d4f-4c21-8a77-1f2e3d4c5b6a"
OTHER = "7a7a7a7a-1111-4111-8111-111111111111"

if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    pytest.skip(f"{CHROMIUM} is absent and CI is unset", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()


def _open(context: Any, url: str) -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 4" not in m.text else None)
    page.errors = errors
    page.goto(url)
    page.wait_for_selector("main .row, main .empty, main .session-page, main .intent-log", timeout=10_000)
    return page


@pytest.fixture
def server(serve: Any, builder_for: Any, tmp_path: Path) -> Callable[..., Any]:
    def start(**kw: Any) -> Any:
        harness = FakeHarness(
            "fake",
            [
                FakeSession(SID, title="Parser work", cwd=str(tmp_path / "w" / "parser")),
                FakeSession(OTHER, title="Bare session", cwd=None),
            ],
        )
        return serve(builder_for([("fake", harness)], tmp_path), features=[FEATURE], state_dir=tmp_path / "home", **kw)

    return start


def _session_url(srv: Any, sid: str = SID) -> str:
    board = httpx.get(srv.url + "/api/data", timeout=5).json()
    s = next(x for x in board["sessions"] if x["session_id"] == sid)
    return f"{srv.url}/#n=session:{quote(s['project'] or '', safe='')}:fake:{sid}"


def _until(page: Any, expression: str, timeout: float = 8.0) -> None:
    """Poll *expression* in the page until it holds (the page's policy forbids the eval
    ``wait_for_function`` uses)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.05)


def _stored(tmp_path: Path) -> dict[str, Any]:
    entries = orjson.loads((tmp_path / "home" / ANNOTATIONS_FILE).read_bytes())["entries"]
    out: dict[str, Any] = entries[0]
    return out


def test_type_save_revise_escape_and_discard_twice(server: Any, context: Any, tmp_path: Path) -> None:
    srv = server()
    page = _open(context, _session_url(srv))
    panel = page.locator(".intent-panel")
    panel.wait_for()
    assert "never writes into the session" in panel.locator(".buys").inner_text()
    assert panel.locator(".intent-none").is_visible(), "nothing typed yet, and it says so"
    assert panel.locator(".save").count() == 0, "save appears only when the text differs"
    assert panel.locator(".discard").count() == 0, "discard is offered only where a revision is stored"
    goal = page.locator("#intent-goal")
    goal.fill("Ship the parser")
    assert page.locator("#intent-goal-count").inner_text() == "15/240"
    panel.locator(".add-line").click()
    page.locator(".line-input").nth(0).fill("tests pass")
    panel.locator(".save").click()
    _until(page, "document.querySelector('.intent-message').textContent.includes('revision 1')")
    assert panel.locator(".save").count() == 0
    assert _stored(tmp_path)["revisions"][0]["goal"] == "Ship the parser"
    page.wait_for_selector(".intent-revision")
    assert "typed" in panel.locator(".outcome-line").first.inner_text(), "a saved line shows where it came from"

    # revise: a second line, saved as revision 2, revision 1 kept
    panel.locator(".add-line").click()
    page.locator(".line-input").nth(1).fill("docs updated")
    panel.locator(".save").click()
    _until(page, "document.querySelector('.intent-message').textContent.includes('revision 2')")
    revisions = _stored(tmp_path)["revisions"]
    assert [len(r["lines"]) for r in revisions] == [1, 2]
    panel.locator(".revisions summary").click()
    panel.locator('.revision-list li[data-revision="1"]').wait_for()
    assert "tests pass" in panel.locator('.revision-list > li[data-revision="1"]').inner_text()
    assert "docs updated" not in panel.locator('.revision-list > li[data-revision="1"]').inner_text()

    # Escape puts the stored words back
    goal.fill("Something else entirely")
    assert panel.locator(".save").count() == 1
    goal.press("Escape")
    assert goal.input_value() == "Ship the parser"
    assert panel.locator(".save").count() == 0
    assert page.locator("main").get_attribute("data-view") == "session", "Escape in a field does not leave the page"

    # discard everything: the first press names what goes and says it in the live region
    discard = panel.locator(".discard")
    discard.click()
    what = panel.locator(".discard-what").inner_text()
    assert "the goal and 2 expected outcome lines of revision 2" in what and "withdraw" in what
    assert page.locator("#announce").inner_text() == what
    assert (tmp_path / "home" / ANNOTATIONS_FILE).read_text().count("Ship the parser") == 2, "one press deletes nothing"
    discard.click()
    _until(page, "document.querySelector('.intent-message').textContent.startsWith('Discarded')")
    assert _stored(tmp_path)["kind"] == "discard"
    assert "Ship the parser" not in (tmp_path / "home" / ANNOTATIONS_FILE).read_text()
    page.wait_for_selector(".intent-discarded")
    assert goal.input_value() == ""
    assert page.errors == []


def test_a_seventh_line_is_refused_with_the_reason(server: Any, context: Any, tmp_path: Path) -> None:
    srv = server()
    page = _open(context, _session_url(srv))
    add = page.locator(".add-line")
    for i in range(6):
        add.click()
        page.locator(".line-input").nth(i).fill(f"line {i + 1}")
    add.click()
    assert page.locator(".line-input").count() == 6
    assert add.is_visible(), "add a line stays on the page at six"
    assert "seventh is refused" in page.locator(".intent-message").inner_text()
    assert "merge" in page.locator(".intent-message").inner_text()
    page.locator(".line-input").nth(0).fill("x" * 241)
    assert page.locator("#intent-line-count-0").inner_text() == "241/240"
    page.locator(".save").click()
    _until(page, "document.querySelector('.intent-message').textContent.startsWith('Not saved')")
    assert "limit is 240" in page.locator(".intent-message").inner_text()
    assert page.locator(".line-input").nth(0).input_value() == "x" * 241, "refused, never clipped"
    assert not (tmp_path / "home" / ANNOTATIONS_FILE).exists()


def test_a_goal_slot_without_a_goal_opens_the_page_with_the_cursor_in_the_goal(
    server: Any, context: Any, tmp_path: Path
) -> None:
    srv = server()
    page = _open(context, srv.url + "/#n=sessions")
    page.locator(f'.row[data-key="fake:{SID}"] .row-goal.none').click()
    page.wait_for_selector(".intent-panel")
    _until(page, "document.activeElement && document.activeElement.id === 'intent-goal'")
    page.keyboard.type("Typed straight away")
    page.locator(".save").click()
    _until(page, "document.querySelector('.intent-message').textContent.includes('revision 1')")
    page.goto(srv.url + "/#n=sessions")
    row_goal = page.locator(f'.row[data-key="fake:{SID}"] .row-goal.typed')
    row_goal.wait_for()
    assert "Typed straight away" in row_goal.inner_text()
    assert "No session has been checked for drift." in page.locator(".above-rows").inner_text()


def test_the_intent_log_drops_words_a_discard_in_another_tab_withdrew(
    server: Any, context: Any, tmp_path: Path
) -> None:
    srv = server()
    body = {"harness": "fake", "sid": SID, "goal": "Secret plan", "lines": ["first outcome"]}
    assert httpx.post(srv.url + "/api/annotate", json=body, timeout=5).json()["outcome"] == "stored"
    gone = {"harness": "fake", "sid": "left-the-board", "goal": "Words kept off the board"}
    httpx.post(srv.url + "/api/annotate", json=gone, timeout=5)
    log = _open(context, srv.url + "/#n=intent")
    row = log.locator(f'.log-row[data-key="fake:{SID}"]')
    row.locator(".source[data-kind=goal]").wait_for()
    assert "Secret plan" in row.inner_text() and "currentness not checked" in row.inner_text()
    bare = log.locator(f'.log-row[data-key="fake:{OTHER}"]')
    assert "no project" in bare.inner_text() and "Nothing typed." in bare.inner_text()
    off = log.locator('.log-row[data-key="fake:left-the-board"]')
    assert "not on the board" in off.inner_text() and "Words kept off the board" in off.inner_text()
    log.evaluate(
        """() => { new MutationObserver(() => {
             const r = document.querySelector('.log-row[data-key="fake:SID"]');
             if (r && !r.textContent.includes('Secret plan') && !r.textContent.includes('discarded everything'))
               window.__sawGap = true;
           }).observe(document.querySelector('main'), {subtree: true, childList: true, characterData: true}); }""".replace(
            "SID", SID
        )
    )

    other = _open(context, _session_url(srv))
    discard = other.locator(".discard")
    discard.click()
    discard.click()
    _until(other, "document.querySelector('.intent-message').textContent.startsWith('Discarded')")

    _until(
        log,
        f"document.querySelector('.log-row[data-key=\"fake:{SID}\"]').textContent.includes('discarded everything')",
    )
    assert "Secret plan" not in row.inner_text() and "first outcome" not in row.inner_text()
    assert log.evaluate("window.__sawGap === true"), "the withdrawn words went before the replacement loaded"
    assert row.get_attribute("data-annotation") == "discard"
    assert log.errors == [] and other.errors == []

    # words kept for a session that left the board open on its own page
    off.locator("a.title").click()
    log.wait_for_selector(".missing-session .intent-panel .intent-revision")
    assert log.locator("#intent-goal").input_value() == "Words kept off the board"


def test_with_annotations_off_the_page_offers_no_field_and_says_why_once(
    server: Any, context: Any, tmp_path: Path
) -> None:
    srv = server(options=Options(no_annotations=True))
    page = _open(context, _session_url(srv))
    panel = page.locator(".intent-panel")
    panel.wait_for()
    assert page.locator("#intent-goal").count() == 0
    assert "--no-annotations" in panel.inner_text()
    page.goto(srv.url + "/#n=sessions")
    page.wait_for_selector("main .row")
    assert page.locator(".row-goal").count() == 0, "no goal slot links anywhere"
    assert page.locator("main").inner_text().count("--no-annotations") == 1, "said once"


class Prompted(FakeHarness):
    """A fake whose sessions carry a recorded latest prompt, declared the operator's words."""

    def __init__(self, prompts: dict[str, str]) -> None:
        super().__init__("codex", [FakeSession(sid, title=f"prompted {sid[:4]}") for sid in prompts], label="Codex")
        self.prompts = prompts

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return attrs.evolve(super().harness_info(), prompt_as_goal=True)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        reading = super().read_session(ref, ctx)
        assert reading is not None
        return attrs.evolve(reading, instruction=Instruction(text=self.prompts[ref.session_id], at=ctx.now))


def test_the_latest_prompt_stands_beside_now_and_can_be_adopted_as_an_entry(
    serve: Any, builder_for: Any, context: Any, tmp_path: Path
) -> None:
    long_sid = "c0dec0de-0000-4000-8000-000000000002"
    harness = Prompted({SID: "Port the scheduler to the new queue", long_sid: "p" * 300})
    srv = serve(builder_for([("codex", harness)], tmp_path), features=[FEATURE], state_dir=tmp_path / "home")
    page = _open(context, srv.url + "/#n=sessions")
    slot = page.locator(f'.row[data-key="codex:{SID}"] .row-goal.prompt')
    slot.wait_for()
    assert "Port the scheduler to the new queue" in slot.inner_text()
    assert not (tmp_path / "home" / ANNOTATIONS_FILE).exists(), "showing a prompt does not save it"
    slot.click()
    page.wait_for_selector(".intent-panel")
    page.locator(".adopt-goal").click()
    page.locator(".adopt-line").click()
    page.locator(".save").click()
    _until(page, "document.querySelector('.intent-message').textContent.includes('revision 1')")
    entry = _stored(tmp_path)["revisions"][0]
    assert entry["goal"] == "Port the scheduler to the new queue" and entry["goal_source"] == "prompt"
    assert entry["lines"] == [
        {"text": "Port the scheduler to the new queue", "source": "entry", "entry": "your prompt"}
    ]
    page.wait_for_selector(".intent-revision")
    assert "from your prompt" in page.locator(".intent-fields .field-label").first.inner_text()
    assert "added from your prompt" in page.locator(".outcome-line").first.inner_text()
    project = next(x for x in httpx.get(srv.url + "/api/data", timeout=5).json()["sessions"] if x["session_id"] == SID)[
        "project"
    ]
    page.goto(srv.url + "/#n=project:" + quote(project, safe=""))
    stated = page.locator(f'.project-goals .stated[data-key="codex:{SID}"]')
    stated.wait_for()
    sources = stated.locator(".stated-row").evaluate_all("rows => rows.map(r => r.dataset.source)")
    assert sources == ["published", "typed", "typed"], "your words beside the published goal, each on its own row"
    assert "published by Codex" in stated.locator(".stated-row.published").inner_text()
    assert "your goal (from your prompt)" in stated.locator(".stated-row.typed").inner_text()
    page.goto(srv.url + "/#n=session::codex:" + long_sid)
    page.wait_for_selector(".intent-panel .adopt")
    assert page.locator(".adopt-goal").count() == 0
    assert "nothing is clipped" in page.locator(".adopt").inner_text()
    assert page.errors == []


def test_on_a_narrow_screen_the_intent_section_comes_first(server: Any, browser: Any, tmp_path: Path) -> None:
    srv = server()
    ctx = browser.new_context(viewport={"width": 600, "height": 900})
    try:
        page = _open(ctx, _session_url(srv))
        page.locator(".intent-panel").wait_for()
        tops = page.evaluate(
            "[...document.querySelectorAll('.session-page > .columns > *')].map(e => [e.className, e.getBoundingClientRect().top])"
        )
        assert "intent-panel" in tops[0][0]
        assert tops[0][1] < tops[1][1], "stacked first, above the session activity"
        lefts = page.evaluate(
            "[...document.querySelectorAll('.session-page > .columns > *')].map(e => e.getBoundingClientRect().left)"
        )
        assert len(set(lefts)) == 1, "one column"
    finally:
        ctx.close()


def test_an_untrusted_store_is_said_in_place_of_nothing_typed_and_in_the_header(
    server: Any, context: Any, tmp_path: Path
) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ANNOTATIONS_FILE).write_bytes(b"{half a write")
    srv = server()
    page = _open(context, _session_url(srv))
    page.locator(".intent-panel .intent-untrusted").wait_for()
    assert page.locator(".intent-none").count() == 0, "never 'nothing typed' over a file it could not read"
    assert "not valid JSON" in page.locator('header .store-reset[data-store="annotations"]').inner_text()
    page.locator("#intent-goal").fill("anything")
    page.locator(".save").click()
    _until(page, "document.querySelector('.intent-message').textContent.startsWith('Not saved')")
    assert "could not be read whole" in page.locator(".intent-message").inner_text()
    assert (tmp_path / "home" / ANNOTATIONS_FILE).read_bytes() == b"{half a write"


def test_a_waiting_row_leads_its_now_cell_with_the_wait_and_keeps_the_goal_beside_it(
    serve: Any, builder_for: Any, tmp_path: Path, context: Any
) -> None:
    """A row that waits on you says what it waits on first: the typed goal beside NOW follows
    it rather than pushing the question out of the cell, and no separator trails the goal."""
    waiting = FakeSession(
        SID,
        title="Parser work",
        cwd=str(tmp_path / "w" / "parser"),
        gate=Gate(kind="question", text="Which database should the dashboard use?", source="transcript"),
    )
    srv = serve(
        builder_for([("fake", FakeHarness("fake", [waiting]))], tmp_path),
        features=[FEATURE],
        state_dir=tmp_path / "home",
    )
    body = {"harness": "fake", "sid": SID, "goal": "Pick the store and wire it in a very long way", "lines": []}
    assert httpx.post(srv.url + "/api/annotate", json=body, timeout=5).json()["outcome"] == "stored"
    page = _open(context, srv.url + "/#n=sessions")
    cell = page.locator(f'.row[data-key="fake:{SID}"] .c-now')
    cell.locator(".row-goal.typed").wait_for()
    text = cell.inner_text()
    assert text.startswith("question: Which database should the dashboard use?"), text
    assert text.rstrip().endswith("Pick the store and wire it in a very long way"), "no trailing separator"
    assert page.errors == []


def test_sessions_sharing_a_title_are_told_apart_in_the_intent_log_and_a_projects_goals(
    serve: Any, builder_for: Any, tmp_path: Path, context: Any
) -> None:
    """Two sessions of one title (a task retried) are named with their short id beside the
    title, as on the board, wherever the intent layer lists sessions by name: the Intent log
    and a project's stated goals."""
    cwd = str(tmp_path / "w" / "retry")
    harness = FakeHarness(
        "fake",
        [
            FakeSession("twin-one-0000", title="Fix the retry loop", cwd=cwd),
            FakeSession("twin-two-0000", title="Fix the retry loop", cwd=cwd),
            FakeSession("solo-0000", title="Tidy", cwd=cwd),
        ],
    )
    srv = serve(builder_for([("fake", harness)], tmp_path), features=[FEATURE], state_dir=tmp_path / "home")
    for sid in ("twin-one-0000", "twin-two-0000"):
        body = {"harness": "fake", "sid": sid, "goal": f"Goal of {sid}"}
        assert httpx.post(srv.url + "/api/annotate", json=body, timeout=5).json()["outcome"] == "stored"
    board = httpx.get(srv.url + "/api/data", timeout=5).json()
    ids = {s["session_id"]: s["display_id"] for s in board["sessions"]}
    assert ids["twin-one-0000"] != ids["twin-two-0000"]
    twins = sorted(f"Fix the retry loop ({ids[sid]})" for sid in ("twin-one-0000", "twin-two-0000"))
    log = _open(context, srv.url + "/#n=intent")
    log.locator('.log-row[data-key="fake:twin-two-0000"] .source[data-kind=goal]').wait_for()
    assert sorted(log.locator(".log-row .log-head a.title").all_inner_texts()) == sorted([*twins, "Tidy"])
    project = board["sessions"][0]["project"]
    log.goto(srv.url + "/#n=project:" + project.replace("/", "%2F"))
    log.locator("li.stated >> nth=1").wait_for()
    assert sorted(log.locator("li.stated > a").all_inner_texts()) == twins
    assert log.errors == []
