"""Building successive boards over one registry: the pass over every harness, in order.

For each loaded harness: discover its sessions (or keep the last discovery when the file
watcher says its store is unchanged), read them (:mod:`~cargento.board.discovery`), fold children
onto parents (:mod:`~cargento.board.folding`) and derive each row
(:mod:`~cargento.board.derivation`). Then the board as a whole: the display window, display ids,
the order, the harness strip, the counts and the revision.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs

from cargento.board.context import current_platform, default_home
from cargento.board.derivation import RowDeriver
from cargento.board.discovery import DERIVED_REUSE_S, SessionReader
from cargento.board.document import SCHEMA, Board, BoardHarness, BoardSession, count
from cargento.board.folding import fold
from cargento.board.identity import DisplayIds
from cargento.board.revision import ContentHash
from cargento.board.session_row import SessionKey
from cargento.board.state import Overlay, board_order
from cargento.board.strip import discovered_entry, finish_strip, plugin_of, undiscovered_entry
from cargento.board.window import window_seconds, within_window
from cargento.cache import HarnessCache
from cargento.models import Discovery, HarnessContext
from cargento.plugins import Fault, Ok, Registry
from cargento.processes import LocalProcesses, ProcessTable

__all__ = ["BoardBuilder"]

#: One harness's overlays, by session id, in session id order.
_HarnessOverlays = tuple[tuple[str, Overlay], ...]


@attrs.frozen(kw_only=True)
class _Settled:
    """A harness whose last build read nothing new, and what that build made of it.

    Its rows may stand unchanged while its store stays unchanged, until ``until``, as long as
    it is asked for with the same overlays and window: clean harnesses are re-evaluated
    against the clock at most every DERIVED_REUSE_S, like their hook answers.
    """

    #: ``time.monotonic()`` after which the rows are derived again.
    until: float
    overlays: _HarnessOverlays
    all_sessions: bool
    #: The board time they were derived at.
    at: datetime
    entry: BoardHarness
    rows: tuple[BoardSession, ...]


class BoardBuilder:
    """Builds successive boards over one registry, keeping plugin caches and the revision."""

    def __init__(
        self,
        registry: Registry,
        *,
        env: Mapping[str, str] | None = None,
        home: Path | None = None,
        platform: str | None = None,
        window_hours: float = 24.0,
        clock: Callable[[], datetime] | None = None,
        processes: ProcessTable | None = None,
    ) -> None:
        self.registry = registry
        self.env: Mapping[str, str] = dict(os.environ) if env is None else env
        self.home = home or default_home(self.env)
        self.platform = platform or current_platform()
        self.window_hours = window_hours
        self.clock = clock or (lambda: datetime.now(UTC))
        self.processes: ProcessTable = processes or LocalProcesses()
        #: Per harness, the cache lent to its plugin (``HarnessContext.cache``).
        self.caches: dict[str, HarnessCache] = {}
        #: Per harness, its last successful discovery (the file watcher watches its locations).
        self.last_discovery: dict[str, Discovery] = {}
        self.revision = 0
        self._content: int | None = None
        self._content_hash = ContentHash()
        self._reader = SessionReader(registry)
        self._deriver = RowDeriver()
        self._display_ids = DisplayIds()
        #: Per harness, whether its last discovery was for all sessions or the window.
        self._last_all: dict[str, bool] = {}
        self._settled: dict[str, _Settled] = {}

    def harness_for_path(self, path: str) -> str | None:
        """The harness whose store (as last discovered) holds *path*, for a file watcher."""
        best: tuple[int, str] | None = None
        for key, discovery in self.last_discovery.items():
            for loc in discovery.locations:
                root = loc.path.rstrip("/\\")
                inside = bool(root) and (path == root or path.startswith((root + os.sep, root + "/")))
                if inside and (best is None or len(root) > best[0]):
                    best = (len(root), key)
        return best[1] if best else None

    def context(
        self,
        harness: str,
        *,
        now: datetime,
        all_sessions: bool = False,
        changed_paths: frozenset[str] | None = None,
    ) -> HarnessContext:
        """The context *harness*'s hooks are called with for a board at *now*."""
        cache = self.caches.setdefault(harness, HarnessCache())
        return HarnessContext(
            now=now,
            env=self.env,
            home=self.home,
            platform=self.platform,
            window_s=window_seconds(self.window_hours, all_sessions),
            cache=cache,
            processes=self.processes,
            changed_paths=changed_paths,
        )

    # -- collection ---------------------------------------------------------------------

    def build(
        self,
        *,
        now: datetime | None = None,
        all_sessions: bool = False,
        overlays: Mapping[SessionKey, Overlay] | None = None,
        as_of: bool = False,
        changes: Mapping[str, frozenset[str]] | None = None,
    ) -> Board:
        """Evaluate the board at *now*.

        *changes*, when given, says which harnesses' stores changed since the previous build
        (harness id -> the changed paths a file watcher reported): the others are not
        re-discovered and their unchanged sessions are not re-read, though their state is still
        evaluated against the clock. ``None`` means "unknown": everything is rescanned.
        """
        moment = now or self.clock()
        overlays = overlays or {}
        home = str(self.home)
        entries: list[BoardHarness] = []
        sessions: list[BoardSession] = []
        tick = time.monotonic()
        for key in self.registry.loaded():
            info = self.registry.harnesses[key]
            record = self.registry.records[key]
            clean = (
                changes is not None
                and key not in changes
                and key in self.last_discovery
                and self._last_all.get(key) == all_sessions
            )
            mine_overlays = tuple(sorted(((sid, o) for (h, sid), o in overlays.items() if h == key), key=lambda x: x[0]))
            settled = self._settled.get(key)
            if (
                clean
                and settled is not None
                and tick < settled.until
                and settled.overlays == mine_overlays
                and settled.all_sessions == all_sessions
                and timedelta(0) <= moment - settled.at < timedelta(seconds=DERIVED_REUSE_S)
            ):
                # Nothing of this harness changed and it was evaluated against the clock less
                # than DERIVED_REUSE_S ago: its rows stand as they were.
                entries.append(settled.entry)
                sessions.extend(settled.rows)
                continue
            ctx = self.context(
                key, now=moment, all_sessions=all_sessions,
                changed_paths=None if changes is None else changes.get(key, frozenset()),
            )
            plugin = plugin_of(record)
            found: Ok | Fault = Ok(self.last_discovery[key]) if clean else self.registry.call(key, "discover", ctx=ctx)
            if isinstance(found, Fault):
                self._settled.pop(key, None)
                entries.append(undiscovered_entry(info, plugin, found.message))
                continue
            discovery: Discovery = found.value
            self.last_discovery[key] = discovery
            self._last_all[key] = all_sessions
            read = self._reader.read(key, info, discovery.sessions, ctx, all_sessions, reuse=clean)
            for gone in read.gone:
                self._deriver.forget(gone)
            entry = discovered_entry(info, plugin, discovery)
            entries.append(entry)
            # Children fold only onto a parent of their own harness, so each harness's rows
            # are derived on their own.
            derived = [self._deriver.derive(r, moment, overlays, home) for r in fold(read.rows, moment)]
            sessions.extend(derived)
            faulted = any(r.faults for r in read.rows) or bool(self.registry.faults.get(key))
            if faulted:
                self._settled.pop(key, None)
            else:
                self._settled[key] = _Settled(
                    until=tick + DERIVED_REUSE_S, overlays=mine_overlays, all_sessions=all_sessions,
                    at=moment, entry=entry, rows=tuple(derived),
                )
        if not all_sessions:
            sessions = within_window(sessions, moment, self.window_hours)
        sessions = self._display_ids.apply(sessions)
        sessions.sort(key=board_order)
        board = Board(
            schema=SCHEMA,
            revision=self.revision,
            generated_at=moment,
            as_of=moment if as_of else None,
            window_hours=None if all_sessions else self.window_hours,
            all=all_sessions,
            counts=count(sessions),
            harnesses=tuple(finish_strip(entries, sessions, self.registry)),
            sessions=tuple(sessions),
        )
        content = self._content_hash.of(board)
        if content != self._content:
            self._content = content
            self.revision += 1
        return attrs.evolve(board, revision=self.revision)
