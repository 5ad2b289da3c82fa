"""The terminal raise: a control that makes a session's own tmux terminal show its pane.

The feature of the specification's terminal raise (Attention's NEEDS YOU NOW, the session
page) and ``--no-focus``. A session is tied to its pane by the terminal identity its own
lifecycle events carried (the forwarders send ``TMUX`` and ``TMUX_PANE`` from the hook's
environment, which the harness inherited from its pane); the hub records it only when this
run raises terminals (not ``--no-focus``, not ``--no-events``). The reach is narrow on
purpose: tmux, a session whose start this dashboard saw, and exactly one terminal attached
to the pane's tmux session. Rows outside it carry no control, and Attention's coverage
details say how far it reached.

The raise runs ``select-window`` and ``select-pane`` (:mod:`.tmux`): it changes what that
terminal displays, types nothing, and brings no window in front. The page is handed a
per-run capability (``config.features.focus.capability``) and ``POST /api/focus`` refuses a
request without it; macOS terminal tabs are not named in this build.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson
from cargento.board import Board
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.focus.coverage import coverage_sentence
from cargento_web.focus.tmux import PaneReach, Tmux
from cargento_web.outbound import OutboundJSON

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["FOCUS_HEADER", "FocusExtension", "create"]

#: The header carrying the per-run capability the page was handed.
FOCUS_HEADER = "X-Cargento-Focus"
BODY_LIMIT = 1024
#: How long one tmux reading of a pane is reused between boards (seconds).
REACH_TTL_S = 5.0


class FocusExtension(Extension):
    name = "focus"

    def __init__(self, context: ExtensionContext, hub: Any, tmux: Tmux | None = None) -> None:
        self.context = context
        self.hub = hub
        self.tmux = tmux or Tmux()
        self.capability = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], tuple[float, PaneReach]] = {}
        self._reasons: dict[str, str] = {}
        self._total = 0

    # -- reading the board --------------------------------------------------------------

    def reason_for(self, harness: str, session_id: str, *, fresh: bool = False) -> str | None:
        """``ok`` when the session's terminal can be raised now, else why not; ``None`` when
        its events never named a terminal."""
        terminal = self.hub.terminal_of(harness, session_id)
        if terminal is None:
            return None
        if self.hub.started_this_run(harness, session_id) is None:
            return "started-before"
        key = (terminal.socket, terminal.pane)
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(key)
        if cached is None or fresh or now - cached[0] > REACH_TTL_S:
            reading = self.tmux.reach(terminal)
            with self._lock:
                self._cache[key] = (now, reading)
                if len(self._cache) > 512:
                    self._cache.pop(next(iter(self._cache)))
        else:
            reading = cached[1]
        return reading.reason

    def on_board(self, board: Board) -> None:
        reasons: dict[str, str] = {}
        for s in board.sessions:
            reason = self.reason_for(s.harness, s.session_id)
            if reason is not None:
                reasons[s.key] = reason
        with self._lock:
            moved = reasons != self._reasons or len(board.sessions) != self._total
            self._reasons, self._total = reasons, len(board.sessions)
        if moved:
            self.context.changed()

    def document(self) -> Mapping[str, Any]:
        with self._lock:
            reasons, total = dict(self._reasons), self._total
        return {
            "focus": {
                "raisable": sorted(k for k, r in reasons.items() if r == "ok"),
                "coverage": coverage_sentence(total, reasons),
            }
        }

    def page_config(self) -> Mapping[str, Any]:
        return {"enabled": True, "capability": self.capability, "header": FOCUS_HEADER}

    # -- the raise ----------------------------------------------------------------------

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def focus(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            presented = request.headers.get(FOCUS_HEADER, "")
            if not hmac.compare_digest(presented.encode("utf-8", "replace"), self.capability.encode()):
                return OutboundJSON({"raised": False, "error": "this run's focus capability is required"}, 403)
            raw = await guard.read_body(request, BODY_LIMIT)
            try:
                body = orjson.loads(raw)
                harness, sid = body["harness"], body["session_id"]
                if not isinstance(harness, str) or not isinstance(sid, str):
                    raise TypeError
            except (orjson.JSONDecodeError, KeyError, TypeError):
                return OutboundJSON({"raised": False, "error": "the body names a harness and a session_id"}, 400)
            return OutboundJSON(*self.raise_session(harness, sid))

        return [Route("/api/focus", focus, methods=["POST"])]

    def raise_session(self, harness: str, session_id: str) -> tuple[dict[str, Any], int]:
        reason = self.reason_for(harness, session_id, fresh=True)
        if reason != "ok":
            return {"raised": False, "reason": reason or "no-terminal"}, 409
        terminal = self.hub.terminal_of(harness, session_id)
        done, words = self.tmux.raise_pane(terminal)
        return {"raised": done, "detail": words}, 200 if done else 502


def create(context: ExtensionContext) -> Extension | None:
    options = context.options
    if options.no_focus or options.no_events:
        return None  # no focus command runs; the hub records no terminal identity either
    hub = context.hub
    if hub is None or not hasattr(hub, "terminal_of"):
        return None
    return FocusExtension(context, hub)
