"""Building successive boards over one registry: the pass over every harness, in order.

For each loaded harness: discover its sessions (or keep the last discovery when the file
watcher says its store is unchanged), read them (:mod:`~cargento.board.discovery`), fold children
onto parents (:mod:`~cargento.board.folding`) and derive each row
(:mod:`~cargento.board.derivation`). Then the board as a whole: the display window, display ids,
the order, the harness strip, the counts and the revision.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs

from cargento.board.assembly import BoardAssembly
from cargento.board.context import current_platform, default_home
from cargento.board.derivation import RowDeriver
from cargento.board.discovery import DERIVED_REUSE_S, ReadPass, SessionReader
from cargento.board.document import SCHEMA, Board, BoardHarness, BoardSession
from cargento.board.folding import fold
from cargento.board.liveness import Listing, apply_liveness
from cargento.board.revision import content_hash
from cargento.board.session_row import SessionKey, SessionRow
from cargento.board.starting import starting_row
from cargento.board.state import Overlay, same_but_clock
from cargento.board.strip import HarnessStrip, discovered_entry, plugin_of, undiscovered_entry
from cargento.board.watchdog import DEFAULT_READ_BUDGET_S, Busy, Done, Overran, Watchdog
from cargento.board.window import window_seconds
from cargento.cache import HarnessCache
from cargento.models import Discovery, HarnessContext, HarnessInfo
from cargento.plugins import Fault, Ok, Registry
from cargento.processes import LocalProcesses, ProcessTable
from cargento.readers import passconn
from cargento.sharedrepr import shared_repr

__all__ = ["BoardBuilder"]

#: The span a derived row or a settled share is reused within (two timedeltas made once).
_NO_TIME = timedelta(0)
_REUSE = timedelta(seconds=DERIVED_REUSE_S)

#: One harness's overlays, by session id, in session id order.
_HarnessOverlays = tuple[tuple[str, Overlay], ...]


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
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
    #: The folded rows they were derived from, by session id (an overlay that moves for one
    #: session re-derives that row alone, see BoardBuilder._rederive).
    folded: Mapping[str, SessionRow] = attrs.field(factory=dict)


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
class _Derived:
    """One session's row as last derived, with what it was derived from (a folded row with
    no children), and when: it stands for a re-read harness's session whose reading and hook
    answers are the very objects they were, like a clean harness's rows (:class:`_Settled`),
    until ``until`` and for at most DERIVED_REUSE_S of board time."""

    until: float
    at: datetime
    source: SessionRow
    overlay: Overlay | None
    row: BoardSession


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
        read_budget_s: float | None = DEFAULT_READ_BUDGET_S,
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
        #: The board-wide passes (window, display ids, order, counts, content digests),
        #: worked out again only for the harnesses whose rows changed.
        self.assembly = BoardAssembly()
        self._strip = HarnessStrip()
        #: One reader per harness: a pass the watchdog abandoned may still be running on its
        #: own thread, and must share no cache with the harnesses that go on.
        self._readers: dict[str, SessionReader] = {}
        #: Bounds each harness's discovery and read pass per build (see :mod:`.watchdog`).
        self.watchdog = Watchdog(read_budget_s)
        #: The harnesses whose read the watchdog abandoned or skipped in the last build, and why.
        self.stuck: dict[str, str] = {}
        self._deriver = RowDeriver()
        #: Per harness, whether its last discovery was for all sessions or the window.
        self._last_all: dict[str, bool] = {}
        self._settled: dict[str, _Settled] = {}
        #: Per session, its row as last derived (see :class:`_Derived`).
        self._derived: dict[SessionKey, _Derived] = {}
        #: Rows derived and rows that stood (tests).
        self.rows_derived = 0
        self.rows_stood = 0
        #: The process table's listing, read at most every few seconds (see :mod:`.liveness`).
        self._listing = Listing(self.processes)

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
        rows: list[tuple[str, tuple[BoardSession, ...]]] = []
        tick = time.monotonic()
        self.stuck = {}
        by_harness: dict[str, list[tuple[str, Overlay]]] = {}
        for (h, sid), o in overlays.items():
            by_harness.setdefault(h, []).append((sid, o))
        for key in self.registry.loaded():
            info = self.registry.harnesses[key]
            record = self.registry.records[key]
            clean = (
                changes is not None
                and key not in changes
                and key in self.last_discovery
                and self._last_all.get(key) == all_sessions
            )
            mine_overlays = tuple(sorted(by_harness.get(key, ()), key=lambda x: x[0]))
            settled = self._settled.get(key)
            if (
                clean
                and settled is not None
                and tick < settled.until
                and settled.all_sessions == all_sessions
                and _NO_TIME <= moment - settled.at < _REUSE
            ):
                # Nothing of this harness's store changed and it was evaluated against the
                # clock less than DERIVED_REUSE_S ago: its rows stand as they were, but for
                # those of the sessions whose overlay (an event) moved since.
                patched = (
                    settled
                    if settled.overlays == mine_overlays
                    else self._rederive(settled, mine_overlays, overlays, moment, home)
                )
                if patched is not None:
                    self._settled[key] = patched
                    entries.append(patched.entry)
                    rows.append((key, patched.rows))
                    continue
            ctx = self.context(
                key,
                now=moment,
                all_sessions=all_sessions,
                changed_paths=None if changes is None else changes.get(key, frozenset()),
            )
            plugin = plugin_of(record)
            reader = self._readers.get(key)
            if reader is None:
                reader = self._readers[key] = SessionReader(self.registry)
            known = self.last_discovery[key] if clean else None
            outcome = self.watchdog.run(key, functools.partial(self._pass, key, info, ctx, reader, known, all_sessions))
            if not isinstance(outcome, Done):
                self._settled.pop(key, None)
                message = self.stuck[key] = _stuck_message(outcome)
                self.registry.record_fault(key, "discover", message, kind="expected")
                entries.append(undiscovered_entry(info, plugin, message))
                continue
            found, read = outcome.value
            if isinstance(found, Fault):
                self._settled.pop(key, None)
                entries.append(undiscovered_entry(info, plugin, found.message))
                continue
            discovery: Discovery = found.value
            self.last_discovery[key] = discovery
            self._last_all[key] = all_sessions
            assert read is not None
            for gone in read.gone:
                self._deriver.forget(gone)
                self._derived.pop(gone, None)
            entry = discovered_entry(info, plugin, discovery)
            # Children fold only onto a parent of their own harness, so each harness's rows
            # are derived on their own.
            folded = fold(read.rows, moment)
            derived = [self._derive(key, r, moment, overlays, home, tick) for r in folded]
            tie = info.process
            derived, starting = apply_liveness(derived, tie, self._listing.of(tie) if tie is not None else None, moment)
            if starting:
                entry = attrs.evolve(entry, starting=starting)
                derived.extend(starting_row(info, process, home) for process in starting)
            entries.append(entry)
            handed = tuple(derived)
            rows.append((key, handed))
            faulted = any(r.faults for r in read.rows) or bool(self.registry.faults.get(key))
            if faulted:
                self._settled.pop(key, None)
            else:
                self._settled[key] = _Settled(
                    until=tick + DERIVED_REUSE_S,
                    overlays=mine_overlays,
                    all_sessions=all_sessions,
                    at=moment,
                    entry=entry,
                    rows=handed,
                    folded={r.reading.ref.session_id: r for r in folded},
                )
        assembled = self.assembly.assemble(rows, moment, window_hours=self.window_hours, all_sessions=all_sessions)
        strip, strip_digests = self._strip.finish(entries, assembled.per_harness, self.registry)
        board = Board(
            schema=SCHEMA,
            revision=self.revision,
            generated_at=moment,
            as_of=moment if as_of else None,
            window_hours=None if all_sessions else self.window_hours,
            all=all_sessions,
            counts=assembled.counts,
            harnesses=tuple(strip),
            sessions=assembled.sessions,
        )
        content = content_hash(board, assembled.digests, strip_digests)
        if content != self._content:
            self._content = content
            self.revision += 1
        return attrs.evolve(board, revision=self.revision)

    def _rederive(
        self,
        settled: _Settled,
        mine: _HarnessOverlays,
        overlays: Mapping[SessionKey, Overlay],
        moment: datetime,
        home: str,
    ) -> _Settled | None:
        """*settled* with the rows of the sessions whose overlay moved derived again (at
        *moment*, liveness applied), the others as they stand; ``None`` when an overlay that
        moved names no row of it (a folded child's): the harness is then read again."""
        before, after = dict(settled.overlays), dict(mine)
        moved = {sid for sid in before.keys() | after.keys() if before.get(sid) != after.get(sid)}
        if any(sid not in settled.folded for sid in moved):
            return None
        # A lane's standing claim (working, a gate) is stamped with the moment it is asked
        # for, so it differs at every build; a row it was derived with still stands.
        moved = {
            sid for sid in moved if not same_but_clock(before.get(sid), after.get(sid), settled.folded[sid].last_active)
        }
        if not moved:
            # The very same rows: the board-wide passes keep this harness's share as it is.
            return attrs.evolve(settled, overlays=mine)
        info = settled.entry
        tie = self.registry.harnesses[info.key].process
        listing = self._listing.of(tie) if tie is not None else None
        rows = list(settled.rows)
        tick = time.monotonic()
        for i, row in enumerate(rows):
            if row.session_id in moved:
                fresh = self._derive(info.key, settled.folded[row.session_id], moment, overlays, home, tick)
                rows[i] = apply_liveness([fresh], tie, listing, moment)[0][0]
        return attrs.evolve(settled, overlays=mine, rows=tuple(rows))

    def _derive(
        self,
        harness: str,
        row: SessionRow,
        moment: datetime,
        overlays: Mapping[SessionKey, Overlay],
        home: str,
        tick: float,
    ) -> BoardSession:
        """*row*'s published row: the one derived last for it when that still stands (its
        reading, hook answers and folding are the very ones, its overlay moved with the clock
        alone, and it was derived less than DERIVED_REUSE_S ago), else derived now."""
        ident = (harness, row.reading.ref.session_id)
        overlay = overlays.get(ident)
        memo = self._derived.get(ident)
        if memo is not None:
            was = memo.source
            if (
                tick < memo.until
                and _NO_TIME <= moment - memo.at < _REUSE
                and was.reading is row.reading
                and was.gate is row.gate
                and was.model is row.model
                and was.usage is row.usage
                and not row.children
                and not row.faults
                and was.last_active == row.last_active
                and was.rate == row.rate
                and (memo.overlay is overlay or same_but_clock(memo.overlay, overlay, row.last_active))
            ):
                self.rows_stood += 1
                return memo.row
        self.rows_derived += 1
        made = self._deriver.derive(row, moment, overlays, home)
        if row.children or row.faults:
            self._derived.pop(ident, None)
        else:
            self._derived[ident] = _Derived(
                until=tick + DERIVED_REUSE_S, at=moment, source=row, overlay=overlay, row=made
            )
        return made

    def _pass(
        self,
        key: str,
        info: HarnessInfo,
        ctx: HarnessContext,
        reader: SessionReader,
        known: Discovery | None,
        all_sessions: bool,
    ) -> tuple[Ok | Fault, ReadPass | None]:
        """One harness's plugin calls for a build: discovery (unless *known*) and the read
        pass. Runs on the harness's watchdog worker; touches nothing another harness uses.
        The database connections the plugin leased for the pass are closed when it returns."""
        try:
            found: Ok | Fault = Ok(known) if known is not None else self.registry.call(key, "discover", ctx=ctx)
            if isinstance(found, Fault):
                return found, None
            discovery: Discovery = found.value
            return found, reader.read(key, info, discovery.sessions, ctx, all_sessions, reuse=known is not None)
        finally:
            passconn.release(ctx)


def _stuck_message(outcome: Overran | Busy) -> str:
    if isinstance(outcome, Overran):
        return (
            f"reading this harness's store took longer than {outcome.budget_s:g} s and was abandoned for this build; "
            "the rest of the board is served (a named pipe or a hung mount in the store?)"
        )
    return (
        f"an earlier read of this harness's store has not returned after {outcome.running_s:.0f} s; "
        "skipped until it does, the rest of the board is served"
    )
