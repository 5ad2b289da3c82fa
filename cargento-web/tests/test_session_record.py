"""The session page's record (``GET /api/session-record``), the tab's notification lane
(``POST /api/tab-lane``), the notification availability on the page, and the fixed-interval
scan under ``--no-events``, through the ASGI interface and a real server."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from cargento.models import Gate
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.app import TAB_LANE_BODY_LIMIT, create_app
from cargento_web.runtime.alerts import CONFIRM
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier, NoBackend, Sent
from cargento_web.settings import Settings

PORT = 4553
OWN_PAGE = {"Origin": f"http://127.0.0.1:{PORT}", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}


def _now() -> datetime:
    return datetime.now(UTC)


class Spy:
    """Counts the calls of a hub method the routes must (or must not) reach."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.target(*args, **kwargs)


@pytest.fixture
def hubs(tmp_path: Path) -> Iterator[list[EventHub]]:
    made: list[EventHub] = []
    yield made
    for hub in made:
        hub.close()


def make_hub(hubs: list[EventHub], tmp_path: Path, **kw: Any) -> EventHub:
    # The confirmation delay is test_precision.py's subject; the record tests raise at once,
    # except the no-page tests below, which run it for real.
    options: dict[str, Any] = {
        "clock": _now,
        "state_dir": tmp_path / "state",
        "notifier": MemoryNotifier(),
        "confirm": timedelta(0),
    }
    options.update(kw)
    hub = EventHub(**options)
    hubs.append(hub)
    return hub


def app_with(builder_for: Any, tmp_path: Path, hub: object | None, **settings: Any) -> Any:
    builder = builder_for([("claude", FakeHarness("claude", [FakeSession("s1")]))], tmp_path)
    return create_app(builder=builder, settings=Settings(port=PORT, **settings), hub=hub)


# -- POST /api/tab-lane ------------------------------------------------------------------------


