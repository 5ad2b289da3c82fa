"""The operator features a dashboard runs beside the board, each as one extension.

A feature (annotations, history, the ask lane, capacity, ...) is a module that offers
``create(context) -> Extension | None`` and is named in :data:`FEATURES`. The server builds
every one at start; ``None`` means the feature is off for this run (its ``--no-…`` flag),
which it says through its routes and its :meth:`Extension.page_config`. An extension:

- adds routes behind the same guard as every other route (:meth:`Extension.routes`);
- sees every board the server builds (:meth:`Extension.on_board`), off the event loop;
- contributes top-level keys to ``/api/data`` (:meth:`Extension.document`), redacted with
  the rest; when what it contributes changes without any store moving it calls
  :attr:`ExtensionContext.changed`, and the next board carries a new revision, so every open
  page refetches;
- hands the page its configuration (:meth:`Extension.page_config`, under
  ``config.features[name]``) and says what its stores hold (:meth:`Extension.own_stores`,
  for the page header and ``--diagnose``);
- is closed when serving ends.

Each feature also offers ``own_stores(env, options) -> Iterable[OwnStore]`` at module level when it
keeps a store, so ``cargento --diagnose`` (which runs no server) can name it.
A feature whose store ``--forget`` covers offers ``forget(state_dir) -> list[str]`` too
(:mod:`cargento_web.forget` calls it, once no dashboard answers).
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from cargento.board import Board, BoardBuilder
from cargento.cli import Options
from cargento.ownstore import OwnStore
from cargento.sharedrepr import shared_repr
from starlette.routing import BaseRoute

from cargento_web.boardchanges import BoardChanges, ChangeTracker
from cargento_web.settings import Settings

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["FEATURES", "Extension", "ExtensionContext", "Extensions", "load_extensions", "own_stores"]

log = logging.getLogger("cargento_web")

#: Every feature module, in the order their routes and document keys are added. A module
#: offers ``create(context) -> Extension | None`` and, when it keeps a store on disk,
#: ``own_stores(env, options) -> Iterable[OwnStore]``.
FEATURES: tuple[str, ...] = (
    "cargento_web.telemetry",
    "cargento_web.metrics",
    "cargento_web.reach",
    "cargento_web.focus",
    "cargento_web.ask",
    "cargento_web.history",
    "cargento_web.endings",
    "cargento_web.dismissals",
    "cargento_web.annotations",
    "cargento_web.observer",
    "cargento_web.capacity",
    "cargento_web.cockpit",
)


@shared_repr
@attrs.frozen(kw_only=True, eq=False, repr=False)
class ExtensionContext:
    """What a feature is handed at start."""

    options: Options
    settings: Settings
    builder: BoardBuilder
    #: The event hub (notifications, deliveries, the session record), when one runs.
    hub: object | None
    #: Where Cargento keeps its own stores (``CARGENTO_HOME``, default ``~/.cargento``).
    state_dir: Path
    #: The environment the server reads (the demo's under ``--demo``).
    env: Mapping[str, str]
    #: Say that this feature's share of the document moved (thread-safe).
    changed: Callable[[], None]
    #: The board most recently built, or ``None`` before the first.
    latest_board: Callable[[], Board | None]
    #: ``--demo``: seed the feature's stores with a few examples so every surface shows.
    demo: bool = False
    #: What moved on a board since the one before it (:mod:`cargento_web.boardchanges`),
    #: worked out once per board for every feature (``Extensions.changes.see``): an
    #: ``on_board`` looks at the changed rows alone unless ``full`` says otherwise.
    board_changes: Callable[[Board], BoardChanges] = attrs.field(factory=lambda: ChangeTracker().see)

    @property
    def replay(self) -> bool:
        """``--as-of``: the board is a moment already past. Nothing of it is observed now, so a
        feature records none of it in its stores and takes nothing live."""
        return self.options.as_of is not None


class Extension:
    """One feature's share of the server; every method has a harmless default."""

    #: The feature's name: its key under ``config.features`` and in the logs.
    name: str = "extension"

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        """The feature's routes; a state-changing one calls ``guard.check_state_change``."""
        return ()

    def on_board(self, board: Board) -> None:
        """Called with every board built (in a worker thread; keep it quick: look at the rows
        ``context.board_changes(board)`` says changed, not at every row, unless it says
        ``full``)."""

    def document(self) -> Mapping[str, Any]:
        """Top-level keys this feature adds to ``/api/data`` (never ``sessions`` or another
        core key); redacted with the rest of the document."""
        return {}

    def page_config(self) -> Mapping[str, Any]:
        """What the page needs to know at load (is the feature on, why not, its limits)."""
        return {}

    def on_timing(self, kind: str, seconds: float) -> None:
        """A measured duration of the live path: ``collection`` (one board built) or ``sse``
        (a change noticed until its revision went out on the stream)."""

    def own_stores(self) -> Iterable[OwnStore]:
        """The feature's stores as this run found them (the header names a reset one)."""
        return ()

    def close(self) -> None:
        """Serving ends: finish writes, release what is held."""


