"""The read pass's per-session hook answers: a clean session's gate and usage stand for
DERIVED_REUSE_S of real time, its model as long as its reading is the same object; a faulted
answer is never kept."""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento import hookimpl
from cargento.board.discovery import DERIVED_REUSE_S, SessionReader
from cargento.models import Gate, HarnessContext, ModelInfo, SessionReading, Usage
from cargento.plugins import load_registry
from cargento.testing import make_context
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Counting(FakeHarness):
    def __init__(self, sessions: list[FakeSession]) -> None:
        super().__init__("counted", sessions)
        self.calls: Counter[str] = Counter()
        self.gate_fails = False

    @hookimpl
    def gate_state(self, reading: SessionReading, ctx: HarnessContext) -> Gate | None:
        self.calls["gate_state"] += 1
        if self.gate_fails:
            raise OSError("gate store is locked")
        return super().gate_state(reading, ctx)

    @hookimpl
    def model(self, reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
        self.calls["model"] += 1
        return super().model(reading, ctx)

    @hookimpl
    def usage(self, reading: SessionReading, ctx: HarnessContext) -> Usage | None:
        self.calls["usage"] += 1
        return super().usage(reading, ctx)


def test_answers_stand_while_fresh_and_are_asked_again_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = Counting([FakeSession("s1", model="m-1", tokens_window=120), FakeSession("s2", model="m-2")])
    registry = load_registry(entry_points=False, extra=[("counted", plugin)])
    info = registry.harnesses["counted"]
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])  # the read pass asks time.monotonic
    ctx = make_context(tmp_path, now=NOW)
    refs = plugin.discover(ctx).sessions
    reader = SessionReader(registry)

    first = reader.read("counted", info, refs, ctx, False)
    assert plugin.calls == {"gate_state": 2, "model": 2, "usage": 2}
    clock[0] += DERIVED_REUSE_S / 2
    again = reader.read("counted", info, refs, ctx, False, reuse=True)
    assert plugin.calls == {"gate_state": 2, "model": 2, "usage": 2}, "fresh answers stand"
    assert [(r.gate, r.model, r.usage) for r in again.rows] == [(r.gate, r.model, r.usage) for r in first.rows]
    assert [r.model.id if r.model else None for r in again.rows] == ["m-1", "m-2"]

    clock[0] += DERIVED_REUSE_S
    reader.read("counted", info, refs, ctx, False, reuse=True)
    assert plugin.calls == {"gate_state": 4, "model": 2, "usage": 4}, "the clock's answers again, the model kept"

    plugin.gate_fails = True
    clock[0] += 2 * DERIVED_REUSE_S
    failed = reader.read("counted", info, refs, ctx, False, reuse=True)
    assert all(r.faults and "gate_state" in r.faults[0] for r in failed.rows)
    plugin.gate_fails = False
    clock[0] += DERIVED_REUSE_S / 4  # inside the window, but a faulted answer was not kept
    healed = reader.read("counted", info, refs, ctx, False, reuse=True)
    assert plugin.calls["gate_state"] == 8 and not any(r.faults for r in healed.rows)


def test_a_pass_lets_go_of_its_own_harness_sessions_only(tmp_path: Path) -> None:
    one = FakeHarness("one", [FakeSession("a1"), FakeSession("a2")])
    two = FakeHarness("two", [FakeSession("b1")])
    registry = load_registry(entry_points=False, extra=[("one", one), ("two", two)])
    ctx = make_context(tmp_path, now=NOW)
    reader = SessionReader(registry)
    refs_one, refs_two = one.discover(ctx).sessions, two.discover(ctx).sessions
    reader.read("one", registry.harnesses["one"], refs_one, ctx, False)
    reader.read("two", registry.harnesses["two"], refs_two, ctx, False)

    # Harness two's pass knows nothing of harness one's sessions; one's pass without a2
    # lets a2 go, and a pass with a2 again reads it afresh.
    assert reader.read("two", registry.harnesses["two"], refs_two, ctx, False).gone == []
    kept = tuple(r for r in refs_one if r.session_id == "a1")
    assert reader.read("one", registry.harnesses["one"], kept, ctx, False).gone == [("one", "a2")]
    assert reader.read("one", registry.harnesses["one"], kept, ctx, False).gone == []
    assert reader.read("two", registry.harnesses["two"], (), ctx, False).gone == [("two", "b1")]
    back = reader.read("one", registry.harnesses["one"], refs_one, ctx, False)
    assert [r.reading.ref.session_id for r in back.rows] == ["a1", "a2"]