def test_the_dashboards_own_page_reports_its_lane_and_the_next_raise_carries_it(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    hub = make_hub(hubs, tmp_path)
    client = make_client(app_with(builder_for, tmp_path, hub))
    response = client.post("/api/tab-lane", headers=OWN_PAGE)
    assert response.status_code == 200 and response.json() == {"reported": True}
    hub.alerts.gate("claude", "s1", "Claude · s1 needs input", "asking", _now())
    assert hub.alerts.drain()
    (entry,) = client.get("/api/session-record?harness=claude&sid=s1").json()["deliveries"]
    assert entry["tab_lane"]["reported"] is True and entry["tab_lane"]["before_s"] is not None
    assert entry["tab_lane"]["words"].startswith("a dashboard tab had reported its own notification lane")


def test_a_command_line_post_with_no_origin_is_taken_from_loopback(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    hub = make_hub(hubs, tmp_path)
    spy = hub.report_tab_lane = Spy(hub.report_tab_lane)  # type: ignore[method-assign]
    assert make_client(app_with(builder_for, tmp_path, hub)).post("/api/tab-lane").status_code == 200
    assert spy.calls == 1


@pytest.mark.parametrize(
    ("method", "headers", "status", "why"),
    [
        ("GET", {}, 405, "only accepts POST"),
        ("PUT", {}, 405, "only accepts POST"),
        ("POST", {"Origin": "http://evil.example"}, 403, "Origin"),
        ("POST", {"Origin": "null"}, 403, "Origin"),
        ("POST", {"Origin": f"http://127.0.0.1:{PORT + 1}"}, 403, "Origin"),
        ("POST", {"Sec-Fetch-Site": "cross-site"}, 403, "cross-site"),
        ("POST", {"Sec-Fetch-Mode": "navigate"}, 403, "navigation"),
        ("POST", {"Sec-Fetch-Dest": "document"}, 403, "navigation"),
    ],
)
def test_tab_lane_refusals(
    make_client: Any,
    builder_for: Any,
    tmp_path: Path,
    hubs: list[EventHub],
    method: str,
    headers: dict[str, str],
    status: int,
    why: str,
) -> None:
    hub = make_hub(hubs, tmp_path)
    spy = hub.report_tab_lane = Spy(hub.report_tab_lane)  # type: ignore[method-assign]
    response = make_client(app_with(builder_for, tmp_path, hub)).request(method, "/api/tab-lane", headers=headers)
    assert response.status_code == status and why in response.text
    assert spy.calls == 0


def test_tab_lane_refuses_a_foreign_host_a_remote_client_and_an_oversize_body(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    hub = make_hub(hubs, tmp_path)
    spy = hub.report_tab_lane = Spy(hub.report_tab_lane)  # type: ignore[method-assign]
    app = app_with(builder_for, tmp_path, hub)
    assert make_client(app, host="evil.example").post("/api/tab-lane").status_code == 421
    assert make_client(app, host=f"attacker.example:{PORT}").post("/api/tab-lane", headers=OWN_PAGE).status_code == 421
    assert make_client(app).post("/api/tab-lane", content=b"x" * (TAB_LANE_BODY_LIMIT + 1)).status_code == 413
    wide = app_with(builder_for, tmp_path, hub, host="0.0.0.0")
    remote = make_client(wide, host=f"192.168.1.20:{PORT}", client=("192.168.1.7", 5000)).post("/api/tab-lane")
    assert remote.status_code == 403 and "loopback" in remote.text
    assert spy.calls == 0


def test_tab_lane_is_taken_under_no_events_and_refused_with_no_hub(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    quiet = make_hub(hubs, tmp_path, events=False)
    spy = quiet.report_tab_lane = Spy(quiet.report_tab_lane)  # type: ignore[method-assign]
    assert (
        make_client(app_with(builder_for, tmp_path, quiet)).post("/api/tab-lane", headers=OWN_PAGE).status_code == 200
    )
    assert spy.calls == 1  # store-read waits still raise under --no-events, so the lane still matters
    bare = make_client(app_with(builder_for, tmp_path, None)).post("/api/tab-lane", headers=OWN_PAGE)
    assert bare.status_code == 404 and "no event hub" in bare.json()["reason"]


# -- GET /api/session-record -------------------------------------------------------------------


def test_session_record_serves_deliveries_reports_and_marks(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    hub = make_hub(hubs, tmp_path)
    hub.ingest(
        "claude",
        {
            "session_id": "s1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git reset --hard HEAD~3"},
        },
    )
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "Stop"})
    hub.ingest_notification(
        {
            "session_id": "s1",
            "hook_event_name": "Notification",
            "notification_type": "permission_prompt",
            "message": "Claude needs your permission to use Bash",
        }
    )
    assert hub.alerts.drain()
    response = make_client(app_with(builder_for, tmp_path, hub)).get("/api/session-record?harness=claude&sid=s1")
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    doc = response.json()
    assert doc["harness"] == "claude" and doc["session_id"] == "s1" and doc["events"] is True
    (delivery,) = doc["deliveries"]
    assert (
        delivery["outcome"] == "handed-over"
        and delivery["kind"] == "gate"
        and delivery["title"].endswith("needs input")
    )
    assert "accepted the request" in delivery["outcome_words"] and "seen" not in delivery["outcome_words"]
    (report,) = doc["irreversible"]["reports"]
    assert report["shape_words"] == "hard reset" and report["command"] == "git reset --hard HEAD~3"
    assert doc["marks"]["turn_ended_at"] is not None and doc["marks"]["session_ended"] is None
    assert doc["notifications"]["backend"] == "memory" and doc["notifications"]["available"] is True


def test_session_record_redacts_what_a_backend_said(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    class Leaky(MemoryNotifier):
        def send(self, title: str, body: str, *, timeout_s: float = 5.0) -> Sent:
            return Sent(outcome="service-error", detail="refused: api_key=abcdef0123456789 is not allowed")

    hub = make_hub(hubs, tmp_path, notifier=Leaky())
    hub.alerts.gate("claude", "s1", "t", "b", _now())
    assert hub.alerts.drain()
    text = make_client(app_with(builder_for, tmp_path, hub)).get("/api/session-record?harness=claude&sid=s1").text
    assert "abcdef0123456789" not in text and "REDACTED" in text
    assert "the notification service returned an error" in text


def test_a_raise_with_no_backend_says_so(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    hub = make_hub(hubs, tmp_path, notifier=NoBackend("no D-Bus session bus: no desktop here", name="freedesktop"))
    hub.alerts.gate("claude", "s1", "t", "b", _now())
    (entry,) = (
        make_client(app_with(builder_for, tmp_path, hub))
        .get("/api/session-record?harness=claude&sid=s1")
        .json()["deliveries"]
    )
    assert entry["outcome"] == "no-backend" and "no notification backend" in entry["outcome_words"]
    assert entry["detail"] == "no D-Bus session bus: no desktop here"


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("", 400),
        ("?harness=claude", 400),
        ("?sid=s1", 400),
        ("?harness=claude&sid=", 400),
        (f"?harness=claude&sid={'x' * 300}", 400),
    ],
)
def test_session_record_refuses_an_incomplete_query(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub], query: str, status: int
) -> None:
    hub = make_hub(hubs, tmp_path)
    response = make_client(app_with(builder_for, tmp_path, hub)).get("/api/session-record" + query)
    assert response.status_code == status and response.json()["error"]


def test_session_record_refuses_a_foreign_host_and_a_post(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    app = app_with(builder_for, tmp_path, make_hub(hubs, tmp_path))
    assert make_client(app, host="evil.example").get("/api/session-record?harness=claude&sid=s1").status_code == 421
    assert (
        make_client(app, host=f"127.0.0.1:{PORT + 1}").get("/api/session-record?harness=claude&sid=s1").status_code
        == 421
    )
    assert make_client(app).post("/api/session-record?harness=claude&sid=s1").status_code == 405


def test_session_record_under_no_events_keeps_deliveries_and_says_why_the_rest_is_absent(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    quiet = make_hub(hubs, tmp_path, events=False)
    quiet.alerts.gate("copilot", "c1", "Copilot · c1 needs input", "shell", _now())
    assert quiet.alerts.drain()
    doc = make_client(app_with(builder_for, tmp_path, quiet)).get("/api/session-record?harness=copilot&sid=c1").json()
    assert doc["events"] is False and [d["outcome"] for d in doc["deliveries"]] == ["handed-over"]
    assert doc["irreversible"]["enabled"] is False and "(--no-events)" in doc["irreversible"]["reason"]
    assert doc["marks"]["enabled"] is False and "(--no-events)" in doc["marks"]["reason"]


def test_session_record_with_no_hub_is_404_with_a_reason(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    response = make_client(app_with(builder_for, tmp_path, None)).get("/api/session-record?harness=claude&sid=s1")
    assert response.status_code == 404 and "no event hub" in response.json()["error"]


# -- availability on the page ------------------------------------------------------------------


def _config(page: str) -> dict[str, Any]:
    found = re.search(r'<meta name="cargento-config" content="([^"]*)"', page)
    assert found is not None
    parsed: dict[str, Any] = orjson.loads(html.unescape(found.group(1)))
    return parsed


def test_the_page_is_told_whether_native_notifications_work_here(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    missing = make_hub(
        hubs,
        tmp_path,
        notifier=NoBackend(
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset): no desktop here", name="freedesktop"
        ),
    )
    config = _config(make_client(app_with(builder_for, tmp_path, missing)).get("/").text)
    assert config["notifications"]["available"] is False and config["notifications"]["enabled"] is True
    assert (
        config["notifications"]["detail"].startswith("no D-Bus session bus")
        and config["notifications"]["events"] is True
    )
    assert config["notifications"]["checked_at"]
    working = _config(make_client(app_with(builder_for, tmp_path, make_hub(hubs, tmp_path))).get("/").text)
    assert working["notifications"]["available"] is True and working["notifications"]["backend"] == "memory"
    assert _config(make_client(app_with(builder_for, tmp_path, None)).get("/").text)["notifications"] is None


# -- the fixed-interval scan under --no-events ---------------------------------------------------


def _wait_for(predicate: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def test_no_events_keeps_the_board_warm_so_a_store_wait_notifies_with_no_page_open(
    serve: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    notifier = MemoryNotifier()
    quiet = make_hub(hubs, tmp_path, events=False, notifier=notifier, confirm=CONFIRM)
    fake = FakeHarness("copilot", [FakeSession("c1", age_s=5)])
    server = serve(builder_for([("copilot", fake)], tmp_path), hub=quiet, rescan_s=0.1)
    live = server.app.state.live
    assert live.fixed_scan
    assert _wait_for(lambda: live.builds >= 2), "the fixed-interval scan builds with no page open"
    fake.sessions["c1"].gate = Gate(kind="shell", source="events.jsonl")  # a wait only the store records
    assert _wait_for(lambda: len(notifier.sent) == 1, seconds=CONFIRM.total_seconds() + 5)
    assert quiet.alerts.drain()
    (delivery,) = quiet.deliveries_for("copilot", "c1")
    assert delivery.outcome == "handed-over" and delivery.kind == "gate"
    settled = live.builds
    time.sleep(0.35)
    assert 1 <= live.builds - settled <= 6, "one build per interval: bounded"


def test_with_events_on_a_store_wait_still_notifies_with_no_page_open(
    serve: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    """The event-backed path is as independent of a page as --no-events': the fixed scan
    reads the store-only wait, and the hub's ticker confirms it with nothing else asking."""
    notifier = MemoryNotifier()
    hub = make_hub(hubs, tmp_path, notifier=notifier, confirm=CONFIRM)
    fake = FakeHarness("copilot", [FakeSession("c1", age_s=5)])
    server = serve(builder_for([("copilot", fake)], tmp_path), hub=hub, rescan_s=0.1)
    live = server.app.state.live
    assert live.fixed_scan
    assert _wait_for(lambda: live.builds >= 2), "the fixed-interval scan builds with no page open"
    fake.sessions["c1"].gate = Gate(kind="shell", source="events.jsonl")

    def waiting() -> bool:
        board = live.latest()
        return board is not None and any(s.state == "needs_input" for s in board.sessions)

    assert _wait_for(waiting)
    assert notifier.sent == [], "not before the wait is confirmed"
    assert _wait_for(lambda: len(notifier.sent) == 1, seconds=CONFIRM.total_seconds() + 5)
    time.sleep(1.5)
    assert len(notifier.sent) == 1, "once per wait"


def test_no_events_with_notifications_off_or_a_replay_does_not_scan(
    serve: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    off = make_hub(hubs, tmp_path, events=False, notify=False)
    first = serve(
        builder_for([("claude", FakeHarness("claude", [FakeSession("s1")]))], tmp_path), hub=off, rescan_s=0.1
    )
    replay = make_hub(hubs, tmp_path, events=False)
    second = serve(
        builder_for([("claude", FakeHarness("claude", [FakeSession("s1")]))], tmp_path),
        hub=replay,
        rescan_s=0.1,
        as_of=True,
    )
    time.sleep(0.4)
    assert first.app.state.live.builds == 0 and second.app.state.live.builds == 0
