"""``DemoContract``: the checks every harness's ``cargento --demo`` simulation must pass.

Subclass it in ``tests/test_demo.py``::

    class TestMyDemo(DemoContract[MyDemo]):
        plugin = my_plugin_module
        key = "mine"
        demo_type = MyDemo
        cycle_s = CYCLE_S
        jump_from_s, jump_to_s, jump_most = 30, 2 * 24 * 3600 + 8, 15

        def written(self, viewer):
            return len(viewer.demo.live.path.read_text().splitlines())

and add the harness's own tests (what its rows show through a cycle) as methods beside them,
using :meth:`DemoContract.viewer`.

The contract checks: the ``simulate`` hook offers the demo; a board at the start shows
finished sessions of this harness; within the first cycle a live session works and stepping
writes its records; the schedule is
deterministic, and stepping second by second or in one go writes the same; nothing is written
outside the demo home (nor a scratch directory made elsewhere); a clock going back writes
nothing; a clock jumping days ahead finishes the turn in hand and starts the present one
without replaying every missed turn; a demo whose live sessions rotate past a size bound
starts a new one every turn and keeps only so many retired ones; where the demo honours a relocation variable, it writes
the relocated store inside the home and the board reads it there; and a store that would
resolve outside the demo home is refused with :class:`~cargento.HarnessError`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

import pytest

from cargento.board import Board
from cargento.demo import demo_env
from cargento.errors import HarnessError
from cargento.models import HarnessContext, Simulation
from cargento.processes import ProcessTable
from cargento.testing.demo import DEMO_START, DemoViewer, assert_going_back_writes_nothing
from cargento.testing.homes import make_context, snapshot_tree

__all__ = ["DemoContract", "demo_tree"]

D = TypeVar("D", bound=Simulation)

#: How long before the start a session's last write must lie to count as finished.
_FINISHED_BEFORE = timedelta(minutes=10)


def demo_tree(home: Path) -> dict[str, tuple[int, bytes]]:
    """Every file below *home* (``-shm`` files aside): its mtime and its content, with the home's
    path taken out of both its name and its bytes, so two demo homes stepped alike compare equal."""
    needle = str(home)
    out: dict[str, tuple[int, bytes]] = {}
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.name.endswith("-shm"):
            out[str(path.relative_to(home))] = (
                path.stat().st_mtime_ns,
                path.read_bytes().replace(needle.encode(), b"~"),
            )
    return out


class DemoContract(Generic[D]):
    """Base class of every harness plugin's demo tests (``tests/test_demo.py``)."""

    #: The plugin module (the entry-point target), or any object carrying its hook functions.
    #: Not a ``ClassVar``: mypy reads a module assigned in a class body (``plugin = plugin``)
    #: as an instance variable, and would reject every subclass that sets it.
    plugin: Any
    #: The harness id (the entry-point name).
    key: ClassVar[str]
    #: The simulation class the ``simulate`` hook returns.
    demo_type: ClassVar[type[Simulation]]
    #: What the ``simulate`` hook returns, when that is not ``demo_type`` itself (a plugin
    #: whose demo steps several simulations together).
    offered_type: ClassVar[type[Simulation] | None] = None
    #: The length of one scripted cycle, in seconds.
    cycle_s: ClassVar[float]
    #: The moment the demo starts at.
    start: ClassVar[datetime] = DEMO_START
    #: The seconds after the start the determinism check steps two demos through.
    schedule: ClassVar[tuple[float, ...]] = (3, 17, 40, 41, 95, 150, 400)
    #: How far the "second by second or in one go" check steps (default: to the end of the
    #: second cycle; a step in one go that skips a whole cycle is a jump, which writes less).
    stepwise_s: ClassVar[int | None] = None
    #: How long the "nothing outside the home" check runs, in seconds (default three cycles),
    #: and the options it builds the demo with (say, ones that make it rotate every turn).
    outside_s: ClassVar[float | None] = None
    outside_options: ClassVar[Mapping[str, int]] = {}
    #: The moment (seconds after the start) the "clock going back" check stands at.
    back_at_s: ClassVar[float] = 50
    #: The forward jump: from a moment mid-turn to one days later, and the most it may write,
    #: in the units of :meth:`written`.
    jump_from_s: ClassVar[float]
    jump_to_s: ClassVar[float]
    jump_most: ClassVar[int]
    #: The demo's option bounding a live session's size (``"max_bytes"``): set to 1, every turn
    #: retires the live session and starts a new one; None when the demo has none. The
    #: demo keeps at most :attr:`rotation_kept` retired sessions per live one, of which it has
    #: :attr:`live_sessions`; the check looks at :attr:`rotation_at_s` into each cycle.
    rotate_option: ClassVar[str | None] = None
    rotation_kept: ClassVar[int] = 0
    live_sessions: ClassVar[int] = 1
    rotation_at_s: ClassVar[float] = 20
    #: The folder below the home the demo writes its store in (``".claude"``): the refusal
    #: check makes it a link to a folder outside the home.
    store_folder: ClassVar[str]
    #: A relocation variable the demo honours and where the store lies below the home when it
    #: is unset (``("CLAUDE_CONFIG_DIR", ".claude")``); None when the demo honours none.
    relocation: ClassVar[tuple[str, str] | None] = None

    # -- what a subclass may supply -------------------------------------------------------

    def make_demo(self, home: Path, ctx: HarnessContext, **options: Any) -> D:
        """Build the simulation in *home*: with no *options* through the plugin's ``simulate``
        hook, with *options* as ``demo_type(home, ctx, **options)``. Override when the
        simulation needs more (a process to stand for, say)."""
        if options:
            return self.demo_type(home, ctx, **options)  # type: ignore[call-arg,return-value]
        made = self.plugin.simulate(home=home, ctx=ctx)
        assert made is not None, f"{self.key} offers no demo"
        return made  # type: ignore[no-any-return]

    def processes(self) -> ProcessTable | None:
        """The process table the board sees (default: an empty one)."""
        return None

    def snapshot(self, viewer: DemoViewer[D]) -> object:
        """What the store looks like, for the "clock going back" check."""
        return snapshot_tree(viewer.home)

    def shape(self, viewer: DemoViewer[D]) -> object:
        """What the demo has written, comparable across two homes (default: :func:`demo_tree`)."""
        return demo_tree(viewer.home)

    def written(self, viewer: DemoViewer[D]) -> int:
        """How much the demo has written (default: the bytes of every file below the home)."""
        return sum(p.stat().st_size for p in viewer.home.rglob("*") if p.is_file())

    def jump_bound(self, viewer: DemoViewer[D]) -> int:
        """The most the forward jump may write (default: :attr:`jump_most`); an override may
        step *viewer* to measure what one cycle writes, as long as it stays before
        :attr:`jump_from_s`."""
        return self.jump_most

    def live_id(self, viewer: DemoViewer[D]) -> str:
        """The session id of the (first) live session, for the rotation check."""
        raise NotImplementedError

    def check_jump(self, viewer: DemoViewer[D], board: Board, before: int) -> None:
        """The harness's own checks after the forward jump: *board* is built right after it,
        *before* is what :meth:`written` measured just before it."""

    def escapes(self, home: Path, outside: Path) -> Iterator[Mapping[str, str]]:
        """Each way of leading the store outside the demo home, to *outside*: prepare *home* and
        yield the extra environment that does it. The defaults: :attr:`store_folder` as a link
        to *outside*, and :attr:`relocation`'s variable set to *outside*."""
        link = home / self.store_folder
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(outside, target_is_directory=True)
        yield {}
        link.unlink()
        if self.relocation is not None:
            yield {self.relocation[0]: str(outside)}

    # -- helpers --------------------------------------------------------------------------

    def viewer(self, home: Path, *, env: Mapping[str, str] | None = None, **options: Any) -> DemoViewer[D]:
        """A fresh demo in *home* (built with *options*) and a board over it, on one test clock."""
        return self._viewer(home, env, options)

    def _viewer(self, home: Path, env: Mapping[str, str] | None, options: Mapping[str, Any]) -> DemoViewer[D]:
        viewer: DemoViewer[D] = DemoViewer(
            home,
            self.plugin,
            self.key,
            lambda h, ctx: self.make_demo(h, ctx, **options),
            start=self.start,
            env=dict(env) if env is not None else None,
            processes=self.processes(),
        )
        return viewer

    def close(self, demo: Simulation) -> None:
        """Close *demo* where it holds something open (databases, a process)."""
        close = getattr(demo, "close", None)
        if callable(close):
            close()

    def _context(self, home: Path, extra: Mapping[str, str] | None = None) -> HarnessContext:
        return make_context(home, env={**demo_env({}, home), **(extra or {})}, now=self.start, window_s=None)

    # -- the contract ---------------------------------------------------------------------

    def test_demo_is_offered(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        home.mkdir()
        demo = self.plugin.simulate(home=home, ctx=self._context(home))
        assert isinstance(demo, self.offered_type or self.demo_type)
        assert isinstance(demo, Simulation)
        self.close(demo)

    def test_demo_start_shows_finished_sessions(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        board = viewer.at(0)
        self.close(viewer.demo)
        assert {s.harness for s in board.sessions} == {self.key}
        when = [s.last_active_at for s in board.sessions]
        assert all(w is not None and w <= self.start for w in when), "the start picture is written before the start"
        assert any(w is not None and w < self.start - _FINISHED_BEFORE for w in when), "finished sessions from earlier"
        assert all(s.state != "needs_input" for s in board.sessions), "no wait is open before the first turn"

    def test_demo_a_session_works_within_the_first_cycle(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        boards = [viewer.at(second) for second in range(0, int(self.cycle_s) + 10, 5)]
        self.close(viewer.demo)
        assert any(s.state == "working" for board in boards for s in board.sessions), "a live session takes a turn"
        newest = max(s.last_active_at for s in boards[-1].sessions if s.last_active_at is not None)
        assert newest > self.start, "stepping writes the live session's records"

    def test_demo_schedule_is_deterministic(self, tmp_path: Path) -> None:
        a, b = self.viewer(tmp_path / "one" / "home"), self.viewer(tmp_path / "two" / "home")
        initial = snapshot_tree(a.home)
        for second in self.schedule:
            for viewer in (a, b):
                viewer.step(second)
        for viewer in (a, b):
            self.close(viewer.demo)
        assert self.shape(a) == self.shape(b)
        assert snapshot_tree(a.home) != initial, "stepping writes"

    def test_demo_steps_one_by_one_or_in_one_go_write_the_same(self, tmp_path: Path) -> None:
        a, b = self.viewer(tmp_path / "one" / "home"), self.viewer(tmp_path / "two" / "home")
        end = self.stepwise_s or int(2 * self.cycle_s)
        for second in range(1, end):
            a.step(second)
        b.step(end - 1)
        for viewer in (a, b):
            self.close(viewer.demo)
        assert self.shape(a) == self.shape(b)

    def test_demo_writes_nothing_outside_its_home(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        (tmp_path / "beside").mkdir()
        (tmp_path / "neighbour.txt").write_text("untouched")
        outside = snapshot_tree(tmp_path)

        def no_scratch(*_a: Any, **_k: Any) -> Any:
            raise AssertionError("the demo made a scratch file or directory outside its home")

        for name in ("mkdtemp", "mkstemp", "TemporaryDirectory", "NamedTemporaryFile"):
            monkeypatch.setattr(tempfile, name, no_scratch)
        viewer = self._viewer(tmp_path / "home", None, self.outside_options)
        for second in range(0, int(self.outside_s or 3 * self.cycle_s), 5):
            viewer.step(second)
        self.close(viewer.demo)
        after = {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("home")}
        assert after == outside

    def test_demo_clock_going_back_writes_nothing(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        assert_going_back_writes_nothing(viewer.demo, viewer.moment(self.back_at_s), lambda: self.snapshot(viewer))
        self.close(viewer.demo)

    def test_demo_jump_ahead_does_not_replay_every_missed_turn(self, tmp_path: Path) -> None:
        viewer = self.viewer(tmp_path / "home")
        most = self.jump_bound(viewer)
        viewer.at(self.jump_from_s)
        before = self.written(viewer)
        board = viewer.at(self.jump_to_s)
        grown = self.written(viewer) - before
        assert 0 < grown <= most, (
            f"the turn in hand and the start of the present one, not days of turns: {grown} > {most}"
        )
        self.check_jump(viewer, board, before)
        self.close(viewer.demo)

    def test_demo_rotation_keeps_the_store_bounded(self, tmp_path: Path) -> None:
        if self.rotate_option is None:
            pytest.skip("this demo does not rotate its live sessions")
        usual = self.viewer(tmp_path / "usual")
        first = self.live_id(usual)
        start_rows = len(usual.at(self.rotation_at_s).sessions)
        self.close(usual.demo)
        assert self.live_id(usual) == first, "within the size bound the live session goes on"
        small = self._viewer(tmp_path / "small", None, {self.rotate_option: 1})
        ids = [self.live_id(small)]
        for cycle in range(self.rotation_kept + 3):
            board = small.at(cycle * self.cycle_s + self.rotation_at_s)
            ids.append(self.live_id(small))
        self.close(small.demo)
        assert len(set(ids)) == len(ids), f"past the size bound every turn starts a new live session: {ids}"
        most = start_rows + self.rotation_kept * self.live_sessions
        assert len(board.sessions) <= most, f"retired sessions beyond the {self.rotation_kept} kept are removed"

    def test_demo_relocated_store_is_written_where_the_plugin_reads_it(self, tmp_path: Path) -> None:
        if self.relocation is None:
            pytest.skip("this demo honours no relocation variable")
        variable, default = self.relocation
        home = tmp_path / "home"
        moved = home / "moved"
        viewer = self.viewer(home, env={**demo_env({}, home), variable: str(moved)})
        board = viewer.at(0)
        self.close(viewer.demo)
        assert not (home / default).exists(), f"with {variable} set, nothing is written at {default}"
        assert any(p.is_file() for p in moved.rglob("*"))
        assert board.sessions and {s.harness for s in board.sessions} == {self.key}

    def test_demo_refuses_a_store_outside_its_home(self, tmp_path: Path) -> None:
        home, outside = tmp_path / "home", tmp_path / "elsewhere"
        home.mkdir()
        outside.mkdir()
        tried = 0
        for extra in self.escapes(home, outside):
            with pytest.raises(HarnessError, match="outside the demo home"):
                self.make_demo(home, self._context(home, extra))
            assert not any(outside.iterdir()), f"the demo wrote outside its home ({extra or 'through a link'})"
            tried += 1
        assert tried
