"""The forwarders' one-exchange HTTP client against real sockets: a length-delimited reply, a
chunked one, one cut at the limit, one that is not HTTP, a server that never answers, and a
header that tries to smuggle a second line."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from cargento.forwarders.loopback_http import exchange


@pytest.fixture
def server() -> Iterator[Callable[..., tuple[int, list[bytes]]]]:
    """``server(reply)``: a one-shot loopback server that records the request it got."""
    socks: list[socket.socket] = []

    def start(reply: bytes, *, silent: bool = False) -> tuple[int, list[bytes]]:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        socks.append(sock)
        got: list[bytes] = []

        def serve() -> None:
            conn, _ = sock.accept()
            with conn:
                conn.settimeout(2)
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(4096)
                got.append(data)
                if silent:
                    time.sleep(1.5)
                    return
                conn.sendall(reply)

        threading.Thread(target=serve, daemon=True).start()
        return sock.getsockname()[1], got

    yield start
    for s in socks:
        s.close()


def test_a_length_delimited_reply(server: Callable[..., tuple[int, list[bytes]]]) -> None:
    port, got = server(b"HTTP/1.1 202 Accepted\r\nContent-Length: 5\r\n\r\nhello and more")
    assert exchange(port, "POST", "/api/events/x", {"X-Cap": "c"}, b'{"a":1}', timeout_s=2) == (202, b"hello")
    request = got[0]
    assert request.startswith(b"POST /api/events/x HTTP/1.1\r\n")
    assert b"Content-Length: 7\r\n" in request and b"X-Cap: c\r\n" in request and b"Connection: close" in request


def test_a_chunked_reply(server: Callable[..., tuple[int, list[bytes]]]) -> None:
    port, _ = server(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:1}\r\n0\r\n\r\n')
    assert exchange(port, "GET", "/api/health", {}, timeout_s=2) == (200, b'{"a":1}')


def test_a_reply_is_cut_at_the_limit(server: Callable[..., tuple[int, list[bytes]]]) -> None:
    port, _ = server(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 5000)
    assert exchange(port, "GET", "/", {}, timeout_s=2, limit=100) == (200, b"x" * 100)


def test_what_is_not_http_is_no_answer(server: Callable[..., tuple[int, list[bytes]]]) -> None:
    port, _ = server(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
    assert exchange(port, "GET", "/", {}, timeout_s=2) is None


def test_nothing_listening_and_a_silent_server_are_no_answer(server: Callable[..., tuple[int, list[bytes]]]) -> None:
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    assert exchange(port, "GET", "/", {}, timeout_s=1) is None
    silent, _ = server(b"", silent=True)
    started = time.monotonic()
    assert exchange(silent, "GET", "/", {}, timeout_s=0.3) is None
    assert time.monotonic() - started < 1.2, "the timeout bounds the wait"


def test_a_header_cannot_smuggle_a_line(server: Callable[..., tuple[int, list[bytes]]]) -> None:
    port, got = server(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
    assert exchange(port, "GET", "/", {"X-Evil": "a\r\nX-Injected: 1", "X-Good": "ok"}, timeout_s=2) == (204, b"")
    assert b"X-Injected" not in got[0] and b"X-Good: ok" in got[0]
