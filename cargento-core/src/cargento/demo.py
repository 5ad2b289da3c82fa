"""``cargento --demo``: a temporary home with live stores for every harness that offers one.

Each harness plugin writes its own native store through its ``simulate`` hook (with the same
store builders its tests use), and a background thread steps every simulation about once a
second, so the board sees turns start and end, tasks advance, subagents come and go and waits
open and close, exactly as it would with the real harnesses. The user's own stores are never
touched: every relocation variable a loaded plugin declares is cleared and every home-like
variable points into the demo home, which is removed when the demo stops.

A simulation may also stand in for the harness's hooks: one with a ``drain_events()`` method
hands over the hook bodies its steps produced (the harness's own JSON, such as a Claude Code
``PostToolUse``), and the demo forwards each, with the harness key, to the sink the dashboard
connects with :meth:`Demo.forward_events` (its event hub's ``ingest``, the path a real hook's
``POST /api/events/<harness>`` takes), so the event-fed surfaces appear in the demo too.

The plugins' simulations share :class:`Schedule`, the one clock-driven scheduler every demo
steps its scripted turns with, and :func:`play`, :func:`seeded_uuid` and :func:`require_inside`
for the picture written at start.
"""

from __future__ import annotations

import math
import random
import shutil
import sys
import tempfile
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.cache import HarnessCache
from cargento.errors import HarnessError
from cargento.models import HarnessContext, Simulation
from cargento.platforms import current_platform
from cargento.plugins import Fault, Registry

__all__ = [
    "EVENTS_HELD",
    "Action",
    "Demo",
    "EventSink",
    "Plan",
    "Schedule",
    "demo_env",
    "play",
    "require_inside",
    "seeded_uuid",
]

#: Hook bodies a demo holds while no sink is connected yet (the oldest go first).
EVENTS_HELD = 256
#: Where a demo's scripted hook bodies go: ``sink(harness_key, body)``.
EventSink = Callable[[str, Mapping[str, Any]], object]

_HOME_VARIABLES = (
    "HOME",
    "USERPROFILE",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "APPDATA",
    "LOCALAPPDATA",
)


def demo_env(base: Mapping[str, str], home: Path, relocation: Iterable[str] = ()) -> dict[str, str]:
    """*base* with the *relocation* variables removed (every one the loaded plugins declare:
    :meth:`cargento.plugins.Registry.relocation_variables`) and every home-like variable in
    *home*, ``CARGENTO_HOME`` included."""
    cleared = set(relocation) | set(_HOME_VARIABLES)
    env = {k: v for k, v in base.items() if k not in cleared}
    env.update(
        {
            "HOME": str(home),
            "USERPROFILE": str(home),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "APPDATA": str(home / "AppData" / "Roaming"),
            "LOCALAPPDATA": str(home / "AppData" / "Local"),
            # Cargento's own stores (the session ends, the features' stores) live in the demo
            # home too: a demo never writes the user's ~/.cargento.
            "CARGENTO_HOME": str(home / ".cargento"),
        }
    )
    return env


#: One scripted write: called once with the moment it is scheduled for (what it returns is ignored).
Action = Callable[[datetime], object]
#: One cycle's script: ``plan(cycle, rng)`` gives ``(offset seconds, action)`` pairs, offsets
#: in ``[0, cycle_s)``, drawing any randomness from *rng* (seeded for that cycle).
Plan = Callable[[int, random.Random], Iterable[tuple[float, Action]]]


