"""The project cockpit's server part: Spacedock stage strips, workflow stage conditions and
their ``POST /api/tripwire``, the semantic work history, and what the Console says about how
the server was started."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cargento.board import Board
from cargento.diagnose import OwnStore
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.cockpit.semantic import SemanticHistory
from cargento_web.cockpit.spacedock import Workflow, WorkflowReader
from cargento_web.cockpit.started import started_flags
from cargento_web.cockpit.tripwires import Rule, Tripwires, TripwireStore
from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.outbound import OutboundJSON

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["TRIPWIRE_BODY_LIMIT", "Cockpit"]

log = logging.getLogger("cargento_web")

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
        moved = self.semantic.observe(board) or moved
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
            import json

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

        return [Route("/api/tripwire", tripwire, methods=["POST"])]

    # -- the document and the page ------------------------------------------------------------

    def document(self) -> Mapping[str, Any]:
        options = self.context.options
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
        del options
        return {"cockpit": {"spacedock": spacedock, "tripwires": tripwires, "semantic": self.semantic.document()}}

    def page_config(self) -> Mapping[str, Any]:
        options = self.context.options
        return {
            "started": started_flags(options),
            "spacedock": not options.no_spacedock,
            "tripwires": not options.no_tripwires,
            "observer_model": options.observer_model,
            "terminal": {
                "offered": bool(options.interaction_origin_session and options.interaction_origin_registration_file),
                "session": options.interaction_origin_session,
            },
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
