"""The demo test kit: a viewer stepping a simulation and building boards on one test clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from cargento import hookimpl
from cargento.models import HarnessContext
from cargento.testing.demo import DEMO_START, DemoViewer, assert_going_back_writes_nothing, board_at, squash
from cargento.testing.fakes import FakeHarness, FakeSession, RaisingRead
from cargento.testing.homes import snapshot_tree


class Ticker:
    """A simulation that appends one line per new second and ignores a clock going back."""

    def __init__(self, home: Path, *, careless: bool = False) -> None:
        self.log = home / "ticks.log"
        self.last: datetime | None = None
        self.careless = careless

    def step(self, now: datetime) -> None:
        if self.careless or self.last is None or now > self.last:
            with open(self.log, "a", encoding="utf-8") as fh:
                fh.write(now.isoformat() + "\n")
            self.last = now


class Demoable(FakeHarness):
    @hookimpl
    def simulate(self, home: Path, ctx: HarnessContext) -> Ticker:
        assert ctx.env["HOME"] == str(home) and ctx.now == DEMO_START
        return Ticker(home)


def test_the_viewer_steps_the_hooks_demo_and_builds_the_board_at_that_moment(tmp_path: Path) -> None:
    viewer: DemoViewer[Ticker] = DemoViewer(tmp_path / "home", Demoable("d", [FakeSession("s1", age_s=5)]), "d")
    assert isinstance(viewer.demo, Ticker) and (tmp_path / "home").is_dir()
    board = viewer.at(30)
    assert viewer.now == DEMO_START + timedelta(seconds=30)
    assert viewer.demo.log.read_text() == (DEMO_START + timedelta(seconds=30)).isoformat() + "\n"
    row = viewer.row_of(board, "s1")
    assert row.last_active_at == DEMO_START + timedelta(seconds=25)
    viewer.step(40)  # no board
    assert viewer.now == DEMO_START + timedelta(seconds=30) and viewer.demo.last == viewer.moment(40)
    later = viewer.board(viewer.moment(100))
    assert viewer.row_of(later, "s1").last_active_at == viewer.moment(95)
    with pytest.raises(AssertionError, match="no row for s2"):
        viewer.row_of(board, "s2")


def test_a_factory_start_and_env_can_be_chosen(tmp_path: Path) -> None:
    start = datetime(2031, 6, 1, 12, 0, tzinfo=DEMO_START.tzinfo)
    seen: list[HarnessContext] = []

    def make(home: Path, ctx: HarnessContext) -> Ticker:
        seen.append(ctx)
        return Ticker(home)

    viewer = DemoViewer(tmp_path / "h", FakeHarness("f"), "f", make, start=start, env={"HOME": "/elsewhere"})
    assert seen[0].now == start and seen[0].env["HOME"] == "/elsewhere"
    assert viewer.env == {"HOME": "/elsewhere"}
    assert viewer.moment(5) == start + timedelta(seconds=5)


def test_board_at_fails_on_any_fault(tmp_path: Path) -> None:
    viewer = DemoViewer(tmp_path / "h", RaisingRead("r", [FakeSession("s1")]), "r", lambda h, ctx: Ticker(h))
    with pytest.raises(AssertionError, match="store is locked"):
        board_at(viewer.builder, DEMO_START)


def test_squash_keeps_each_run_once() -> None:
    assert squash(["idle", "idle", "working", "working", "idle"]) == ["idle", "working", "idle"]
    assert squash([]) == []


def test_going_back_writes_nothing_holds_a_careful_demo_and_catches_a_careless_one(tmp_path: Path) -> None:
    home = tmp_path / "careful"
    home.mkdir()
    assert_going_back_writes_nothing(Ticker(home), DEMO_START, lambda: snapshot_tree(home))
    sloppy = tmp_path / "careless"
    sloppy.mkdir()
    with pytest.raises(AssertionError):
        assert_going_back_writes_nothing(Ticker(sloppy, careless=True), DEMO_START, lambda: snapshot_tree(sloppy))
