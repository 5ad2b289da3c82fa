"""A feature that counts: ``POST /api/test-counter`` adds one, ``/api/data`` carries the count.

It exercises every part of :class:`cargento_web.extensions.Extension` the way a real feature
does, and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cargento.board import Board
from cargento.cli import Options
from cargento.diagnose import OwnStore, not_read
from cargento_web.app import Guard
from cargento_web.extensions import Extension, ExtensionContext
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

CLOSED: list[str] = []


class Counter(Extension):
    name = "counter"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self.count = 0
        self.boards = 0

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def add(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            await guard.read_body(request, 64)
            self.count += 1
            self.context.changed()
            return JSONResponse({"count": self.count})

        return [Route("/api/test-counter", add, methods=["POST"])]

    def on_board(self, board: Board) -> None:
        self.boards += 1

    def document(self) -> Mapping[str, Any]:
        return {"counter": {"count": self.count, "secret": "sk-ant-api03-" + "A" * 40}, "sessions": "never replaced"}

    def page_config(self) -> Mapping[str, Any]:
        return {"on": True, "store": str(self.context.state_dir / "counter.json")}

    def own_stores(self) -> Iterable[OwnStore]:
        return [
            OwnStore(
                name="counter",
                path=str(self.context.state_dir / "counter.json"),
                status="reset",
                detail="it held half a write",
            )
        ]

    def close(self) -> None:
        CLOSED.append(self.name)


def create(context: ExtensionContext) -> Counter | None:
    return None if context.options.no_annotations else Counter(context)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    path = env.get("COUNTER_PATH", "")
    if options is not None and options.no_annotations:
        return [not_read("counter", path, "--no-annotations")]
    return [OwnStore(name="counter", path=path, status="absent")]
