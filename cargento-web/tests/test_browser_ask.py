"""The ask lane in a real browser: options as buttons in NEEDS YOU NOW and on the session page,
a mark on the asking row, the answer sent as an index, and no control under ``--no-ask``."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.cli import Options
from cargento.statedir import CAPABILITY_HEADER
from cargento_web.runtime import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

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
wait_until = _TB.wait_until
PI_SESSION = "pi-busy-0001"


@pytest.fixture
def ask_server(serve: Any, builder_for: Any, tmp_path: Path) -> Callable[..., Any]:
    def start(
        options: Options | None = None, features: tuple[str, ...] = ("cargento_web.ask",), notifier: Any = None
    ) -> Any:
        hub = EventHub(
            clock=lambda: datetime.now(UTC),
            state_dir=tmp_path / "state",
            notifier=notifier if notifier is not None else MemoryNotifier(),
        )
        builder = builder_for([("pi", _TB.pi_harness())], tmp_path)
        server = serve(builder, hub=hub, features=list(features), options=options, all_sessions=True)
        server.hub = hub
        return server

    return start


def _ask(server: Any, **body: Any) -> httpx.Response:
    return httpx.post(
        f"{server.url}/api/ask",
        content=json.dumps(body),
        headers={"Content-Type": "application/json", CAPABILITY_HEADER: server.hub.capability},
        timeout=5,
    )


def _poll(server: Any, question_id: str) -> dict[str, Any]:
    found: dict[str, Any] = httpx.get(
        f"{server.url}/api/ask/{question_id}", headers={CAPABILITY_HEADER: server.hub.capability}, timeout=5
    ).json()
    return found


def test_the_options_are_buttons_and_a_click_answers_by_index(ask_server: Any, page_for: Any) -> None:
    server = ask_server()
    asked = _ask(
        server,
        question="Ship <script>alert(1)</script> to staging?",
        options=["Ship it", "Hold", "<b>Roll back</b>"],
        harness="pi",
        session_id=PI_SESSION,
    )
    assert asked.status_code == 201, asked.text
    question_id = asked.json()["id"]
    loose = _ask(server, question="Which port?", options=["4553", "4554"])
    assert loose.status_code == 201

    page = page_for(server.url + "/#n=attention")
    page.wait_for_selector(".ask-lane .ask-question", timeout=10_000)
    cards = page.locator(".ask-lane .ask-question")
    assert cards.count() == 2
    mine = page.locator(f'.ask-question[data-question="{question_id}"]')
    # Text, never markup: the tags show as characters and no element was made of them.
    assert mine.locator(".ask-text").inner_text() == "Ship <script>alert(1)</script> to staging?"
    assert page.locator(".ask-lane script, .ask-lane b").count() == 0
    labels = mine.locator("button.ask-option").all_inner_texts()
    assert labels == ["Ship it", "Hold", "<b>Roll back</b>"]
    # No option is emphasised: every button carries the same classes and none has focus.
    classes = {b.get_attribute("class") for b in mine.locator("button.ask-option").all()}
    assert classes == {"ask-option"}
    assert page.evaluate("document.activeElement && document.activeElement.classList.contains('ask-option')") is False
    assert "Port the tokenizer" in mine.inner_text()
    unattributed = page.locator(".ask-question", has_text="Which port?")
    assert "unattributed session" in unattributed.inner_text()

    # The asking row carries the mark.
    page.goto(server.url + "/#n=sessions")
    page.wait_for_selector(".ask-chip", timeout=10_000)
    assert page.locator(".ask-chip").count() == 1

    # The session page shows this session's question only, and answers it.
    page.goto(server.url + "/#n=session:code%2Ftokenizer:pi:" + PI_SESSION)
    page.wait_for_selector(".session-asks .ask-question", timeout=10_000)
    assert page.locator(".session-asks .ask-question").count() == 1
    # A session waiting on you shows its question first: under its name, above the columns.
    assert page.evaluate(
        "(() => { const ask = document.querySelector('.session-asks');"
        " const first = document.querySelector('.session-page .columns');"
        " return Boolean(first) && Boolean(ask.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING); })()"
    )
    page.locator(".session-asks button.ask-option", has_text="Hold").click()
    # The answer lands (the card then leaves with the next revision of the board).
    assert wait_until(page, "document.querySelectorAll('.session-asks').length === 0", timeout=5.0)
    assert _poll(server, question_id)["status"] == "answered"
    assert _poll(server, question_id)["index"] == 1
    assert page.errors == []


def test_a_question_waits_in_its_projects_command_until_answered(ask_server: Any, page_for: Any) -> None:
    """The project cockpit's COMMAND lists a question its session asks (answerable there), the
    Projects view's and the project page's headings count it, and COMMAND says nothing waits
    only once it is answered."""
    server = ask_server(features=("cargento_web.ask", "cargento_web.cockpit"))
    page = page_for(server.url + "/#n=project:code%2Ftokenizer")
    command = page.locator("[data-part='command']")
    command.wait_for(timeout=10_000)
    assert "Nothing in this project waits on you." in command.inner_text()
    asked = _ask(server, question="Bump the lockfile too?", options=["Yes", "No"], harness="pi", session_id=PI_SESSION)
    assert asked.status_code == 201, asked.text
    card = command.locator(f'.ask-question[data-question="{asked.json()["id"]}"]')
    card.wait_for(timeout=10_000)
    assert "Nothing in this project waits on you." not in command.inner_text()
    page.evaluate("location.hash = '#n=projects'")
    heading = page.locator(".project[data-project='code/tokenizer'] h3.group-h")
    heading.wait_for(timeout=10_000)
    assert "1 question for you" in heading.inner_text().lower()
    page.evaluate("location.hash = '#n=project:code%2Ftokenizer:console'")
    rail = page.locator("[data-rail=waiting]")
    rail.wait_for(timeout=10_000)
    assert "asks: Bump the lockfile too?" in rail.inner_text(), "Console's Waiting on you lists it too"
    page.evaluate("location.hash = '#n=project:code%2Ftokenizer'")
    card.wait_for(timeout=10_000)
    assert "1 question for you" in page.locator("main h2.view-h").inner_text().lower()
    card.locator("button.ask-option", has_text="No").click()
    assert wait_until(
        page, "document.querySelector(\"[data-part='command'] [data-waiting='0']\") !== null", timeout=5.0
    )
    assert _poll(server, asked.json()["id"])["index"] == 1
    assert page.errors == []


def test_a_question_counts_as_waiting_on_you_in_attention_and_the_header(ask_server: Any, page_for: Any) -> None:
    """An open question is a wait on the reader, as a native gate is: Attention's brief and its
    NEEDS YOU NOW count it, so do the header's block button and tab count; an unattributed one
    counts in NEEDS YOU NOW and the header though it is no session; an answer takes it away."""
    server = ask_server()
    page = page_for(server.url + "/#n=attention")
    page.wait_for_selector("h3.needs-h", timeout=10_000)
    assert page.locator(".att-count").inner_text() == "0"
    asked = _ask(server, question="Run the migration?", options=["Run", "Wait"], harness="pi", session_id=PI_SESSION)
    assert asked.status_code == 201, asked.text
    assert _ask(server, question="Which port?", options=["4553", "4554"]).status_code == 201
    page.wait_for_selector(".ask-lane .ask-question >> nth=1", timeout=10_000)
    assert wait_until(page, "document.querySelector('.att-count').textContent === '2'", timeout=5.0)
    assert page.locator("a.blocks").inner_text().startswith("2 blocks reported")
    assert page.locator("h3.needs-h .count").inner_text() == "2"
    brief = page.locator("p.brief").inner_text()
    assert brief.startswith("1 session needs you now"), brief
    # Counted once: waiting on you takes precedence over its being at risk.
    assert brief.startswith("1 session needs you now, 0 sessions are at risk; of the other 0:"), brief
    page.locator(f'.ask-question[data-question="{asked.json()["id"]}"] button.ask-option', has_text="Wait").click()
    assert wait_until(page, "document.querySelector('.att-count').textContent === '1'", timeout=5.0)
    # Answered, the session is back where its own evidence puts it (a long turn: at risk).
    assert page.locator("p.brief").inner_text().startswith("0 sessions need you now, 1 session is at risk;")
    assert page.errors == []


@pytest.mark.parametrize("desktop", [False, True])
def test_a_new_question_notifies_from_the_tab_where_the_desktop_cannot(
    ask_server: Any, page_for: Any, desktop: bool
) -> None:
    """A question that arrives while the page is open is announced, and raised as a browser
    notification when the server has no desktop backend to raise it (never twice); one that
    stood when the page opened is on the page already and raises nothing."""
    server = ask_server(notifier=MemoryNotifier(available=desktop))
    before = _ask(server, question="Keep the old flag?", options=["Keep", "Drop"])
    assert before.status_code == 201, before.text
    page = page_for(server.url + "/#n=sessions", notifications=True)
    page.wait_for_selector(".ask-chip, main li.row", timeout=10_000)
    page.wait_for_timeout(700)
    asked = _ask(
        server, question="Run the migration now?", options=["Run", "Wait"], harness="pi", session_id=PI_SESSION
    )
    assert asked.status_code == 201, asked.text
    assert wait_until(page, "document.querySelector('#announce').textContent.includes('Run the migration now?')")
    page.wait_for_timeout(1500)
    shown = page.evaluate("window.__shown")
    if desktop:
        assert shown == [], "the server raised it on the desktop"
    else:
        assert [body for _, body in shown] == ["Run the migration now?"], shown
        assert shown[0][0].endswith("asks you a question") and "Port the tokenizer" in shown[0][0]
    assert page.errors == []


def test_no_ask_offers_no_control(ask_server: Any, page_for: Any) -> None:
    server = ask_server(Options(no_ask=True))
    assert _ask(server, question="May I?", options=["yes", "no"]).status_code == 503
    page = page_for(server.url + "/#n=attention")
    page.wait_for_selector("h3.needs-h", timeout=10_000)
    assert page.locator(".ask-lane, button.ask-option").count() == 0
    assert page.errors == []
