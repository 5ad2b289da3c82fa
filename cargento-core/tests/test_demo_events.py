"""A simulation's scripted hook bodies reach the sink the dashboard connects, once each."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento import hookimpl
from cargento.demo import EVENTS_HELD, Demo
from cargento.plugins import load_registry
from cargento.testing.fakes import FakeHarness

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class Hooking:
    """One hook body per step, numbered."""

    def __init__(self) -> None:
        self.steps = 0
        self.pending: list[dict[str, Any]] = []

    def step(self, now: datetime) -> None:
        self.steps += 1
        self.pending.append({"session_id": "s1", "hook_event_name": "PostToolUse", "n": self.steps})

    def drain_events(self) -> list[dict[str, Any]]:
        out, self.pending = self.pending, []
        return out


class Quiet:
    def step(self, now: datetime) -> None:
        pass


class Demoable(FakeHarness):
    def __init__(self, key: str, sim: object) -> None:
        super().__init__(key)
        self.sim = sim

    @hookimpl
    def simulate(self, home: Path, ctx: object) -> object:
        return self.sim


def _demo(*plugins: tuple[str, object]) -> Demo:
    reg = load_registry(entry_points=False, extra=[(k, Demoable(k, sim)) for k, sim in plugins])
    return Demo(reg, base_env={"HOME": "/real/home"}, clock=lambda: NOW, interval_s=3600)


def test_bodies_are_held_until_a_sink_connects_then_forwarded_in_order_once() -> None:
    demo = _demo(("hooked", Hooking()), ("quiet", Quiet()))
    demo.start()
    try:
        demo.step()
        demo.step()
        got: list[tuple[str, Mapping[str, Any]]] = []
        demo.forward_events(lambda key, body: got.append((key, body)))
        assert [(k, b["n"]) for k, b in got] == [("hooked", 1), ("hooked", 2)], "held bodies first, in order"
        demo.step()
        assert [(k, b["n"]) for k, b in got] == [("hooked", 1), ("hooked", 2), ("hooked", 3)]
        assert set(demo.simulations) == {"hooked", "quiet"}, "a simulation without hook bodies is fine"
    finally:
        demo.stop()


def test_a_refusing_sink_counts_the_body_and_the_demo_goes_on() -> None:
    demo = _demo(("hooked", Hooking()))
    demo.start()
    try:

        def refuse(key: str, body: Mapping[str, Any]) -> None:
            raise RuntimeError("lifecycle events are off for this run")

        demo.forward_events(refuse)
        demo.step()
        demo.step()
        assert demo.events_refused == 2 and "hooked" in demo.simulations and not demo.faults
    finally:
        demo.stop()


def test_the_held_bodies_are_bounded() -> None:
    sim = Hooking()
    demo = _demo(("hooked", sim))
    demo.start()
    try:
        for _ in range(EVENTS_HELD + 10):
            demo.step()
        got: list[int] = []
        demo.forward_events(lambda key, body: got.append(body["n"]))
        assert len(got) == EVENTS_HELD and got[-1] == sim.steps, "the newest are kept"
    finally:
        demo.stop()
