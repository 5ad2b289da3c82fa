"""The live board: rebuilt when the stores change, published only when its content changed.

A :class:`LiveBoard` keeps one :class:`Feed` per flavour of board (the display window, and
``?all=1``). A feed with no stream subscriber does nothing at all; ``/api/data`` builds on
request then. While a page holds a stream, the feed watches the harness store roots from the
last discovery (inotify read on the loop itself on Linux, :mod:`.runtime.inotify`; watchfiles
elsewhere), builds a change at once and coalesces the rest of a burst into one rebuild per
``debounce_s``, and runs a slow timer every ``rescan_s``, however often the stores change
meanwhile: each harness's discovery (what a plugin notices on the clock itself, and what no
change event reports) and, every ``full_sweep_s``, a full sweep. Between them the builder
re-derives every harness's rows against the clock on each build (a turn read as ended after
90 s of quiet). A new board revision is pushed to subscribers only when the board's content
changed.

While a raise lane is on (a hub whose ``needs_fixed_scan`` is true: the desktop
notifications or a listener such as the reach nudges), the same slow timer keeps the default
board warm with no page open, events on or off: one build per ``rescan_s``, handed to the hub,
so a wait only a store records (Copilot's, Cursor's, a transcript's) still raises, and an end
is still read, with no browser attached. An event still asks for its own rebuild at once. A
hub with ``tick(now)`` is also ticked between builds, when its ``next_due(now)`` says a raise
held back (its confirmation delay, a floor, quiet hours) is due, and woken early through
``hub.alerts.on_schedule`` when a raise starts being held: nothing runs while nothing is held.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from cargento.board import Board, BoardBuilder
from cargento.models import Discovery

from cargento_web.extensions import Extensions
from cargento_web.order import StableOrder
from cargento_web.settings import Settings
from cargento_web.workerthreads import run_in_worker

if TYPE_CHECKING:
    from cargento_web.runtime import inotify

__all__ = ["Feed", "LiveBoard", "watch_targets"]

log = logging.getLogger("cargento_web")

#: A board built this recently is reused by ``/api/data`` even with no stream open.
REUSE_S = 1.0
#: The longest the raise ticker sleeps without being woken (a wall-clock jump, a suspend).
TICK_MAX_S = 300.0
#: The shortest (a due moment already passed is judged at once, then after this).
TICK_MIN_S = 0.02


def _set_threadsafe(loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
    """Set *event* from any thread (the alerts call this from the ingesting or building one)."""
    if loop.is_closed():
        return
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(event.set)


def watch_targets(builder: BoardBuilder) -> tuple[frozenset[str], frozenset[str]]:
    """The paths to watch after the builder's last discovery.

    Returns ``(recursive, shallow)``: every present store directory is watched recursively;
    a present store file (a SQLite database) and the nearest parent of a missing root are
    watched shallowly, so a store that appears or a ``-wal`` that grows is noticed without
    walking a whole home directory.
    """
    deep: set[str] = set()
    shallow: set[str] = set()
    for discovery in builder.last_discovery.values():
        for loc in getattr(discovery, "locations", ()):
            path = Path(loc.path)
            try:
                if path.is_dir():
                    deep.add(str(path))
                elif path.exists() or (path.parent.is_dir() and len(path.parent.parts) > 1):
                    # A store file (its -wal beside it), or the parent a missing root appears in;
                    # never the filesystem root.
                    shallow.add(str(path.parent))
            except OSError:
                continue
    shallow -= deep
    return frozenset(deep), frozenset(shallow)


class Feed:
    """One flavour of the board, its subscribers and its rebuild loop."""

    def __init__(self, builder: BoardBuilder, *, all_sessions: bool) -> None:
        self.builder = builder
        self.all_sessions = all_sessions
        self.board: Board | None = None
        self.built_at = 0.0
        #: When the build that made :attr:`board` began (monotonic).
        self.begun_at = 0.0
        self.subscribers: set[asyncio.Queue[int | None]] = set()
        self.dirty = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.published = -1
        #: What changed since the last build, per harness (the watcher's paths); ``None``
        #: means "unknown": the next build rediscovers every store.
        self.pending: dict[str, set[str]] | None = None
        #: True while the only reason to rebuild is an event-hub change (no store moved), so
        #: the rebuild skips the store debounce.
        self.hub_only = False
        #: When this feed last rediscovered every store (monotonic seconds).
        self.full_at = 0.0
        #: When the slow timer last let every harness do its clock-driven work (monotonic).
        self.slow_at = time.monotonic()
        #: The order rows are published in: a row moves only when its state changes.
        self.order = StableOrder()
        #: The published revision: it moves when the builder's does or when an extension's
        #: share of the document did (``(builder revision, extension generation)``).
        self.revision = 0
        self._revision_of: tuple[int, int] | None = None
        #: When the first change since the last publication was noticed (monotonic).
        self.dirty_since: float | None = None
        #: The build running now (its board once done), for a request that finds no board
        #: to share it instead of queueing a second build behind it.
        self.building: asyncio.Future[Board] | None = None

    def stamp(self, board: Board, generation: int) -> Board:
        """*board* carrying the published revision for its content and the extensions'."""
        of = (board.revision, generation)
        if of != self._revision_of:
            self._revision_of = of
            self.revision += 1
        return board if board.revision == self.revision else attrs.evolve(board, revision=self.revision)

    def note_paths(self, paths: Iterable[str]) -> None:
        """Record changed store paths; a path no harness owns forces a full rescan."""
        if self.pending is None:
            return
        for path in paths:
            key = self.builder.harness_for_path(path)
            if key is None:
                self.pending = None
                return
            self.pending.setdefault(key, set()).add(path)

    def touch_all(self) -> None:
        """Let every harness re-run discovery with what changed so far (possibly nothing),
        so plugins that track clock-driven changes themselves get their turn."""
        if self.pending is None:
            return
        for key in self.builder.registry.loaded():
            self.pending.setdefault(key, set())

    def take_changes(self) -> dict[str, frozenset[str]] | None:
        """The changes to build with, and a clean slate for the next ones."""
        taken = None if self.pending is None else {k: frozenset(v) for k, v in self.pending.items()}
        self.pending = {}
        return taken

    @property
    def live(self) -> bool:
        return bool(self.subscribers)

    def publish(self, revision: int | None) -> None:
        for queue in list(self.subscribers):
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(revision)


