"""The project cockpit's server part: Spacedock stage strips, workflow stage conditions and
their ``POST /api/tripwire``, the semantic work history, and what the Console says about how
the server was started."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cargento.board import Board
from cargento.ownstore import OwnStore
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.cockpit.semantic import SemanticHistory
from cargento_web.cockpit.spacedock import Workflow, WorkflowReader
from cargento_web.cockpit.started import started_flags
from cargento_web.cockpit.tripwires import Rule, Tripwires, TripwireStore
from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.outbound import OutboundJSON
from cargento_web.workerthreads import run_in_worker

if TYPE_CHECKING:
    from cargento_web.app import Guard
    from cargento_web.cockpit.terminal import Terminal

__all__ = ["TRIPWIRE_BODY_LIMIT", "Cockpit"]

log = logging.getLogger("cargento_web")

#: The read-only terminal page: its own policy, because xterm writes <style> elements (inline
#: styles are allowed here and nowhere else); only the dashboard itself may frame it.
TERMINAL_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
TERMINAL_PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Read-only terminal</title>'
    '<link rel="stylesheet" href="/static/vendor/xterm.css"><link rel="stylesheet" href="/static/terminal.css">'
    '<script type="module" src="/static/terminal.js"></script></head>'
    '<body><div id="term" aria-label="Read-only terminal output"></div><p id="term-status" role="status"></p></body></html>'
)
TERMINAL_OFF = (
    "the read-only terminal is off: it needs both --interaction-origin-session and "
    "--interaction-origin-registration-file"
)
TERMINAL_BODY_LIMIT = 4096
#: The stage the demo's seeded condition watches.
DEMO_STAGE = "validation"
#: The most a ``POST /api/tripwire`` body may hold.
TRIPWIRE_BODY_LIMIT = 4096


class Cockpit(Extension):
    name = "cockpit"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        options = context.options
        self.reader = None if options.no_spacedock else WorkflowReader()
        self.tripwires: Tripwires | None = None
        if not options.no_tripwires:
            self.tripwires = Tripwires(
                TripwireStore(context.state_dir), suspended=options.no_spacedock, notify=self._notify
            )
        self.semantic = SemanticHistory(context.state_dir)
        #: A replay adds nothing to the semantic history: it observes no work now.
        self.replay = context.replay
        self.terminal: Terminal | None = None
        if options.interaction_origin_session and options.interaction_origin_registration_file:
            # Only a run started from an interaction origin has the terminal: its module is
            # imported here, not at every start.
            from cargento_web.cockpit.terminal import Terminal

            self.terminal = Terminal(
                options.interaction_origin_session,
                Path(options.interaction_origin_registration_file).expanduser(),
                latest_board=context.latest_board,
            )
        self.workflows: dict[str, Workflow] = {}
        self._published: object = None
        #: ``--demo``: save one stage condition on the first workflow the demo boots.
        self._seed_demo = context.demo

    def _seed(self, workflows: Mapping[str, Workflow]) -> None:
        assert self.tripwires is not None
        for w in workflows.values():
            if w.stages and DEMO_STAGE in w.stages:
                body = {
                    "action": "save",
                    "id": "demo-validation",
                    "workflow": w.dir,
                    "stage": DEMO_STAGE,
                    "expected_revision": self.tripwires.store.revision,
                }
                self.tripwires.change(body, workflows)
                self._seed_demo = False
                return

    # -- the board ----------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        workflows = {w.dir: w for w in self.reader.read(board)} if self.reader is not None else {}
        self.workflows = workflows
        if self._seed_demo and self.tripwires is not None:
            self._seed(workflows)
        moved = self.tripwires.observe(workflows) if self.tripwires is not None else False
        # A row that stood was recorded as it is when it last changed.
        moves = self.context.board_changes(board)
        if not self.replay:
            moved = self.semantic.observe(board, None if moves.full else moves.changed) or moved
        shape = tuple(sorted((d, repr(w.as_json())) for d, w in workflows.items()))
        if moved or shape != self._published:
            self._published = shape
            self.context.changed()

    def _notify(self, rule: Rule, workflow: Workflow, entity: str) -> str:
        """A trip raises like any other raise (the hub records its delivery)."""
        alerts = getattr(self.context.hub, "alerts", None)
        if alerts is None:
            return "no notification lane"
        harness, _, sid = workflow.first_officer.partition(":")
        from datetime import UTC, datetime

        title = f"Workflow {workflow.as_json()['name']}: {entity} entered {rule.stage}"
        body = f"The stage condition saved for {rule.stage} tripped; it stays latched until Rearm."
        decided: str = alerts.gate(harness, sid, title, body, datetime.now(UTC), kind="tripwire")
        return decided

    # -- routes -------------------------------------------------------------------------------

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def tripwire(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            if self.tripwires is None:
                return OutboundJSON(
                    {"error": "workflow stage conditions are off for this run (--no-tripwires)"}, status_code=503
                )
            raw = await guard.read_body(request, TRIPWIRE_BODY_LIMIT)
            try:
                body = json.loads(raw)
            except ValueError:
                return OutboundJSON({"error": "the body is not JSON"}, status_code=400)
            if not isinstance(body, dict):
                return OutboundJSON({"error": "the body is not a JSON object"}, status_code=400)
            change = self.tripwires.change(body, self.workflows)
            if change.status == 200:
                self.tripwires.observe(self.workflows)
                self.context.changed()
            return OutboundJSON(change.body, status_code=change.status)

        async def register(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            if self.terminal is None:
                return OutboundJSON({"error": TERMINAL_OFF}, status_code=404)
            raw = await guard.read_body(request, TERMINAL_BODY_LIMIT)
            try:
                body = json.loads(raw)
            except ValueError:
                return OutboundJSON({"error": "the body is not JSON"}, status_code=400)
            if not isinstance(body, dict):
                return OutboundJSON({"error": "the body is not a JSON object"}, status_code=400)
            from cargento_web.cockpit.terminal import Refused  # imported with the terminal itself

            try:
                made = await run_in_worker(self.terminal.register, body)
            except Refused as e:
                return OutboundJSON({"registered": False, "error": e.reason}, status_code=e.status)
            self.context.changed()
            return OutboundJSON({"registered": True, "pane": made.pane})

        async def output(request: Request) -> Response:
            if self.terminal is None:
                return OutboundJSON({"error": TERMINAL_OFF}, status_code=404)
            return OutboundJSON(await run_in_worker(self.terminal.output))

        async def page(request: Request) -> Response:
            if self.terminal is None:
                return OutboundJSON({"error": TERMINAL_OFF}, status_code=404)
            return Response(
                TERMINAL_PAGE,
                media_type="text/html",
                headers={"Content-Security-Policy": TERMINAL_CSP, "Cache-Control": "no-store"},
            )

        return [
            Route("/api/tripwire", tripwire, methods=["POST"]),
            Route("/api/terminal/register", register, methods=["POST"]),
            Route("/api/terminal", output, methods=["GET"]),
            Route("/terminal", page, methods=["GET"]),
        ]

    # -- the document and the page ------------------------------------------------------------

    def document(self) -> Mapping[str, Any]:
        spacedock: dict[str, Any] = {
            "enabled": self.reader is not None,
            "reason": "--no-spacedock: this run reads no Spacedock workflow definitions"
            if self.reader is None
            else None,
            "workflows": [w.as_json() for w in self.workflows.values()],
        }
        tripwires: dict[str, Any] = (
            self.tripwires.document()
            if self.tripwires is not None
            else {
                "enabled": False,
                "reason": "--no-tripwires: stage conditions are off, and their store is neither read nor written",
                "rules": [],
            }
        )
        terminal = self.terminal.status() if self.terminal is not None else {"offered": False, "reason": TERMINAL_OFF}
        return {
            "cockpit": {
                "spacedock": spacedock,
                "tripwires": tripwires,
                "semantic": self.semantic.document(),
                "terminal": terminal,
            }
        }

    def page_config(self) -> Mapping[str, Any]:
        options = self.context.options
        return {
            "started": started_flags(options),
            "spacedock": not options.no_spacedock,
            "tripwires": not options.no_tripwires,
            "observer_model": options.observer_model,
            "terminal": self.terminal.status()
            if self.terminal is not None
            else {"offered": False, "reason": TERMINAL_OFF},
        }

    def own_stores(self) -> Iterable[OwnStore]:
        stores: list[OwnStore] = []
        if self.tripwires is not None and self.tripwires.store.reset is not None:
            stores.append(self.tripwires.store.reset)
        if self.semantic.reset is not None:
            stores.append(self.semantic.reset)
        return stores

    def close(self) -> None:
        self.semantic.flush()
