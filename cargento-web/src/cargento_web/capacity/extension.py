"""The capacity feature: quota windows from every source, their pace, the consent, the routes.

Routes:

* ``POST /api/usage``: a harness's status line forwards its quota (the older
  ``notify_hook.py …/api/usage`` line). Loopback-only with the same origin checks and this
  run's capability; a status-line command is always answered with success (``accepted``),
  and what is malformed, oversized or ignored under ``--no-usage`` is said in ``stored:
  false`` and a reason and never reaches the board.
* ``POST /api/capacity/consent``: ``{"consent": "on"|"off"}``, the disclosure's answer.
* ``POST /api/capacity/poll``: an open page asks; vendors that are due are polled.

``/api/data`` carries ``capacity``: the windows in run-out order with their pace, colour and
pressure, what is withheld and why, Copilot's AI Units, what the tightest budget buys and how
long sessions worked in the busiest project.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cargento.board import Board, BoardSession
from cargento.events import EventVocabulary
from cargento.models import HarnessInfo, QuotaEndpoint, QuotaWindow
from cargento.ownstore import OwnStore
from cargento.plugins import Registry
from cargento.statedir import CAPABILITY_HEADER
from cargento.timestamps import iso
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.boardchanges import BoardChanges
from cargento_web.capacity.consent import UNANSWERED, ConsentStore
from cargento_web.capacity.freshness import stale_reason
from cargento_web.capacity.pace import PRESSURE_PERCENT, Assessment, assess, order
from cargento_web.capacity.poller import POLL_S, Source, VendorPoller
from cargento_web.capacity.pushed import PushedQuota
from cargento_web.capacity.rows import AIUnits, ai_units, store_windows
from cargento_web.capacity.vendors import Vendor, windows_of
from cargento_web.capacity.windows import Window, Withheld
from cargento_web.capacity.worktime import WorkTime
from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.outbound import OutboundJSON

if TYPE_CHECKING:
    import httpx

    from cargento_web.app import Guard

__all__ = ["PING_S", "USAGE_BODY_LIMIT", "Capacity"]

#: Largest ``POST /api/usage`` body read (a whole status-line document is a few KB).
USAGE_BODY_LIMIT = 64 * 1024
#: Largest consent or poll body.
SMALL_BODY_LIMIT = 1024
#: How often an open page asks for a poll (the server keeps the five-minute floor).
PING_S = 60.0
EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _vendor_client(env: Mapping[str, str]) -> httpx.Client:
    # Imported on the first vendor poll: most runs never poll, and httpx costs every start ~8 ms.
    from cargento_web.capacity.proxy import vendor_client

    return vendor_client(env)


def quota_reader(
    registry: Registry, harness: str, source: str
) -> Callable[[Any, datetime], tuple[QuotaWindow, ...] | None]:
    """The plugin's ``read_quota`` for one source; ``None`` when it reads nothing or fails."""

    def read(document: Any, now: datetime) -> tuple[QuotaWindow, ...] | None:
        result = registry.call(harness, "read_quota", document=document, source=source, now=now)
        value = getattr(result, "value", None)
        if not isinstance(value, tuple) or not all(isinstance(w, QuotaWindow) for w in value):
            return None
        return value or None

    return read


def labels(registry: Registry) -> dict[str, str]:
    """Every loaded harness's display label."""
    found: dict[str, str] = {}
    for key in registry.loaded():
        info = getattr(registry.call(key, "harness_info"), "value", None)
        found[key] = info.label if isinstance(info, HarnessInfo) else key
    return found


def declared_endpoints(context: ExtensionContext) -> dict[str, QuotaEndpoint]:
    """The vendor endpoints the loaded plugins declare for this machine (nothing is read)."""
    builder = context.builder
    registry = builder.registry
    found: dict[str, QuotaEndpoint] = {}
    for key in registry.loaded():
        if not registry.implements(key, "quota_endpoint"):
            continue
        result = registry.call(key, "quota_endpoint", env=builder.env, home=builder.home, platform=builder.platform)
        value = getattr(result, "value", None)
        if isinstance(value, QuotaEndpoint) and value.url.startswith("https://"):
            found[key] = value
    return found