class LiveBoard:
    """The boards a dashboard serves, built on demand or kept live for open pages.

    *hub* is the optional event hub: when present its ``overlays(now)`` are applied to every
    build and, if it has ``on_board(board)``, it is handed each board built.
    """

    def __init__(
        self,
        builder: BoardBuilder,
        settings: Settings,
        hub: object | None = None,
        *,
        extensions: Extensions | None = None,
    ) -> None:
        self.settings = settings
        self.hub = hub
        self.extensions = extensions if extensions is not None else Extensions()
        self._builders = {settings.all_sessions: builder}
        self._base = builder
        self.feeds: dict[bool, Feed] = {}
        self._lock = threading.Lock()
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._watching: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        #: The discoveries the watches were last set from (compared by identity).
        self._watched_from: tuple[Discovery, ...] = ()
        self._watch_stop: asyncio.Event | None = None
        self._inotify: inotify.InotifyWatch | None = None
        self._kick: asyncio.Task[None] | None = None
        self._warm: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._tick_wake: asyncio.Event | None = None
        #: Number of times the hub's held-back raises were judged by the ticker (tests).
        self.ticks = 0
        #: Number of boards built, for tests and ``/api/health``-free diagnostics.
        self.builds = 0
        #: When anything last made a built board out of date (monotonic): a board begun
        #: before it is never handed out as fresh, so a read after an accepted event sees it.
        self._changed_at = 0.0
        #: An invalidate is scheduled on the loop and has not run yet.
        self._invalidating = False
        #: The thread handing a build to the features, while it does.
        self._features_thread: int | None = None

    def latest(self) -> Board | None:
        """The board most recently built of the default flavour (``None`` before the first)."""
        feed = self.feeds.get(self.settings.all_sessions)
        return feed.board if feed is not None else None

    # -- builders -----------------------------------------------------------------------

    def builder(self, all_sessions: bool) -> BoardBuilder:
        """The builder of one flavour; each keeps its own revision and plugin caches."""
        found = self._builders.get(all_sessions)
        if found is None:
            b = self._base
            found = BoardBuilder(
                b.registry,
                env=b.env,
                home=b.home,
                platform=b.platform,
                window_hours=b.window_hours,
                clock=b.clock,
                processes=b.processes,
            )
            self._builders[all_sessions] = found
        return found

    def feed(self, all_sessions: bool) -> Feed:
        found = self.feeds.get(all_sessions)
        if found is None:
            found = self.feeds[all_sessions] = Feed(self.builder(all_sessions), all_sessions=all_sessions)
        return found

    def _build_sync(self, feed: Feed, changes: dict[str, frozenset[str]] | None = None) -> Board:
        with self._lock:
            builder = feed.builder
            now = builder.clock()
            overlays = None
            if self.hub is not None and hasattr(self.hub, "overlays"):
                overlays = self.hub.overlays(now)
            started = time.perf_counter()
            board = builder.build(
                now=now, all_sessions=feed.all_sessions, overlays=overlays, as_of=self.settings.as_of, changes=changes
            )
            self.extensions.timing("collection", time.perf_counter() - started)
            self.builds += 1
            on_board: Callable[[Board], Any] | None = getattr(self.hub, "on_board", None)
            if on_board is not None:
                try:
                    amended = on_board(board)
                except Exception:  # the hub's problem must not stop the board
                    log.exception("the event hub failed to take a board")
                else:
                    if isinstance(amended, Board):
                        board = amended
            self._features_thread = threading.get_ident()
            try:
                self.extensions.on_board(board)
            finally:
                self._features_thread = None
            return feed.stamp(board, self.extensions.generation)

    async def _build(self, feed: Feed) -> Board:
        begun = time.monotonic()
        changes = feed.take_changes() if feed.live else None
        if not feed.live:
            feed.pending = None
        if changes is None:
            feed.full_at = feed.slow_at = time.monotonic()
        running: asyncio.Future[Board] = asyncio.get_running_loop().create_future()
        feed.building = running
        try:
            built = await run_in_worker(self._build_sync, feed, changes)
            # What moved on it was worked out for the features already (the order only peeks).
            board = feed.order.apply(built, self.extensions.changes.peek(built))
        except BaseException as exc:
            running.set_exception(exc)
            running.exception()  # a failed build is its caller's to report; no waiter is needed
            raise
        finally:
            if feed.building is running:
                feed.building = None
        feed.board = board
        feed.built_at = time.monotonic()
        feed.begun_at = begun
        running.set_result(board)
        return board

    # -- the API ------------------------------------------------------------------------

    async def board(self, all_sessions: bool) -> Board:
        """The current board: the live one while a page streams it, else a fresh build."""
        feed = self.feed(all_sessions)
        fresh = (
            feed.board is not None and time.monotonic() - feed.built_at < REUSE_S and feed.begun_at > self._changed_at
        )
        if feed.board is not None and (feed.live or fresh):
            # An extension's share may have moved since the build: the revision says so.
            feed.board = feed.stamp(feed.board, self.extensions.generation)
            return feed.board
        running = feed.building
        if running is not None and feed.board is None:
            # The first board is being built (the fixed-interval scan or the hub's kick began
            # it at start): answer with it, as soon as it exists, rather than building a
            # second one behind it.
            try:
                board = await asyncio.shield(running)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # this request itself is being cancelled
                # The build was its stream's, and the stream closed under it: this request
                # still wants a board.
                return await self._build(feed)
            return feed.stamp(board, self.extensions.generation)
        return await self._build(feed)

    def invalidate(self) -> None:
        """Mark every live board out of date (thread-safe); the event hub calls this when an
        overlay changes, since no store file did.

        Calls made before the loop has taken the last one are one: an event reaches here
        twice (the hub's subscribers, then the ingress route's answer), and a second build
        queued behind the first held the GIL while the first revision was being sent."""
        loop = self._loop
        if loop is None or loop.is_closed() or self._invalidating:
            return
        self._invalidating = True
        try:
            loop.call_soon_threadsafe(self._invalidated)
        except RuntimeError:
            self._invalidating = False

    def extension_changed(self) -> None:
        """A feature's share of the document moved: publish a new revision. Said from inside
        the features' ``on_board`` of a build, the build under way stamps it already (its
        revision is taken after them), so no second build follows; said from anywhere else,
        the boards are rebuilt as for :meth:`invalidate`."""
        if self._features_thread == threading.get_ident():
            return
        self.invalidate()

    def _invalidated(self) -> None:
        # Cleared before marking: an invalidate that sees the flag still set is covered by
        # the build this mark causes.
        self._invalidating = False
        self._mark_dirty(None, True)

    def _mark_dirty(self, paths: Iterable[str] | None = None, hub: bool = False) -> None:
        """A rebuild is due: because store *paths* changed, or (``hub``) an overlay changed
        with no store write, or (neither) for an unknown reason that rescans everything."""
        self._changed_at = time.monotonic()
        live = [feed for feed in self.feeds.values() if feed.live]
        for feed in live:
            if hub:
                feed.hub_only = not feed.dirty.is_set() or feed.hub_only
            else:
                feed.hub_only = False
                if paths is None:
                    feed.pending = None
                else:
                    feed.note_paths(paths)
            if feed.dirty_since is None:
                feed.dirty_since = time.monotonic()
            feed.dirty.set()
        idle_kick = self._kick is None or self._kick.done()
        watched = hasattr(self.hub, "on_board") or bool(self.extensions.items)
        if not live and watched and not self._closing and idle_kick:
            # No page is open, but the hub reads every board (its notifications): one
            # coalesced build of the default board, and nothing more.
            self._kick = asyncio.get_running_loop().create_task(self._kick_build())

    async def _kick_build(self) -> None:
        await asyncio.sleep(self.settings.debounce_s)
        try:
            await self._build(self.feed(self.settings.all_sessions))
        except Exception:
            log.exception("building the board for the event hub failed")

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remember the serving loop, so :meth:`invalidate` works before any page opens, and
        start the fixed-interval scan when the hub needs one."""
        self._loop = loop
        if self.fixed_scan and not self._closing and (self._warm is None or self._warm.done()):
            self._warm = loop.create_task(self._keep_warm(), name="cargento-fixed-scan")
        tick: Callable[[], Any] | None = getattr(self.hub, "tick", None)
        if tick is not None and not self.settings.as_of and (self._ticker is None or self._ticker.done()):
            self._ticker = loop.create_task(self._tick(tick), name="cargento-raise-tick")

    async def _tick(self, tick: Callable[[], Any]) -> None:
        """Judge the hub's held-back raises when the next is due (``hub.next_due``), sleeping
        until then or until the hub says a raise started being held; off the event loop, since
        a judgement may ask tmux whether a pane is in front of you."""
        wake = self._tick_wake = asyncio.Event()
        loop = asyncio.get_running_loop()
        alerts = getattr(self.hub, "alerts", None)
        on_schedule: Callable[[Callable[[], None]], Any] | None = getattr(alerts, "on_schedule", None)
        if on_schedule is not None:
            on_schedule(lambda: _set_threadsafe(loop, wake))
        next_due: Callable[[], Any] | None = getattr(self.hub, "next_due", None)
        clock: Callable[[], Any] | None = getattr(self.hub, "clock", None)
        while not self._closing:
            wake.clear()  # before reading the schedule, so a raise held meanwhile still wakes it
            delay = TICK_MAX_S
            if next_due is not None and clock is not None:
                due = next_due()
                if due is not None:
                    delay = min(max((due - clock()).total_seconds(), TICK_MIN_S), TICK_MAX_S)
            else:
                delay = 1.0  # a hub that cannot say when: judged every second
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout=delay)
            if self._closing:
                break
            if wake.is_set() and next_due is not None and clock is not None:
                due = next_due()
                if due is None or due > clock():
                    continue  # woken with nothing due yet: sleep until it is
            try:
                self.ticks += 1
                await run_in_worker(tick)
            except Exception:
                log.exception("the event hub failed to judge its held-back raises")

    @property
    def fixed_scan(self) -> bool:
        """True when the board is rebuilt on the slow timer even with no page open: a raise
        lane of the hub is on, and the board is not a replay of a fixed moment."""
        return bool(getattr(self.hub, "needs_fixed_scan", False)) and not self.settings.as_of

    async def _keep_warm(self) -> None:
        """The fixed-interval scan: build the default board every ``rescan_s`` while no page
        streams one (an open page's own feed already rebuilds on that timer)."""
        while not self._closing:
            if not any(feed.live for feed in self.feeds.values()):
                try:
                    await self._build(self.feed(self.settings.all_sessions))
                except Exception:
                    log.exception("the fixed-interval scan failed to build the board")
            await asyncio.sleep(self.settings.rescan_s)

    @contextlib.asynccontextmanager
    async def subscribe(self, all_sessions: bool) -> AsyncIterator[asyncio.Queue[int | None]]:
        """Follow one board flavour: the queue yields each new revision (``None`` on close)."""
        self._loop = asyncio.get_running_loop()
        feed = self.feed(all_sessions)
        queue: asyncio.Queue[int | None] = asyncio.Queue(maxsize=1)
        feed.subscribers.add(queue)
        if self._closing:
            queue.put_nowait(None)
        elif feed.task is None or feed.task.done():
            feed.task = asyncio.create_task(self._run(feed), name=f"cargento-feed-{all_sessions}")
        try:
            yield queue
        finally:
            feed.subscribers.discard(queue)
            if not feed.subscribers and feed.task is not None:
                feed.task.cancel()
                feed.task = None
            if not any(f.live for f in self.feeds.values()):
                await self._stop_watcher()

    async def _run(self, feed: Feed) -> None:
        """Keep one feed current while it has subscribers."""
        try:
            while feed.live and not self._closing:
                noticed, feed.dirty_since = feed.dirty_since, None
                board = await self._build(feed)
                if board.revision != feed.published:
                    feed.published = board.revision
                    feed.publish(board.revision)
                    if noticed is not None:
                        self.extensions.timing("sse", time.monotonic() - noticed)
                if self._discovered_since_watch():
                    # The revision's stream frames are written first: setting the watches
                    # again stats every store root.
                    await asyncio.sleep(0)
                    self._rewatch()
                # The slow timer runs every rescan_s whether or not changes keep coming: on a
                # busy machine (a store written every second) a wait for quiet would never
                # end, and a harness nobody writes to would never be rediscovered.
                due = feed.slow_at + self.settings.rescan_s - time.monotonic()
                if due > 0 and not feed.dirty.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(due):
                            await feed.dirty.wait()
                now = time.monotonic()
                if now - feed.slow_at >= self.settings.rescan_s:
                    # Every harness rediscovers with the paths changed so far (an incremental
                    # plugin then does only its clock-driven work); every full_sweep_s
                    # everything is rediscovered from scratch, the stat sweep covering
                    # filesystems without change events.
                    feed.slow_at = now
                    if now - feed.full_at >= self.settings.full_sweep_s:
                        feed.pending = None
                    else:
                        feed.touch_all()
                if not feed.hub_only:
                    # At most one store-driven build per debounce_s: a write after a quiet
                    # while is built at once, the rest of a burst waits out the interval
                    # and is built together.
                    since = time.monotonic() - feed.built_at
                    if since < self.settings.debounce_s:
                        await asyncio.sleep(self.settings.debounce_s - since)
                feed.hub_only = False
                feed.dirty.clear()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the live board stopped rebuilding")

    # -- the file watcher ---------------------------------------------------------------

    def _discovered_since_watch(self) -> bool:
        """Did any builder discover anew since the watches were last set (or are they not
        set)? A build that rediscovered nothing (an event's, a clean store's) watches what
        the last one did."""
        if not self.settings.watch:
            return False
        current = [d for b in self._builders.values() for d in b.last_discovery.values()]
        kept = self._watched_from
        return not (
            self._watch_alive()
            and len(current) == len(kept)
            and all(a is b for a, b in zip(current, kept, strict=True))
        )

    def _rewatch(self) -> None:
        if not self.settings.watch:
            return
        self._watched_from = tuple(d for b in self._builders.values() for d in b.last_discovery.values())
        deep: set[str] = set()
        shallow: set[str] = set()
        for builder in self._builders.values():
            d, s = watch_targets(builder)
            deep |= d
            shallow |= s
        targets = (frozenset(deep), frozenset(shallow - deep))
        if targets == self._watching and self._watch_alive():
            return
        self._end_watch()
        self._watching = targets
        # The watcher is imported when a page first holds a stream, not at start.
        from cargento_web.runtime import inotify

        if inotify.available():
            try:
                watch = inotify.InotifyWatch(targets[0], targets[1], self._on_inotify)
            except OSError as exc:
                log.info("watching the stores with watchfiles: inotify refused (%s)", exc)
            else:
                watch.start(asyncio.get_running_loop())
                self._inotify = watch
                return
        self._watch_stop = asyncio.Event()
        self._watcher = asyncio.create_task(self._watch(targets, self._watch_stop), name="cargento-watch")

    def _watch_alive(self) -> bool:
        if self._inotify is not None:
            return True
        return self._watcher is not None and not self._watcher.done()

    def _end_watch(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None
        if self._watch_stop is not None:
            self._watch_stop.set()
        if self._watcher is not None:
            self._watcher.cancel()

    def _on_inotify(self, paths: list[str] | None) -> None:
        if paths is None:
            # A queue overflow or a watched root gone: rescan everything, and set the watches
            # again from the next discovery.
            self._watching = (frozenset(), frozenset())
            self._watched_from = ()
        self._mark_dirty(paths)

    async def _watch(self, targets: tuple[frozenset[str], frozenset[str]], stop: asyncio.Event) -> None:
        deep, shallow = targets
        tasks = []
        if deep:
            tasks.append(asyncio.create_task(self._watch_group(deep, True, stop)))
        if shallow:
            tasks.append(asyncio.create_task(self._watch_group(shallow, False, stop)))
        try:
            if tasks:
                await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()

    async def _watch_group(self, paths: Iterable[str], recursive: bool, stop: asyncio.Event) -> None:
        from watchfiles import awatch

        try:
            async for changes in awatch(
                *sorted(paths),
                stop_event=stop,
                recursive=recursive,
                debounce=250,
                step=20,
                rust_timeout=1000,
                ignore_permission_denied=True,
            ):
                self._mark_dirty([path for _change, path in changes])
        except (OSError, RuntimeError) as exc:
            # A watched root vanished or the platform refused a watch: the slow timer still
            # runs, and the next build picks new targets.
            log.warning("watching the stores stopped: %s", exc)
            self._watching = (frozenset(), frozenset())

    async def _stop_watcher(self) -> None:
        watcher = self._watcher
        self._end_watch()
        if watcher is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
        self._watcher = None
        self._watching = (frozenset(), frozenset())

    @property
    def watching(self) -> tuple[frozenset[str], frozenset[str]]:
        """The (recursive, shallow) paths watched now; empty while no page is open."""
        if not self._watch_alive():
            return (frozenset(), frozenset())
        return self._watching

    async def close(self) -> None:
        """End every stream (their queues get ``None``) and stop all background work."""
        self._closing = True
        if self._kick is not None:
            self._kick.cancel()
        if self._warm is not None:
            self._warm.cancel()
        if self._ticker is not None:
            self._ticker.cancel()
        for feed in self.feeds.values():
            feed.publish(None)
            if feed.task is not None:
                feed.task.cancel()
                feed.task = None
        await self._stop_watcher()
