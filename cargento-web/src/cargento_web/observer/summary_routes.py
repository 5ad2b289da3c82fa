"""``POST /api/summary`` (ask for one goal summary, allow summaries, turn them off) and
``POST /api/summary/cancel``.

The statuses mirror ``POST /api/reading`` where they apply, decided before anything is saved or
spent, in this order: the guard (loopback, same origin, no document navigation; 405 for another
method), the 12,288-byte body cap (413), a body that is not the documented shape (400), the run's
switches (503: ``--no-annotations``, ``--no-observer-model``, or summaries not offered because
the run was started without ``--observer-model``), the permission file (503), the summary route
(503 with its reason when no installed provider offers summaries; 409 ``provider-changed`` with
the current route when the body names another provider), summary permission (403, which reading
permission never satisfies), the session (200 ``produced: false`` when it is not on the board or
published no prompt), one model call per session (409), the rolling cap shared with readings
(429 with its retry time). Only then is an attempt reserved and started (202).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .jsonstore import StoreUnavailable
from .routes import EVERY_METHOD, answer, cancel_route, in_flight, json_body, press_refusal, reserve, route_refusal
from .summaries import build_summary_prompt

if TYPE_CHECKING:
    from cargento_web.app import Guard

    from . import Observer

__all__ = ["summary_routes"]


def summary_routes(observer: Observer, guard: Guard) -> list[BaseRoute]:
    async def summary(request: Request) -> Response:
        body = await json_body(guard, request)
        if isinstance(body, Response):
            return body
        refused = press_refusal(observer, body, "a goal summary", "summary permission", observer.summary_refusal)
        if refused is not None:
            return refused
        if body.get("consent") == "off":
            provider = observer.declared.summary_provider()
            if provider is not None:
                try:
                    observer.consent.allow_summaries(provider, False)
                except StoreUnavailable as exc:
                    return answer(503, reason="permission-storage", error=str(exc))
            observer.context.changed()
            return answer(200, consent="off", produced=False)
        harness, sid, provider = body.get("harness"), body.get("sid"), body.get("provider")
        if not isinstance(harness, str) or not harness or not isinstance(sid, str) or not sid:
            return answer(400, error="a goal summary names a harness and a session id (sid)")
        route = observer.summary_route(harness)
        refused = route_refusal(route, provider, "summarise")
        if refused is not None:
            return refused
        assert route.provider is not None
        if body.get("allow") is True:
            try:
                observer.consent.allow_summaries(route.provider, True)
            except StoreUnavailable as exc:
                return answer(503, reason="permission-storage", error=str(exc))
            observer.context.changed()
        elif not observer.consent.summaries_allowed(route.provider):
            return answer(
                403,
                reason="consent",
                route=route.as_dict(),
                disclosure=observer.summary_disclosure(),
                error=f"goal summaries by the {route.reader.label if route.reader else route.provider} are not allowed yet: "
                'read the disclosure and press Allow and summarise ("allow": true); reading permission does not cover them',
            )
        session = observer.session(harness, sid)
        if session is None:
            return answer(200, produced=False, reason="not-on-board", error="that session is not on the board")
        if build_summary_prompt(session) is None:
            return answer(
                200, produced=False, reason="no-prompt", error="that session published no prompt to summarise"
            )
        busy = in_flight(observer, harness, sid)
        if busy is not None:
            return busy
        stamp = reserve(observer)
        if isinstance(stamp, Response):
            return stamp
        flight = observer.summaries.claim(harness, sid, route, stamp)
        if flight is None:
            observer.budget.release(stamp)
            return answer(409, reason="in-flight", error="a goal summary of this session is already in flight")
        observer.summaries.start(flight, session, route)
        return answer(202, produced=True, started=True, flight=flight.as_dict(), route=route.as_dict())

    return [
        Route("/api/summary", summary, methods=EVERY_METHOD),
        Route("/api/summary/cancel", cancel_route(observer.summaries, guard), methods=EVERY_METHOD),
    ]
