"""Routes whose handlers are made on their first request, so a start does not import them.

A server's first ``/api/data`` answer waits on every module imported at start; the modules
behind a feature's own routes (``POST /api/annotate``, ``POST /api/reading``...) are needed only
once someone calls one. :class:`DeferredRoutes` lets a feature name its routes (path and
methods) at start and build them, importing their module, on the first request to any of them:

    later = DeferredRoutes("annotations", lambda: annotation_routes(guard, store, ...))
    return [later.route("/api/annotate", EVERY_METHOD), later.route("/api/annotations", EVERY_METHOD)]

The router sees a plain :class:`starlette.routing.Route` with the declared path and methods
(a method outside them is refused by the router as before); its endpoint, on the first call,
calls the builder once and hands the request to the built route of the same path, so the answer,
its headers and every check inside the handler are the built route's own. A declared route the
builder does not make is a programming error, said on the first request (and by the tests that
compare each feature's declaration with what its builder makes).

A builder that fails (its module does not import, say: a broken install) fails once: it is
logged with its traceback, naming the feature, and every request to the feature's routes is
answered ``503`` with a JSON ``error`` that says the feature is unavailable in this run and why
(redacted), as a feature that fails at start is left out rather than stopping the dashboard.
The rest of the dashboard answers as before; the builder is not tried again until a restart.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from cargento_web.outbound import OutboundJSON

__all__ = ["DeferredRoutes"]

log = logging.getLogger("cargento_web")


class DeferredRoutes:
    """Routes of the feature *name* declared now, whose handlers *build* makes on the first
    request to one of them."""

    def __init__(self, name: str, build: Callable[[], Sequence[BaseRoute]]) -> None:
        self.name = name
        self._build = build
        self._built: dict[str, Route] | None = None
        #: Why the builder failed, once it did (the answer every later request gets).
        self._failed: str | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        """Whether a request has made the real routes yet."""
        return self._built is not None

    def route(self, path: str, methods: Sequence[str]) -> Route:
        """The route at *path* answering *methods*, its handler made when first asked."""
        return Route(path, _Endpoint(self, path), methods=list(methods))

    @property
    def failed(self) -> str | None:
        """Why the builder failed, when it did (``None``: built, or not asked yet)."""
        return self._failed

    def resolve(self, path: str) -> Route | None:
        """The built route at *path* (building every route on the first call); ``None`` once
        the builder failed (:attr:`failed` says why)."""
        with self._lock:
            if self._built is None and self._failed is None:
                try:
                    made = self._make()
                except Exception as exc:
                    self._failed = f"{type(exc).__name__}: {exc}"
                    log.exception("the %s feature's routes failed to build; they answer 503 in this run", self.name)
                else:
                    self._built = made
            built = self._built
        if built is None:
            return None
        found = built.get(path)
        if found is None:
            raise LookupError(f"the deferred builder made no route at {path}")
        return found

    def _make(self) -> dict[str, Route]:
        made: dict[str, Route] = {}
        for route in self._build():
            if not isinstance(route, Route):
                raise TypeError(f"a deferred builder made {route!r}, not a Route")
            made[route.path] = route
        return made


class _Endpoint:
    """The ASGI endpoint of one declared route: the built route's own app, once made."""

    def __init__(self, routes: DeferredRoutes, path: str) -> None:
        self.routes = routes
        self.path = path
        #: Named as the built handlers are not yet; the route's name is its path.
        self.__name__ = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = self.routes.resolve(self.path)
        if route is not None:
            await route.handle(scope, receive, send)
            return
        error = f"the {self.routes.name} feature is unavailable in this run: its routes failed to build ({self.routes.failed})"
        await OutboundJSON({"error": error}, status_code=503, headers={"Cache-Control": "no-store"})(
            scope, receive, send
        )
