"""Reach nudges against a real local HTTP server: both shapes, the timeout, one retry, the
per-session cooldown, the daily cap, away-from-the-desk, and what a nudge never carries."""

from __future__ import annotations

import html
import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento.cli import Options
from cargento.testing.fakes import FakeHarness
from cargento_web.reach.lane import ReachLane, ReachPolicy
from cargento_web.reach.target import ReachTarget, resolve_target, shape_of
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


class Received:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        #: Each request takes the next (status, delay) script entry; the last one repeats.
        self.script: list[tuple[int, float]] = [(200, 0.0)]
        self.lock = threading.Lock()

    def next(self) -> tuple[int, float]:
        with self.lock:
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]


@pytest.fixture
def webhook() -> Iterator[tuple[str, Received]]:
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with received.lock:
                received.requests.append((self.path, {k: v for k, v in self.headers.items()}, body))
            status, delay = received.next()
            time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
                pass  # the client gave up (the timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", received
    server.shutdown()
    server.server_close()


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def make_lane(
    tmp_path: Path, url: str, shape: str = "webhook", **policy: Any
) -> tuple[ReachLane, EventHub, Clock, list[str]]:
    clock = Clock()
    hub = EventHub(clock=clock, state_dir=tmp_path / "state", notifier=MemoryNotifier(), confirm=timedelta(0))
    values: dict[str, Any] = {"away_after": timedelta(minutes=5), "timeout_s": 2.0, "retry_after_s": 0.01}
    values.update(policy)
    target = ReachTarget(url=url, shape=shape, source="--reach-url")  # type: ignore[arg-type]
    lane = ReachLane(
        target,
        hub.deliveries,
        hub.presence,
        lambda h, sid: ("Claude Code", f"Orders API {sid}"),
        clock=clock,
        policy=ReachPolicy(**values),
    )
    decided: list[str] = []
    hub.alerts.listen(lambda item, now: decided.append(lane.on_raise(item, now)))
    clock.now = T0 + timedelta(minutes=6)  # nobody has looked at a tab since the run began
    return lane, hub, clock, decided


def gate(hub: EventHub, sid: str = "s1", command: str = "rm -rf /home/me/secret-project") -> None:
    hub.ingest(
        "claude",
        {
            "session_id": sid,
            "hook_event_name": "PermissionRequest",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        },
    )