def default_sources(context: ExtensionContext, endpoints: Mapping[str, QuotaEndpoint]) -> list[Source]:
    """Each declared endpoint, with the login read where its plugin says the harness keeps it."""
    registry = context.builder.registry
    platform = context.builder.platform
    names = labels(registry)
    agent = f"cargento/{context.settings.version}"
    sources: list[Source] = []
    for key, endpoint in sorted(endpoints.items()):
        label = names.get(key, key)

        def credential(now: datetime, endpoint: QuotaEndpoint = endpoint, label: str = label) -> Any:
            # The login is read, and its reader imported, by the first poll, not at start.
            from cargento_web.capacity.credentials import read_credential

            return read_credential(endpoint, label=label, platform=platform, now=now)

        vendor = Vendor(
            harness=key, label=label, endpoint=endpoint, read=quota_reader(registry, key, "reply"), user_agent=agent
        )
        sources.append(Source(vendor=vendor, credential=credential))
    return sources


def pushing_harnesses(registry: Registry) -> list[str]:
    """Harnesses whose status line pushes a quota block their plugin reads."""
    vocabulary = EventVocabulary.from_registry(registry)
    return [
        key
        for key in vocabulary
        if "quota" in vocabulary.lanes[key].status_fields and registry.implements(key, "read_quota")
    ]


def _window_doc(a: Assessment) -> dict[str, Any]:
    w = a.window
    return {
        "key": w.key,
        "harness": w.harness,
        "harness_label": w.harness_label,
        "name": w.name,
        "used_percent": w.used_percent,
        "elapsed_percent": None if a.elapsed_fraction is None else 100.0 * a.elapsed_fraction,
        "pace": a.pace,
        "tone": a.tone,
        "clock": a.elapsed_fraction is not None,
        "run_out_at": iso(a.run_out_at),
        "minutes_left": a.minutes_left,
        "resets_at": iso(w.resets_at),
        "read_at": iso(w.read_at),
        "source": w.source,
        "detail": w.detail,
        "pressure": a.pressure,
    }


def _units_doc(u: AIUnits) -> dict[str, Any]:
    return {
        "key": u.key,
        "harness_label": u.harness_label,
        "display_id": u.display_id,
        "title": u.title,
        "project": u.project,
        "ai_units": u.units,
    }


