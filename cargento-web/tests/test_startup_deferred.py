"""What a server's first ``/api/data`` answer does not wait for (issue 24, footprint and speed).

The modules behind a feature's own routes, a reading's prompt and CLI runner, the unasked lane,
the OTLP decoders, the read-only terminal, the store watcher and the stream, the metrics'
samples, the vendor login reader, the git probe, a reach nudge's wording and the daemon's
controls are imported when first used, not at start: a real start over a store with sessions,
the OTLP receiver listening, has answered its first board without them, and once its routes are
asked they answer (the route tests of each feature go through the same deferred routes) and
their modules are there. :class:`cargento_web.deferred.DeferredRoutes` is held to its contract
here too.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import BoardBuilder
from cargento.cli import Options
from cargento_harness_claude.fixtures import ClaudeStore
from cargento_web.annotations.extension import AnnotationsExtension
from cargento_web.app import Guard
from cargento_web.deferred import DeferredRoutes
from cargento_web.extensions import FEATURES, Extension, ExtensionContext, Extensions
from cargento_web.observer import Observer
from cargento_web.settings import Settings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

#: Each is imported only by what needs it: a request to its routes, a reading, an export or a
#: telemetry file line, a run with the read-only terminal, a page holding the stream, a scrape,
#: a vendor poll, a session's end, a nudge, ``--unasked-readings``, ``--daemon``/``--status``/
#: ``--stop``.
DEFERRED = (
    "cargento_web.annotations.routes",
    "cargento_web.annotations.intent",
    "cargento_web.annotations.requests",
    "cargento_web.observer.routes",
    "cargento_web.observer.summary_routes",
    "cargento_web.observer.prompt",
    "cargento_web.observer.runner",
    "cargento_web.observer.unasked",
    "cargento_web.telemetry.otlp",
    "cargento_web.cockpit.terminal",
    "cargento_web.runtime.inotify",
    "cargento_web.stream",
    "cargento_web.metrics.readings",
    "cargento_web.capacity.credentials",
    "cargento_web.endings.git",
    "cargento_web.reach.nudge",
    "cargento_web.lifecycle",
)

#: What the requests the test makes after the first answer import (the annotations' and the
#: observer's routes, one OTLP export, one scrape).
ASKED = (
    "cargento_web.annotations.routes",
    "cargento_web.annotations.intent",
    "cargento_web.annotations.requests",
    "cargento_web.observer.routes",
    "cargento_web.observer.summary_routes",
    "cargento_web.telemetry.otlp",
    "cargento_web.metrics.readings",
)

_SERVE = """
import http.client, json, os, signal, sys, threading, time

PORT, OTLP, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]

def ask(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    return r.status, r.read()

def run():
    while True:
        try:
            status, body = ask(PORT, "GET", "/api/data")
            if status == 200:
                break
        except OSError:
            time.sleep(0.02)
    first = sorted(sys.modules)
    answers = {
        "sessions": len(json.loads(body)["sessions"]),
        "annotations": ask(PORT, "GET", "/api/annotations")[0],
        "reading_get": ask(PORT, "GET", "/api/reading")[0],
        "otlp": ask(OTLP, "POST", "/v1/metrics", b"{}", {"Content-Type": "application/json"})[0],
        "metrics": ask(PORT, "GET", "/metrics")[0],
    }
    with open(OUT, "w") as out:
        json.dump({"first": first, "answers": answers, "after": sorted(sys.modules)}, out)
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=run, daemon=True).start()
from cargento.cli import main
sys.exit(main(["--port", str(PORT), "--otlp-port", str(OTLP)]))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_a_real_first_answer_imports_none_of_the_deferred_modules_and_asking_imports_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    now = datetime.now(UTC)
    for i in range(3):
        session = ClaudeStore(home).session(cwd=str(tmp_path / f"repo{i}"))
        session.prompt(f"Refactor module {i}", at=now - timedelta(minutes=3))
        session.respond(now - timedelta(minutes=2), text="Looking.", tools=[("Bash", {"command": "pytest -q"})])
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "DBUS_"))},
        "HOME": str(home),
        "CARGENTO_HOME": str(tmp_path / "state"),
    }
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _SERVE, str(_free_port()), str(_free_port()), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), done.stderr[-4000:]
    found = json.loads(out.read_text())
    first, after = set(found["first"]), set(found["after"])
    assert {"uvicorn.server", "cargento_web.app", *FEATURES} <= first
    assert found["answers"]["sessions"] == 3, "the first document is a real board"
    assert not first & set(DEFERRED), sorted(first & set(DEFERRED))
    # Asked, the routes answer as their own modules do, and those modules are now loaded.
    assert found["answers"]["annotations"] == 200
    assert found["answers"]["reading_get"] == 405, "the guard's refusal of a GET, from the route's own handler"
    assert found["answers"]["otlp"] == 200, "an empty JSON export is answered, not refused"
    assert found["answers"]["metrics"] == 200
    assert set(ASKED) <= after, sorted(set(ASKED) - after)


