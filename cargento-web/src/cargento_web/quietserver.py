"""uvicorn without its housekeeping tick: a served dashboard that sleeps while nothing happens.

uvicorn's ``Server.main_loop`` wakes ten times a second, for ever, to refresh the ``Date``
header once a second and to see whether it should stop. With two servers in one process
(the dashboard and the telemetry receiver) that was twenty wake-ups a second of an idle
dashboard. Here the main loop waits on an event that setting ``should_exit`` sets (from a
signal handler, a route or another thread alike), and the ``Date`` header is stamped on each
response as it starts (:class:`DateHeader`), so nothing runs between requests.
"""

from __future__ import annotations

import asyncio
import time
from email.utils import formatdate
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cargento_web.uvicornparts import Config, Server

__all__ = ["DateHeader", "QuietServer", "quiet_config"]


class DateHeader:
    """ASGI middleware: the ``Date`` header uvicorn's tick kept, computed per response (the
    formatted second is reused while it lasts)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._second = -1
        self._value = b""

    def _date(self) -> bytes:
        second = int(time.time())
        if second != self._second:
            self._value = formatdate(second, usegmt=True).encode()
            self._second = second
        return self._value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                if not any(name.lower() == b"date" for name, _ in headers):
                    headers.append((b"date", self._date()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_dated)


def quiet_config(app: ASGIApp, **kwargs: Any) -> Config:
    """A uvicorn config for :class:`QuietServer`: *app* behind :class:`DateHeader`, and
    uvicorn's own (tick-refreshed) ``Date`` header off. No WebSocket protocol is loaded (no
    route takes one; looking for an implementation imported ``websockets`` at every start)."""
    kwargs.setdefault("ws", "none")
    return Config(DateHeader(app), date_header=False, **kwargs)


class QuietServer(Server):
    """uvicorn's server whose main loop sleeps until it is told to stop."""

    def __init__(self, config: Config) -> None:
        self._exit_now = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._exit_event: asyncio.Event | None = None
        super().__init__(config)

    @property
    def should_exit(self) -> bool:
        return self._exit_now

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._exit_now = value
        loop, event = self._loop, self._exit_event
        if value and loop is not None and event is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop closed in between: it is stopping anyway
                pass

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._exit_event = asyncio.Event()
        # One tick sets the default headers (the server's own) and reads should_exit.
        if await self.on_tick(0):
            return
        while not self._exit_now:
            await self._exit_event.wait()
            self._exit_event.clear()
