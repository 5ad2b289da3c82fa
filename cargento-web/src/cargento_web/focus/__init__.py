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
terminal displays, types nothing, and brings no window in front. On macOS it then selects the
Terminal.app or iTerm2 tab showing that terminal (:mod:`.terminal_tab`, by the client's tty),
again without activating anything; the reply says whether that part reached. The page is
handed a per-run capability (``config.features.focus.capability``) and ``POST /api/focus``
refuses a request without it.

A session whose pane is in front of you (:attr:`.tmux.PaneReach.in_front`: the active pane of
the one attached terminal, which tmux reads as focused) is not also pinged: the extension
screens every lane's raises through :meth:`cargento_web.runtime.alerts.Alerts.screen`, and
``/api/data``'s ``focus.in_front`` lets the page's own lane skip it the same way.
"""

from __future__ import annotations

import hmac
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson
from cargento.board import Board, BoardSession
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.focus.coverage import coverage_sentence
from cargento_web.focus.terminal_tab import TerminalTabs
from cargento_web.focus.tmux import TMUX_TIMEOUT_S, PaneReach, Tmux
from cargento_web.outbound import OutboundJSON

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["FOCUS_HEADER", "IN_FRONT_TTL_S", "IN_FRONT_WORDS", "FocusExtension", "create"]

#: The header carrying the per-run capability the page was handed.
FOCUS_HEADER = "X-Cargento-Focus"
BODY_LIMIT = 1024
#: How long one tmux reading of a pane is reused between boards (seconds).
REACH_TTL_S = 5.0
#: How old a reading may be when a raise asks whether the pane is in front of you (seconds).
IN_FRONT_TTL_S = 1.0
#: How long each tmux question may take when a raise asks (a judgement may run on the
#: server's event loop, at an event's arrival).
IN_FRONT_TIMEOUT_S = 1.0
#: Why a raise was skipped, as the record says it.
IN_FRONT_WORDS = "its tmux pane is in front of you (the active pane of the one attached terminal, which has focus)"


class FocusExtension(Extension):
    name = "focus"

    def __init__(
        self, context: ExtensionContext, hub: Any, tmux: Tmux | None = None, tabs: TerminalTabs | None = None
    ) -> None:
        self.context = context
        self.hub = hub
        self.tmux = tmux or Tmux()
        self.tabs = tabs or TerminalTabs("", None)
        self.capability = secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], tuple[float, PaneReach]] = {}
        self._reasons: dict[str, str] = {}
        self._in_front: frozenset[str] = frozenset()
        self._total = 0
        screen = getattr(getattr(hub, "alerts", None), "screen", None)
        if screen is not None:
            screen(self.skip_in_front)

    # -- reading the board --------------------------------------------------------------

    def reading(
        self, harness: str, session_id: str, *, max_age_s: float = REACH_TTL_S, timeout_s: float = TMUX_TIMEOUT_S
    ) -> PaneReach | None:
        """tmux's reading of the session's pane, at most *max_age_s* old (each tmux question
        bounded by *timeout_s*); ``None`` when its events never named a terminal."""
        terminal = self.hub.terminal_of(harness, session_id)
        if terminal is None:
            return None
        key = (terminal.socket, terminal.pane)
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and now - cached[0] <= max_age_s:
            return cached[1]
        found = self.tmux.reach(terminal, timeout_s)
        with self._lock:
            self._cache[key] = (now, found)
            if len(self._cache) > 512:
                self._cache.pop(next(iter(self._cache)))
        return found

    def reason_for(self, harness: str, session_id: str, *, fresh: bool = False) -> str | None:
        """``ok`` when the session's terminal can be raised now, else why not; ``None`` when
        its events never named a terminal."""
        if self.hub.terminal_of(harness, session_id) is None:
            return None
        if self.hub.started_this_run(harness, session_id) is None:
            return "started-before"
        found = self.reading(harness, session_id, max_age_s=0.0 if fresh else REACH_TTL_S)
        return found.reason if found is not None else None

    def skip_in_front(self, harness: str, session_id: str, now: datetime) -> str | None:
        """The alerts' screen: why a raise about this session is not sent (its pane is in
        front of you), or ``None``. Any session whose events named a pane, started this run
        or not: being in front needs no raise control."""
        found = self.reading(harness, session_id, max_age_s=IN_FRONT_TTL_S, timeout_s=IN_FRONT_TIMEOUT_S)
        return IN_FRONT_WORDS if found is not None and found.in_front is True else None

    def on_board(self, board: Board) -> None:
        reasons: dict[str, str] = {}
        in_front: set[str] = set()
        # Only a session whose events named a terminal has a reason: those are looked up
        # on the board, unless they are more than its rows.
        named: Callable[[], Sequence[tuple[str, str]]] | None = getattr(self.hub, "sessions_with_terminal", None)
        candidates: Iterable[BoardSession] = board.sessions
        if named is not None:
            keys = named()
            if len(keys) < len(board.sessions):
                rows = self.context.board_changes(board).rows
                candidates = [r for r in (rows.get(k) for k in keys) if r is not None]
        for s in candidates:
            reason = self.reason_for(s.harness, s.session_id)
            if reason is not None:
                reasons[s.key] = reason
                found = self.reading(s.harness, s.session_id)
                if found is not None and found.in_front is True:
                    in_front.add(s.key)
        with self._lock:
            moved = (
                reasons != self._reasons or len(board.sessions) != self._total or frozenset(in_front) != self._in_front
            )
            self._reasons, self._total, self._in_front = reasons, len(board.sessions), frozenset(in_front)
        if moved:
            self.context.changed()

    def document(self) -> Mapping[str, Any]:
        with self._lock:
            reasons, total, in_front = dict(self._reasons), self._total, self._in_front
        return {
            "focus": {
                "raisable": sorted(k for k, r in reasons.items() if r == "ok"),
                #: Sessions whose tmux pane is in front of you: the page's lane pings none.
                "in_front": sorted(in_front),
                "coverage": coverage_sentence(total, reasons, tabs=self.tabs.coverage_words()),
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
        if not done:
            return {"raised": False, "detail": words}, 502
        # Read again: the raise changed what the terminal shows (and so what is in front of you).
        found = self.reading(harness, session_id, max_age_s=0.0)
        tab = self.tabs.select(found.client_tty if found is not None else None)
        return {
            "raised": True,
            "detail": words,
            # The tab part, said whatever became of it: the tmux part stands either way.
            "tab": {"outcome": tab.outcome, "detail": tab.words, "application": tab.application},
        }, 200


def create(context: ExtensionContext) -> Extension | None:
    options = context.options
    if options.no_focus or options.no_events:
        return None  # no focus command runs; the hub records no terminal identity either
    hub = context.hub
    if hub is None or not hasattr(hub, "terminal_of"):
        return None
    platform = context.builder.platform
    osascript = shutil.which("osascript", path=context.env.get("PATH")) if platform == "darwin" else None
    return FocusExtension(context, hub, tabs=TerminalTabs(platform, osascript))
