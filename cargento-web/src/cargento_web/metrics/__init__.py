"""Metrics out: ``GET /metrics`` for Prometheus, and ``--otlp-endpoint`` for a collector.

Both publish the same samples (:mod:`cargento_web.metrics.readings`) computed from the board
at the moment of the scrape or the push, plus the live path's two latency histograms. The
route answers on the dashboard's own loopback port (reach it from another machine through an
SSH tunnel, never by widening the bind; see ``docs/fleet.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cargento.board import Board
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.metrics.prometheus import Exposition

if TYPE_CHECKING:
    from cargento_web.app import Guard
    from cargento_web.metrics.push import Pusher
    from cargento_web.metrics.readings import Sample

__all__ = ["Metrics", "create"]


class Metrics(Extension):
    name = "metrics"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self.exposition = Exposition()
        self.pusher: Pusher | None = None
        self._last: Board | None = None
        if context.options.otlp_endpoint:
            from cargento_web.metrics.push import Pusher

            self.pusher = Pusher(context.options.otlp_endpoint, lambda: self.samples(self._last))

    def samples(self, board: Board | None) -> list[Sample]:
        if board is None:
            return []
        # The samples are worked out by the first scrape or push, and their module imported then.
        from cargento_web.metrics.readings import board_samples

        registry = self.context.builder.registry
        deliveries = getattr(self.context.hub, "deliveries", None)
        raised = dict(getattr(deliveries, "raised_by_outcome", {}) or {})
        return board_samples(board, faults=dict(registry.fault_counts), raised=raised)

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def metrics(request: Request) -> Response:
            board = await request.app.state.live.board(self.context.settings.all_sessions)
            body, content_type = self.exposition.render(self.samples(board), request.headers.get("accept"))
            return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})

        return [Route("/metrics", metrics, methods=["GET", "HEAD"])]

    def on_board(self, board: Board) -> None:
        self._last = board

    def on_timing(self, kind: str, seconds: float) -> None:
        self.exposition.observe(kind, seconds)
        if self.pusher is not None:
            self.pusher.observe(kind, seconds)

    def page_config(self) -> Mapping[str, Any]:
        return {"path": "/metrics", "otlp_endpoint": self.context.options.otlp_endpoint}

    def close(self) -> None:
        if self.pusher is not None:
            self.pusher.close()


def create(context: ExtensionContext) -> Metrics:
    return Metrics(context)
