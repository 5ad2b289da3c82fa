"""The read watchdog: one harness whose reader hangs cannot hold the board."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento import Discovery, HarnessContext, hookimpl
from cargento.board import BoardBuilder
from cargento.board.watchdog import Busy, Done, Overran, Watchdog
from cargento.diagnose import diagnose
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class HangingHarness(FakeHarness):
    """A harness whose discovery blocks until released, as a reader opening a named pipe does."""

    def __init__(self) -> None:
        super().__init__("hangs", [FakeSession("h1", age_s=5)])
        self.release = threading.Event()
        self.entered = threading.Event()

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        self.entered.set()
        self.release.wait(30)
        return super().discover(ctx)


@pytest.fixture
def hanging() -> Iterator[HangingHarness]:
    plugin = HangingHarness()
    yield plugin
    plugin.release.set()


def test_a_hanging_reader_is_abandoned_and_the_rest_of_the_board_is_served(
    tmp_path: Path, hanging: HangingHarness
) -> None:
    fine = FakeHarness("fine", [FakeSession("f1", age_s=5), FakeSession("f2", age_s=5)])
    registry = load_registry(entry_points=False, extra=[("fine", fine), ("hangs", hanging)])
    builder = BoardBuilder(
        registry, env={}, home=tmp_path, clock=lambda: NOW, processes=StaticProcesses(), read_budget_s=0.3
    )

    first = builder.build()
    assert hanging.entered.is_set()
    assert {s.session_id for s in first.sessions} == {"f1", "f2"}
    strip = {h.key: h for h in first.harnesses}
    assert strip["fine"].error is None
    assert strip["hangs"].error is not None and "abandoned for this build" in strip["hangs"].error

    # Still stuck: the next build does not start a second reader behind the first.
    second = builder.build()
    assert {s.session_id for s in second.sessions} == {"f1", "f2"}
    assert "has not returned" in (next(h for h in second.harnesses if h.key == "hangs").error or "")

    report = diagnose(registry, builder, now=NOW)
    assert not report.stores_ok
    assert any(
        "abandoned" in f or "has not returned" in f for h in report.harnesses if h.key == "hangs" for f in h.faults
    )

    hanging.release.set()
    board = first
    for _ in range(200):  # the abandoned pass finishes on its own thread; then the harness is read again
        board = builder.build()
        if {s.session_id for s in board.sessions} == {"f1", "f2", "h1"}:
            break
        threading.Event().wait(0.05)
    assert {s.session_id for s in board.sessions} == {"f1", "f2", "h1"}


def test_the_watchdog_hands_back_values_and_exceptions() -> None:
    dog = Watchdog(5.0)
    assert dog.run("a", lambda: 42) == Done(42)
    with pytest.raises(ZeroDivisionError):
        dog.run("a", lambda: 1 / 0)
    gate = threading.Event()
    assert isinstance(Watchdog(0.05).run("b", lambda: gate.wait(5)), Overran)
    slow = Watchdog(0.05)
    assert isinstance(slow.run("c", lambda: gate.wait(5)), Overran)
    assert isinstance(slow.run("c", lambda: 1), Busy)
    gate.set()
    assert Watchdog(None).run("inline", lambda: "x") == Done("x")


def test_a_builder_nobody_holds_is_freed_with_its_readings_and_its_workers_end(tmp_path: Path) -> None:
    """A worker waiting for its next pass holds nothing of the last one (the pass is bound to
    the builder, whose caches hold every reading), and a dropped builder's threads end."""
    fine = FakeHarness("fine", [FakeSession("f1", age_s=5)])
    registry = load_registry(entry_points=False, extra=[("fine", fine)])
    builder = BoardBuilder(registry, env={}, home=tmp_path, clock=lambda: NOW, processes=StaticProcesses())
    assert [s.session_id for s in builder.build().sessions] == ["f1"]
    threads = {t for t in threading.enumerate() if t.name == "cargento-read-fine"}
    assert threads
    gone = weakref.ref(builder)
    del builder
    gc.collect()
    assert gone() is None
    for thread in threads:
        thread.join(5)
        assert not thread.is_alive()
