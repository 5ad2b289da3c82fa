"""The capacity feature on a real loopback server: consent before any credential read or
request, the vendor reading and its failures in /api/data, POST /api/usage (always a success
to a status line, never stored when malformed), the hub's pushed quota, --no-usage, and the
credential absent from /api/data, the page and the log."""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.statedir import CAPABILITY_HEADER
from cargento.testing.fakes import FakeHarness
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

FEATURE = "cargento_web_tests_capacity_standin"
CAP = "test-capability-capacity-0123456789"
TOKEN = "sk-ant-oat01-" + "Z" * 48


def _load() -> ModuleType:
    # One copy per process: this file is also loaded by the browser test beside it, and the
    # server imports the feature by name, so both must reach the same HANDLER.
    loaded = sys.modules.get(FEATURE)
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(FEATURE, Path(__file__).with_name("capacity_standin.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[FEATURE] = module
    spec.loader.exec_module(module)
    return module


standin = _load()


def _now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[EventHub]:
    made = EventHub(clock=_now, state_dir=tmp_path / "hubstate", notifier=MemoryNotifier(), capability=CAP)
    yield made
    made.close()


@pytest.fixture(autouse=True)
def fresh_standin() -> Iterator[None]:
    standin.HANDLER.clear()
    standin.REQUESTS.clear()
    standin.READS.clear()
    yield
    standin.HANDLER.clear()


def write_login(home: Path) -> None:
    path = home / ".claude" / ".credentials.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    expires = (_now() + timedelta(hours=2)).timestamp() * 1000
    path.write_text(json.dumps({"claudeAiOauth": {"accessToken": TOKEN, "expiresAt": expires}}))


def claude_reply(request: httpx.Request) -> httpx.Response:
    resets = (_now() + timedelta(hours=1)).isoformat()
    return httpx.Response(200, json={"five_hour": {"utilization": 80.0, "resets_at": resets}, "seven_day": None})


def page_post(server: Any, path: str, body: Any) -> httpx.Response:
    headers = {"Origin": server.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
    return httpx.post(server.url + path, json=body, headers=headers, timeout=5)


def capacity_of(server: Any, until: Callable[[dict[str, Any]], bool] = lambda c: True) -> dict[str, Any]:
    deadline = time.monotonic() + 5
    while True:
        doc: dict[str, Any] = httpx.get(server.url + "/api/data", timeout=5).json()["capacity"]
        if until(doc) or time.monotonic() > deadline:
            return doc
        time.sleep(0.05)


def start(serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub | None = None, **kw: Any) -> Any:
    from cargento_harness_antigravity import plugin as antigravity

    builder = builder_for([("fake", FakeHarness("fake")), ("antigravity", antigravity)], tmp_path)
    return serve(builder, hub=hub, features=[FEATURE], state_dir=tmp_path / "state", **kw)


def test_nothing_is_read_or_asked_until_consent_and_then_the_token_never_leaves(
    serve: Any, builder_for: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    write_login(tmp_path)
    standin.HANDLER.append(claude_reply)
    server = start(serve, builder_for, tmp_path)
    before = capacity_of(server)
    assert before["consent"] == "unanswered" and before["vendor_fetching"] is False
    asked = page_post(server, "/api/capacity/poll", {})
    assert asked.status_code == 200 and asked.json()["started"] == []
    time.sleep(0.2)
    assert standin.READS == [] and standin.REQUESTS == [], "no credential read and no request before the answer"

    answered = page_post(server, "/api/capacity/consent", {"consent": "on"})
    assert answered.status_code == 200 and answered.json()["persisted"] is True
    assert json.loads((tmp_path / "state" / "capacity.json").read_text())["vendor_quota"] == "on"
    doc = capacity_of(server, lambda c: any(w["key"] == "claude:5h" for w in c["windows"]))
    (window,) = [w for w in doc["windows"] if w["key"] == "claude:5h"]
    assert window["used_percent"] == 80.0 and window["pressure"] is True and window["source"] == "vendor"
    assert len(standin.REQUESTS) == 1 and standin.REQUESTS[0].headers["authorization"] == f"Bearer {TOKEN}"
    for _ in range(3):
        page_post(server, "/api/capacity/poll", {})
    time.sleep(0.2)
    assert len(standin.REQUESTS) == 1, "at most one request per vendor per five minutes"

    data = httpx.get(server.url + "/api/data", timeout=5).text
    page = httpx.get(server.url + "/", timeout=5).text
    assert TOKEN not in data and TOKEN[:20] not in data
    assert TOKEN not in page and TOKEN[:20] not in page
    assert TOKEN not in caplog.text and TOKEN[:20] not in caplog.text

    off = page_post(server, "/api/capacity/consent", {"consent": "off"})
    assert off.json()["consent"] == "off"
    assert capacity_of(server, lambda c: not c["windows"])["windows"] == [], "turned off: the vendor rows go"


@pytest.mark.parametrize(
    ("handler", "said"),
    [
        (lambda r: httpx.Response(401), "refused the stored login (401)"),
        (lambda r: httpx.Response(403), "refused the stored login (403)"),
        (lambda r: httpx.Response(200, text="nope"), "usage reply is not JSON"),
        (lambda r: httpx.Response(200, json={"five_hour": None}), "no readable window"),
    ],
)
def test_a_failed_vendor_reading_is_withheld_and_said(
    serve: Any, builder_for: Any, tmp_path: Path, handler: Callable[[httpx.Request], httpx.Response], said: str
) -> None:
    write_login(tmp_path)
    standin.HANDLER.append(handler)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "capacity.json").write_text(json.dumps({"vendor_quota": "on"}))
    server = start(serve, builder_for, tmp_path)
    page_post(server, "/api/capacity/poll", {})
    doc = capacity_of(server, lambda c: any(said in x["reason"] for x in c["withheld"]))
    assert doc["windows"] == [], "a failure is never a zero"
    assert [x["harness_label"] for x in doc["withheld"]] == ["Claude Code"]
    assert said in doc["withheld"][0]["reason"]


def test_a_missing_login_is_said_and_nothing_is_asked(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    standin.HANDLER.append(claude_reply)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "capacity.json").write_text(json.dumps({"vendor_quota": "on"}))
    server = start(serve, builder_for, tmp_path)
    page_post(server, "/api/capacity/poll", {})
    doc = capacity_of(server, lambda c: bool(c["withheld"]) and c["withheld"][0]["reason"] != "not read yet")
    assert "keeps no login file here" in doc["withheld"][0]["reason"] and standin.REQUESTS == []


def usage_post(server: Any, body: bytes, **headers: str) -> httpx.Response:
    sent = {"Content-Type": "application/json", CAPABILITY_HEADER: CAP, **headers}
    return httpx.post(server.url + "/api/usage", content=body, headers=sent, timeout=5)


def quota_block(remaining: float) -> dict[str, Any]:
    reset = (_now() + timedelta(hours=2)).isoformat()
    return {
        "gemini-5h": {"remaining_fraction": remaining, "reset_time": reset},
        "3p-5h": {"remaining_fraction": 0.9, "reset_time": reset},
    }


def test_post_api_usage_always_answers_a_status_line_with_success(
    serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub
) -> None:
    server = start(serve, builder_for, tmp_path, hub=hub)
    document = {"quota": quota_block(0.2), "email": "someone@example.com", "transcript_path": "/home/x/t.jsonl"}
    stored = usage_post(server, json.dumps(document).encode())
    assert stored.status_code == 202 and stored.json() == {"accepted": True, "stored": True}
    doc = capacity_of(server, lambda c: any(w["key"] == "antigravity:5h" for w in c["windows"]))
    (w,) = [w for w in doc["windows"] if w["key"] == "antigravity:5h"]
    assert abs(w["used_percent"] - 80.0) < 1e-9 and w["source"] == "pushed" and w["pressure"] is True
    data = httpx.get(server.url + "/api/data", timeout=5).text
    assert "someone@example.com" not in data and "t.jsonl" not in data, "only the quota block is kept"

    for malformed in (
        b"not json",
        b"[1]",
        b'{"quota": 3}',
        b'{"quota": {"gemini-5h": {"remaining_fraction": 7}}}',
        b"{" + b" " * 70_000 + b"}",
    ):
        answer = usage_post(server, malformed)
        assert answer.status_code == 202 and answer.json()["accepted"] is True and answer.json()["stored"] is False
    still = capacity_of(server)
    assert next(x for x in still["windows"] if x["key"] == "antigravity:5h")["used_percent"] == w["used_percent"]

    assert usage_post(server, b"{}", **{CAPABILITY_HEADER: ""}).status_code == 401
    assert usage_post(server, b"{}", **{CAPABILITY_HEADER: "wrong"}).status_code == 403
    assert usage_post(server, b"{}", Origin="http://evil.example").status_code == 403
    assert httpx.get(server.url + "/api/usage", timeout=5).status_code == 405


def test_the_status_line_forwarders_quota_reaches_the_strip_through_the_hub(
    serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub
) -> None:
    server = start(serve, builder_for, tmp_path, hub=hub)
    push = {"agent_state": "idle", "conversation_id": "", "quota": quota_block(0.6)}
    answer = httpx.post(server.url + "/api/events/antigravity", json=push, headers={CAPABILITY_HEADER: CAP}, timeout=5)
    assert answer.status_code == 202
    doc = capacity_of(server, lambda c: any(w["key"] == "antigravity:5h" for w in c["windows"]))
    (w,) = [w for w in doc["windows"] if w["key"] == "antigravity:5h"]
    assert abs(w["used_percent"] - 40.0) < 1e-9 and w["pressure"] is False


def test_a_pushed_window_is_named_by_its_own_harness_whatever_loaded_after_it(
    serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub
) -> None:
    """The strip names a window by the harness it belongs to, also when another plugin was
    registered after that harness (the labels once all read the last plugin's name)."""
    from cargento_harness_antigravity import plugin as antigravity

    builder = builder_for([("antigravity", antigravity), ("fake", FakeHarness("fake"))], tmp_path)
    server = serve(builder, hub=hub, features=[FEATURE], state_dir=tmp_path / "state")
    push = {"agent_state": "idle", "conversation_id": "", "quota": quota_block(0.6)}
    answer = httpx.post(server.url + "/api/events/antigravity", json=push, headers={CAPABILITY_HEADER: CAP}, timeout=5)
    assert answer.status_code == 202
    doc = capacity_of(server, lambda c: any(w["key"] == "antigravity:5h" for w in c["windows"]))
    assert {w["harness_label"] for w in doc["windows"] if w["harness"] == "antigravity"} == {"Antigravity CLI"}


def test_no_usage_ignores_pushed_quota_and_asks_no_vendor(
    serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub
) -> None:
    from cargento.cli import parse_args

    write_login(tmp_path)
    standin.HANDLER.append(claude_reply)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "capacity.json").write_text(json.dumps({"vendor_quota": "on"}))
    options = parse_args(["--no-usage"])
    assert options.no_usage is True, "--no-usage is a flag the command line takes"
    server = start(serve, builder_for, tmp_path, hub=hub, options=options)
    answer = usage_post(server, json.dumps({"quota": quota_block(0.1)}).encode())
    assert answer.status_code == 202 and answer.json()["stored"] is False and "--no-usage" in answer.json()["reason"]
    httpx.post(
        server.url + "/api/events/antigravity",
        json={"agent_state": "idle", "quota": quota_block(0.1)},
        headers={CAPABILITY_HEADER: CAP},
        timeout=5,
    )
    polled = page_post(server, "/api/capacity/poll", {})
    assert polled.json()["started"] == [] and "--no-usage" in polled.json()["reason"]
    time.sleep(0.2)
    doc = capacity_of(server)
    assert doc["no_usage"] is True and doc["vendor_fetching"] is False and doc["windows"] == []
    assert standin.READS == [] and standin.REQUESTS == []


def test_an_unreadable_consent_answer_is_set_aside_and_named(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "capacity.json").write_text("{half a wri")
    server = start(serve, builder_for, tmp_path)
    assert capacity_of(server)["consent"] == "unanswered"
    [aside] = (tmp_path / "state").glob("capacity.json.unreadable-*")
    assert aside.read_text() == "{half a wri", "set aside under its own stamp, never over an earlier one"
    ext = server.extensions.items[0]
    (store,) = ext.own_stores()
    assert store.status == "reset" and "not valid JSON" in (store.detail or "")


def test_the_older_notify_hook_usage_line_and_the_statusline_forwarder_both_feed_the_strip(
    serve: Any, builder_for: Any, tmp_path: Path, hub: EventHub
) -> None:
    import io
    import os
    from urllib.parse import urlsplit

    from cargento.forwarders import notify_hook, statusline_hook

    server = start(serve, builder_for, tmp_path, hub=hub)
    port = urlsplit(server.url).port
    home = tmp_path / "cargento-home"
    home.mkdir()
    (home / f"cargento-{port}.json").write_text(json.dumps({"pid": os.getpid(), "port": port, "capability": CAP}))
    env = {"CARGENTO_HOME": str(home), "CARGENTO_PORT": str(port), "HOME": str(tmp_path)}
    status_line = {
        "agent_state": "idle",
        "conversation_id": "",
        "email": "someone@example.com",
        "transcript_path": "/home/x/t.jsonl",
        "quota": quota_block(0.3),
    }
    older = io.BytesIO(json.dumps(status_line).encode())
    assert notify_hook.main([f"http://127.0.0.1:{port}/api/usage"], stdin=older, env=env) == 0
    doc = capacity_of(server, lambda c: any(w["key"] == "antigravity:5h" for w in c["windows"]))
    assert abs(next(w for w in doc["windows"] if w["key"] == "antigravity:5h")["used_percent"] - 70.0) < 1e-9
    assert hub.overlays(hub.clock()) == {}, "the older line feeds quota only, never the Working state"

    newer = io.BytesIO(json.dumps({**status_line, "quota": quota_block(0.55)}).encode())
    assert statusline_hook.main([str(port)], stdin=newer, env=env) == 0
    doc = capacity_of(
        server,
        lambda c: any(abs(w["used_percent"] - 45.0) < 1e-9 for w in c["windows"] if w["key"] == "antigravity:5h"),
    )
    assert abs(next(w for w in doc["windows"] if w["key"] == "antigravity:5h")["used_percent"] - 45.0) < 1e-9
    assert "someone@example.com" not in httpx.get(server.url + "/api/data", timeout=5).text


def test_diagnose_names_the_consent_store_and_leaves_an_unreadable_one_in_place(tmp_path: Path) -> None:
    from cargento_web import capacity

    env = {"CARGENTO_HOME": str(tmp_path), "HOME": str(tmp_path)}
    (absent,) = capacity.own_stores(env)
    assert absent.status == "absent"
    (tmp_path / "capacity.json").write_text(json.dumps({"vendor_quota": "off"}))
    (read,) = capacity.own_stores(env)
    assert read.status == "read" and read.detail == "vendor quota off"
    (tmp_path / "capacity.json").write_text("garbage")
    (broken,) = capacity.own_stores(env)
    assert broken.status == "unreadable" and (tmp_path / "capacity.json").read_text() == "garbage"
