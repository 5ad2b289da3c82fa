"""The event ingress: the routes a dashboard mounts for live lifecycle events.

* ``POST /api/events/{harness}``: one hook payload from a forwarder or adapter, for every
  harness whose plugin declares an event lane (:func:`cargento.hookspecs.event_lane`).
* ``POST /api/notify``: a Notification or SessionEnd payload (the specification's path 2,
  ``notify_hook.py``) for the lane that declares ``receives_notify``.
* ``GET /api/overlays``: the live overlays behind each session's state, their arrival order
  and timings, and every time an event overruled a session read as waiting.

Both POST routes are loopback-only with the same Origin/Host refusals as every state-changing
route (:func:`cargento_web.security.check_state_change`), need this run's capability in the
``X-Cargento-Capability`` header (401 when absent, 403 when wrong), read at most
:data:`BODY_LIMIT` bytes (413 beyond), refuse a body that is not one JSON object (400) or
that names no session where one is needed (422), and ignore unknown fields. A refused body
never reaches the hub, so it cannot corrupt the board. An accepted event answers 202 with
what it did, and marks the app's live board out of date when it changed what the hub asserts.

:func:`create_hub` is the seam :mod:`cargento_web.server` calls to make the hub of a run.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson
from cargento.board import BoardBuilder
from cargento.cli import Options
from cargento.events import EventVocabulary, PayloadError
from cargento.statedir import CAPABILITY_HEADER
from cargento.timestamps import parse_ts
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cargento_web.outbound import OutboundJSON
from cargento_web.runtime import EventHub
from cargento_web.runtime import create_hub as _create_hub

__all__ = ["BODY_LIMIT", "HOOK_AT_HEADER", "create_hub", "routes"]

log = logging.getLogger("cargento_web")

#: Largest accepted event body. Forwarders slim payloads far below this.
BODY_LIMIT = 256 * 1024
#: The forwarder's own start time (epoch seconds), for the diagnostics' timings.
HOOK_AT_HEADER = "X-Cargento-Hook-At"


class GuardLike(Protocol):
    def check_state_change(self, request: Request) -> Response | None: ...

    def read_body(self, request: Request, limit: int) -> Awaitable[bytes]: ...


class _DefaultGuard:
    """The checks of :mod:`cargento_web.security`, for apps that pass no guard."""

    def check_state_change(self, request: Request) -> Response | None:
        from cargento_web.security import check_state_change

        return check_state_change(request)

    async def read_body(self, request: Request, limit: int) -> bytes:
        from cargento_web.security import read_body

        return await read_body(request, limit)


def create_hub(*, builder: BoardBuilder, settings: Any, options: Options) -> EventHub:
    """The event hub of one dashboard run, over the builder's environment and clock."""
    return _create_hub(
        env=builder.env,
        clock=builder.clock,
        platform=builder.platform,
        no_events=options.no_events,
        no_irreversible=options.no_irreversible,
        no_notify=options.no_notify,
        replay=options.as_of is not None,
        vocabulary=EventVocabulary.from_registry(builder.registry),
        quiet_hours=options.quiet_hours,
        no_quiet_hours=options.no_quiet_hours,
        no_focus=options.no_focus,
    )


def _refuse(status: int, message: str) -> OutboundJSON:
    return OutboundJSON({"accepted": False, "error": message}, status_code=status)


def _invalidate(request: Request) -> None:
    live = getattr(request.app.state, "live", None)
    invalidate: Callable[[], None] | None = getattr(live, "invalidate", None)
    if invalidate is not None:
        invalidate()


def routes(hub: EventHub, guard: object | None = None) -> list[Route]:
    """The ingress routes over *hub*, behind *guard* (the app's request checks)."""
    checks: GuardLike = guard if guard is not None and hasattr(guard, "check_state_change") else _DefaultGuard()  # type: ignore[assignment]

    async def admit(request: Request) -> tuple[dict[str, Any] | None, Response | None]:
        refusal = checks.check_state_change(request)
        if refusal is not None:
            return None, refusal
        presented = request.headers.get(CAPABILITY_HEADER)
        if not presented:
            return None, _refuse(
                401, f"refused: the {CAPABILITY_HEADER} header is required (read it from the dashboard's state file)"
            )
        if not hub.check_capability(presented):
            return None, _refuse(403, "refused: wrong capability (it is generated anew by every run of the dashboard)")
        raw = await checks.read_body(request, BODY_LIMIT)
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return None, _refuse(400, "refused: the body is not JSON")
        if not isinstance(body, dict):
            return None, _refuse(400, "refused: the body must be one JSON object")
        return body, None

    def hook_at(request: Request) -> Any:
        return parse_ts(request.headers.get(HOOK_AT_HEADER))

    def answer(request: Request, result: Any) -> OutboundJSON:
        if result.changed:
            _invalidate(request)
        return OutboundJSON(
            {
                "accepted": True,
                "kind": result.kind,
                "effect": result.effect,
                "state": result.state,
                "irreversible": [r.shape for r in result.irreversible],
            },
            status_code=202,
        )

    async def events(request: Request) -> Response:
        body, refusal = await admit(request)
        if refusal is not None:
            return refusal
        assert body is not None
        try:
            result = hub.ingest(request.path_params["harness"], body, hook_at=hook_at(request))
        except PayloadError as exc:
            return _refuse(exc.status, f"refused: {exc.message}")
        return answer(request, result)

    async def notify(request: Request) -> Response:
        body, refusal = await admit(request)
        if refusal is not None:
            return refusal
        assert body is not None
        try:
            result = hub.ingest_notification(body, hook_at=hook_at(request))
        except PayloadError as exc:
            return _refuse(exc.status, f"refused: {exc.message}")
        return answer(request, result)

    async def overlays(request: Request) -> Response:
        return OutboundJSON(hub.diagnostics(), headers={"Cache-Control": "no-store"})

    every_method = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    return [
        Route("/api/events/{harness}", events, methods=every_method),
        Route("/api/notify", notify, methods=every_method),
        Route("/api/overlays", overlays, methods=["GET", "HEAD"]),
    ]
