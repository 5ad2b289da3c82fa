"""Routes whose handlers are made on their first request, so a start does not import them.

A server's first ``/api/data`` answer waits on every module imported at start; the modules
behind a feature's own routes (``POST /api/annotate``, ``POST /api/reading``...) are needed only
once someone calls one. :class:`DeferredRoutes` lets a feature name its routes (path and
methods) at start and build them, importing their module, on the first request to any of them:

    later = DeferredRoutes(lambda: annotation_routes(guard, store, ...))
    return [later.route("/api/annotate", EVERY_METHOD), later.route("/api/annotations", EVERY_METHOD)]

The router sees a plain :class:`starlette.routing.Route` with the declared path and methods
(a method outside them is refused by the router as before); its endpoint, on the first call,
calls the builder once and hands the request to the built route of the same path, so the answer,
its headers and every check inside the handler are the built route's own. A declared route the
builder does not make is a programming error, said on the first request (and by the tests that
compare each feature's declaration with what its builder makes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

__all__ = ["DeferredRoutes"]


class DeferredRoutes:
    """Routes declared now whose handlers *build* makes on the first request to one of them."""

    def __init__(self, build: Callable[[], Sequence[BaseRoute]]) -> None:
        self._build = build
        self._built: dict[str, Route] | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        """Whether a request has made the real routes yet."""
        return self._built is not None

    def route(self, path: str, methods: Sequence[str]) -> Route:
        """The route at *path* answering *methods*, its handler made when first asked."""
        return Route(path, _Endpoint(self, path), methods=list(methods))

    def resolve(self, path: str) -> Route:
        """The built route at *path* (building every route on the first call)."""
        with self._lock:
            if self._built is None:
                made: dict[str, Route] = {}
                for route in self._build():
                    if not isinstance(route, Route):
                        raise TypeError(f"a deferred builder made {route!r}, not a Route")
                    made[route.path] = route
                self._built = made
            built = self._built
        found = built.get(path)
        if found is None:
            raise LookupError(f"the deferred builder made no route at {path}")
        return found


class _Endpoint:
    """The ASGI endpoint of one declared route: the built route's own app, once made."""

    def __init__(self, routes: DeferredRoutes, path: str) -> None:
        self.routes = routes
        self.path = path
        #: Named as the built handlers are not yet; the route's name is its path.
        self.__name__ = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.routes.resolve(self.path).handle(scope, receive, send)
