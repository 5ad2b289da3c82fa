"""The Starlette application: the page, the JSON API, the live stream and shutdown, and the
two routes over the event hub every run has: ``GET /api/session-record`` (one session's
notifications, reported commands and lifecycle marks) and ``POST /api/tab-lane`` (a page with
browser-notification permission reports its own lane).

``create_app`` is the one way to make it. The server runner (:mod:`cargento_web.server`)
binds the socket first, so ``settings.port`` is the real port, then sets
``app.state.request_shutdown`` to the callable that stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

import orjson
from cargento import codecache, serde
from cargento.board import Board, BoardBuilder
from cargento.redact import redact_tree
from cargento.starthold import release as release_start_hold
from cargento.statedir import HEALTH_CHALLENGE, health_proof, valid_challenge
from cargento.timestamps import iso
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cargento_web.extensions import Extensions
from cargento_web.live import LiveBoard
from cargento_web.outbound import OutboundJSON, install_log_redaction
from cargento_web.page import render_page
from cargento_web.rendering import DocumentRenderer
from cargento_web.reports import all_reports
from cargento_web.runtime.presence import HEARTBEAT_S, PRESENCE_BODY_LIMIT, Presence, parse_report
from cargento_web.security import HostGuard, check_host, check_state_change, read_body
from cargento_web.settings import Settings
from cargento_web.workerthreads import run_in_worker

__all__ = ["APP_NAME", "Guard", "create_app", "document"]

#: Names this server in ``/api/health``; ``--status`` and ``--stop`` trust nothing else.
APP_NAME = "cargento"
#: ``POST /api/shutdown`` takes no body worth reading.
SHUTDOWN_BODY_LIMIT = 1024
#: ``POST /api/tab-lane`` is sent with an empty body; anything longer is refused.
TAB_LANE_BODY_LIMIT = 64
#: Longest harness key or session id ``/api/session-record`` looks up.
RECORD_ID_LIMIT = 256
#: Seconds after serving begins that the start's hold on garbage collection ends even if no
#: page has asked for ``/api/data`` yet (:mod:`cargento.starthold`; the first answer ends it).
START_HOLD_S = 5.0
#: Seconds after the first ``/api/data`` answer that the hold ends (the answer is sent first).
START_RELEASE_AFTER_S = 0.5


class Guard:
    """The request checks, bundled for route modules the hub contributes."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def check_host(self, request: Request) -> Response | None:
        return check_host(request, self.settings.allowed_hosts(), any_ip_literal_port=_open_port(self.settings))

    def check_state_change(self, request: Request) -> Response | None:
        return check_state_change(request, self.settings.allowed_origins())

    async def read_body(self, request: Request, limit: int) -> bytes:
        return await read_body(request, limit)


#: A state-changing route answers every method, so anything but POST gets a clear 405.
EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _notification_status(hub: object | None) -> dict[str, Any] | None:
    """Whether this machine can raise native notifications, as checked at start (and whether
    lifecycle events are on), for the page's header and Attention; ``None`` with no hub."""
    status: Callable[[], dict[str, Any]] | None = getattr(hub, "status", None)
    if status is None:
        return None
    found = status()
    return {"events": bool(found.get("events")), **dict(found.get("notifications") or {})}


def _store_resets(hub: object | None) -> list[dict[str, Any]]:
    """The server's own stores that were reset at start (which, what happened, when), for the
    page's header: a reset is the whole dashboard's news, not one session's."""
    status: Callable[[], dict[str, Any]] | None = getattr(hub, "status", None)
    if status is None:
        return []
    return list(status().get("store_resets") or [])


def _release_frozen() -> None:
    """End the start's hold, leaving what the start made out of every later collection, and
    keep what the start compiled of attrs' methods for the next one (:mod:`cargento.codecache`)."""
    release_start_hold(freeze=True)
    codecache.keep()


def _open_port(settings: Settings) -> int | None:
    return settings.port if settings.host == "0.0.0.0" else None


