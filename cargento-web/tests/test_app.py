"""Every route of the app over fake harnesses, through the ASGI interface."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import orjson
import pytest
from cargento import hookimpl
from cargento.board import Overlay
from cargento.models import Gate
from cargento.testing.fakes import BrokenDiscover, FakeHarness, FakeSession, RaisingRead, WrongType
from cargento_web.app import create_app
from cargento_web.page import IMPORT_MAP
from cargento_web.settings import Settings
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

MOMENT = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)


def _app(builder_for: Any, tmp_path: Path, plugins: Sequence[tuple[str, object]], **settings: Any) -> Any:
    builder = builder_for(plugins, tmp_path, clock=lambda: MOMENT)
    return create_app(builder=builder, settings=Settings(port=4553, **settings))


def test_data_is_the_board_document(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("s-new", age_s=5), FakeSession("s-old", age_s=3 * 86400)])
    response = make_client(_app(builder_for, tmp_path, [("fake", fake)])).get("/api/data")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["cache-control"] == "no-store"
    doc = response.json()
    assert doc["schema"] == 1 and doc["all"] is False
    assert doc["generated_at"] == "2026-11-30T10:00:00Z"
    assert [s["session_id"] for s in doc["sessions"]] == ["s-new"]
    assert doc["sessions"][0]["state"] == "working"
    assert doc["counts"]["working"] == 1


def test_all_shows_every_session_ever(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("s-new", age_s=5), FakeSession("s-old", age_s=3 * 86400)])
    client = make_client(_app(builder_for, tmp_path, [("fake", fake)]))
    doc = client.get("/api/data?all=1").json()
    assert doc["all"] is True and doc["window_hours"] is None
    assert {s["session_id"] for s in doc["sessions"]} == {"s-new", "s-old"}
    old = next(s for s in doc["sessions"] if s["session_id"] == "s-old")
    assert old["state"] == "idle"
    assert {s["session_id"] for s in client.get("/api/data?all=0").json()["sessions"]} == {"s-new"}


def test_cargento_all_makes_all_the_default(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("s-old", age_s=3 * 86400)])
    client = make_client(_app(builder_for, tmp_path, [("fake", fake)], all_sessions=True))
    assert len(client.get("/api/data").json()["sessions"]) == 1
    assert client.get("/api/data?all=0").json()["sessions"] == []


def test_a_faulting_harness_is_shown_and_the_rest_still_served(
    make_client: Any, builder_for: Any, tmp_path: Path
) -> None:
    plugins = [
        ("good", FakeHarness("good", [FakeSession("g1")])),
        ("boom", BrokenDiscover("boom")),
        ("locked", RaisingRead("locked", [FakeSession("l1")])),
        ("wrong", WrongType("wrong", [FakeSession("w1")])),
    ]
    response = make_client(_app(builder_for, tmp_path, plugins)).get("/api/data")
    assert response.status_code == 200
    doc = response.json()
    by_key = {h["key"]: h for h in doc["harnesses"]}
    assert "discover exploded" in by_key["boom"]["error"]
    assert "store is locked" in by_key["locked"]["error"]
    assert by_key["good"]["error"] is None and by_key["good"]["discovered"] is True
    keys = {s["key"] for s in doc["sessions"]}
    assert "good:g1" in keys and "wrong:w1" in keys
    wrong = next(s for s in doc["sessions"] if s["key"] == "wrong:w1")
    assert any("model" in f for f in wrong["faults"])


class _Leaky(FakeHarness):
    """Puts credential-shaped values where core does not redact: a store problem."""

    @hookimpl
    def discover(self, ctx: Any) -> Any:
        found = FakeHarness.discover(self, ctx)
        return attrs.evolve(found, problems=("could not parse config with token=ghp_abcdefghijklmnopqrstuvwxyz0123",))


def test_credentials_are_redacted_everywhere(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    leaky = _Leaky("leaky", [FakeSession("s1", title="deploy with sk-ant-api03-abcdefghijklmnopqrstuvwxyz")])
    body = make_client(_app(builder_for, tmp_path, [("leaky", leaky)])).get("/api/data").text
    assert "abcdefghijklmnopqrstuvwxyz" not in body
    doc = orjson.loads(body)
    assert doc["sessions"][0]["title"] == "deploy with sk-ant-…REDACTED"
    assert doc["harnesses"][0]["problems"] == ["could not parse config with token=…REDACTED"]


def test_health_scans_nothing(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    started = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    fake = FakeHarness("fake", [FakeSession("s1")])
    builder = builder_for([("fake", fake)], tmp_path)
    app = create_app(builder=builder, settings=Settings(port=4553, pid=4242, started_at=started, version="0.1.0"))
    client = make_client(app)
    doc = client.get("/api/health").json()
    assert doc == {
        "app": "cargento",
        "pid": 4242,
        "port": 4553,
        "host": "127.0.0.1",
        "started_at": "2026-11-30T09:00:00Z",
        "version": "0.1.0",
        "url": "http://127.0.0.1:4553/",
    }
    assert app.state.live.builds == 0 and builder.last_discovery == {}
    client.get("/api/data")
    assert app.state.live.builds == 1


def test_page_is_self_contained_and_pinned(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    response = make_client(_app(builder_for, tmp_path, [])).get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    assert "http://" not in page.replace("http://127.0.0.1", "") and "https://" not in page
    importmap = re.search(r'<script type="importmap">(.*?)</script>', page, re.S)
    assert importmap is not None and orjson.loads(importmap.group(1)) == IMPORT_MAP
    digest = base64.b64encode(hashlib.sha256(importmap.group(1).encode()).digest()).decode()
    csp = response.headers["content-security-policy"]
    assert f"'sha256-{digest}'" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/static/app.js", "javascript"),
        ("/static/views.js", "javascript"),
        ("/static/app.css", "text/css"),
        ("/static/vendor/preact.mjs", "javascript"),
        ("/static/vendor/preact-hooks.mjs", "javascript"),
        ("/static/vendor/htm.mjs", "javascript"),
        ("/static/vendor/LICENSE.preact", ""),
        ("/static/vendor/LICENSE.htm", ""),
    ],
)
def test_static_files_are_served_from_the_package(
    make_client: Any, builder_for: Any, tmp_path: Path, path: str, kind: str
) -> None:
    response = make_client(_app(builder_for, tmp_path, [])).get(path)
    assert response.status_code == 200
    assert kind in response.headers["content-type"]


def test_no_static_file_references_another_host() -> None:
    from importlib import resources

    root = resources.files("cargento_web").joinpath("static")
    for name in ("app.js", "views.js", "format.js", "marks.js", "index.html", "app.css"):
        text = root.joinpath(name).read_text(encoding="utf-8")
        assert not re.search(r"https?://(?!127\.0\.0\.1)", text), name


class _Hub:
    """A stand-in for the event hub the ingress module provides."""

    capability = "cap-123"

    def __init__(self) -> None:
        self.boards: list[Any] = []
        self.guard: Any = None

    def overlays(self, now: datetime) -> dict[tuple[str, str], Overlay]:
        return {
            ("fake", "quiet"): Overlay(
                state="needs_input",
                at=now,
                source="event",
                gate=Gate(kind="permission", text="Allow bash?", source="event"),
            )
        }

    def on_board(self, board: Any) -> None:
        self.boards.append(board)

    def routes(self, guard: Any) -> list[Route]:
        self.guard = guard

        async def events(request: Request) -> Response:
            refusal: Response | None = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            body = await guard.read_body(request, 16)
            return PlainTextResponse(f"got {len(body)}")

        return [Route("/api/events/{harness}", events, methods=["GET", "POST"])]


def test_hub_overlays_routes_and_board_callback(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    hub = _Hub()
    fake = FakeHarness("fake", [FakeSession("quiet", age_s=600)])
    builder = builder_for([("fake", fake)], tmp_path, clock=lambda: MOMENT)
    client = make_client(create_app(builder=builder, settings=Settings(port=4553), hub=hub))
    doc = client.get("/api/data").json()
    row = doc["sessions"][0]
    assert row["state"] == "needs_input" and row["state_source"] == "event"
    assert row["waiting"]["text"] == "Allow bash?"
    assert len(hub.boards) == 1 and hub.boards[0].revision == doc["revision"]
    assert client.post("/api/events/claude", content=b"{}").text == "got 2"
    assert client.get("/api/events/claude").status_code == 405
    assert client.post("/api/events/claude", headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.post("/api/events/claude", content=b"x" * 17).status_code == 413
    assert make_client(client.app, host="evil.example").post("/api/events/claude").status_code == 421


def test_unknown_routes_are_404(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    client = make_client(_app(builder_for, tmp_path, []))
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_redaction_timing_is_not_a_fake_zero(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    """An unmeasured output rate stays null in the document, never 0."""
    fake = FakeHarness("fake", [FakeSession("s1", tokens_window=None)])
    doc = make_client(_app(builder_for, tmp_path, [("fake", fake)])).get("/api/data").json()
    assert doc["sessions"][0]["output_tokens_per_min"] is None


def test_data_is_rebuilt_after_a_second(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    clock = [MOMENT]
    fake = FakeHarness("fake", [FakeSession("s1", age_s=30)])
    builder = builder_for([("fake", fake)], tmp_path, clock=lambda: clock[0])
    app = create_app(builder=builder, settings=Settings(port=4553))
    client = make_client(app)
    first = client.get("/api/data").json()
    assert first["sessions"][0]["state"] == "working"
    clock[0] = MOMENT + timedelta(minutes=5)
    app.state.live.feeds[False].built_at -= 5  # as if built long ago
    fake.sessions["s1"].age_s = 400
    second = client.get("/api/data").json()
    assert second["sessions"][0]["state"] == "idle"
    assert second["revision"] == first["revision"] + 1
