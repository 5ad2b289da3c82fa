"""``POST /api/reading`` (ask for one reading, allow a provider, turn readings off) and
``POST /api/reading/cancel``.

Every refusal is decided before anything is saved or spent, in this order: the guard (loopback,
same origin, no document navigation; 405 for another method), the 12,288-byte body cap (413),
a body that is not the documented shape (400), the run's switches and the reading gate (503),
the route (503 with the reason when no provider can read that harness; 409 ``provider-changed``
with the current route when the body names another provider), permission (403), the session's
words (200 ``produced: false``), one call per session (409), the rolling cap (429 with its retry
time). Only then is an attempt reserved and started (202).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.outbound import OutboundJSON

from .jsonstore import StoreUnavailable

if TYPE_CHECKING:
    from cargento_web.app import Guard

    from . import Observer
    from .calls import ModelCalls
    from .providers import Route as ProviderRoute

__all__ = [
    "BODY_LIMIT",
    "EVERY_METHOD",
    "answer",
    "cancel_route",
    "cap_reached",
    "in_flight",
    "json_body",
    "press_refusal",
    "reading_routes",
    "reserve",
    "route_refusal",
]

BODY_LIMIT = 12_288
EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def answer(status: int, **body: Any) -> Response:
    return OutboundJSON(body, status_code=status)


async def json_body(guard: Guard, request: Request) -> dict[str, Any] | Response:
    refusal = guard.check_state_change(request)
    if refusal is not None:
        return refusal
    raw = await guard.read_body(request, BODY_LIMIT)
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return answer(400, error="the body is not JSON")
    if not isinstance(body, dict):
        return answer(400, error="the body is not a JSON object")
    return body


def cap_reached(observer: Observer) -> Response:
    """429 at the rolling cap, with its retry time (body and ``Retry-After``)."""
    status = observer.budget.status()
    retry = status["retry_at"]
    wait = max(0, int((datetime.fromisoformat(retry) - datetime.now(UTC)).total_seconds())) if retry else None
    response = answer(
        429,
        reason="cap",
        retry_at=retry,
        retry_after_s=wait,
        budget=status,
        error=f"the cap of {status['cap']} model requests (readings and goal summaries) per rolling 24 hours is reached",
    )
    if wait is not None:
        response.headers["Retry-After"] = str(wait)
    return response


def press_refusal(
    observer: Observer, body: dict[str, Any], asked: str, permission: str, refusal: Callable[[], tuple[str, str] | None]
) -> Response | None:
    """What refuses a press before anything else is looked at: a body that is not a press (400),
    the run's switches (*refusal*, 503), a permission file that cannot be kept (503)."""
    if body.get("press") is not True or body.get("observer_model") != 1:
        return answer(400, error=f'{asked} is asked with "press": true and "observer_model": 1')
    why = refusal()
    if why is not None:
        return answer(503, reason=why[0], error=why[1])
    try:
        observer.consent.store.read()
    except StoreUnavailable as exc:
        return answer(503, reason="permission-storage", error=f"{permission} cannot be kept: {exc}")
    return None


def route_refusal(route: ProviderRoute, named: object, doing: str) -> Response | None:
    """503 when no installed provider serves *route*'s harness; 409 ``provider-changed`` (nothing
    saved or spent) when the press *named* another provider than the one that would be *doing* it."""
    if route.provider is None:
        return answer(503, reason="no-provider", route=route.as_dict(), error=route.reason)
    if named != route.provider:
        return answer(
            409,
            reason="provider-changed",
            route=route.as_dict(),
            error=f"the provider that would {doing} is not the one this press named: nothing was saved or spent; "
            "read the disclosure and press again",
        )
    return None