def document(board: Board, extras: dict[str, Any] | None = None) -> bytes:
    """The ``/api/data`` document: the board JSON, plus the features' top-level keys
    (*extras*, never replacing a board key), with every string redacted.

    Core redacts the session texts; this also covers harness faults, store problems and
    anything else a plugin or a feature put in a string, so no credential-shaped value
    reaches the page.
    """
    doc: dict[str, Any] = serde.unstructure(board)
    for key, value in (extras or {}).items():
        doc.setdefault(key, value)
    # One tree at a time: the unstructured one goes once its redacted copy exists, and that
    # goes once serialised (at 640 sessions each is about twice the JSON's size).
    doc = redact_tree(doc)
    body = orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS)
    del doc
    # Kept for every page's fetch until the next revision: right-sized (orjson's buffer is up
    # to twice the document's length).
    return serde.right_sized(body)


def _flag(request: Request, name: str, default: bool) -> bool:
    value = request.query_params.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


class _Headers:
    """Adds the house security headers to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for key, value in (
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                    (b"cross-origin-resource-policy", b"same-origin"),
                ):
                    if key not in present:
                        headers.append((key, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, wrapped)


def create_app(
    *, builder: BoardBuilder, settings: Settings, hub: object | None = None, extensions: Extensions | None = None
) -> Starlette:
    """The dashboard application over *builder*.

    With *hub* (the event ingress), its overlays are applied to every board, its routes are
    mounted behind the same guard, and ``hub.on_board(board)`` is called on every build.
    *extensions* (the operator features, :mod:`cargento_web.extensions`) add their routes,
    their keys of ``/api/data`` and their page configuration, and see every board.
    """
    install_log_redaction()
    features = extensions if extensions is not None else Extensions()
    live = LiveBoard(builder, settings, hub, extensions=features)
    features.listen(live.extension_changed)
    guard = Guard(settings)
    resets = _store_resets(hub) + [
        {
            "store": s.name,
            "text": s.detail or "it could not be read, so it was set aside and started empty",
            "at": iso(s.at),
        }
        for s in features.own_stores()
        if s.status == "reset"
    ]
    page = render_page(
        settings,
        notifications=redact_tree(_notification_status(hub)),
        store_resets=redact_tree(resets),
        features=redact_tree(features.page_config()),
    )

    async def index(request: Request) -> Response:
        return Response(
            page.body,
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": page.csp, "Cache-Control": "no-store"},
        )

    # Per flavour, each shown row's JSON: a revision serialises the rows that moved alone.
    renderers = {flavour: DocumentRenderer() for flavour in (False, True)}
    released: list[asyncio.TimerHandle] = []

    async def data(request: Request) -> Response:
        flavour = _flag(request, "all", settings.all_sessions)
        board = await live.board(flavour)
        body = renderers[flavour].render(board, features.document() if features.items else None)
        if not released:
            # The first board is out: collection as usual once this answer has gone, with what
            # the start made frozen (it lives as long as the server; walked, 20 ms a time).
            released.append(asyncio.get_running_loop().call_later(START_RELEASE_AFTER_S, _release_frozen))
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})

    capability: str | None = getattr(hub, "capability", None) if hub is not None else None

    async def health(request: Request) -> Response:
        answer: dict[str, Any] = {
            "app": APP_NAME,
            "pid": settings.pid or os.getpid(),
            "port": settings.port,
            "host": settings.host,
            "started_at": iso(settings.started_at),
            "version": settings.version,
            "url": settings.url,
        }
        challenge = request.query_params.get(HEALTH_CHALLENGE)
        if capability is not None and valid_challenge(challenge):
            # The forwarders post only to the dashboard that can answer this (see statedir).
            answer["proof"] = health_proof(capability, str(challenge))
        return OutboundJSON(answer, headers={"Cache-Control": "no-store"})

    async def stream(request: Request) -> Response:
        from cargento_web.stream import events  # the SSE feed: imported by the first page that holds it

        return StreamingResponse(
            events(live, all_sessions=_flag(request, "all", settings.all_sessions), heartbeat_s=settings.heartbeat_s),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def shutdown(request: Request) -> Response:
        refusal = guard.check_state_change(request)
        if refusal is not None:
            return refusal
        await read_body(request, SHUTDOWN_BODY_LIMIT)
        stop: Callable[[], None] | None = getattr(request.app.state, "request_shutdown", None)
        if stop is None:
            return OutboundJSON(
                {"stopping": False, "reason": "this app is not run by the cargento server"}, status_code=503
            )
        await live.close()
        stop()
        return OutboundJSON({"stopping": True, "pid": settings.pid or os.getpid()})

    async def session_record(request: Request) -> Response:
        record: Callable[[str, str], Any] | None = getattr(hub, "session_record", None)
        if record is None:
            return OutboundJSON(
                {"error": "no event hub runs in this dashboard, so nothing is recorded about sessions"}, status_code=404
            )
        harness = request.query_params.get("harness", "")
        sid = request.query_params.get("sid", "")
        if not harness or not sid:
            return OutboundJSON({"error": "both harness and sid are required"}, status_code=400)
        if len(harness) > RECORD_ID_LIMIT or len(sid) > RECORD_ID_LIMIT:
            return OutboundJSON({"error": f"harness and sid are at most {RECORD_ID_LIMIT} characters"}, status_code=400)
        doc = await run_in_worker(record, harness, sid)
        return OutboundJSON(doc, headers={"Cache-Control": "no-store"})

    async def reports(request: Request) -> Response:
        status, doc = await run_in_worker(all_reports, hub)
        return OutboundJSON(doc, status_code=status, headers={"Cache-Control": "no-store"})

    async def tab_lane(request: Request) -> Response:
        refusal = guard.check_state_change(request)
        if refusal is not None:
            return refusal
        await read_body(request, TAB_LANE_BODY_LIMIT)
        report: Callable[[], None] | None = getattr(hub, "report_tab_lane", None)
        if report is None:
            return OutboundJSON(
                {"reported": False, "reason": "no event hub runs in this dashboard to take the report"}, status_code=404
            )
        report()
        return OutboundJSON({"reported": True})

    async def presence(request: Request) -> Response:
        """A tab says whether it is visible and which session's page it shows: a raise about
        a session a visible tab shows is not sent, and no visible tab means away."""
        refusal = guard.check_state_change(request)
        if refusal is not None:
            return refusal
        raw = await read_body(request, PRESENCE_BODY_LIMIT)
        tabs: Presence | None = getattr(hub, "presence", None)
        if tabs is None:
            return OutboundJSON({"reported": False, "reason": "no event hub runs in this dashboard"}, status_code=404)
        try:
            body = orjson.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("the body must be one JSON object")
            tab, visible, shown = parse_report(body)
        except ValueError as exc:
            return OutboundJSON({"reported": False, "error": str(exc)}, status_code=400)
        clock: Callable[[], datetime] = getattr(hub, "clock")  # noqa: B009 - the hub is duck-typed here
        tabs.report(tab, visible, shown, clock())
        return OutboundJSON({"reported": True, "heartbeat_s": HEARTBEAT_S})

    routes: list[BaseRoute] = [
        Route("/", index, methods=["GET", "HEAD"]),
        Route("/api/data", data, methods=["GET", "HEAD"]),
        Route("/api/health", health, methods=["GET", "HEAD"]),
        Route("/api/stream", stream, methods=["GET"]),
        Route("/api/shutdown", shutdown, methods=EVERY_METHOD),
        Route("/api/session-record", session_record, methods=["GET", "HEAD"]),
        Route("/api/reports", reports, methods=["GET", "HEAD"]),
        Route("/api/tab-lane", tab_lane, methods=EVERY_METHOD),
        Route("/api/presence", presence, methods=EVERY_METHOD),
    ]
    if hub is not None and hasattr(hub, "routes"):
        routes.extend(hub.routes(guard))
    routes.extend(features.routes(guard))
    routes.append(Mount("/static", app=StaticFiles(packages=[("cargento_web", "static")]), name="static"))

    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(_Headers),
            Middleware(
                HostGuard,
                allowed_hosts=settings.allowed_hosts,
                any_ip_literal_port=lambda: _open_port(settings),
            ),
        ],
        lifespan=_lifespan(live, features),
    )
    app.state.live = live
    app.state.settings = settings
    app.state.guard = guard
    app.state.hub = hub
    app.state.extensions = features
    return app


def _lifespan(live: LiveBoard, features: Extensions) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        live.attach(loop)
        held = loop.call_later(START_HOLD_S, _release_frozen)
        hub = live.hub
        unsubscribe = hub.subscribe(live.invalidate) if hasattr(hub, "subscribe") else None
        try:
            yield
        finally:
            held.cancel()
            release_start_hold()
            if callable(unsubscribe):
                unsubscribe()
            await live.close()
            await run_in_worker(features.close)
            close = getattr(hub, "close", None)
            if callable(close):
                close()

    return lifespan
