"""Vendor polls honour the run's proxy settings: a real local proxy receives the tunnel."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento_harness_claude import plugin as claude
from cargento_harness_claude.quota import URL as CLAUDE_URL
from cargento_web.capacity.credentials import Credential
from cargento_web.capacity.proxy import proxy_settings, vendor_client
from cargento_web.capacity.vendors import Failure, Vendor, fetch

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TOKEN = "sk-ant-oat01-" + "P" * 48


def vendor(home: Path) -> Vendor:
    endpoint = claude.quota_endpoint(env={}, home=home, platform="linux")
    assert endpoint is not None
    return Vendor(harness="claude", label="Claude Code", endpoint=endpoint, read=lambda d, n: None, user_agent="t")


class RefusingProxy:
    """A real HTTP proxy on loopback that records each request's head and refuses the tunnel
    (there is no internet here to open one to)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.heads: list[bytes] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    head += chunk
                self.heads.append(head)
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def proxy() -> Iterator[RefusingProxy]:
    made = RefusingProxy()
    yield made
    made.close()


def test_a_poll_goes_through_the_proxy_the_environment_names(proxy: RefusingProxy, tmp_path: Path) -> None:
    with vendor_client({"HTTPS_PROXY": proxy.url}) as client:
        found = fetch(vendor(tmp_path), Credential(TOKEN), client, NOW)
    assert isinstance(found, Failure) and found.kind == "unavailable"
    (head,) = proxy.heads
    host = CLAUDE_URL.split("/")[2]
    assert head.startswith(f"CONNECT {host}:443 ".encode())
    # The login travels inside the tunnel, never to the proxy.
    assert TOKEN.encode() not in head and b"authorization" not in head.lower()


def test_no_proxy_sends_an_exempt_host_direct(proxy: RefusingProxy, tmp_path: Path) -> None:
    host = CLAUDE_URL.split("/")[2]
    env = {"https_proxy": proxy.url, "NO_PROXY": f"localhost,.{host.split('.', 1)[1]}"}
    with vendor_client(env) as client:
        # Direct to the vendor: no proxy sees it (and with no internet here it fails, said so).
        found = fetch(vendor(tmp_path), Credential(TOKEN), client, NOW)
    assert isinstance(found, Failure)
    assert proxy.heads == []


def test_without_a_proxy_setting_nothing_is_proxied(proxy: RefusingProxy) -> None:
    assert proxy_settings({}) == (None, ())
    assert proxy_settings({"ALL_PROXY": proxy.url, "no_proxy": "*.a.example, b.example ,*"}) == (
        proxy.url,
        ("a.example", "b.example", "*"),
    )
