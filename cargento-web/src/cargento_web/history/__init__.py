"""Local history: what this server observed, kept across restarts (issue 17).

The feature watches every board (:class:`~cargento_web.history.observer.BoardObserver`) and
keeps what moved in ``cargento-history.json`` (:class:`~cargento_web.history.store.HistoryStore`,
whose docstring is the reading API). ``GET /api/history?harness=H&sid=S`` serves one session's
observations, ``?project=P`` a project's, each with the window actually observed; the session
page's observed record and state-change timeline read it. ``--no-history`` keeps and reads
nothing: the route answers ``on: false`` and the page says the history is off.

Another feature reads the running store with :func:`running_store`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cargento.board import Board
from cargento.ownstore import OwnStore, not_read
from cargento.statedir import state_dir as default_state_dir
from cargento.timestamps import iso
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.history.observer import BoardObserver
from cargento_web.history.store import (
    DEFAULT_MAX_BYTES,
    HISTORY_FILE,
    HistoryStore,
    Observation,
    Window,
    parse_history,
)
from cargento_web.outbound import OutboundJSON
from cargento_web.runtime.journal import read_capped

if TYPE_CHECKING:
    from cargento.cli import Options

    from cargento_web.app import Guard

__all__ = [
    "HistoryExtension",
    "HistoryStore",
    "Observation",
    "create",
    "observations_json",
    "own_stores",
    "running_store",
    "window_json",
]

#: Observations one answer carries at most (the newest).
ANSWER_LIMIT = 2000

_running: list[HistoryStore] = []
_running_lock = threading.Lock()


def running_store() -> HistoryStore | None:
    """The history store of the server running in this process, or ``None`` (``--no-history``,
    or the feature has not started)."""
    with _running_lock:
        return _running[-1] if _running else None


def window_json(window: Window) -> dict[str, Any]:
    return {
        "first": iso(window.first),
        "last": iso(window.last),
        "days": window.days,
        "run_started_at": iso(window.run_started_at),
        "evicted": window.evicted,
    }


def observations_json(observations: Sequence[Observation]) -> list[dict[str, Any]]:
    return [o.record() for o in observations[-ANSWER_LIMIT:]]


class HistoryExtension(Extension):
    name = "history"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        options = context.options
        self.store: HistoryStore | None = None
        if not options.no_history:
            self.store = HistoryStore(context.state_dir, days=options.history_days, max_bytes=options.history_max_bytes)
            self.store.load()
            with _running_lock:
                _running.append(self.store)
        store = self.store
        #: A replay records nothing (its boards would write the past into this history).
        self.replay = context.replay
        self._seed_demo = context.demo
        self._board_lock = threading.Lock()
        hub: Any = context.hub
        session_end = getattr(hub, "session_end", None)

        def end_reason(harness: str, sid: str) -> str | None:
            end = session_end(harness, sid) if session_end is not None else None
            reason = getattr(end, "reason", None)
            return reason if isinstance(reason, str) else None

        self.observer = BoardObserver(
            known=lambda h, s: store is not None and store.holds(h, s),
            days=options.history_days,
            end_reason=end_reason,
            last_state=lambda h, s: None if store is None else store.last_state(h, s),
            open_wait=lambda h, s: None if store is None else store.open_wait(h, s),
        )

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def history(request: Request) -> Response:
            return OutboundJSON(self.answer(request.query_params))

        return [Route("/api/history", history, methods=["GET"])]

    def answer(self, query: Mapping[str, str]) -> dict[str, Any]:
        if self.store is None:
            return {"on": False, "reason": "--no-history: this run keeps no local history", "observations": []}
        harness, sid, project = query.get("harness"), query.get("sid"), query.get("project")
        if harness and sid:
            total, shown = self.store.records(harness=harness, session_id=sid, limit=ANSWER_LIMIT)
            window = self.store.window(harness, sid)
        elif project:
            total, shown = self.store.records(project=project, limit=ANSWER_LIMIT)
            window = self.store.window()
        else:
            return {"on": True, "error": "name a session (harness and sid) or a project", "observations": []}
        return {
            "on": True,
            "replay": self.replay,
            "observations": shown,
            "total": total,
            "window": window_json(window),
            "store_window": window_json(self.store.window()),
        }

    def on_board(self, board: Board) -> None:
        if self.store is None or self.replay:
            return
        with self._board_lock:  # two board flavours may be built at once
            if self._seed_demo:
                self._seed_demo = False
                from cargento_web.history.demo import demo_history  # only under --demo

                self.store.record(demo_history(board))
            moves = self.context.board_changes(board)
            made = self.observer.observe(board, None if moves.full else moves.changed)
        if made:
            self.store.record(made)

    def page_config(self) -> Mapping[str, Any]:
        if self.store is None:
            return {"on": False, "reason": "--no-history: this run keeps no local history"}
        return {"on": True, "days": self.store.days, "max_bytes": self.store.max_bytes}

    def own_stores(self) -> Iterable[OwnStore]:
        if self.store is None:
            return []
        return [_own_store(self.store.path, self.store)]

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            with _running_lock:
                if self.store in _running:
                    _running.remove(self.store)


def _own_store(path: Path, store: HistoryStore | None) -> OwnStore:
    if store is not None and store.reset:
        return OwnStore(name=HISTORY_FILE, path=str(path), status="reset", detail=store.reset, at=store.reset_at)
    if store is not None:
        return OwnStore(name=HISTORY_FILE, path=str(path), status="read", detail=f"{len(store)} observations")
    return _on_disk(path)


def _on_disk(path: Path) -> OwnStore:
    """The store as ``--diagnose`` finds it: read (never blocking, never past the default cap),
    never set aside."""
    try:
        data = read_capped(path, DEFAULT_MAX_BYTES)
    except FileNotFoundError:
        return OwnStore(name=HISTORY_FILE, path=str(path), status="absent")
    except OSError as exc:
        return OwnStore(name=HISTORY_FILE, path=str(path), status="unreadable", detail=exc.strerror or str(exc))
    if data is None:
        return OwnStore(
            name=HISTORY_FILE,
            path=str(path),
            status="unreadable",
            detail=f"larger than the default {DEFAULT_MAX_BYTES}-byte cap",
        )
    parsed = parse_history(data)
    if parsed is None:
        return OwnStore(name=HISTORY_FILE, path=str(path), status="unreadable", detail="could not be read whole")
    return OwnStore(name=HISTORY_FILE, path=str(path), status="read", detail=f"{len(parsed)} observations")


def create(context: ExtensionContext) -> HistoryExtension:
    # Under --no-history the extension still runs, to say on the page and the route that the
    # history is off; it reads and writes nothing.
    return HistoryExtension(context)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    path = default_state_dir(env) / HISTORY_FILE
    if options is not None and options.no_history:
        return [not_read(HISTORY_FILE, path, "--no-history")]
    return [_on_disk(path)]