class Capacity(Extension):
    name = "capacity"

    def __init__(
        self,
        context: ExtensionContext,
        *,
        sources: Sequence[Source] | None = None,
        client: Callable[[], httpx.Client] | None = None,
    ) -> None:
        self.context = context
        self.clock = context.builder.clock
        self.no_usage = bool(context.options.no_usage)
        self.consent = ConsentStore(context.state_dir)
        self.pushed = PushedQuota()
        self.started = self.clock()
        self.worktime = WorkTime(self.started)
        registry = context.builder.registry
        self.registry = registry
        self.labels = labels(registry)
        self.endpoints = declared_endpoints(context)
        self.pushing = pushing_harnesses(registry)
        self._pushed_readers = {key: quota_reader(registry, key, "pushed") for key in self.pushing}
        vendor_sources = (
            []
            if context.demo or self.no_usage
            else list(default_sources(context, self.endpoints) if sources is None else sources)
        )
        env = context.env
        self.poller = VendorPoller(
            vendor_sources,
            clock=self.clock,
            client=client if client is not None else (lambda: _vendor_client(env)),
            on_change=context.changed,
        )
        self._revision: int | None = None
        self._board_windows: list[Window] = []
        self._units: list[AIUnits] = []
        #: The board's rows with rate limits or AI units, by session (see _metered_rows).
        self._metered: dict[tuple[str, str], BoardSession] = {}
        self._hub_quota: dict[str, object] = {}

    # -- sources -------------------------------------------------------------------------------

    def _hub_pushed(self) -> dict[str, tuple[datetime, Mapping[str, Any]]]:
        reader: Callable[[str], tuple[datetime, Mapping[str, Any]] | None] | None = getattr(
            self.context.hub, "pushed_quota", None
        )
        if reader is None:
            return {}
        found = {key: reader(key) for key in self.pushing}
        return {key: value for key, value in found.items() if value is not None}

    def _pushed_windows(self) -> list[Window]:
        """The newest push of each harness, through the status line's forwarder (the hub) or
        the older ``/api/usage`` line; none under ``--no-usage``."""
        if self.no_usage:
            return []
        out: list[Window] = []
        hub = self._hub_pushed()
        for key in self.pushing:
            label = self.labels.get(key, key)
            candidates: list[tuple[datetime, tuple[QuotaWindow, ...]]] = []
            if key in hub:
                at, block = hub[key]
                read = self._pushed_readers[key](block, at)
                if read:
                    candidates.append((at, read))
            posted = self.pushed.latest(key)
            if posted is not None:
                candidates.append(posted)
            if candidates:
                at, found = max(candidates, key=lambda c: c[0])
                out.extend(windows_of(key, label, found, at, "pushed"))
        return out

    def _vendor_windows(self, now: datetime) -> tuple[list[Window], list[Withheld]]:
        shown: list[Window] = []
        withheld: list[Withheld] = []
        if self.context.demo:
            if self.endpoints and not self.no_usage:
                from cargento_web.capacity import demo as demo_quota  # only under --demo

                first = sorted(self.endpoints)[0]
                shown.extend(demo_quota.stand_in_windows(first, self.labels.get(first, first), self.started, now))
            return shown, withheld
        if self.no_usage or self.consent.answer != "on":
            return shown, withheld
        for key, state in self.poller.states().items():
            label = self.poller.sources[key].vendor.label
            if state.failure is not None:
                withheld.append(Withheld(key=key, harness_label=label, reason=state.failure.text, source="vendor"))
            elif state.attempted_at is None or (state.in_flight and not state.windows):
                withheld.append(Withheld(key=key, harness_label=label, reason="not read yet", source="vendor"))
            else:
                shown.extend(state.windows)
        return shown, withheld

    # -- Extension -----------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        moved = False
        moves = self.context.board_changes(board)
        self._keep_metered(board, moves)
        if board.revision != self._revision:
            self._revision = board.revision
            metered = self._metered_rows(board)
            windows = store_windows(metered, board.generated_at)
            units = ai_units(metered)
            if windows != self._board_windows or units != self._units:
                self._board_windows, self._units = windows, units
                moved = True
            moved = self.worktime.observe(board, moves) or moved
        hub_quota: dict[str, object] = dict(self._hub_pushed())
        if hub_quota != self._hub_quota:
            self._hub_quota = hub_quota
            moved = True
        if moved:
            self.context.changed()

    def _keep_metered(self, board: Board, moves: BoardChanges) -> None:
        """Keep the board's rows that carry rate limits or AI units (the windows and units
        are read from these alone), from the changed rows."""
        if moves.full:
            self._metered = {
                (s.harness, s.session_id): s for s in board.sessions if s.rate_limits or s.ai_units is not None
            }
        else:
            for s in moves.dropped:
                if self._metered.get((s.harness, s.session_id)) is s:
                    del self._metered[(s.harness, s.session_id)]
            for s in moves.changed:
                if s.rate_limits or s.ai_units is not None:
                    self._metered[(s.harness, s.session_id)] = s

    def _metered_rows(self, board: Board) -> list[BoardSession]:
        """The rows :meth:`_keep_metered` keeps, in board order."""
        found = list(self._metered.values())
        if len(found) > 1:
            # Ties between windows are broken by board order, as a pass over every row did.
            place = dict(zip(map(id, board.sessions), range(len(board.sessions)), strict=True))
            found.sort(key=lambda r: place[id(r)])
        return found

    def document(self) -> Mapping[str, Any]:
        now = self.clock()
        vendor_shown, withheld = self._vendor_windows(now)
        assessed: list[Assessment] = []
        for w in [*self._board_windows, *self._pushed_windows(), *vendor_shown]:
            stale = stale_reason(w, now)
            if stale is not None:
                withheld.append(
                    Withheld(key=w.key, harness_label=w.harness_label, name=w.name, reason=stale, source=w.source)
                )
            else:
                assessed.append(assess(w, now))
        ordered = order(assessed)
        budget = next((a for a in ordered if a.minutes_left is not None), None)
        worked = self.worktime.most()
        return {
            "capacity": {
                "generated_at": iso(now),
                "consent": self.consent.answer,
                "no_usage": self.no_usage,
                "vendor_fetching": self._fetching(),
                "windows": [_window_doc(a) for a in ordered],
                "withheld": [
                    {
                        "key": x.key,
                        "harness_label": x.harness_label,
                        "name": x.name,
                        "reason": x.reason,
                        "source": x.source,
                    }
                    for x in withheld
                ],
                "ai_units": [_units_doc(u) for u in self._units],
                "budget": None
                if budget is None
                else {
                    "key": budget.window.key,
                    "harness_label": budget.window.harness_label,
                    "name": budget.window.name,
                    "minutes": budget.minutes_left,
                },
                "worked": None
                if worked is None
                else {
                    "project": worked.project,
                    "seconds": worked.seconds,
                    "intervals": worked.intervals,
                    "since": iso(worked.since),
                },
            }
        }

    def _fetching(self) -> bool:
        return not self.no_usage and not self.context.demo and self.consent.answer == "on" and bool(self.poller.sources)

    def page_config(self) -> Mapping[str, Any]:
        return {
            "on": True,
            "no_usage": self.no_usage,
            "demo": self.context.demo,
            "vendors": [s.vendor.label for s in self.poller.sources.values()]
            or [self.labels.get(key, key) for key in sorted(self.endpoints)],
            "poll_s": POLL_S,
            "ping_s": PING_S,
            "pressure_percent": PRESSURE_PERCENT,
        }

    def own_stores(self) -> Iterable[OwnStore]:
        return [self.consent.own_store()]

    def close(self) -> None:
        self.poller.close()

    # -- routes --------------------------------------------------------------------------------

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def usage(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            check: Callable[[str], bool] | None = getattr(self.context.hub, "check_capability", None)
            presented = request.headers.get(CAPABILITY_HEADER)
            if check is not None:
                if not presented:
                    return OutboundJSON(
                        {"accepted": False, "error": f"refused: the {CAPABILITY_HEADER} header is required"},
                        status_code=401,
                    )
                if not check(presented):
                    return OutboundJSON({"accepted": False, "error": "refused: wrong capability"}, status_code=403)
            return self._take_usage(await self._usage_body(guard, request))

        async def consent(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            raw = await guard.read_body(request, SMALL_BODY_LIMIT)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            answer = body.get("consent") if isinstance(body, dict) else None
            if answer not in ("on", "off"):
                return OutboundJSON({"error": 'the body is {"consent": "on"} or {"consent": "off"}'}, status_code=400)
            persisted = self.consent.set(str(answer), self.clock())
            self.context.changed()
            started = self.poller.request() if self._fetching() else []
            return OutboundJSON(
                {
                    "consent": self.consent.answer,
                    "persisted": persisted,
                    "fetching": self._fetching(),
                    "started": started,
                }
            )

        async def poll(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            await guard.read_body(request, SMALL_BODY_LIMIT)
            if not self._fetching():
                return OutboundJSON({"fetching": False, "started": [], "reason": self._why_not()})
            return OutboundJSON({"fetching": True, "started": self.poller.request()})

        return [
            Route("/api/usage", usage, methods=EVERY_METHOD),
            Route("/api/capacity/consent", consent, methods=EVERY_METHOD),
            Route("/api/capacity/poll", poll, methods=EVERY_METHOD),
        ]

    def _why_not(self) -> str:
        if self.no_usage:
            return "--no-usage: no vendor is asked this run"
        if self.context.demo:
            return "the demo asks no vendor"
        if self.consent.answer == UNANSWERED:
            return "the disclosure is unanswered: nothing is read and nothing is asked"
        if self.consent.answer == "off":
            return "vendor quota is off"
        return "no vendor can be asked on this machine"

    async def _usage_body(self, guard: Guard, request: Request) -> bytes | str:
        try:
            raw: bytes = await guard.read_body(request, USAGE_BODY_LIMIT)
        except HTTPException as exc:
            return f"not stored: the body was refused ({exc.status_code})"
        return raw

    def _take_usage(self, raw: bytes | str) -> Response:
        def answer(stored: bool, reason: str | None = None) -> Response:
            doc: dict[str, Any] = {"accepted": True, "stored": stored}
            if reason is not None:
                doc["reason"] = reason
            return OutboundJSON(doc, status_code=202)

        if isinstance(raw, str):
            return answer(False, raw)
        if self.no_usage:
            return answer(False, "--no-usage: pushed quota is ignored this run")
        if not self.pushing:
            return answer(False, "not stored: no loaded harness reads a quota block its status line pushes")
        try:
            body = json.loads(raw)
        except ValueError:
            return answer(False, "not stored: the body is not JSON")
        if not isinstance(body, dict):
            return answer(False, "not stored: the body is not one JSON object")
        now = self.clock()
        key = self.pushing[0]
        found = self._pushed_readers[key](body.get("quota"), now)
        if not found:
            return answer(False, "not stored: the body carries no readable quota block")
        if self.pushed.take(key, found, now):
            self.context.changed()
        return answer(True)