def _context(builder: BoardBuilder, tmp_path: Path) -> ExtensionContext:
    extensions = Extensions()
    return ExtensionContext(
        options=Options(),
        settings=Settings(port=4553),
        builder=builder,
        hub=None,
        state_dir=tmp_path / "state",
        env=builder.env,
        changed=extensions.changed,
        latest_board=lambda: None,
    )


def _shape(routes: Sequence[BaseRoute]) -> list[tuple[str, frozenset[str]]]:
    out: list[tuple[str, frozenset[str]]] = []
    for route in routes:
        assert isinstance(route, Route)
        out.append((route.path, frozenset(route.methods or ())))
    return out


@pytest.mark.parametrize("feature", [AnnotationsExtension, Observer])
def test_a_feature_declares_exactly_the_routes_its_builder_makes(
    feature: type[Extension], builder_for: Callable[..., BoardBuilder], tmp_path: Path
) -> None:
    """The declared paths and methods (what the router sees at start) are the built routes'
    own, in the same order: a route added to a builder and not to its declaration fails here."""
    extension = feature(_context(builder_for([], tmp_path / "home"), tmp_path))  # type: ignore[call-arg]
    guard = Guard(Settings(port=4553))
    made = getattr(extension, "made_routes")  # noqa: B009 - the features' own builder
    try:
        assert _shape(extension.routes(guard)) == _shape(made(guard))
    finally:
        extension.close()


def _counted(calls: list[int]) -> DeferredRoutes:
    async def hello(request: Request) -> Response:
        return PlainTextResponse(f"hello {request.path_params.get('name', '')}", headers={"X-Made": "later"})

    def other(request: Request) -> Response:  # a plain function, as Starlette allows
        return PlainTextResponse("other", status_code=201)

    def build() -> list[BaseRoute]:
        calls.append(1)
        return [Route("/hello/{name}", hello, methods=["GET"]), Route("/other", other, methods=["POST"])]

    return DeferredRoutes("greetings", build)


def test_deferred_routes_are_built_once_on_the_first_request_and_answer_as_built(
    make_client: Callable[..., Any],
) -> None:
    calls: list[int] = []
    later = _counted(calls)
    app = Starlette(routes=[later.route("/hello/{name}", ["GET"]), later.route("/other", ["POST"])])
    client = make_client(app)
    assert not later.built and calls == [], "nothing is built at start"
    first = client.get("/hello/you")
    assert (first.status_code, first.text, first.headers["x-made"]) == (200, "hello you", "later")
    assert client.post("/other").status_code == 201
    assert client.request("HEAD", "/hello/you").status_code == 200, "GET brings HEAD, as on any route"
    assert later.built and calls == [1], "built once, for every route it declared"


def test_a_method_outside_the_declared_ones_is_refused_by_the_router_without_building(
    make_client: Callable[..., Any],
) -> None:
    calls: list[int] = []
    later = _counted(calls)
    app = Starlette(routes=[later.route("/other", ["POST"])])
    refused = make_client(app).get("/other")
    assert refused.status_code == 405 and refused.headers["allow"] == "POST"
    assert calls == []


def test_a_declared_route_its_builder_does_not_make_is_an_error_on_first_use(
    make_client: Callable[..., Any],
) -> None:
    later = _counted([])
    app = Starlette(routes=[later.route("/missing", ["GET"])])
    with pytest.raises(LookupError, match="/missing"):
        make_client(app).get("/missing")


def test_a_builder_that_fails_is_logged_once_and_its_routes_answer_503_saying_why(
    make_client: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    # A feature whose routes cannot be made (its module does not import: a broken install)
    # answers what it is, in JSON, redacted, on every request, without trying again; the
    # dashboard's other routes answer as before.
    calls: list[int] = []

    def build() -> list[BaseRoute]:
        calls.append(1)
        raise ImportError("no module named 'greetings_routes' (token ghp_" + "a" * 36 + ")")

    later = DeferredRoutes("greetings", build)
    app = Starlette(
        routes=[
            later.route("/hello/{name}", ["GET"]),
            later.route("/other", ["POST"]),
            Route("/fine", lambda request: PlainTextResponse("fine")),
        ]
    )
    client = make_client(app)
    with caplog.at_level("ERROR", logger="cargento_web"):
        first = client.get("/hello/you")
        second = client.post("/other")
    for answer in (first, second):
        assert answer.status_code == 503
        assert answer.headers["content-type"] == "application/json"
        assert answer.headers["cache-control"] == "no-store"
        error = answer.json()["error"]
        assert error.startswith("the greetings feature is unavailable in this run: its routes failed to build")
        assert "ImportError: no module named 'greetings_routes'" in error
        assert "ghp_" + "a" * 36 not in error, "the reason is redacted like every answer"
    assert calls == [1], "the builder is not tried again"
    assert not later.built and later.failed is not None
    logged = [r for r in caplog.records if "greetings feature's routes failed to build" in r.getMessage()]
    assert len(logged) == 1
    # With the traceback: as the exception, or already formatted by the log redaction filter a
    # server installs on this logger (it turns exc_info into redacted exc_text).
    record = logged[0]
    assert record.exc_info is not None or "ImportError" in (record.exc_text or "")
    assert client.get("/fine").text == "fine"
