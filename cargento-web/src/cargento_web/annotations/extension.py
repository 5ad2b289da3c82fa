"""The annotations feature's share of the server (see :mod:`cargento_web.annotations`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cargento.board import Board
from cargento.ownstore import OwnStore
from starlette.routing import BaseRoute

from cargento_web.annotations.records import MAX_CHARS, MAX_LINES, OFF_REASON
from cargento_web.annotations.store import ANNOTATIONS_FILE, MAX_RECORDS, MAX_REVISIONS, AnnotationStore
from cargento_web.annotations.summary import board_share
from cargento_web.deferred import DeferredRoutes
from cargento_web.extensions import Extension, ExtensionContext

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["AnnotationsExtension"]

log = logging.getLogger("cargento_web")

#: The feature's routes (:mod:`.routes`, made on the first request to one of them).
ROUTES = (
    ("/api/annotate", ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")),
    ("/api/annotations", ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")),
)


class AnnotationsExtension(Extension):
    """Routes, the ``annotations`` document key and the page's configuration."""

    name = "annotations"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self.path = context.state_dir / ANNOTATIONS_FILE
        #: ``None`` under ``--no-annotations``: nothing is read or written.
        self.store: AnnotationStore | None = None if context.options.no_annotations else AnnotationStore(self.path)
        self._lock = threading.Lock()
        self._share: dict[str, Any] | None = None
        self._share_of: tuple[object, ...] | None = None
        #: Moves whenever the set of sessions on the board does.
        self._sessions_generation = 0
        #: ``--demo``: the words are seeded against the first board with sessions.
        self._seed_pending = self.store is not None and context.demo

    def _clock(self) -> datetime:
        clock = getattr(self.context.builder, "clock", None)
        moment = clock() if callable(clock) else None
        return moment if isinstance(moment, datetime) else datetime.now(UTC)

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        later = DeferredRoutes(self.name, lambda: self.made_routes(guard))
        return [later.route(path, methods) for path, methods in ROUTES]

    def made_routes(self, guard: Guard) -> Sequence[BaseRoute]:
        """The routes themselves; their module (the request parsing, the Intent log) is
        imported here, on the first request, not at start."""
        from cargento_web.annotations.routes import annotation_routes

        return annotation_routes(
            guard,
            self.store,
            clock=self._clock,
            latest_board=self.context.latest_board,
            changed=self._changed,
        )

    def _changed(self) -> None:
        with self._lock:
            self._share_of = None
        self.context.changed()

    def on_board(self, board: Board) -> None:
        """Rebuild the share only when the store file or the set of board sessions moved
        (counted by :attr:`_sessions_generation`, from the board's changes)."""
        if self.store is None:
            return
        if self._seed_pending and board.sessions:
            self._seed_pending = False
            try:
                from cargento_web.annotations.demo import seed  # only under --demo

                seed(self.store, board, self._clock())
            except Exception:
                log.exception("the annotations demo could not be seeded")
        # The share follows the set of sessions on the board, not their order or content.
        if self.context.board_changes(board).keys_moved:
            self._sessions_generation += 1
        of = (self.store.version(), self._sessions_generation)
        with self._lock:
            if of == self._share_of:
                return
        share = board_share(self.store, board)
        with self._lock:
            moved = self._share is not None and self._share["stamp"] != share["stamp"]
            self._share, self._share_of = share, of
        if moved:
            # Another process (or another instance) wrote the file: tell open pages.
            self.context.changed()

    def document(self) -> Mapping[str, Any]:
        if self.store is None:
            return {"annotations": {"on": False, "reason": OFF_REASON}}
        with self._lock:
            share = self._share
        if share is None:
            share = board_share(self.store, self.context.latest_board())
        return {"annotations": share}

    def page_config(self) -> Mapping[str, Any]:
        return {
            "on": self.store is not None,
            "reason": None if self.store is not None else OFF_REASON,
            "max_chars": MAX_CHARS,
            "max_lines": MAX_LINES,
            "max_records": MAX_RECORDS,
            "max_revisions": MAX_REVISIONS,
            "store": str(self.path),
        }

    def own_stores(self) -> Iterable[OwnStore]:
        if self.store is None:
            return [
                OwnStore(
                    name="annotations",
                    path=str(self.path),
                    status="absent",
                    detail="off for this run (--no-annotations)",
                )
            ]
        return [self.store.own_store()]
