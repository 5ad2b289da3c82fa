"""The observer: drift readings on request, departures, and unasked checks (issue 16).

A reading sends a bounded, redacted account of a session (:mod:`.account`, :mod:`.prompt`) and
the words you typed against it (read through the annotation store, :mod:`.annotated`) to a CLI
installed on this machine (:mod:`.providers`, :mod:`.runner`), and records, per line, whether the
work is consistent with it, departs from it, or cannot be told. Permission (:mod:`.consent`), the
rolling budget (:mod:`.budget`), the per-session record (:mod:`.sidecars`) and the unasked lane's
raises (:mod:`.departures`, :mod:`.unasked`) each keep a store under the state folder.
``POST /api/reading`` and its cancel are in :mod:`.routes`. Under ``--observer-model`` the
provider that offers goal summaries proposes a one-line goal from a session's own prompts, with
a permission of its own (:mod:`.summaries`, ``POST /api/summary`` in :mod:`.summary_routes`).
The published share of ``/api/data`` is the ``observer`` key (:meth:`Observer.document`).
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import attrs
from cargento.board import Board, BoardSession
from cargento.models import ReadingProvider
from cargento.ownstore import OwnStore
from cargento.statedir import state_dir as default_state_dir
from starlette.routing import BaseRoute

from cargento_web.deferred import DeferredRoutes
from cargento_web.extensions import Extension, ExtensionContext

from .annotated import AnnotatedIntents
from .budget import BUDGET_FILE, BudgetStore
from .consent import CONSENT_FILE, ConsentStore, forget
from .departures import DEPARTURES_FILE, DeparturesStore
from .harnesses import Declared
from .intents import Intent, IntentSource
from .jsonstore import StoreUnavailable, inspect
from .limits import PROMPT_LIMIT, TIMEOUT_S
from .providers import Route, route_for
from .service import Readings, later_directions
from .sidecars import Sidecars, attempts_made
from .summaries import Summaries, summary_attempts_made

if TYPE_CHECKING:
    from cargento.cli import Options

    from cargento_web.app import Guard

    from .unasked import UnaskedChecks

__all__ = ["Observer", "create", "forget", "own_stores"]

_ROUTE_TTL_S = 15.0
_EVERY_METHOD = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
#: The observer's routes (:mod:`.routes`, :mod:`.summary_routes`), made on the first request.
ROUTES = (
    ("/api/reading", _EVERY_METHOD),
    ("/api/reading/cancel", _EVERY_METHOD),
    ("/api/summary", _EVERY_METHOD),
    ("/api/summary/cancel", _EVERY_METHOD),
)

log = logging.getLogger("cargento_web")


class Observer(Extension):
    name = "observer"

    def __init__(self, context: ExtensionContext, *, intents: IntentSource | None = None) -> None:
        self.context = context
        options = context.options
        self.off = bool(options.no_annotations)
        self.model_off = options.observer_model is False
        folder = context.state_dir
        self.consent = ConsentStore(folder)
        self.budget = BudgetStore(folder)
        self.departures = DeparturesStore(folder)
        self.sidecars = Sidecars(folder)
        self.annotated = intents or AnnotatedIntents(folder, off=self.off)
        self._routes: dict[tuple[str, str], tuple[float, Route]] = {}
        self._lock = threading.Lock()
        #: What the harness plugins declare: reading providers, work records, adoptable prompts.
        self.declared = Declared(context.builder)
        self.readings = Readings(
            intents=self.annotated,
            consent=self.consent,
            budget=self.budget,
            sidecars=self.sidecars,
            env=context.env,
            work=self.declared,
            changed=context.changed,
        )
        self.summaries = Summaries(budget=self.budget, sidecars=self.sidecars, env=context.env, changed=context.changed)
        self.sidecars.load()
        self.recovered = self.sidecars.recover()
        self._seeded = not context.demo
        self._swept: object = None
        self.unasked: UnaskedChecks | None = None
        if options.unasked_readings and not self.model_off and not self.off:
            # The unasked lane runs only under --unasked-readings: its module is imported then.
            from .unasked import UnaskedChecks

            self.unasked = UnaskedChecks(
                intents=self.annotated,
                departures=self.departures,
                consent=self.consent,
                route=self.route,
                env=context.env,
                work=self.declared,
                changed=context.changed,
                alert=self._alert_lane(),
                quiet=self._quiet_hours(),
            )
        on_discard = getattr(self.annotated, "on_discard", None)
        if on_discard is not None:
            on_discard(self._withdraw)

    def _quiet_hours(self) -> Callable[[], bool]:
        """Inside the run's quiet hours (``cargento.quiethours``, when this build has it) no
        unasked check starts; a malformed window was refused by the command line already."""
        try:
            module: Any = importlib.import_module("cargento.quiethours")
            window = module.resolve_window(
                self.context.options.quiet_hours, self.context.env, off=bool(self.context.options.no_quiet_hours)
            )
        except (ImportError, ValueError):
            return lambda: False
        if window is None:
            return lambda: False
        return lambda: bool(window.contains(datetime.now().astimezone()))

    def _alert_lane(self) -> Callable[[str, str, str, str, datetime], str] | None:
        """The hub's alert lane for a raise (``kind`` ``departure``), when a hub runs."""
        alerts = getattr(self.context.hub, "alerts", None)
        gate = getattr(alerts, "gate", None)
        if gate is None:
            return None

        def raise_alert(harness: str, sid: str, title: str, body: str, at: datetime) -> str:
            decided: str = gate(harness, sid, title, body, at, kind="departure")
            return decided

        return raise_alert

    def _deliveries(self, harness: str, sid: str) -> list[dict[str, Any]]:
        found = getattr(self.context.hub, "deliveries_for", None)
        if found is None:
            return []
        return [
            {"raised_at": d.raised_at.isoformat(), "outcome": d.outcome, "detail": d.detail}
            for d in found(harness, sid)
            if d.kind == "departure"
        ]

    # -- what the routes ask --------------------------------------------------------------

    def refusal(self) -> tuple[str, str] | None:
        if self.off:
            return (
                "annotations-off",
                "annotations are off for this run (--no-annotations), so there is nothing to read against",
            )
        if self.model_off:
            return ("model-off", "every model call is refused for this run (--no-observer-model)")
        closed = self.annotated.closed()
        if closed is not None:
            return ("gate-closed", f"the reading gate is closed: {closed}")
        return None

    def summary_refusal(self) -> tuple[str, str] | None:
        """Why goal summaries are not offered for this run, or ``None`` when they are."""
        why = self.refusal()
        if why is not None and why[0] != "gate-closed":
            return why
        if self.context.options.observer_model is not True:
            return (
                "summaries-off",
                "Goal summaries are off for this run: they are offered only when Cargento is started with --observer-model",
            )
        return None

    def summary_route(self, harness: str) -> Route:
        """Which installed provider would summarise a *harness* session (the first that declares
        it offers summaries), or why none can."""
        offering = tuple(p for p in self.declared.providers() if p.summaries)
        found = self._route(("summary", harness), offering)
        if not offering:
            return attrs.evolve(found, reason="No installed harness plugin declares a CLI that offers goal summaries.")
        if found.reason is not None:
            return attrs.evolve(
                found,
                reason=found.reason.replace("No reader is installed", "No provider of goal summaries is installed"),
            )
        return found

    def summary_disclosure(self) -> dict[str, Any] | None:
        found = self.declared.provider(self.declared.summary_provider())
        if found is None:
            return None
        return {
            "provider": found.key,
            "label": found.label,
            "destination": found.destination,
            "command": found.command_line(),
            "reads": "The session's title as its harness published it and your latest prompt, with its time; "
            "never the agent's own statement of intent, its tool output or its work.",
            "limit_bytes": PROMPT_LIMIT,
            "timeout_s": int(TIMEOUT_S),
            "budget": "Each summary is a model request counted against the same twelve a day as the readings.",
        }

    def route(self, harness: str) -> Route:
        """Which installed provider would read a *harness* session, or why none can."""
        return self._route(("reading", harness), self.declared.preference(harness))

    def _route(self, key: tuple[str, str], preference: Sequence[ReadingProvider]) -> Route:
        """The route for ``key`` (what it is for, the harness), looked up on PATH at most once
        every few seconds."""
        now = time.monotonic()
        with self._lock:
            cached = self._routes.get(key)
            if cached is not None and now - cached[0] < _ROUTE_TTL_S:
                return cached[1]
        found = route_for(key[1], self.context.env, preference)
        with self._lock:
            self._routes[key] = (now, found)
        return found

    def session(self, harness: str, sid: str) -> BoardSession | None:
        board = self.context.latest_board()
        if board is None:
            return None
        return next((s for s in board.sessions if s.harness == harness and s.session_id == sid), None)

    def intent(self, harness: str, sid: str) -> Intent | None:
        return self.annotated.intent(harness, sid)

    def adoptable(self, harness: str, sid: str) -> str | None:
        """Under ``--observer-model``, the published latest prompt a goal-less session would adopt
        as its goal, where its harness records your prompts (``prompt_as_goal``) and the prompt's
        source time is available."""
        if self.context.options.observer_model is not True or not self.declared.adopts(harness):
            return None
        session = self.session(harness, sid)
        if session is None or session.instruction is None or session.instruction.at is None:
            return None
        return session.instruction.text

    def adopt(self, harness: str, sid: str) -> Intent | None:
        prompt = self.adoptable(harness, sid)
        adopt = getattr(self.annotated, "adopt", None)
        if prompt is None or adopt is None:
            return None
        found: Intent | None = adopt(harness, sid, prompt)
        return found

    def disclosure(self, harness: str, provider: str) -> dict[str, Any]:
        found = self.declared.provider(provider)
        what = self.declared.describes(harness)
        if what is not None:
            reads = f"Your goal and outcome lines, the session's instructions, tasks, dispatches and gate decisions; {what} only once you allow tool output for this destination."
        else:
            reads = "Your goal and outcome lines, and the session's instructions, dispatches and gate decisions. Cargento can't read work from this harness."
        return {
            "provider": provider,
            "label": found.label if found else None,
            "destination": found.destination if found else None,
            "command": found.command_line() if found else None,
            "reads": reads,
            "limit_bytes": PROMPT_LIMIT,
            "timeout_s": int(TIMEOUT_S),
            "tool_output_allowed": self.consent.tool_output_allowed(provider),
        }

    def _withdraw(self, harness: str, sid: str) -> None:
        """Discard everything withdrew the session's words: the quotations go from every
        departure and reading on record; the fact that a check ran stays, without text."""

        def strip(data: dict[str, Any]) -> None:
            for reading in data.get("readings") or []:
                reading["withdrawn"] = True
                for row in reading.get("rows") or []:
                    row.pop("line", None)
                    row.pop("evidence", None)

        try:
            self.departures.withdraw(harness, sid)
            if self.sidecars.get(harness, sid) is not None:
                self.sidecars.update(harness, sid, strip)
        except StoreUnavailable:
            log.warning("the quotations of a discarded session could not be withdrawn everywhere")
        self.context.changed()

    # -- the extension -------------------------------------------------------------------

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        later = DeferredRoutes(self.name, lambda: self.made_routes(guard))
        return [later.route(path, methods) for path, methods in ROUTES]

    def made_routes(self, guard: Guard) -> list[BaseRoute]:
        """The routes themselves, their modules imported on the first request, not at start."""
        from .routes import reading_routes
        from .summary_routes import summary_routes

        return [*reading_routes(self, guard), *summary_routes(self, guard)]

    def _sweep_discards(self) -> None:
        """A discard made through any writer of the annotation store (the annotations
        feature's own instance, another process) withdraws the quotations here too."""
        store = getattr(self.annotated, "store", None)
        if store is None:
            return
        signature = store.view()
        if signature is self._swept:
            return
        self._swept = signature
        for (harness, sid), record in self.sidecars.every().items():
            readings = record.get("readings") or []
            pending = readings and not all(r.get("withdrawn") for r in readings)
            if pending and type(store.get(harness, sid)).__name__ == "Discard":
                self._withdraw(harness, sid)
        for row in self.departures.read()["raises"]:
            if not row.get("withdrawn") and type(store.get(row.get("harness"), row.get("sid"))).__name__ == "Discard":
                self._withdraw(str(row.get("harness")), str(row.get("sid")))

    def on_board(self, board: Board) -> None:
        try:
            self._sweep_discards()
        except StoreUnavailable:
            log.warning("the departures store could not be read to withdraw a discarded session's raises")
        if not self._seeded:
            from .demo import seed

            self._seeded = seed(self, board)
        if self.unasked is not None:
            self.unasked.on_board(board)

    def document(self) -> Mapping[str, Any]:
        if self.off:
            off = self.refusal()
            return {"observer": {"on": False, "reason": off[1] if off else None, "reason_key": off[0] if off else None}}
        board = self.context.latest_board()
        sessions: dict[str, dict[str, Any]] = {}
        harnesses = sorted({s.harness for s in board.sessions}) if board else []
        try:
            unasked = self.departures.read()
        except StoreUnavailable:
            unasked = {"raises": [], "checks": []}
        intents = {(i.harness, i.sid): i for i in self.annotated.every()}
        keys = set(self.sidecars.every()) | {
            (r.get("harness"), r.get("sid")) for r in unasked["raises"] + unasked["checks"]
        }
        keys |= {(f.harness, f.sid) for f in self.readings.flights() + self.summaries.flights()}
        keys |= set(intents)
        for harness, sid in keys:
            if not isinstance(harness, str) or not isinstance(sid, str):
                continue
            record = self.sidecars.get(harness, sid) or {}
            flight = self.readings.flight(harness, sid)
            intent = intents.get((harness, sid))
            session = self.session(harness, sid)
            readings = list(record.get("readings") or [])
            raises = [r for r in unasked["raises"] if r.get("harness") == harness and r.get("sid") == sid]
            if raises:
                deliveries = self._deliveries(harness, sid)
                raises = [dict(r, delivery=_delivery_of(r, deliveries)) for r in raises]
            checks = [c for c in unasked["checks"] if c.get("harness") == harness and c.get("sid") == sid]
            departure = _departure(readings, raises)
            summary_flight = self.summaries.flight(harness, sid)
            summaries = list(record.get("summaries") or [])
            sessions[f"{harness}/{sid}"] = {
                "harness": harness,
                "sid": sid,
                "revision": intent.revision if intent else None,
                "goal_source": intent.goal_source if intent else None,
                "readings": readings,
                "attempts": list(record.get("attempts") or [])[-6:],
                "attempt_count": attempts_made(record),
                "flight": flight.as_dict() if flight else None,
                "asked": [dict(r, kind="asked") for r in readings if r.get("departed")],
                "unasked": raises,
                "checks": len(checks),
                "last_check": checks[-1] if checks else None,
                "conflict": later_directions(session, intent) if intent else [],
                "departed": departure is not None,
                "departed_at": departure["at"] if departure else None,
                "departed_revision": departure["revision"] if departure else None,
                "summary": summaries[-1] if summaries else None,
                "summary_attempts": list(record.get("summary_attempts") or [])[-3:],
                "summary_attempt_count": summary_attempts_made(record),
                "summary_flight": summary_flight.as_dict() if summary_flight else None,
            }
        try:
            budget = self.budget.status()
        except StoreUnavailable:
            budget = None
        try:
            consent: dict[str, Any] | None = self.consent.as_dict(self.declared.summary_provider())
        except StoreUnavailable:
            consent = None
        why = self.refusal()
        return {
            "observer": {
                "summaries": self._summaries_share(harnesses, consent),
                "on": why is None,
                "reason": why[1] if why else None,
                "reason_key": why[0] if why else None,
                "routes": {h: self.route(h).as_dict() for h in harnesses},
                "disclosures": {
                    h: self.disclosure(h, r.provider) for h in harnesses if (r := self.route(h)).provider is not None
                },
                "sessions": sessions,
                "budget": budget,
                "consent": consent,
                "unasked": {
                    "on": self.unasked is not None,
                    "limits": self.unasked.limits() if self.unasked else None,
                    "ever": bool(unasked["raises"] or unasked["checks"]),
                },
            }
        }

    def _summaries_share(self, harnesses: list[str], consent: dict[str, Any] | None) -> dict[str, Any]:
        """Whether goal summaries are offered, by which provider per harness, and whether they
        are allowed (their own permission, never a reading's)."""
        why = self.summary_refusal()
        return {
            "offered": why is None,
            "reason": why[1] if why else None,
            "reason_key": why[0] if why else None,
            "routes": {h: self.summary_route(h).as_dict() for h in harnesses} if why is None else {},
            "disclosure": self.summary_disclosure() if why is None else None,
            "allowed": consent["summaries"] if consent is not None else None,
        }

    def page_config(self) -> Mapping[str, Any]:
        why = self.refusal()
        return {
            "on": why is None,
            "reason": why[1] if why else None,
            "annotations": not self.off,
            "model_off": self.model_off,
            "unasked": self.unasked is not None,
            "cap": self.budget.cap,
            "limit_bytes": PROMPT_LIMIT,
            "timeout_s": int(TIMEOUT_S),
            "work_harnesses": self.declared.work_harnesses(),
            "adopts": self.context.options.observer_model is True,
            "adopt_harnesses": self.declared.adopt_harnesses(),
        }

    def own_stores(self) -> Iterable[OwnStore]:
        found = [self.consent.store.own_store(), self.budget.store.own_store(), self.departures.store.own_store()]
        found += [
            OwnStore(name="observer sidecars", path=str(self.sidecars.folder), status="reset", detail=d)
            for d in self.sidecars.resets
        ]
        return found

    def close(self) -> None:
        self.readings.close()
        self.summaries.close()
        if self.unasked is not None:
            self.unasked.close()


