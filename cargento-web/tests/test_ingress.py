"""The event ingress routes on a real loopback server: refusals, acceptance, the board."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento.statedir import CAPABILITY_HEADER
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.ingress import BODY_LIMIT
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

CAP = "test-capability-0123456789"


def _now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[EventHub]:
    made = EventHub(clock=_now, state_dir=tmp_path / "state", notifier=MemoryNotifier(), capability=CAP)
    yield made
    made.close()


@pytest.fixture
def server(serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub) -> Any:
    fake = FakeHarness("claude", [FakeSession("s1", age_s=600)])
    return serve(builder_for([("claude", fake)], tmp_path), hub=hub)


def post(
    server: Any, path: str, body: Any = None, *, headers: dict[str, str] | None = None, raw: bytes | None = None
) -> httpx.Response:
    sent = {"Content-Type": "application/json", CAPABILITY_HEADER: CAP, **(headers or {})}
    content = raw if raw is not None else json.dumps(body).encode()
    return httpx.post(server.url + path, content=content, headers=sent, timeout=10)


def test_capability_absent_is_401_and_wrong_is_403(server: Any) -> None:
    body = {"session_id": "s1", "hook_event_name": "UserPromptSubmit"}
    assert post(server, "/api/events/claude", body, headers={CAPABILITY_HEADER: ""}).status_code == 401
    assert post(server, "/api/events/claude", body, headers={CAPABILITY_HEADER: "guess"}).status_code == 403
    assert post(server, "/api/notify", body, headers={CAPABILITY_HEADER: "guess"}).status_code == 403
    assert httpx.get(server.url + "/api/overlays").json()["events_received"] == 0


def test_a_foreign_origin_and_a_navigation_are_refused(server: Any) -> None:
    body = {"session_id": "s1", "hook_event_name": "UserPromptSubmit"}
    assert post(server, "/api/events/claude", body, headers={"Origin": "http://evil.example"}).status_code == 403
    assert post(server, "/api/events/claude", body, headers={"Sec-Fetch-Mode": "navigate"}).status_code == 403
    assert httpx.get(server.url + "/api/events/claude").status_code == 405


def test_a_foreign_host_is_refused(server: Any) -> None:
    body = {"session_id": "s1", "hook_event_name": "UserPromptSubmit"}
    assert post(server, "/api/events/claude", body, headers={"Host": "attacker.example:80"}).status_code == 421


@pytest.mark.parametrize(
    ("path", "raw", "status"),
    [
        ("/api/events/claude", b"{not json", 400),
        ("/api/events/claude", b"[1, 2]", 400),
        ("/api/events/claude", b'"text"', 400),
        ("/api/events/claude", b'{"hook_event_name": "Stop"}', 422),
        ("/api/events/claude", b'{"session_id": "a b", "hook_event_name": "Stop"}', 422),
        ("/api/events/copilot", b'{"session_id": "s1", "hook_event_name": "Stop"}', 404),
        ("/api/notify", b'{"message": "no session"}', 422),
    ],
)
def test_malformed_bodies_are_refused_with_a_clear_status(server: Any, path: str, raw: bytes, status: int) -> None:
    response = post(server, path, raw=raw)
    assert response.status_code == status and response.json()["accepted"] is False
    assert response.json()["error"].startswith("refused:")


def test_an_oversize_body_is_413(server: Any) -> None:
    raw = json.dumps({"session_id": "s1", "hook_event_name": "Stop", "pad": "x" * (BODY_LIMIT + 10)}).encode()
    assert post(server, "/api/events/claude", raw=raw).status_code == 413


def test_refused_bodies_never_reach_the_board(server: Any, hub: EventHub) -> None:
    for raw in (b"{", b"[]", b'{"hook_event_name": "PermissionRequest"}', b"\xff" * 100):
        post(server, "/api/events/claude", raw=raw)
    assert hub.overlays(hub.clock()) == {}
    data = httpx.get(server.url + "/api/data").json()
    assert [s["state"] for s in data["sessions"]] == ["idle"]


def test_an_accepted_event_drives_the_board(server: Any) -> None:
    response = post(
        server,
        "/api/events/claude",
        {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt_id": "p", "extra": {"x": 1}},
    )
    assert response.status_code == 202
    assert response.json() == {
        "accepted": True,
        "kind": "turn_started",
        "effect": "working: turn started",
        "state": "working",
        "irreversible": [],
    }
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        session = httpx.get(server.url + "/api/data").json()["sessions"][0]
        if session["state"] == "working":
            break
        time.sleep(0.05)
    assert session["state"] == "working" and session["state_source"] == "event:UserPromptSubmit"


def test_a_read_right_after_an_accepted_event_sees_it(server: Any) -> None:
    """A board built a moment ago is not handed out once an event has moved an overlay: the
    next ``/api/data`` (no page streaming, so no live feed) is built anew and carries it."""
    with httpx.Client(base_url=server.url, timeout=10) as client:
        assert client.get("/api/data").json()["sessions"][0]["state"] != "needs_input"
        for name, state in (("PermissionRequest", "needs_input"), ("PostToolUse", "working"), ("Stop", "idle")):
            body = {"session_id": "s1", "hook_event_name": name, "prompt_id": "p", "tool_name": "Bash"}
            assert post(server, "/api/events/claude", body).status_code == 202
            # Inside the one-second window an unchanged board may be reused in.
            assert client.get("/api/data").json()["sessions"][0]["state"] == state, name


def test_notify_route_takes_claude_notifications(server: Any, hub: EventHub) -> None:
    response = post(
        server,
        "/api/notify",
        {
            "session_id": "s1",
            "hook_event_name": "Notification",
            "notification_type": "permission_prompt",
            "message": "Claude needs your permission to use Bash",
        },
    )
    assert response.status_code == 202 and response.json()["state"] == "needs_input"
    assert hub.alerts.drain()
    assert (
        post(server, "/api/notify", {"session_id": "s1", "hook_event_name": "SessionEnd", "reason": "other"}).json()[
            "kind"
        ]
        == "session_ended"
    )


def test_irreversible_reports_come_back_in_the_answer(server: Any) -> None:
    body = {
        "session_id": "s1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git reset --hard"},
    }
    assert post(server, "/api/events/claude", body).json()["irreversible"] == ["hard-reset"]


def test_overlays_route_lists_overlays_and_timings(server: Any) -> None:
    post(
        server,
        "/api/events/claude",
        {"session_id": "s1", "hook_event_name": "UserPromptSubmit"},
        headers={"X-Cargento-Hook-At": f"{time.time() - 0.05:.3f}"},
    )
    doc = httpx.get(server.url + "/api/overlays").json()
    assert doc["overlays"][0]["session_id"] == "s1" and doc["overlays"][0]["state"] == "working"
    (event,) = doc["lanes"][0]["events"]
    assert event["name"] == "UserPromptSubmit" and event["delivery_ms"] is not None and event["delivery_ms"] >= 0
    assert doc["overrules"] == [] and doc["status"]["notifications"]["backend"] == "memory"


def test_events_off_mounts_no_routes(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    quiet = EventHub(clock=_now, state_dir=tmp_path / "s2", events=False)
    server = serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=quiet)
    assert quiet.capability is None
    assert httpx.post(server.url + "/api/events/claude", content=b"{}").status_code == 404
    assert httpx.get(server.url + "/api/overlays").status_code == 404
    quiet.close()


def test_create_hub_follows_the_options(tmp_path: Path, builder_for: Callable[..., Any]) -> None:
    from cargento.cli import Options
    from cargento_web.ingress import create_hub

    builder = builder_for([], tmp_path, env={"CARGENTO_HOME": str(tmp_path / "c")})
    hub = create_hub(builder=builder, settings=None, options=Options(no_irreversible=True, no_notify=True))
    assert hub.events and not hub.irreversible_enabled and not hub.alerts.enabled and hub.capability
    assert hub.status()["notifications"]["detail"].endswith("(--no-notify)")
    off = create_hub(builder=builder, settings=None, options=Options(no_events=True, no_notify=True))
    assert off.capability is None and off.ends is None
    hub.close()
    off.close()


def test_a_replay_takes_no_live_events_and_says_why(tmp_path: Path, builder_for: Callable[..., Any]) -> None:
    """A replay (--as-of) shows a past moment: it publishes no capability, so no forwarder posts
    to it, refuses an event in its own words, and writes nothing to the session-end store."""
    from cargento.cli import Options
    from cargento.events.payloads import PayloadError
    from cargento_web.ingress import create_hub

    builder = builder_for([], tmp_path, env={"CARGENTO_HOME": str(tmp_path / "c")})
    replay = create_hub(builder=builder, settings=None, options=Options(as_of=datetime(2026, 11, 30, tzinfo=UTC)))
    try:
        assert not replay.events and replay.capability is None
        assert replay.ends is not None and replay.ends.journal.read_only
        assert replay.routes(object()) == []
        with pytest.raises(PayloadError, match=r"a replay \(--as-of\) takes no live lifecycle events"):
            replay.ingest("claude", {"session_id": "s1", "hook_event_name": "Stop"})
        record = replay.session_record("claude", "s1")
        assert record["marks"]["reason"].startswith("a replay (--as-of) takes no live lifecycle events")
        assert record["irreversible"]["reason"].startswith("a replay (--as-of) takes no live lifecycle events")
    finally:
        replay.close()


def test_a_replay_marks_the_ends_recorded_up_to_its_moment_and_writes_nothing(
    tmp_path: Path, builder_for: Callable[..., Any]
) -> None:
    """The ends a live run recorded are read back as they stood at the replayed moment: an end
    before it marks its idle row ended, an end after it is not yet; a start takes an end back
    only when it came by the moment (one recorded without a time, by an earlier build, is not
    applied); the store is left byte for byte, and one that does not read is left where it is,
    not set aside."""
    from cargento.cli import Options
    from cargento_web.ingress import create_hub
    from cargento_web.runtime.stores import ENDS_FILE, End, EndsStore

    moment = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    state = tmp_path / "c"
    state.mkdir()
    live = EndsStore(state)
    live.load(moment)
    live.record(End(harness="fake", session_id="before", at=moment - timedelta(minutes=10), reason="logout"), moment)
    live.record(End(harness="fake", session_id="after", at=moment + timedelta(minutes=10)), moment)
    for sid in ("resumed", "resumed-before", "resumed-untimed"):
        live.record(End(harness="fake", session_id=sid, at=moment - timedelta(minutes=20)), moment)
    assert live.forget("fake", "resumed", at=moment + timedelta(minutes=5))  # after the moment replayed
    assert live.forget("fake", "resumed-before", at=moment - timedelta(minutes=5))
    assert live.forget("fake", "resumed-untimed")
    assert live.flush()
    live.close()
    stored = (state / ENDS_FILE).read_bytes()
    mtime = (state / ENDS_FILE).stat().st_mtime_ns

    names = ("before", "after", "resumed", "resumed-before", "resumed-untimed")
    sessions = [FakeSession(sid, age_s=30 * 60) for sid in names]
    builder = builder_for(
        [("fake", FakeHarness("fake", sessions))], tmp_path, env={"CARGENTO_HOME": str(state)}, clock=lambda: moment
    )
    replay = create_hub(builder=builder, settings=None, options=Options(as_of=moment))
    try:
        board = replay.on_board(builder.build(now=moment, as_of=True, overlays=replay.overlays(moment)))
        rows = {s.session_id: s for s in board.sessions}
        assert rows["before"].ended and rows["before"].detail.startswith("session ended")
        assert rows["resumed"].ended and rows["resumed-untimed"].ended
        assert not rows["resumed-before"].ended, "it had started again by the moment replayed"
        assert not rows["after"].ended and rows["after"].state == "idle"
    finally:
        replay.close()
    assert (state / ENDS_FILE).read_bytes() == stored and (state / ENDS_FILE).stat().st_mtime_ns == mtime

    (state / ENDS_FILE).write_bytes(b"not a store")
    replay = create_hub(builder=builder, settings=None, options=Options(as_of=moment))
    try:
        assert replay.ends is not None and replay.ends.all() == ()
        assert replay.ends.reset is not None and "left alone" in replay.ends.reset
    finally:
        replay.close()
    assert sorted(p.name for p in state.iterdir()) == [ENDS_FILE] and (state / ENDS_FILE).read_bytes() == b"not a store"


def test_health_answers_the_forwarders_challenge_with_the_capability_proof(server: Any, hub: EventHub) -> None:
    """The forwarders post only to the dashboard that proves it holds this run's capability."""
    from cargento.statedir import health_proof

    challenge = "c" * 20 + "-0123456789_abc"
    answer = httpx.get(f"{server.url}/api/health", params={"challenge": challenge}).json()
    assert hub.capability is not None
    assert answer["proof"] == health_proof(hub.capability, challenge)
    assert hub.capability not in json.dumps(answer)
    assert "proof" not in httpx.get(f"{server.url}/api/health").json()
    assert "proof" not in httpx.get(f"{server.url}/api/health", params={"challenge": "short"}).json()


def test_health_gives_no_proof_with_events_off(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    quiet = EventHub(clock=_now, state_dir=tmp_path / "s3", events=False)
    server = serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=quiet)
    assert "proof" not in httpx.get(f"{server.url}/api/health", params={"challenge": "x" * 32}).json()
    quiet.close()
