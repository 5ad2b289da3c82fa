"""Redaction is one step every outbound path goes through.

Credential-shaped values are planted in every text field a hook payload can carry (a question,
a notification message, a session end's reason, a shell command), then every route the app
serves is asked, the stream is read, the server's own stores are read off disk, the
notifications it raised are inspected and a log line is written: none may carry a planted
value. The route list comes from the app itself, so a route added later is swept too, or the
test names it.
"""

from __future__ import annotations

import ast
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import cargento_web
import httpx
import pytest
from cargento.statedir import CAPABILITY_HEADER
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier
from starlette.routing import Mount, Route

ANTHROPIC = "sk-ant-api03-" + "Q7x9" * 10
GITHUB = "ghp_" + "a1B2c3D4" * 5
PG = "hunter2-pg-secret"
CLI_PASSWORD = "Tr0ub4dor-and-3"
URL_PASSWORD = "s3cr3t-in-the-url"
SECRETS = (ANTHROPIC, GITHUB, PG, CLI_PASSWORD, URL_PASSWORD)
#: Routes that change state: they are exercised by POSTing below, and their answers checked.
POSTED = {"/api/events/{harness}", "/api/notify", "/api/shutdown", "/api/tab-lane", "/api/presence"}
#: Query parameters a swept GET route needs.
PARAMS = {"/api/session-record": {"harness": "claude", "sid": "s1"}}
#: Responses built without OutboundJSON, and why they need no redaction step of their own.
RAW_RESPONSES = {
    ("app.py", "index"): "the page shell, rendered once from settings, no session text",
    ("app.py", "data"): "the board document, built by DocumentRenderer through redact_tree (as document() is)",
    ("app.py", "stream"): "the event stream carries revision numbers and timestamps only",
    ("security.py", "_refuse"): "a fixed refusal sentence",
    (
        "__init__.py",
        "metrics",
    ): "the Prometheus text format: bounded labels (harness, state, project, window, outcome) and numbers",
    ("receiver.py", "_reply"): "an empty OTLP export response, or a fixed refusal sentence, to an exporter",
    ("extension.py", "page"): "the cockpit's read-only terminal page shell, a fixed document with no session text",
}


def _now() -> datetime:
    return datetime.now(UTC)


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def test_every_route_stream_store_notification_and_log_line_is_redacted(
    serve: Any, builder_for: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = MemoryNotifier()
    # Every planted gate raises at once (confirm 0), so the deliveries store holds its text too.
    hub = EventHub(
        clock=_now, state_dir=tmp_path / "state", notifier=notifier, capability="x" * 32, confirm=timedelta(0)
    )
    fake = FakeHarness(
        "claude", [FakeSession("s1", age_s=5, title=f"deploy with {GITHUB}"), FakeSession("s2", age_s=5)]
    )
    server = serve(builder_for([("claude", fake)], tmp_path), hub=hub)
    headers = {"Content-Type": "application/json", CAPABILITY_HEADER: "x" * 32}
    answers: list[str] = []
    planted = [
        ("/api/events/claude", {"session_id": "s1", "hook_event_name": "UserPromptSubmit"}),
        (
            "/api/events/claude",
            {
                "session_id": "s1",
                "hook_event_name": "PermissionRequest",
                "tool_name": "AskUserQuestion",
                "tool_input": {"questions": [{"question": f"Use the key {ANTHROPIC} for the deploy?"}]},
            },
        ),
        (
            "/api/events/claude",
            {
                "session_id": "s1",
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {
                    "command": f"PGPASSWORD={PG} psql -c 'drop table users' && git push --force origin {GITHUB}"
                },
            },
        ),
        (
            "/api/notify",
            {
                "session_id": "s2",
                "hook_event_name": "Notification",
                "notification_type": "permission_prompt",
                "message": f"Claude needs your permission to use {ANTHROPIC}",
            },
        ),
        ("/api/events/claude", {"session_id": "s2", "hook_event_name": "SessionEnd", "reason": ANTHROPIC}),
    ]
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as client:
        for path, body in planted:
            response = client.post(path, content=json.dumps(body).encode())
            assert response.status_code == 202, response.text
            answers.append(response.text)
    assert hub.alerts.drain() and hub.flush()

    swept: dict[str, str] = {}
    app = server.app
    for route in app.routes:
        if isinstance(route, Mount):
            continue  # the static files: shipped assets, no session text
        assert isinstance(route, Route)
        if route.path in POSTED:
            continue
        assert route.path in PARAMS or "{" not in route.path, (
            f"{route.path}: add the parameters this route needs to PARAMS"
        )
        if route.path == "/api/stream":
            with httpx.stream("GET", server.url + route.path, timeout=10) as stream:
                swept[route.path] = next(stream.iter_text())
            continue
        response = httpx.get(server.url + route.path, params=PARAMS.get(route.path), timeout=10)
        assert response.status_code == 200, (route.path, response.text)
        swept[route.path] = response.text
    assert {"/", "/api/data", "/api/overlays", "/api/session-record", "/api/health", "/api/stream"} <= set(swept)
    # The planted values really reached the server's answers, redacted.
    assert "…REDACTED" in swept["/api/overlays"] and "…REDACTED" in swept["/api/session-record"]
    assert "…REDACTED" in swept["/api/data"]

    stores = {p.name: p.read_text(errors="replace") for p in (tmp_path / "state").iterdir() if p.is_file()}
    assert {"cargento-ends.json", "cargento-deliveries.json"} <= set(stores)
    raised = [f"{title}\n{body}" for title, body in notifier.sent]
    assert raised, "the question raised a notification"

    with caplog.at_level(logging.INFO, logger="cargento_web"):
        logging.getLogger("cargento_web").warning("a hook sent %s", ANTHROPIC)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "…REDACTED" in logged

    for where, text in [
        *swept.items(),
        *stores.items(),
        *(("answer", a) for a in answers),
        *(("notification", n) for n in raised),
        ("log", logged),
    ]:
        assert not leaks(text), f"{where} carries {leaks(text)}"
    hub.close()


def test_every_response_the_app_builds_goes_through_the_outbound_step() -> None:
    """Structural guard: a route added later cannot answer with a plain JSONResponse or a
    hand-made JSON body; any other raw response must be listed with its reason."""
    package = Path(cargento_web.__file__).parent
    found: set[tuple[str, str]] = set()

    class Calls(ast.NodeVisitor):
        """Each ``*Response(...)`` call, named by its innermost enclosing function."""

        def __init__(self, file: str) -> None:
            self.file = file
            self.stack: list[str] = []

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, node: ast.Call) -> None:
            if isinstance(node.func, ast.Name) and node.func.id.endswith("Response"):
                assert node.func.id != "JSONResponse", (
                    f"{self.file}:{node.lineno} answers with JSONResponse; use OutboundJSON"
                )
                found.add((self.file, self.stack[-1] if self.stack else "<module>"))
            self.generic_visit(node)

    for path in sorted(package.rglob("*.py")):
        Calls(path.name).visit(ast.parse(path.read_text()))
    assert found == set(RAW_RESPONSES), f"raw responses changed: {sorted(found ^ set(RAW_RESPONSES))}"
