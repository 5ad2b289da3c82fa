"""Watching a plugin's ``cargento --demo`` simulation through the board, on a test clock.

A demo test steps the simulation to chosen moments and looks at the board a viewer would see
then::

    viewer = DemoViewer(tmp_path / "home", plugin, "gemini")
    row = viewer.row_of(viewer.at(30), session_id)   # step to START + 30 s, then build
    assert row.state == "working"
    assert_going_back_writes_nothing(viewer.demo, viewer.moment(50), lambda: snapshot_tree(viewer.home))

:class:`DemoViewer` starts the simulation in a fresh demo home (the ``simulate`` hook, or any
factory), with the environment ``cargento --demo`` gives it, and builds boards over that home
with a builder whose clock is the viewer's. Every board it builds fails the test on any harness
fault.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Generic, TypeVar

from cargento.board import Board, BoardBuilder, BoardSession
from cargento.demo import demo_env
from cargento.models import HarnessContext, Simulation
from cargento.plugins import load_registry
from cargento.processes import ProcessTable, StaticProcesses
from cargento.testing.homes import make_context

__all__ = ["DEMO_START", "DemoViewer", "assert_going_back_writes_nothing", "board_at", "squash"]

#: The moment demo tests start their simulations at, unless they choose another.
DEMO_START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

D = TypeVar("D", bound=Simulation)
T = TypeVar("T")


def board_at(builder: BoardBuilder, at: datetime) -> Board:
    """The whole board (history included) as *builder* sees it at *at*; the test fails on any
    harness fault recorded while building it."""
    builder.clock = lambda: at
    board = builder.build(all_sessions=True)
    faults = [f for fs in builder.registry.faults.values() for f in fs]
    assert not faults, [(f.harness, f.hook, f.message) for f in faults]
    return board


def squash(values: Iterable[T]) -> list[T]:
    """*values* with each run of equal neighbours kept once: ``idle idle working idle`` becomes
    ``idle working idle``, the sequence of states a viewer saw."""
    out: list[T] = []
    for value in values:
        if not out or out[-1] != value:
            out.append(value)
    return out


class DemoViewer(Generic[D]):
    """A demo home, the simulation writing it and a board builder over it, on one test clock.

    *plugin* is registered under *key* for the board (a plugin module, or any object with hook
    implementations). *make* builds the simulation from the demo home and a context at *start*
    (default: the plugin's ``simulate`` hook, which must offer one); *env* defaults to the environment
    ``cargento --demo`` sets (:func:`cargento.demo.demo_env`), *processes* to an empty table.
    """

    def __init__(
        self,
        home: Path,
        plugin: Any,
        key: str,
        make: Callable[[Path, HarnessContext], D] | None = None,
        *,
        start: datetime = DEMO_START,
        env: dict[str, str] | None = None,
        processes: ProcessTable | None = None,
    ) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        self.start = start
        self.now = start
        self.env = env if env is not None else demo_env({}, home)
        ctx = make_context(home, env=self.env, now=start, window_s=None)
        if make is None:
            made = plugin.simulate(home=home, ctx=ctx)
            assert made is not None, f"{key} offers no demo"
            self.demo: D = made
        else:
            self.demo = make(home, ctx)
        self.registry = load_registry(entry_points=False, extra=[(key, plugin)])
        self.builder = BoardBuilder(
            self.registry,
            env=self.env,
            home=home,
            clock=lambda: self.now,
            processes=processes if processes is not None else StaticProcesses(),
        )

    def moment(self, seconds: float) -> datetime:
        """The moment *seconds* after the start."""
        return self.start + timedelta(seconds=seconds)

    def step(self, seconds: float) -> None:
        """Step the simulation to *seconds* after the start, without building a board."""
        self.demo.step(self.moment(seconds))

    def at(self, seconds: float) -> Board:
        """Step the simulation to *seconds* after the start and build the board then."""
        self.now = self.moment(seconds)
        self.demo.step(self.now)
        return self.board(self.now)

    def board(self, at: datetime) -> Board:
        """The board at *at*, without stepping the simulation."""
        self.now = at
        return board_at(self.builder, at)

    @staticmethod
    def row_of(board: Board, session_id: str) -> BoardSession:
        """The row of *session_id* on *board* (the test fails when there is none)."""
        rows = [s for s in board.sessions if s.session_id == session_id]
        assert rows, f"no row for {session_id}: {[s.session_id for s in board.sessions]}"
        return rows[0]


def assert_going_back_writes_nothing(demo: Simulation, at: datetime, snapshot: Callable[[], object]) -> None:
    """Step *demo* to *at*, then back a little, back a day and to *at* again: a clock going
    backwards (a suspended laptop, a corrected clock) must write nothing, so *snapshot* (what
    the store looks like, e.g. ``lambda: snapshot_tree(home)``) is the same before and after."""
    demo.step(at)
    before = snapshot()
    for moment in (at - timedelta(seconds=20), at - timedelta(days=1), at):
        demo.step(moment)
    assert snapshot() == before