def in_flight(observer: Observer, harness: str, sid: str) -> Response | None:
    """409 while a model call of this session (a reading or a goal summary) runs."""
    running = observer.readings.flight(harness, sid) or observer.summaries.flight(harness, sid)
    if running is None:
        return None
    return answer(
        409,
        reason="in-flight",
        flight=running.as_dict(),
        error="a model call for this session (a reading or a goal summary) is in flight",
    )


def reserve(observer: Observer) -> str | Response:
    """One attempt reserved against the rolling cap, or the answer that refuses it."""
    try:
        stamp = observer.budget.reserve()
    except StoreUnavailable as exc:
        return answer(503, reason="budget-storage", error=f"the budget cannot be kept: {exc}")
    return cap_reached(observer) if stamp is None else stamp


def cancel_route(calls: ModelCalls, guard: Guard) -> Callable[[Request], Awaitable[Response]]:
    """``POST …/cancel``: stop the session's call of *calls*."""

    async def cancel(request: Request) -> Response:
        body = await json_body(guard, request)
        if isinstance(body, Response):
            return body
        harness, sid = body.get("harness"), body.get("sid")
        if not isinstance(harness, str) or not isinstance(sid, str):
            return answer(400, error="a cancel names a harness and a session id (sid)")
        return answer(200, cancelled=calls.cancel(harness, sid))

    return cancel


def reading_routes(observer: Observer, guard: Guard) -> list[BaseRoute]:
    async def reading(request: Request) -> Response:
        body = await json_body(guard, request)
        if isinstance(body, Response):
            return body
        refused = press_refusal(observer, body, "a reading", "reading permission", observer.refusal)
        if refused is not None:
            return refused
        if body.get("consent") == "off":
            try:
                observer.consent.revoke()
            except StoreUnavailable as exc:
                return answer(503, reason="permission-storage", error=str(exc))
            observer.context.changed()
            return answer(200, consent="off", produced=False)
        harness, sid, provider = body.get("harness"), body.get("sid"), body.get("provider")
        if not isinstance(harness, str) or not harness or not isinstance(sid, str) or not sid:
            return answer(400, error="a reading names a harness and a session id (sid)")
        route = observer.route(harness)
        refused = route_refusal(route, provider, "run")
        if refused is not None:
            return refused
        assert route.provider is not None
        if body.get("allow") is True:
            tool_output = body.get("tool_output")
            try:
                observer.consent.allow(
                    route.provider, tool_output=tool_output if isinstance(tool_output, bool) else None
                )
            except StoreUnavailable as exc:
                return answer(503, reason="permission-storage", error=str(exc))
            observer.context.changed()
        elif not observer.consent.allowed(route.provider):
            return answer(
                403,
                reason="consent",
                route=route.as_dict(),
                disclosure=observer.disclosure(harness, route.provider),
                error=f"readings by the {route.reader.label if route.reader else route.provider} are not allowed yet: "
                'read the disclosure and press Allow and analyze ("allow": true)',
            )
        intent = observer.intent(harness, sid)
        if intent is None and observer.readings.flight(harness, sid) is None:
            intent = observer.adopt(harness, sid)
        if intent is None:
            return answer(200, produced=False, reason="no-words", error="no annotated session by that name exists")
        busy = in_flight(observer, harness, sid)
        if busy is not None:
            return busy
        session = observer.session(harness, sid)
        if session is None:
            return answer(200, produced=False, reason="not-on-board", error="that session is not on the board")
        stamp = reserve(observer)
        if isinstance(stamp, Response):
            return stamp
        flight = observer.readings.claim(harness, sid, route, intent, stamp)
        if flight is None:
            observer.budget.release(stamp)
            return answer(409, reason="in-flight", error="a reading of this session is already in flight")
        observer.readings.start(flight, session, route, intent)
        return answer(202, produced=True, started=True, flight=flight.as_dict(), route=route.as_dict())

    return [
        Route("/api/reading", reading, methods=EVERY_METHOD),
        Route("/api/reading/cancel", cancel_route(observer.readings, guard), methods=EVERY_METHOD),
    ]
