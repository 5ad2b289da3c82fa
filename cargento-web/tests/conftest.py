"""Shared fixtures: fake-harness registries, an in-process ASGI client, a real uvicorn server."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from cargento.board import BoardBuilder
from cargento.cli import Options
from cargento.plugins import Registry, load_registry
from cargento.processes import StaticProcesses
from cargento_web.app import create_app
from cargento_web.extensions import ExtensionContext, Extensions, load_extensions
from cargento_web.probe import bind_socket
from cargento_web.settings import Settings
from starlette.applications import Starlette

pytest_plugins = ["cargento.testing.fixtures"]


def make_builder(
    plugins: list[tuple[str, object]], home: Path, *, env: dict[str, str] | None = None, **kw: Any
) -> BoardBuilder:
    """A board builder over exactly *plugins* (no entry points) and a fake *home*."""
    registry: Registry = load_registry(entry_points=False, extra=plugins)
    base = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    base.update(env or {})
    return BoardBuilder(registry, env=base, home=home, processes=StaticProcesses(), **kw)


class Client:
    """Synchronous calls into an ASGI app through httpx's ASGI transport (no network)."""

    def __init__(
        self, app: Starlette, *, host: str = "127.0.0.1:4553", client: tuple[str, int] = ("127.0.0.1", 50000)
    ) -> None:
        self.app = app
        self.host = host
        self.client = client

    def request(
        self, method: str, path: str, *, headers: dict[str, str] | None = None, content: bytes | None = None
    ) -> httpx.Response:
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app, client=self.client)
            async with httpx.AsyncClient(transport=transport, base_url=f"http://{self.host}") as c:
                return await c.request(method, path, headers=headers, content=content)

        return asyncio.run(go())

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)


@pytest.fixture
def make_client() -> Callable[..., Client]:
    return Client


class LiveServer:
    """A real uvicorn serving *app* on a free loopback port, in a background thread."""

    def __init__(self, app: Starlette, sock: Any) -> None:
        self.app = app
        self.extensions: Extensions | None = None
        self.port: int = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
        )
        app.state.request_shutdown = lambda: setattr(self.server, "should_exit", True)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        assert self.server.started, "uvicorn did not start"

    def stop(self) -> None:
        if self.thread.is_alive():
            loop_live = self.app.state.live
            self.server.should_exit = True
            self.thread.join(10)
            assert not self.thread.is_alive(), f"server did not stop ({loop_live})"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Start a real server over a builder: ``serve(builder, **settings)``; stopped afterwards.

    ``features=["cargento_web.<feature>", ...]`` also starts those operator features (see
    :mod:`cargento_web.extensions`) with ``options`` (default: no flags) and their stores under
    ``state_dir`` (default: a fresh folder under the test's tmp_path); ``server.extensions``
    holds them.
    """
    servers: list[LiveServer] = []

    def start(
        builder: BoardBuilder,
        *,
        hub: object | None = None,
        features: tuple[str, ...] | list[str] = (),
        options: Options | None = None,
        state_dir: Path | None = None,
        demo: bool = False,
        **settings: Any,
    ) -> LiveServer:
        sock = bind_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        values: dict[str, Any] = {"port": port, "heartbeat_s": 0.5, "rescan_s": 0.5, "debounce_s": 0.05}
        values.update(settings)
        served_settings = Settings(**values)
        extensions = Extensions()
        app_holder: list[Starlette] = []
        if features:
            folder = state_dir or tmp_path / f"cargento-home-{len(servers)}"
            context = ExtensionContext(
                options=options or Options(),
                settings=served_settings,
                builder=builder,
                hub=hub,
                state_dir=folder,
                env=builder.env,
                changed=extensions.changed,
                latest_board=lambda: app_holder[0].state.live.latest() if app_holder else None,
                demo=demo,
                board_changes=extensions.changes.see,
            )
            extensions.items = tuple(load_extensions(context, features))
        app = create_app(builder=builder, settings=served_settings, hub=hub, extensions=extensions)
        app_holder.append(app)
        server = LiveServer(app, sock)
        server.extensions = extensions
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def builder_for() -> Callable[..., BoardBuilder]:
    """``builder_for(plugins, home, env=..., clock=...)``: see :func:`make_builder`."""
    return make_builder