class Extensions:
    """Every extension of one server, and the generation that moves when one changes."""

    def __init__(self, extensions: Iterable[Extension] = ()) -> None:
        self.items: tuple[Extension, ...] = tuple(extensions)
        self._generation = 0
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        #: What moved on each board handed to :meth:`on_board`, shared by every feature.
        self.changes = ChangeTracker()

    @property
    def generation(self) -> int:
        return self._generation

    def changed(self) -> None:
        """An extension's share of the document moved: bump the generation, tell listeners."""
        with self._lock:
            self._generation += 1
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener()
            except Exception:
                log.exception("a listener of extension changes failed")

    def listen(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    def routes(self, guard: Guard) -> list[BaseRoute]:
        return [route for e in self.items for route in e.routes(guard)]

    def on_board(self, board: Board) -> None:
        self.changes.see(board)
        for e in self.items:
            try:
                e.on_board(board)
            except Exception:  # one feature's problem must not stop the board
                log.exception("the %s feature failed to take a board", e.name)

    def timing(self, kind: str, seconds: float) -> None:
        for e in self.items:
            try:
                e.on_timing(kind, seconds)
            except Exception:
                log.exception("the %s feature failed to take a timing", e.name)

    def document(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for e in self.items:
            try:
                merged.update(e.document())
            except Exception:
                log.exception("the %s feature failed to contribute to the document", e.name)
        return merged

    def page_config(self) -> dict[str, Any]:
        return {e.name: dict(e.page_config()) for e in self.items}

    def own_stores(self) -> list[OwnStore]:
        return [store for e in self.items for store in e.own_stores()]

    def close(self) -> None:
        for e in self.items:
            try:
                e.close()
            except Exception:
                log.exception("the %s feature failed to close", e.name)


def _feature(name: str) -> Any:
    return importlib.import_module(name)


def load_extensions(context: ExtensionContext, features: Sequence[str] = FEATURES) -> list[Extension]:
    """Create every feature's extension for this run; a feature that fails to start is
    logged and left out rather than stopping the dashboard."""
    made: list[Extension] = []
    for name in features:
        try:
            created = _feature(name).create(context)
        except Exception:
            log.exception("the feature %s failed to start", name)
            continue
        if created is not None:
            made.append(created)
    return made


def own_stores(env: Mapping[str, str], options: Options | None = None) -> list[OwnStore]:
    """The ``cargento.own_stores`` entry point: every feature's stores, for ``--diagnose``
    (a store the run's *options* turn off is named, not read)."""
    found: list[OwnStore] = []
    for name in FEATURES:
        report: Callable[[Mapping[str, str], Options | None], Iterable[OwnStore]] | None = getattr(
            _feature(name), "own_stores", None
        )
        if report is not None:
            found.extend(report(env, options))
    return found
