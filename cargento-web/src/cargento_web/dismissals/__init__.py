"""Marking a session handled (issue 17): ``POST /api/dismiss``, ``GET /api/cleared``.

A mark removes a session from the published counts (``/api/data``'s ``dismissals.counts``, and
Attention's categories) until anything in it writes again, a subagent's write included: the
watermark is the server's clock when the mark was made, and a row whose newest write is later
lifts its mark. ``{"clear": false}`` puts one session back. Marks live in
``cargento-dismissals.json`` (:mod:`cargento_web.dismissals.store`). Under ``--no-dismiss`` the
store is not read or written and both routes answer 503.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
from cargento.board import Board, BoardSession
from cargento.ownstore import OwnStore, not_read
from cargento.statedir import state_dir as default_state_dir
from cargento.timestamps import iso
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.dismissals.store import DISMISSALS_FILE, MAX_BYTES, DismissalStore, parse_marks
from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.outbound import OutboundJSON
from cargento_web.runtime.journal import read_capped

if TYPE_CHECKING:
    from cargento.cli import Options

    from cargento_web.app import Guard

__all__ = ["BODY_LIMIT", "DismissalsExtension", "create", "own_stores"]

BODY_LIMIT = 2048
OFF = "--no-dismiss: the store of sessions marked handled is not read or written this run"


def newest_write(s: BoardSession) -> datetime | None:
    """The session's newest write, its subagents' included."""
    times = [t for t in (s.last_active_at, *(a.last_active_at for a in s.subagents)) if t is not None]
    return max(times) if times else None


class DismissalsExtension(Extension):
    name = "dismissals"

    def __init__(self, context: ExtensionContext, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.context = context
        self.clock = clock
        self.store: DismissalStore | None = None
        if not context.options.no_dismiss:
            self.store = DismissalStore(context.state_dir)
            self.store.load()
        self._counts: dict[str, int] | None = None

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def dismiss(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            if self.store is None:
                return OutboundJSON({"error": OFF}, status_code=503)
            raw = await guard.read_body(request, BODY_LIMIT)
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                return OutboundJSON({"error": "the body is not JSON"}, status_code=400)
            if not isinstance(body, dict):
                return OutboundJSON({"error": "the body is a JSON object"}, status_code=400)
            harness, sid, clear = body.get("harness"), body.get("sid"), body.get("clear", True)
            if not _name(harness) or not _name(sid):
                return OutboundJSON({"error": "harness and sid are non-empty strings"}, status_code=400)
            if not isinstance(clear, bool):
                return OutboundJSON({"error": "clear is true or false"}, status_code=400)
            assert isinstance(harness, str) and isinstance(sid, str)
            at = self.clock()
            if clear:
                persisted = self.store.mark(harness, sid, at)
            else:
                persisted = self.store.clear(harness, sid)
            self._recount()
            self.context.changed()
            return OutboundJSON(
                {
                    "persisted": persisted,
                    "marked": clear,
                    "harness": harness,
                    "sid": sid,
                    "at": iso(at) if clear else None,
                }
            )

        async def cleared(request: Request) -> Response:
            if self.store is None:
                return OutboundJSON({"error": OFF}, status_code=503)
            return OutboundJSON({"cleared": [m.record() for m in self.store.marks()]})

        return [Route("/api/dismiss", dismiss, methods=["POST"]), Route("/api/cleared", cleared, methods=["GET"])]

    def on_board(self, board: Board) -> None:
        if self.store is None:
            return
        marks = {(m.harness, m.session_id): m for m in self.store.marks()}
        lifted: list[tuple[str, str]] = []
        # Only a marked session can be lifted: the marks are looked up on the board.
        rows = self.context.board_changes(board).rows
        for key, mark in marks.items():
            s = rows.get(key)
            newest = newest_write(s) if s is not None else None
            if newest is not None and newest > mark.at:
                lifted.append(key)
        if lifted:
            self.store.lift(lifted)
        # The counts follow the board (whose own revision moves with it); a lift is news of
        # this feature's own.
        self._recount(board)
        if lifted:
            self.context.changed()

    def _recount(self, board: Board | None = None) -> None:
        """The board's counts without the marked sessions: from the board's own changes
        (per state, less the marked rows on it) for a board being handed to the features,
        else (a route's, off the build thread) by counting every row."""
        marks = self.store.marks() if self.store is not None else ()
        if board is not None:
            moves = self.context.board_changes(board)
            on_board = [r for r in (moves.rows.get((m.harness, m.session_id)) for m in marks) if r is not None]
            states = moves.states
        else:
            board = self.context.latest_board()
            if board is not None:
                keys = {(m.harness, m.session_id) for m in marks}
                on_board = [s for s in board.sessions if (s.harness, s.session_id) in keys]
                states = {}
                for s in board.sessions:
                    states[s.state] = states.get(s.state, 0) + 1
        if board is None or self.store is None:
            self._counts = None
            return

        def kept(state: str) -> int:
            return states.get(state, 0) - sum(r.state == state for r in on_board)

        self._counts = {
            "sessions": len(board.sessions) - len(on_board),
            "working": kept("working"),
            "needs_input": kept("needs_input"),
            "idle": kept("idle"),
            "marked": len(on_board),
        }

    def document(self) -> Mapping[str, Any]:
        if self.store is None:
            return {"dismissals": {"on": False, "reason": OFF, "marked": {}, "counts": None}}
        return {
            "dismissals": {
                "on": True,
                "marked": {f"{m.harness}:{m.session_id}": iso(m.at) for m in self.store.marks()},
                "counts": self._counts,
            }
        }

    def page_config(self) -> Mapping[str, Any]:
        return {"on": self.store is not None, "reason": None if self.store is not None else OFF}

    def own_stores(self) -> Iterable[OwnStore]:
        if self.store is None:
            return []
        if self.store.reset:
            return [
                OwnStore(
                    name=DISMISSALS_FILE,
                    path=str(self.store.path),
                    status="reset",
                    detail=self.store.reset,
                    at=self.store.reset_at,
                )
            ]
        return [
            OwnStore(
                name=DISMISSALS_FILE,
                path=str(self.store.path),
                status="read",
                detail=f"{len(self.store.marks())} marks",
            )
        ]


def _name(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 512


def create(context: ExtensionContext) -> DismissalsExtension:
    # Under --no-dismiss the extension stays, so both routes can answer 503 rather than 404.
    return DismissalsExtension(context)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    path = default_state_dir(env) / DISMISSALS_FILE
    if options is not None and options.no_dismiss:
        return [not_read(DISMISSALS_FILE, path, "--no-dismiss")]
    try:
        data = read_capped(path, MAX_BYTES)
    except FileNotFoundError:
        return [OwnStore(name=DISMISSALS_FILE, path=str(path), status="absent")]
    except OSError as exc:
        return [OwnStore(name=DISMISSALS_FILE, path=str(path), status="unreadable", detail=exc.strerror or str(exc))]
    marks = parse_marks(data) if data is not None else None
    if marks is None:
        return [OwnStore(name=DISMISSALS_FILE, path=str(path), status="unreadable", detail="could not be read whole")]
    return [OwnStore(name=DISMISSALS_FILE, path=str(path), status="read", detail=f"{len(marks)} marks")]
