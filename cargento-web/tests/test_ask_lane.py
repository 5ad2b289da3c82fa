"""The ask lane's server half over HTTP (capability, bounds, notification on arrival) and its
pure parts (registration bodies, the question store, the demo's asker)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from cargento.board import Board
from cargento.statedir import CAPABILITY_HEADER
from cargento.testing.fakes import FakeHarness
from cargento_web.ask.demo import DEMO_QUESTIONS, DemoAsker
from cargento_web.ask.questions import (
    OUTSTANDING_LIMIT,
    PER_SESSION_LIMIT,
    Asked,
    Invalid,
    Questions,
    Refused,
    parse_question,
)
from cargento_web.runtime import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier
from hypothesis import given
from hypothesis import strategies as st

T0 = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.fixture
def lane(serve: Any, builder_for: Any, tmp_path: Path) -> Any:
    notifier = MemoryNotifier()
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=notifier)
    server = serve(
        builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=hub, features=["cargento_web.ask"]
    )
    server.hub = hub
    server.notifier = notifier
    return server


def _post(server: Any, path: str, body: object, **headers: str) -> httpx.Response:
    return httpx.post(
        server.url + path,
        content=json.dumps(body),
        headers={"Content-Type": "application/json", **headers},
        timeout=5,
    )


QUESTION = {"question": "Merge now?", "options": ["Merge", "Wait"], "harness": "claude", "session_id": "s-1"}


def test_registration_needs_this_runs_capability(lane: Any) -> None:
    assert _post(lane, "/api/ask", QUESTION).status_code == 401
    assert _post(lane, "/api/ask", QUESTION, **{CAPABILITY_HEADER: "not-it"}).status_code == 403
    assert httpx.get(lane.url + "/api/ask/whatever", timeout=5).status_code == 401
    # A page from elsewhere cannot register one even with the capability.
    foreign = _post(
        lane, "/api/ask", QUESTION, **{CAPABILITY_HEADER: lane.hub.capability, "Origin": "https://evil.example"}
    )
    assert foreign.status_code == 403
    ok = _post(lane, "/api/ask", QUESTION, **{CAPABILITY_HEADER: lane.hub.capability})
    assert ok.status_code == 201 and ok.json()["status"] == "open"


def test_a_bad_body_is_refused_and_registers_nothing(lane: Any) -> None:
    cap = {CAPABILITY_HEADER: lane.hub.capability}
    for body in (
        {"question": "x", "options": ["only one"]},
        {"question": "x", "options": ["a", "b", "c", "d", "e", "f", "g"]},
        {"question": "x", "options": ["a", "A"]},
        {"question": "", "options": ["a", "b"]},
        {"question": "x" * 501, "options": ["a", "b"]},
        {"question": "x", "options": ["a", "b" * 81]},
        {"question": "x", "options": ["a", "b"], "timeout_s": 5},
        {"question": "x", "options": ["a", "b"], "session_id": "s-1"},
    ):
        assert _post(lane, "/api/ask", body, **cap).status_code == 422, body
    assert _post(lane, "/api/ask", ["not", "an", "object"], **cap).status_code == 400
    big = httpx.post(lane.url + "/api/ask", content=b"x" * (17 * 1024), headers=cap, timeout=5)
    assert big.status_code == 413
    assert httpx.get(lane.url + "/api/data", timeout=5).json()["questions"] == []


def test_a_question_notifies_on_arrival_with_its_own_floor(lane: Any) -> None:
    cap = {CAPABILITY_HEADER: lane.hub.capability}
    assert _post(lane, "/api/ask", QUESTION, **cap).status_code == 201
    assert lane.notifier.wait_for(1)
    title, body = lane.notifier.sent[0]
    assert "asks a question" in title and body == "Merge now?"
    # A second question inside 15 seconds is held by the question floor, not raised.
    assert _post(lane, "/api/ask", {**QUESTION, "question": "And rebase?"}, **cap).status_code == 201
    assert not lane.notifier.wait_for(2, timeout_s=0.5)
    assert [p.kind for p in lane.hub.alerts.pending] == ["question"]


def test_the_page_config_says_the_lane_is_on(lane: Any) -> None:
    page = httpx.get(lane.url + "/", timeout=5).text
    assert '"ask":{"on":true' in page.replace(" ", "").replace("&quot;", '"')


# -- the store ------------------------------------------------------------------------------


def _asked(text: str = "Which?", timeout_s: float = 60) -> Asked:
    return Asked(harness=None, session_id=None, project=None, text=text, options=("a", "b"), timeout_s=timeout_s)


def test_the_store_holds_its_cap_expires_and_keeps_closed_outcomes() -> None:
    store = Questions()
    opened = [store.register(_asked(f"q{n}"), T0) for n in range(OUTSTANDING_LIMIT)]
    with pytest.raises(Refused):
        store.register(_asked(), T0)
    store.answer(opened[0].id, 1, T0)
    assert store.register(_asked(), T0)  # answering one makes room
    with pytest.raises(LookupError):
        store.answer(opened[0].id, 0, T0)  # a second answer changes nothing
    assert store.get(opened[0].id, T0).index == 1  # type: ignore[union-attr]
    later = T0 + timedelta(seconds=61)
    assert {q.status for q in store.expire(later)} == {"expired"}
    assert store.outstanding(later) == []
    # Closed outcomes are forgotten after a while, so the store stays bounded.
    assert store.get(opened[1].id, later + timedelta(minutes=11)) is None


@given(
    st.dictionaries(
        st.sampled_from(["question", "options", "timeout_s", "harness", "session_id", "project", "x"]),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=600),
            lambda c: st.lists(c, max_size=8) | st.dictionaries(st.text(max_size=5), c, max_size=3),
            max_leaves=12,
        ),
    )
)
def test_parse_question_takes_any_body_and_raises_only_invalid(body: dict[str, Any]) -> None:
    try:
        asked = parse_question(body)
    except Invalid:
        return
    assert 2 <= len(asked.options) <= 6 and asked.text


# -- the demo -------------------------------------------------------------------------------


def test_the_demo_asks_a_live_session_now_and_then(builder_for: Any, tmp_path: Path) -> None:
    from cargento.testing.fakes import FakeSession

    board: Board = builder_for([("claude", FakeHarness("claude", [FakeSession("demo-1")]))], tmp_path).build()
    live = [s for s in board.sessions if not s.ended]
    assert live
    store = Questions()
    raised: list[int] = []
    now = [T0]
    asker = DemoAsker(
        store, latest_board=lambda: board, raised=lambda: raised.append(1), clock=lambda: now[0], every_s=40
    )
    assert asker.step() is True
    [q] = store.outstanding(T0)
    assert (q.harness, q.session_id) == (live[0].harness, live[0].session_id)
    assert (q.text, q.options) == DEMO_QUESTIONS[0]
    assert asker.step() is False  # one at a time
    store.answer(q.id, 0, T0)
    now[0] = T0 + timedelta(seconds=10)
    assert asker.step() is False  # not again at once
    now[0] = T0 + timedelta(seconds=41)
    assert asker.step() is True
    assert store.outstanding(now[0])[0].text == DEMO_QUESTIONS[1][0]
    assert len(raised) == 2


def test_the_demo_asks_a_session_not_at_risk_when_there_is_one(builder_for: Any, tmp_path: Path) -> None:
    """A question moves its session out of At risk while it stands: the demo's asker passes
    over a looping row (the newest here) for another working one, so the showroom keeps both."""
    import attrs
    from cargento.models import LoopReading
    from cargento.testing.fakes import FakeSession

    built: Board = builder_for(
        [("claude", FakeHarness("claude", [FakeSession("looping", age_s=1), FakeSession("plain", age_s=5)]))],
        tmp_path,
    ).build()
    loop = LoopReading(kind="run", failures=9, successes=0, note="9 failed tool calls in a row")
    board = attrs.evolve(
        built, sessions=tuple(attrs.evolve(s, loop=loop) if s.session_id == "looping" else s for s in built.sessions)
    )
    asker = DemoAsker(Questions(), latest_board=lambda: board, raised=lambda: None, clock=lambda: T0, every_s=40)
    who = asker.asker()
    assert who is not None and who[1] == "plain"


def test_an_unattributed_question_notifies_but_records_no_delivery(lane: Any) -> None:
    cap = {CAPABILITY_HEADER: lane.hub.capability}
    assert _post(lane, "/api/ask", {"question": "Who am I?", "options": ["a", "b"]}, **cap).status_code == 201
    assert lane.notifier.wait_for(1)
    assert lane.notifier.sent[0] == ("A session asks a question", "Who am I?")
    assert lane.hub.alerts.drain()
    # The delivery record is keyed by session: a raise about no session records nothing.
    assert lane.hub.deliveries.all() == ()
    assert _post(lane, "/api/ask", {**QUESTION, "question": "Named?"}, **cap).status_code == 201


# -- attribution ------------------------------------------------------------------------------


def test_attribution_reads_only_what_each_harness_plugin_declares() -> None:
    from cargento.models import HarnessInfo, McpSession
    from cargento_web.ask.attribution import attribute, declared_infos

    infos = declared_infos()
    claude = attribute({"CLAUDE_CODE_SESSION_ID": "sid-1", "CLAUDE_PROJECT_DIR": "/home/dev/shop"}, infos)
    assert (claude.harness, claude.session_id, claude.project) == ("claude", "sid-1", "/home/dev/shop")
    goose = attribute({"AGENT_SESSION_ID": "20261201_4"}, infos)
    assert (goose.harness, goose.session_id) == ("goose", "20261201_4")
    # A generic variable with a value of another form, or nothing at all, names no one.
    assert attribute({"AGENT_SESSION_ID": "run-7"}, infos).harness is None
    assert attribute({"CODEX_THREAD_ID": "019dba93", "GEMINI_CLI": "1"}, infos).harness is None
    # Two harnesses that both claim the environment: unattributed, never a guess between them.
    both = [
        HarnessInfo(key="one", label="One", mcp_session=McpSession(variable="SHARED_ID")),
        HarnessInfo(key="two", label="Two", mcp_session=McpSession(variable="SHARED_ID")),
    ]
    assert attribute({"SHARED_ID": "x"}, both).session_id is None
    # The hand-named pair wins, and needs both halves.
    assert attribute({"CARGENTO_ASK_HARNESS": "pi", "CARGENTO_ASK_SESSION_ID": "p-1"}, infos).harness == "pi"
    assert attribute({"CARGENTO_ASK_HARNESS": "pi"}, infos).harness is None


def test_the_demo_server_shows_a_question_that_the_page_can_answer(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    import time

    from cargento.testing.fakes import FakeSession

    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=MemoryNotifier())
    builder = builder_for([("claude", FakeHarness("claude", [FakeSession("demo-1")]))], tmp_path)
    server = serve(builder, hub=hub, features=["cargento_web.ask"], demo=True)
    deadline = time.monotonic() + 10
    questions: list[dict[str, Any]] = []
    while not questions and time.monotonic() < deadline:
        questions = httpx.get(server.url + "/api/data", timeout=5).json()["questions"]
        time.sleep(0.2)
    [q] = questions
    assert (q["harness"], q["session_id"]) == ("claude", "demo-1")
    answered = _post(server, f"/api/ask/{q['id']}/answer", {"index": 0})
    assert answered.status_code == 200
    assert httpx.get(server.url + "/api/data", timeout=5).json()["questions"] == []


def test_one_session_cannot_take_every_place() -> None:
    store = Questions()
    named = Asked(harness="pi", session_id="p-1", project=None, text="Again?", options=("a", "b"), timeout_s=60)
    for _ in range(PER_SESSION_LIMIT):
        store.register(named, T0)
    with pytest.raises(Refused, match="this session"):
        store.register(named, T0)
    # Another session, and an unattributed question, still get a place.
    store.register(attrs.evolve(named, session_id="p-2"), T0)
    store.register(_asked(), T0)
