"""Serving one dashboard in the foreground: bind, publish the state file, run, clean up."""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from cargento import __version__
from cargento.board import BoardBuilder
from cargento.cli import Options
from cargento.plugins import load_registry
from cargento.processes import LocalProcesses
from cargento.statedir import remove_stale_temporaries, state_dir
from cargento.timestamps import iso
from starlette.applications import Starlette

from cargento_web.environment import Served
from cargento_web.extensions import ExtensionContext, Extensions, load_extensions
from cargento_web.generatedsource import forget_generated_sources
from cargento_web.probe import bind_socket, is_in_use, probe
from cargento_web.quietserver import QuietServer, quiet_config
from cargento_web.settings import Settings
from cargento_web.statefile import remove_state, write_state
from cargento_web.uvicornparts import Config

__all__ = ["DashboardServer", "busy_message", "connect_demo_events", "make_hub", "serve"]

log = logging.getLogger("cargento_web")


def busy_message(host: str, port: int) -> str:
    """The one line that explains a busy port (never a traceback)."""
    who = probe(port, timeout=1.0)
    if who.kind == "cargento" and who.health:
        return (
            f"cargento: a Cargento dashboard already runs on port {port} (pid {who.health.get('pid')}, "
            f"{who.health.get('url')}); stop it with `cargento --port {port} --stop` or pick another --port"
        )
    return (
        f"cargento: port {port} on {host} is already in use by another process; "
        f"check with `cargento --port {port} --status` before stopping anything, or pick another --port"
    )


class DashboardServer(QuietServer):
    """uvicorn's server, ending the live streams first so a shutdown does not wait on them."""

    def __init__(self, config: Config, app: Starlette) -> None:
        super().__init__(config)
        self.dashboard = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await self.dashboard.state.live.close()
        await super().shutdown(sockets=sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """SIGINT/SIGTERM stop the server cleanly (state file removed, exit 0) instead of
        uvicorn's re-raising the signal once it has shut down, which would skip the clean-up."""
        super().handle_exit(sig, frame)
        self._captured_signals.clear()


def make_hub(options: Options, builder: BoardBuilder, settings: Settings) -> object | None:
    """The event hub of :mod:`cargento_web.ingress` when that module provides one.

    The seam: ``ingress.create_hub(builder=, settings=, options=)`` returns an object with
    ``overlays(now)``, ``capability`` and ``routes(guard)``; under ``--no-events`` it
    publishes no capability and no routes, and still reads boards for notifications.
    """
    try:
        from cargento_web import ingress
    except ImportError:
        return None
    factory: Any = getattr(ingress, "create_hub", None)
    if factory is None:
        return None
    hub: object | None = factory(builder=builder, settings=settings, options=options)
    return hub


def connect_demo_events(served: Served, hub: object | None) -> bool:
    """Feed the demo's scripted hook bodies to *hub* through ``ingest``, the path a real
    hook's ``POST /api/events/<harness>`` takes; ``False`` when there is nothing to connect
    (not a demo, or no hub)."""
    ingest: Any = getattr(hub, "ingest", None)
    if served.forward_events is None or not callable(ingest):
        return False
    served.forward_events(lambda harness, body: ingest(harness, body))
    return True


def build_app(options: Options, served: Served, settings: Settings) -> tuple[Starlette, object | None]:
    from cargento_web.app import create_app

    registry = load_registry(env=served.env)
    as_of = options.as_of
    clock = (lambda: as_of) if as_of is not None else None
    # Nothing running now says anything about the demo's simulated stores or a replay's
    # moment: their process table answers pids but is not listed for liveness.
    processes = LocalProcesses(listing=not options.demo and as_of is None)
    builder = BoardBuilder(
        registry,
        env=served.env,
        home=served.home,
        window_hours=options.window_hours,
        clock=clock,
        processes=processes,
    )
    hub = make_hub(options, builder, settings)
    connect_demo_events(served, hub)
    extensions = Extensions()
    latest: list[Callable[[], Any]] = []
    context = ExtensionContext(
        options=options,
        settings=settings,
        builder=builder,
        hub=hub,
        # The demo's stores live in its own temporary home: it never writes the user's.
        state_dir=served.home / ".cargento" if options.demo else state_dir(),
        env=served.env,
        changed=extensions.changed,
        latest_board=lambda: latest[0]() if latest else None,
        demo=options.demo,
        board_changes=extensions.changes.see,
    )
    extensions.items = tuple(load_extensions(context))
    app = create_app(builder=builder, settings=settings, hub=hub, extensions=extensions)
    # Every feature's classes are made: the source attrs filed of their generated methods is
    # kept by nothing the server shows (see cargento_web.generatedsource).
    forget_generated_sources()
    latest.append(app.state.live.latest)
    return app, hub


def serve(options: Options, served: Served, *, log_path: str | None = None, port: int | None = None) -> int:
    """Serve until stopped (``/api/shutdown``, SIGINT, SIGTERM); 0 on a clean stop."""
    host = options.host
    wanted = options.port if port is None else port
    # A writer killed mid-write (kill -9) leaves its temporary file; its pid is in the name.
    for leftover in remove_stale_temporaries(state_dir()):
        log.info("removed %s, left by a writer that is gone", leftover)
    try:
        sock = bind_socket(host, wanted)
    except OSError as exc:
        if is_in_use(exc):
            print(busy_message(host, wanted), file=sys.stderr)
        else:
            print(f"cargento: cannot listen on {host}:{wanted}: {exc.strerror or exc}", file=sys.stderr)
        served.close()
        return 1
    bound = sock.getsockname()[1]
    settings = Settings(
        host=host,
        port=bound,
        pid=os.getpid(),
        started_at=datetime.now(UTC),
        version=__version__,
        all_sessions=options.all,
        as_of=options.as_of is not None,
        log=log_path,
    )
    app, hub = build_app(options, served, settings)
    config = quiet_config(
        app,
        log_level="info" if options.verbose else "warning",
        access_log=options.verbose,
        timeout_graceful_shutdown=3,
        lifespan="on",
        server_header=False,
    )
    server = DashboardServer(config, app)
    app.state.request_shutdown = lambda: setattr(server, "should_exit", True)
    capability = getattr(hub, "capability", None) if hub is not None else None
    write_state(
        bound,
        {
            "pid": settings.pid,
            "port": bound,
            "host": host,
            "started_at": iso(settings.started_at),
            "url": settings.url,
            "log": log_path,
            "version": __version__,
            "capability": capability,
        },
    )
    if host == "0.0.0.0":
        print(
            f"cargento: listening on every interface (--host 0.0.0.0): anything that reaches port {bound} "
            "reads every session's titles, prompts and paths",
            file=sys.stderr,
        )
    print(f"Cargento dashboard: {settings.url} (pid {settings.pid})", flush=True)
    if options.open_browser:
        import webbrowser  # only with --open

        threading.Timer(0.5, lambda: webbrowser.open(settings.url)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        remove_state(bound, pid=settings.pid)
        served.close()
    return 0