class Schedule:
    """A repeating script of timed writes, run against a clock that may misbehave.

    Time from *start* is cut into cycles of *cycle_s* seconds. Cycle ``n`` begins at
    ``start + n * cycle_s`` and holds the events ``plan(n, rng(n))`` returns; an event at offset
    ``o`` is scheduled for ``start + n * cycle_s + o`` and its action is called once, with that
    moment, by the first :meth:`step` whose *now* reaches it. Everything follows from *start*,
    *cycle_s*, *seed* and the plan, so two schedules stepped through the same moments make the
    same calls in the same order; stepping second by second or in one go writes the same, as
    long as no step skips a whole cycle.

    The clock is only trusted to move forward:

    * a *now* at or before the latest one seen (a clock set back, or standing still) runs
      nothing; the schedule goes on once the clock passes that high-water mark again;
    * a *now* in a later cycle first finishes the cycle in hand (cycle 0 until a step lands in
      another; its remaining events, at their scheduled times, all of which lie in the past) and
      then runs the present cycle's events due by *now*; any cycles between are skipped, never
      replayed. One step therefore runs at most the rest of one cycle and part of another,
      however far the clock jumped, and a cycle is planned only when a step reaches it.

    Scheduled moments of the calls never go backwards and never lie after the *now* of the
    step that makes them. An action that raises one of the *tolerate* exceptions (say
    ``OSError`` when the demo home is being removed under a live demo) is skipped and counted
    in :attr:`skipped`; any other exception propagates, and that event is not retried.
    """

    def __init__(
        self,
        start: datetime,
        cycle_s: float,
        plan: Plan,
        *,
        seed: object,
        tolerate: tuple[type[Exception], ...] = (),
    ) -> None:
        if not cycle_s > 0:
            raise ValueError(f"cycle_s must be positive, not {cycle_s!r}")
        self.start = start
        self.cycle_s = float(cycle_s)
        self.plan = plan
        self.seed = seed
        self.tolerate = tolerate
        #: How many actions raised a tolerated exception and were skipped.
        self.skipped = 0
        self._cycle: int | None = None
        self._events: list[tuple[float, Action]] = []
        self._next = 0
        self._seen_s = -math.inf

    @property
    def cycle(self) -> int | None:
        """The cycle in hand (the one the latest step fell in), or ``None`` before any step
        reached the start."""
        return self._cycle

    def rng(self, cycle: int) -> random.Random:
        """The random generator handed to ``plan`` for *cycle*: seeded by the seed and *cycle*."""
        return random.Random(f"{self.seed}:{cycle}")

    def step(self, now: datetime) -> int:
        """Run every action due by *now* (see the class notes for a clock that misbehaves);
        returns how many actions were called."""
        t = (now - self.start).total_seconds()
        if t <= self._seen_s:
            return 0
        self._seen_s = t
        if t < 0:
            return 0
        if self._cycle is None:
            self._enter(0)
        ran = 0
        target = math.floor(t / self.cycle_s)
        if target > (self._cycle or 0):
            ran += self._run(math.inf)  # the rest of the cycle in hand, at its scheduled times
            self._enter(target)
        return ran + self._run(t)

    def _enter(self, cycle: int) -> None:
        events = sorted(self.plan(cycle, self.rng(cycle)), key=lambda event: event[0])
        for offset, _ in events:
            if not 0 <= offset < self.cycle_s:
                raise ValueError(f"cycle {cycle} plans an event at {offset} s, outside [0, {self.cycle_s})")
        self._cycle, self._events, self._next = cycle, events, 0

    def _run(self, upto_s: float) -> int:
        """Call the cycle in hand's actions scheduled at or before *upto_s* seconds from start."""
        assert self._cycle is not None
        base = self._cycle * self.cycle_s
        ran = 0
        while self._next < len(self._events) and base + self._events[self._next][0] <= upto_s:
            offset, act = self._events[self._next]
            self._next += 1  # before the call: an action that raises is never run twice
            ran += 1
            try:
                act(self.start + timedelta(seconds=base + offset))
            except self.tolerate:
                self.skipped += 1
        return ran


def play(events: Iterable[tuple[float, Action]], base: datetime) -> None:
    """Call every ``(offset seconds, action)`` of a script at once, each with ``base + offset``
    (for writing finished turns from earlier when a demo starts), in the order given."""
    for offset, act in events:
        act(base + timedelta(seconds=offset))


