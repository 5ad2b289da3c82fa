"""The request guard: Host on every route, origin checks on every state change, bounded bodies."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.app import create_app
from cargento_web.security import check_host, check_state_change, host_allowed, is_loopback, read_body
from cargento_web.settings import Settings
from hypothesis import given
from hypothesis import strategies as st
from starlette.exceptions import HTTPException
from starlette.requests import Request

PORT = 4553
ROUTES = ["/", "/api/data", "/api/health", "/api/stream", "/static/app.js", "/api/shutdown"]


def _request(
    method: str = "POST",
    headers: dict[str, str] | None = None,
    client: str = "127.0.0.1",
    body: bytes = b"",
    chunks: list[bytes] | None = None,
) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    parts = list(chunks) if chunks is not None else [body]

    async def receive() -> dict[str, Any]:
        if parts:
            chunk = parts.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(parts)}
        return {"type": "http.disconnect"}

    scope = {
        "type": "http",
        "method": method,
        "path": "/x",
        "headers": raw,
        "client": (client, 1234),
        "query_string": b"",
    }
    return Request(scope, receive)


@pytest.fixture
def app(builder_for: Any, tmp_path: Path) -> Any:
    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1")]))], tmp_path)
    application = create_app(builder=builder, settings=Settings(port=PORT))
    application.state.request_shutdown = lambda: application.state.__setattr__("stopped", True)
    return application


# -- Host (DNS rebinding) --------------------------------------------------------------------


@pytest.mark.parametrize("path", ROUTES)
@pytest.mark.parametrize(
    "host", ["evil.example", f"evil.example:{PORT}", "127.0.0.1:9999", f"127.0.0.2:{PORT}", f"10.0.0.5:{PORT}"]
)
def test_every_route_refuses_a_foreign_host(make_client: Any, app: Any, path: str, host: str) -> None:
    response = make_client(app, host=host).get(path)
    assert response.status_code == 421
    assert "does not name this dashboard" in response.text


@pytest.mark.parametrize("host", [f"127.0.0.1:{PORT}", f"localhost:{PORT}", f"LOCALHOST:{PORT}"])
def test_own_host_names_are_served(make_client: Any, app: Any, host: str) -> None:
    assert make_client(app, host=host).get("/api/health").status_code == 200


def test_wildcard_bind_accepts_ip_literals_only(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    builder = builder_for([("fake", FakeHarness("fake", []))], tmp_path)
    app = create_app(builder=builder, settings=Settings(host="0.0.0.0", port=PORT))
    assert make_client(app, host=f"192.168.1.20:{PORT}").get("/api/health").status_code == 200
    assert make_client(app, host=f"attacker.example:{PORT}").get("/api/health").status_code == 421
    assert make_client(app, host="192.168.1.20:80").get("/api/health").status_code == 421


def test_missing_host_is_refused() -> None:
    assert check_host(_request("GET"), {f"127.0.0.1:{PORT}"}) is not None


@given(st.text(max_size=80))
def test_host_allowed_accepts_only_the_exact_names(host: str) -> None:
    allowed = {f"127.0.0.1:{PORT}", f"localhost:{PORT}"}
    assert host_allowed(host, allowed) == (host.strip().lower() in allowed)


# -- state changes ---------------------------------------------------------------------------


def test_shutdown_get_is_405(make_client: Any, app: Any) -> None:
    for method in ("GET", "PUT", "DELETE"):
        response = make_client(app).request(method, "/api/shutdown")
        assert response.status_code == 405
        assert response.headers["allow"] == "POST"
    assert not getattr(app.state, "stopped", False)


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({"Origin": "http://evil.example"}, "Origin"),
        ({"Origin": "null"}, "Origin"),
        ({"Origin": f"http://127.0.0.1:{PORT + 1}"}, "Origin"),
        ({"Sec-Fetch-Site": "cross-site"}, "cross-site"),
        ({"Sec-Fetch-Mode": "navigate"}, "navigation"),
        ({"Sec-Fetch-Dest": "document"}, "navigation"),
    ],
)
def test_shutdown_refuses_foreign_pages(make_client: Any, app: Any, headers: dict[str, str], why: str) -> None:
    response = make_client(app).post("/api/shutdown", headers=headers)
    assert response.status_code == 403
    assert why in response.text
    assert not getattr(app.state, "stopped", False)


def test_shutdown_refuses_a_remote_client(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    builder = builder_for([("fake", FakeHarness("fake", []))], tmp_path)
    app = create_app(builder=builder, settings=Settings(host="0.0.0.0", port=PORT))
    app.state.request_shutdown = lambda: app.state.__setattr__("stopped", True)
    response = make_client(app, host=f"192.168.1.20:{PORT}", client=("192.168.1.7", 5000)).post("/api/shutdown")
    assert response.status_code == 403
    assert "loopback" in response.text
    assert not getattr(app.state, "stopped", False)


def test_shutdown_refuses_an_oversize_body(make_client: Any, app: Any) -> None:
    response = make_client(app).post("/api/shutdown", content=b"x" * 5000)
    assert response.status_code == 413
    assert not getattr(app.state, "stopped", False)


def test_shutdown_from_the_dashboard_itself_or_a_command_line(make_client: Any, app: Any) -> None:
    response = make_client(app).post(
        "/api/shutdown",
        headers={"Origin": f"http://127.0.0.1:{PORT}", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"},
    )
    assert response.status_code == 200
    assert response.json()["stopping"] is True
    assert app.state.stopped is True


def test_shutdown_without_a_runner_says_so(make_client: Any, builder_for: Any, tmp_path: Path) -> None:
    app = create_app(builder=builder_for([], tmp_path), settings=Settings(port=PORT))
    response = make_client(app).post("/api/shutdown")
    assert response.status_code == 503


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_loopback_addresses(address: str) -> None:
    assert is_loopback(address)


@pytest.mark.parametrize("address", ["10.0.0.1", "192.168.0.1", "::ffff:10.0.0.1", "testclient", "", None, "0.0.0.0"])
def test_non_loopback_addresses(address: str | None) -> None:
    assert not is_loopback(address)


def test_state_change_default_origin_is_the_request_host() -> None:
    ok = _request(headers={"Host": "127.0.0.1:7000", "Origin": "http://127.0.0.1:7000"})
    assert check_state_change(ok) is None
    bad = _request(headers={"Host": "127.0.0.1:7000", "Origin": "http://127.0.0.1:7001"})
    assert check_state_change(bad) is not None


# -- bounded bodies --------------------------------------------------------------------------


def test_read_body_refuses_a_declared_oversize_length_without_reading() -> None:
    request = _request(headers={"Content-Length": "999999"}, chunks=[])
    with pytest.raises(HTTPException) as err:
        asyncio.run(read_body(request, 100))
    assert err.value.status_code == 413


def test_read_body_refuses_a_bad_length() -> None:
    with pytest.raises(HTTPException) as err:
        asyncio.run(read_body(_request(headers={"Content-Length": "ten"}), 100))
    assert err.value.status_code == 400


@given(st.lists(st.binary(max_size=64), max_size=8), st.integers(min_value=0, max_value=300))
def test_read_body_streams_up_to_the_limit(chunks: list[bytes], limit: int) -> None:
    """Chunked bodies with no length: returned whole within the limit, 413 past it."""
    request = _request(chunks=list(chunks) or [b""])
    total = b"".join(chunks)
    if len(total) <= limit:
        assert asyncio.run(read_body(request, limit)) == total
    else:
        with pytest.raises(HTTPException) as err:
            asyncio.run(read_body(request, limit))
        assert err.value.status_code == 413