def answer(hub: EventHub, sid: str = "s1", command: str = "rm -rf /home/me/secret-project") -> None:
    hub.ingest(
        "claude",
        {"session_id": sid, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": command}},
    )


def nudges(hub: EventHub, sid: str = "s1") -> list[Any]:
    """The reach lane's deliveries of a session (the desktop lane records its own beside them)."""
    return [d for d in hub.deliveries_for("claude", sid) if d.backend.startswith("reach-")]


def test_the_url_shape_picks_the_body() -> None:
    assert shape_of("https://ntfy.sh/my-topic") == "ntfy"
    assert shape_of("https://ntfy.example.net/alerts_1/") == "ntfy"
    assert shape_of("https://hooks.slack.com/services/T000/B000/XXXX") == "webhook"
    assert shape_of("https://ntfy.sh/a/b") == "webhook", "not a single topic"
    assert shape_of("https://example.com/topic") == "webhook", "only an ntfy host is read as ntfy"


def test_flag_over_variable_over_file_and_no_reach_resolves_none(tmp_path: Path) -> None:
    (tmp_path / "reach_url").write_text("https://ntfy.sh/from-file\n")
    env = {"CARGENTO_HOME": str(tmp_path), "CARGENTO_REACH_URL": "https://hooks.example.com/x/y"}
    flag, _ = resolve_target("https://ntfy.sh/from-flag", env)
    var, _ = resolve_target(None, env)
    file, _ = resolve_target(None, {"CARGENTO_HOME": str(tmp_path)})
    assert flag is not None and flag.url.endswith("from-flag") and flag.shape == "ntfy"
    assert var is not None and var.source == "CARGENTO_REACH_URL" and var.shape == "webhook"
    assert file is not None and file.url.endswith("from-file")
    off, why = resolve_target("https://ntfy.sh/from-flag", env, off=True)
    assert off is None and "--no-reach" in why
    bad, why = resolve_target(None, {"CARGENTO_HOME": str(tmp_path / "x"), "CARGENTO_REACH_URL": "ftp://x"})
    assert bad is None and "CARGENTO_REACH_URL is not an http" in why


def test_an_ntfy_nudge_is_plain_text_with_title_and_priority(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, received = webhook
    lane, hub, _clock, decided = make_lane(tmp_path, url + "/my-topic", shape="ntfy")
    gate(hub)
    assert decided == ["queued"] and lane.drain()
    ((path, headers, body),) = received.requests
    assert path == "/my-topic"
    assert headers["Title"] == "Cargento: Claude Code needs input" and headers["Priority"] == "high"
    assert headers["Content-Type"].startswith("text/plain")
    assert body.decode() == "Claude Code · Orders API s1 needs input"
    assert "rm -rf" not in body.decode() and "/home/me" not in json.dumps(headers)
    (delivery,) = nudges(hub)
    assert (delivery.backend, delivery.outcome, delivery.kind) == ("reach-ntfy", "handed-over", "gate")
    hub.close()


def test_a_generic_webhook_gets_slack_compatible_json(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, received = webhook
    lane, hub, _clock, _decided = make_lane(tmp_path, url + "/services/T/B/X")
    assert hub.raise_question("claude", "s2", "Deploy to /srv/prod now?") == "raised"
    assert lane.drain()
    ((_, headers, body),) = received.requests
    assert headers["Content-Type"] == "application/json"
    doc = json.loads(body)
    assert list(doc) == ["text"]
    assert doc["text"] == "Cargento: Claude Code asks you a question\nClaude Code · Orders API s2 asks you a question"
    assert "/srv/prod" not in body.decode(), "never the question's words, which may carry a path"
    hub.close()


def test_a_timeout_is_retried_once_then_recorded(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, received = webhook
    received.script = [(200, 1.5)]
    lane, hub, _clock, _decided = make_lane(tmp_path, url + "/hook/x", timeout_s=0.3)
    gate(hub)
    assert lane.drain()
    assert len(received.requests) == 2, "one try and one retry, no more"
    (delivery,) = nudges(hub)
    assert delivery.outcome == "timed-out" and delivery.detail is not None and "after one retry" in delivery.detail
    hub.close()


def test_a_server_error_is_retried_once_and_a_refusal_is_not(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, received = webhook
    received.script = [(503, 0.0), (200, 0.0)]
    lane, hub, _clock, _decided = make_lane(tmp_path, url + "/hook/x")
    gate(hub, "s1")
    assert lane.drain()
    assert len(received.requests) == 2
    assert [d.outcome for d in nudges(hub)] == ["handed-over"]
    received.script = [(400, 0.0)]
    gate(hub, "s2")
    assert lane.drain()
    assert len(received.requests) == 3, "a 400 is the receiver's answer: no retry"
    (refused,) = nudges(hub, "s2")
    assert refused.outcome == "service-error" and refused.detail == "the webhook answered 400"
    hub.close()


def test_an_unreachable_webhook_is_recorded_as_could_not_start(tmp_path: Path) -> None:
    lane, hub, _clock, _decided = make_lane(tmp_path, "http://127.0.0.1:9/hook/x")
    gate(hub)
    assert lane.drain()
    (delivery,) = nudges(hub)
    assert delivery.outcome == "could-not-start"
    hub.close()


def test_per_session_cooldown(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, received = webhook
    lane, hub, clock, decided = make_lane(tmp_path, url + "/hook/x", cooldown=timedelta(minutes=10))
    gate(hub, "s1")
    answer(hub, "s1")
    clock.now += timedelta(minutes=3)
    gate(hub, "s1")  # a second real wait, inside the cooldown
    gate(hub, "s2")  # another session is not held by s1's cooldown
    answer(hub, "s1")
    clock.now += timedelta(minutes=8)
    gate(hub, "s1")
    assert decided == ["queued", "cooldown", "queued", "queued"]
    assert lane.drain() and len(received.requests) == 3
    hub.close()


def test_daily_cap_counts_across_a_restart_and_resets_the_next_day(
    tmp_path: Path, webhook: tuple[str, Received]
) -> None:
    url, received = webhook
    lane, hub, _clock, decided = make_lane(tmp_path, url + "/hook/x", daily_cap=2)
    for sid in ("a", "b", "c"):
        gate(hub, sid)
    assert decided == ["queued", "queued", "cap"]
    assert lane.drain() and hub.flush()
    hub.close()
    lane2, hub2, clock2, decided2 = make_lane(tmp_path, url + "/hook/x", daily_cap=2)
    gate(hub2, "d")
    assert decided2 == ["cap"], "the record says two went out today"
    clock2.now = T0 + timedelta(days=1)
    gate(hub2, "e")
    assert decided2 == ["cap", "queued"]
    assert lane2.drain() and len(received.requests) == 3
    hub2.close()


def test_nothing_is_posted_while_a_tab_is_visible_or_soon_after(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, received = webhook
    lane, hub, clock, decided = make_lane(tmp_path, url + "/hook/x", away_after=timedelta(minutes=5))
    hub.presence.report("tab-12345678", True, None, clock.now)
    gate(hub, "s1")
    clock.now += timedelta(seconds=10)
    hub.presence.report("tab-12345678", False, None, clock.now)
    clock.now += timedelta(minutes=4)
    gate(hub, "s2")
    clock.now += timedelta(minutes=2)
    gate(hub, "s3")
    assert decided == ["present", "present", "queued"]
    assert lane.drain() and len(received.requests) == 1
    hub.close()


def test_a_silent_tab_is_forgotten_and_counts_as_away(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, _received = webhook
    lane, hub, clock, decided = make_lane(tmp_path, url + "/hook/x", away_after=timedelta(minutes=1))
    hub.presence.report("tab-12345678", True, None, clock.now)  # then the laptop lid closes
    clock.now += timedelta(minutes=2)
    gate(hub)
    assert decided == ["queued"]
    assert lane.drain()
    hub.close()


def test_the_served_feature_posts_once_for_a_standing_wait_and_never_with_no_reach(
    serve: Callable[..., Any], builder_for: Callable[..., Any], tmp_path: Path, webhook: tuple[str, Received]
) -> None:
    url, received = webhook
    clock = Clock()
    hub = EventHub(clock=clock, state_dir=tmp_path / "state", notifier=MemoryNotifier(), capability="c" * 32)
    builder = builder_for([("claude", FakeHarness("claude", []))], tmp_path, clock=clock)
    server = serve(builder, hub=hub, features=["cargento_web.reach"], options=Options(reach_url=url + "/hook/x"))
    config = html.unescape(httpx.get(server.url + "/").text)
    assert '"reach":{"enabled":true,"shape":"webhook","host":"127.0.0.1"' in config
    assert url + "/hook" not in config, "the page learns the shape and host, never the URL"
    clock.now = T0 + timedelta(minutes=6)
    gate(hub)
    clock.now += timedelta(seconds=6)
    hub.tick(clock.now)
    (ext,) = server.extensions.items
    assert ext.lane.drain() and len(received.requests) == 1
    off_hub = EventHub(clock=clock, state_dir=tmp_path / "off", notifier=MemoryNotifier(), capability="d" * 32)
    off = serve(builder, hub=off_hub, features=["cargento_web.reach"], options=Options(no_reach=True))
    assert off.extensions.items == ()
    gate(off_hub, "s9")
    clock.now += timedelta(seconds=6)
    off_hub.tick(clock.now)
    assert not off_hub.alerts.has_listeners and len(received.requests) == 1
    hub.close()
    off_hub.close()


def test_the_session_record_words_a_nudge_as_a_webhook_post(tmp_path: Path, webhook: tuple[str, Received]) -> None:
    url, _ = webhook
    lane, hub, _, _ = make_lane(tmp_path, url + "/hook/x")
    gate(hub)
    assert lane.drain() and hub.alerts.drain()
    record = hub.session_record("claude", "s1")["deliveries"]
    by_lane = {d["lane"]: d for d in record}
    assert set(by_lane) == {"reach", "desktop"}
    assert by_lane["reach"]["outcome_words"].startswith("posted to the reach webhook, which accepted it")
    assert by_lane["desktop"]["outcome_words"].startswith("handed to this machine's notification service")
    hub.close()


def test_a_nudge_not_posted_is_noted_on_the_session_record_with_its_reason(
    tmp_path: Path, webhook: tuple[str, Received]
) -> None:
    url, received = webhook
    clock = Clock()
    hub = EventHub(clock=clock, state_dir=tmp_path / "state", notifier=MemoryNotifier(), confirm=timedelta(0))
    target = ReachTarget(url=url, shape="webhook", source="--reach-url")
    policy = ReachPolicy(away_after=timedelta(minutes=5), timeout_s=2.0, retry_after_s=0.01, daily_cap=1)
    lane = ReachLane(
        target,
        hub.deliveries,
        hub.presence,
        lambda h, sid: ("Claude Code", sid),
        clock=clock,
        policy=policy,
        note=hub.alerts.note,
    )
    hub.alerts.listen(lane.on_raise)
    hub.presence.report("tab-aaaaaaaa", True, None, clock.now)
    gate(hub, "s1")  # at the desk
    clock.now += timedelta(minutes=10)
    gate(hub, "s2")  # away: posted, and the day's one nudge is spent
    clock.now += timedelta(minutes=1)
    gate(hub, "s3")  # away, but the cap is spent
    assert lane.drain() and len(received.requests) == 1
    (present,) = hub.session_record("claude", "s1")["withheld"]
    assert present["rule"] == "reach-present"
    assert present["words"] == "reach nudge not posted: a dashboard tab is visible (away means 5 min with none)"
    assert hub.session_record("claude", "s2")["withheld"] == []
    (capped,) = hub.session_record("claude", "s3")["withheld"]
    assert capped["rule"] == "reach-cap" and "the cap of 1 a day is spent" in capped["words"]
    lane.close()
    hub.close()
