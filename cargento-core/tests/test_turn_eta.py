"""The turn estimate, measured (bench/eta.py) and withheld where it measured no better than none."""

from __future__ import annotations

import importlib.util
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cargento import hookimpl
from cargento.board import BoardBuilder, derivation
from cargento.models import (
    Discovery,
    HarnessContext,
    HarnessInfo,
    SessionReading,
    SessionRef,
    StoreLocation,
    TurnEvidence,
)
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.turns import withheld_harnesses

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cargento_bench_eta", REPO / "bench" / "eta.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Regular:
    """One session working on its fourth turn, its first three 100, 120 and 140 s long."""

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key="regular", label="Regular")

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        ref = SessionRef(harness="regular", session_id="r1", path="/r/r1", modified_at=ctx.now)
        return Discovery(locations=(StoreLocation(path="/r", status="present"),), sessions=(ref,))

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading:
        turn = TurnEvidence(state="open", started_at=ctx.now - timedelta(seconds=30), completed_s=(100.0, 120.0, 140.0))
        return SessionReading(ref=ref, last_active_at=ctx.now, turn=turn)


def _eta() -> float | None:
    reg = load_registry(entry_points=False, extra=[("regular", Regular())])
    (row,) = BoardBuilder(reg, env={}, clock=lambda: NOW, processes=StaticProcesses()).build().sessions
    assert row.turn is not None
    return row.turn.eta_s


def test_an_estimate_measured_no_better_than_none_is_withheld(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _eta() == 90.0
    monkeypatch.setattr(derivation, "withheld_harnesses", lambda: frozenset({"regular"}))
    assert _eta() is None


def test_the_packaged_verdicts_are_the_published_ones() -> None:
    data = json.loads((REPO / "cargento-core" / "src" / "cargento" / "turn_eta.json").read_text())
    assert withheld_harnesses() == frozenset(data["withheld"])
    assert data["withheld"] == sorted(k for k, f in data["measured"]["harnesses"].items() if f["withheld"])
    doc = (REPO / "docs" / "turn-eta.md").read_text()
    assert doc == _bench().render_markdown(data["measured"])


def test_the_measure_compares_each_estimate_with_what_was_left_and_with_knowing_nothing() -> None:
    eta: Any = _bench()
    found = eta.points([(100.0, 100.0, 100.0, 160.0)], typical=100.0)
    # One evaluable turn (the third has two before it, the fourth three), four moments each.
    assert len(found) == 8
    first = found[0]
    assert first == (100.0, 100.0, 100.0), "from two 100 s turns, at its start: 100 s left, truly 100 s"
    late = found[-1]
    assert late[1] == pytest.approx(40.0) and late[2] == 0.0
    result = eta.figures(found)
    assert result["moments"] == 8 and result["estimated_share"] is not None
    assert result["mean_abs_error_s"] is not None and result["baseline_mean_abs_error_s"] is not None
