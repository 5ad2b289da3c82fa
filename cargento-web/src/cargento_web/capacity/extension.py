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

import httpx
from cargento.board import Board
from cargento.diagnose import OwnStore
from cargento.statedir import CAPABILITY_HEADER
from cargento.timestamps import iso
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.capacity import demo as demo_quota
from cargento_web.capacity.consent import UNANSWERED, ConsentStore
from cargento_web.capacity.credentials import claude_credential, cursor_credential
from cargento_web.capacity.freshness import stale_reason
from cargento_web.capacity.pace import PRESSURE_PERCENT, Assessment, assess, order
from cargento_web.capacity.poller import POLL_S, Source, VendorPoller
from cargento_web.capacity.pushed import PushedQuota, parse_block, windows_from_block
from cargento_web.capacity.rows import AIUnits, ai_units, store_windows
from cargento_web.capacity.vendors import claude_vendor, cursor_vendor
from cargento_web.capacity.windows import Window, Withheld
from cargento_web.capacity.worktime import WorkTime
from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.outbound import OutboundJSON

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["PING_S", "USAGE_BODY_LIMIT", "Capacity"]

#: Largest ``POST /api/usage`` body read (a whole status-line document is a few KB).
USAGE_BODY_LIMIT = 64 * 1024
#: Largest consent or poll body.
SMALL_BODY_LIMIT = 1024
#: How often an open page asks for a poll (the server keeps the five-minute floor).
PING_S = 60.0
EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _client() -> httpx.Client:
    return httpx.Client(timeout=httpx.Timeout(10.0, connect=5.0), follow_redirects=False, trust_env=False)


def default_sources(context: ExtensionContext) -> list[Source]:
    """Claude's and Cursor's endpoints with the credential read as each harness stores it."""
    builder = context.builder
    agent = f"cargento/{context.settings.version}"
    return [
        Source(
            vendor=claude_vendor(agent),
            credential=lambda now: claude_credential(
                env=builder.env, home=builder.home, platform=builder.platform, now=now
            ),
        ),
        Source(vendor=cursor_vendor(agent), credential=lambda now: cursor_credential(platform=builder.platform)),
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
        client: Callable[[], httpx.Client] = _client,
    ) -> None:
        self.context = context
        self.clock = context.builder.clock
        self.no_usage = bool(context.options.no_usage)
        self.consent = ConsentStore(context.state_dir)
        self.pushed = PushedQuota()
        self.started = self.clock()
        self.worktime = WorkTime(self.started)
        vendor_sources = (
            [] if context.demo or self.no_usage else list(default_sources(context) if sources is None else sources)
        )
        self.poller = VendorPoller(vendor_sources, clock=self.clock, client=client, on_change=context.changed)
        self._revision: int | None = None
        self._board_windows: list[Window] = []
        self._units: list[AIUnits] = []
        self._hub_quota: object = None
        self._labels: dict[str, str] = {}
        if context.demo and not self.no_usage:
            self.pushed.take(demo_quota.pushed_block(self.started, self.started), self.started)

    # -- sources -------------------------------------------------------------------------------

    def _label(self, harness: str, fallback: str) -> str:
        return self._labels.get(harness, fallback)

    def _hub_pushed(self) -> tuple[datetime, Mapping[str, Any]] | None:
        reader: Callable[[str], tuple[datetime, Mapping[str, Any]] | None] | None = getattr(
            self.context.hub, "pushed_quota", None
        )
        return reader("antigravity") if reader is not None else None

    def _pushed_windows(self) -> list[Window]:
        if self.no_usage:
            return []
        candidates = [c for c in (self._hub_pushed(), self.pushed.latest()) if c is not None]
        if not candidates:
            return []
        at, block = max(candidates, key=lambda c: c[0])
        return windows_from_block(block, at, harness_label=self._label("antigravity", "Antigravity"))

    def _vendor_windows(self, now: datetime) -> tuple[list[Window], list[Withheld]]:
        shown: list[Window] = []
        withheld: list[Withheld] = []
        if self.context.demo:
            shown.extend(demo_quota.stand_in_windows(self.started, now))
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
        if board.revision != self._revision:
            self._revision = board.revision
            self._labels = {h.key: h.label for h in board.harnesses}
            windows = store_windows(board.sessions, board.generated_at)
            units = ai_units(board.sessions)
            if windows != self._board_windows or units != self._units:
                self._board_windows, self._units = windows, units
                moved = True
            moved = self.worktime.observe(board) or moved
        if self.context.demo and not self.no_usage:
            now = self.clock()
            moved = self.pushed.take(demo_quota.pushed_block(self.started, now), now) or moved
        hub_quota = self._hub_pushed()
        if hub_quota != self._hub_quota:
            self._hub_quota = hub_quota
            moved = True
        if moved:
            self.context.changed()

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
            or (["Claude Code", "Cursor"] if not self.no_usage else []),
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
        try:
            body = json.loads(raw)
        except ValueError:
            return answer(False, "not stored: the body is not JSON")
        if not isinstance(body, dict):
            return answer(False, "not stored: the body is not one JSON object")
        block = parse_block(body.get("quota"))
        if block is None:
            return answer(False, "not stored: the body carries no well-formed quota block")
        if self.pushed.take(block, self.clock()):
            self.context.changed()
        return answer(True)
