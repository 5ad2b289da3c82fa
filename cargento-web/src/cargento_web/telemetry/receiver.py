"""The OTLP/HTTP receiver: ``POST /v1/metrics`` and ``POST /v1/logs`` on its own loopback
port (4318, the standard one, unless ``--otlp-port`` says otherwise).

It answers what an exporter expects (an empty export response in the request's encoding),
refuses a peer that is not loopback, a body past the cap, an encoding it cannot read, and a
body that is not an export request, and keeps nothing of a request but the figures the
ledger takes. It runs its own small server in a thread, so a burst of exports never holds up
the dashboard's event loop.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from datetime import UTC, datetime

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cargento_web.quietserver import QuietServer, quiet_config
from cargento_web.security import read_body
from cargento_web.telemetry.ledger import Ledger
from cargento_web.uvicornparts import Server

__all__ = ["Receiver", "receiver_app"]

log = logging.getLogger("cargento_web")

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


def _reply(encoding: str, status: int = 200, text: str = "") -> Response:
    if status != 200:
        return Response(text, status_code=status, media_type="text/plain; charset=utf-8")
    if encoding == "json":
        return Response(b"{}", media_type="application/json")
    return Response(b"", media_type="application/x-protobuf")


def receiver_app(
    ledger: Ledger, on_figures: Callable[[], None], clock: Callable[[], datetime] | None = None
) -> Starlette:
    """The receiver's routes over *ledger*; *on_figures* is called when a request fed one."""
    now = clock or (lambda: datetime.now(UTC))

    def handler(signal: str) -> Callable[[Request], object]:
        async def receive(request: Request) -> Response:
            # The decoders are imported by the first export, not at every start.
            from cargento_web.telemetry.otlp import (
                BODY_LIMIT,
                Malformed,
                decode_logs,
                decode_metrics,
                encoding_of,
                inflate,
            )

            peer = request.client.host if request.client else ""
            if peer not in LOOPBACK:
                return _reply("", 403, "the telemetry receiver takes exports from this machine only")
            encoding = encoding_of(request.headers.get("content-type"))
            if encoding is None:
                return _reply("", 415, "send application/x-protobuf or application/json")
            try:
                raw = await read_body(request, BODY_LIMIT)
                body = inflate(raw, request.headers.get("content-encoding"))
                moment = now()
                if signal == "metrics":
                    fed = ledger.take_points(decode_metrics(body, encoding, now=moment), now=moment)
                else:
                    fed = ledger.take_records(decode_logs(body, encoding, now=moment), now=moment)
            except Malformed as exc:
                return _reply(encoding, 400, str(exc))
            if fed:
                on_figures()
            return _reply(encoding)

        return receive

    return Starlette(
        routes=[
            Route("/v1/metrics", handler("metrics"), methods=["POST"]),
            Route("/v1/logs", handler("logs"), methods=["POST"]),
        ]
    )


class Receiver:
    """The receiver's server, run in a thread on its own loopback socket."""

    def __init__(self, app: Starlette, port: int) -> None:
        self.app = app
        self.wanted = port
        self.port: int | None = None
        #: ``listening``, ``failed`` (with :attr:`reason`) or ``stopped``.
        self.state = "stopped"
        self.reason: str | None = None
        self._server: Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", self.wanted))
            sock.listen(64)
        except OSError as exc:
            sock.close()
            self.state = "failed"
            self.reason = f"127.0.0.1:{self.wanted} is not free ({exc.strerror or exc}); pick another with --otlp-port"
            log.warning("the telemetry receiver did not start: %s", self.reason)
            return
        self.port = sock.getsockname()[1]
        config = quiet_config(self.app, log_level="warning", access_log=False, lifespan="off", server_header=False)
        server = QuietServer(config)
        self._server = server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="cargento-otlp-receiver", daemon=True
        )
        self._thread.start()
        self.state = "listening"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(5)
        self.state = "stopped"