def _departure(readings: list[dict[str, Any]], raises: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The departure on record: the newest reading's, when it departed, or an unasked raise
    newer than the newest reading; with when it was raised (``None`` for a legacy record with
    no reading time) and the revision it read against."""
    readings = [r for r in readings if not r.get("withdrawn")]
    raises = [r for r in raises if not r.get("withdrawn")]
    newest = readings[-1] if readings else None
    found: list[dict[str, Any]] = []
    if newest is not None and newest.get("departed"):
        found.append(newest)
    newest_at = str(newest.get("at") or "") if newest is not None else ""
    found += [r for r in raises if newest is None or str(r.get("at") or "") > newest_at]
    if not found:
        return None
    latest = max(found, key=lambda r: str(r.get("at") or ""))
    return {"at": latest.get("at") or None, "revision": latest.get("revision")}


def _delivery_of(raised: Mapping[str, Any], deliveries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The delivery record of *raised* (the one raised at the moment it was alerted), or
    ``None`` when none is on file."""
    at = raised.get("alerted_at")
    return next((d for d in deliveries if at is not None and d["raised_at"] == at), None)


def create(context: ExtensionContext) -> Observer:
    """Always an extension: under ``--no-annotations`` or ``--no-observer-model`` it stays to
    answer ``POST /api/reading`` with 503 and say why on the page."""
    return Observer(context)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    folder = default_state_dir(env)
    return [
        inspect("reading permission", folder / CONSENT_FILE, 16 * 1024),
        inspect("reading budget", folder / BUDGET_FILE, 16 * 1024),
        inspect("departures", folder / DEPARTURES_FILE, 512 * 1024),
    ]