def seeded_uuid(rng: random.Random) -> str:
    """A version-4 UUID string drawn from *rng*, so seeded demos name things reproducibly."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def require_inside(path: Path, home: Path, what: str) -> None:
    """Raise :class:`~cargento.errors.HarnessError` unless *path* lies below the demo *home*
    (a store that resolves elsewhere, say through a symlink, must not be written by a demo);
    *what* names the store in the message."""
    try:
        path.resolve().relative_to(home.resolve())
    except ValueError:
        raise HarnessError(f"the {what} store resolves to {path}, outside the demo home; no demo") from None


class Demo:
    """Owns the demo home and the simulations writing into it."""

    def __init__(
        self,
        registry: Registry,
        *,
        base_env: Mapping[str, str],
        clock: Callable[[], datetime] | None = None,
        interval_s: float = 1.0,
        root: Path | None = None,
    ) -> None:
        self.registry = registry
        self.clock = clock or (lambda: datetime.now(UTC))
        self.interval_s = interval_s
        self.home = Path(tempfile.mkdtemp(prefix="cargento-demo-", dir=root))
        self.env = demo_env(base_env, self.home, registry.relocation_variables())
        self.simulations: dict[str, Simulation] = {}
        self.faults: dict[str, str] = {}
        #: Scripted hook bodies the sink refused (events off for this run, a body it rejects).
        self.events_refused = 0
        self._sink: EventSink | None = None
        self._held: deque[tuple[str, Mapping[str, Any]]] = deque(maxlen=EVENTS_HELD)
        self._events_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Write every harness's initial store and start stepping the simulations."""
        now = self.clock()
        for key in self.registry.loaded():
            if not self.registry.implements(key, "simulate"):
                continue
            ctx = HarnessContext(
                now=now, env=self.env, home=self.home, platform=current_platform(), cache=HarnessCache()
            )
            got = self.registry.call(key, "simulate", home=self.home, ctx=ctx)
            if isinstance(got, Fault):
                self.faults[key] = got.message
            elif got.value is not None:
                self.simulations[key] = got.value
        self._thread = threading.Thread(target=self._run, name="cargento-demo", daemon=True)
        self._thread.start()

    def step(self, now: datetime | None = None) -> None:
        """Advance every simulation to *now*; a simulation that raises is dropped and recorded."""
        moment = now or self.clock()
        for key, sim in list(self.simulations.items()):
            try:
                sim.step(moment)
                drain = getattr(sim, "drain_events", None)
                bodies = list(drain()) if callable(drain) else []
            except Exception as exc:  # a broken demo must not stop the others
                self.faults[key] = f"{type(exc).__name__}: {exc}"
                del self.simulations[key]
                # Said when it happens: the showroom lost one harness's live session.
                print(f"cargento: the demo of {key} stopped: {self.faults[key]}", file=sys.stderr, flush=True)
                continue
            for body in bodies:
                self._deliver(key, body)

    def forward_events(self, sink: EventSink) -> None:
        """Send every scripted hook body to *sink* from now on (those held so far first).

        *sink* is called from the demo's stepping thread, as ``sink(harness_key, body)``; an
        exception it raises refuses that body alone (counted in :attr:`events_refused`).
        """
        with self._events_lock:
            self._sink = sink
            held = list(self._held)
            self._held.clear()
        for key, body in held:
            self._deliver(key, body)

    def _deliver(self, key: str, body: Mapping[str, Any]) -> None:
        with self._events_lock:
            sink = self._sink
            if sink is None:
                self._held.append((key, body))
                return
        try:
            sink(key, body)
        except Exception:  # events off, or a body the hub rejects: the demo goes on
            self.events_refused += 1

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.step()

    def stop(self) -> None:
        """Stop stepping and remove the demo home."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for sim in self.simulations.values():
            close = getattr(sim, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:  # closing a demo store must not stop the cleanup
                    pass
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> Demo:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
