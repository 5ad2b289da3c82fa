"""``POST /api/annotate`` and ``GET /api/annotations``.

Both answer 503 under ``--no-annotations``. The POST is a state change behind the guard (POST
only, loopback only, this dashboard's Origin, no cross-site or navigation request), its body
capped at :data:`~cargento_web.annotations.requests.BODY_LIMIT`. The GET serves the words
themselves, so it too answers only on loopback, and it is read when the Intent log opens,
never on the refresh loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.annotations.intent import intent_log
from cargento_web.annotations.records import OFF_REASON
from cargento_web.annotations.requests import BODY_LIMIT, Refusal, parse_annotate
from cargento_web.annotations.store import AnnotationStore, Result
from cargento_web.annotations.summary import all_views, entry_view
from cargento_web.outbound import OutboundJSON
from cargento_web.security import is_loopback

if TYPE_CHECKING:
    from cargento.board import Board

    from cargento_web.app import Guard

__all__ = ["OFF_REASON", "STATUS", "annotation_routes"]

#: The HTTP status of each outcome; the body always carries the outcome itself.
STATUS = {"stored": 200, "unchanged": 200, "refused": 400, "unwritable": 507, "untrusted": 409, "unreadable": 409}
_EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _reply(result: Result, *, held: bool = False) -> OutboundJSON:
    body: dict[str, Any] = {"persisted": result.persisted, "outcome": result.outcome, "reason": result.reason}
    if result.entry is not None:
        body["annotation"] = entry_view(result.entry, held=held)
    return OutboundJSON(body, status_code=STATUS[result.outcome])


def annotation_routes(
    guard: Guard,
    store: AnnotationStore | None,
    *,
    clock: Callable[[], datetime],
    latest_board: Callable[[], Board | None],
    changed: Callable[[], None],
) -> Sequence[BaseRoute]:
    """The two routes over *store* (``None``: the feature is off for the run)."""

    async def annotate(request: Request) -> Response:
        refusal = guard.check_state_change(request)
        if refusal is not None:
            return refusal
        if store is None:
            return OutboundJSON({"persisted": False, "outcome": "refused", "reason": OFF_REASON}, status_code=503)
        body = await guard.read_body(request, BODY_LIMIT)
        now = clock()
        parsed = parse_annotate(body, now)
        if isinstance(parsed, Refusal):
            return _reply(Result(outcome="refused", persisted=False, reason=parsed.reason))
        result = await run_in_threadpool(store.annotate, parsed.harness, parsed.sid, parsed.change, now)
        if result.outcome in ("stored", "unwritable") and result.entry is not None:
            changed()
        return _reply(result, held=(parsed.harness, parsed.sid) in store.held)

    async def annotations(request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return OutboundJSON({"error": "this route only answers GET"}, status_code=405, headers={"Allow": "GET"})
        client = request.client.host if request.client else None
        if not is_loopback(client):
            return OutboundJSON({"error": "the words you typed are served to this machine only"}, status_code=403)
        if store is None:
            return OutboundJSON({"on": False, "reason": OFF_REASON}, status_code=503)

        def build() -> dict[str, Any]:
            loaded = store.view()
            return {
                "on": True,
                "state": loaded.state,
                "detail": loaded.detail,
                "write_error": store.write_error,
                "annotations": all_views(store),
                "log": intent_log(store, latest_board(), now=clock()),
            }

        return OutboundJSON(await run_in_threadpool(build), headers={"Cache-Control": "no-store"})

    return [
        Route("/api/annotate", annotate, methods=_EVERY_METHOD),
        Route("/api/annotations", annotations, methods=_EVERY_METHOD),
    ]
