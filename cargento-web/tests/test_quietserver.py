"""The quiet uvicorn server: no housekeeping wake-ups, a Date header, and a prompt stop."""

from __future__ import annotations

import socket
import threading
import time
from email.utils import parsedate_to_datetime

import httpx
from cargento_web.quietserver import QuietServer, quiet_config
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route


class CountingServer(QuietServer):
    ticks = 0

    async def on_tick(self, counter: int) -> bool:
        self.ticks += 1
        return await super().on_tick(counter)


def _hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


def _start() -> tuple[CountingServer, threading.Thread, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    app = Starlette(routes=[Route("/", _hello)])
    server = CountingServer(quiet_config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.started
    return server, thread, base


def test_an_idle_server_does_not_tick_and_stops_at_once_when_told() -> None:
    server, thread, base = _start()
    try:
        response = httpx.get(base + "/")
        assert response.text == "hello"
        date = parsedate_to_datetime(response.headers["date"])
        assert abs(date.timestamp() - time.time()) < 5
        assert len(response.headers.get_list("date")) == 1
        before = server.ticks
        time.sleep(0.6)
        # uvicorn's own loop would have ticked six times in this while.
        assert server.ticks == before
    finally:
        asked = time.monotonic()
        server.should_exit = True  # from another thread, as Receiver.stop does
        thread.join(5)
    assert not thread.is_alive()
    assert time.monotonic() - asked < 1.0
