"""An event that moves one session's overlay re-derives that row alone, and reads the same."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import attrs
from cargento.board import Board, BoardBuilder, Overlay, board_json
from cargento.board import derivation as derivation_module
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _builder(sessions: list[FakeSession]) -> BoardBuilder:
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", sessions))])
    return BoardBuilder(reg, env={"HOME": "/home/u"}, clock=lambda: NOW, processes=StaticProcesses())


def _doc(board: Board) -> bytes:
    return board_json(attrs.evolve(board, revision=0))


def test_one_overlay_moving_rederives_one_row_and_reads_as_a_full_build(monkeypatch: object) -> None:
    sessions = [FakeSession(f"s{i}", age_s=30 + i) for i in range(12)]
    builder = _builder(sessions)
    first = builder.build(overlays={}, changes={})
    derived: list[str] = []
    real = derivation_module.RowDeriver.derive

    def counting(self: derivation_module.RowDeriver, row: object, *args: object) -> object:
        derived.append(row.reading.ref.session_id)  # type: ignore[attr-defined]
        return real(self, row, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(derivation_module.RowDeriver, "derive", counting)  # type: ignore[attr-defined]
    working = {("fake", "s3"): Overlay(state="working", at=NOW - timedelta(seconds=2), source="event:UserPromptSubmit")}
    second = builder.build(overlays=working, changes={})
    assert derived == ["s3"], "only the session the event names is derived again"
    by_id = {s.session_id: s for s in second.sessions}
    before = {s.session_id: s for s in first.sessions}
    assert by_id["s3"].state == "working" and by_id["s3"].state_source == "event:UserPromptSubmit"
    assert all(by_id[sid] is before[sid] for sid in by_id if sid != "s3"), "the other rows stand as they were"
    # The same board a builder reading everything afresh makes of the same store and overlay.
    fresh = _builder(sessions).build(overlays=working, changes={})
    assert _doc(second) == _doc(fresh)
    # The overlay retired: back to the store's reading, again by one derive.
    derived.clear()
    third = builder.build(overlays={}, changes={})
    assert derived == ["s3"]
    assert _doc(third) == _doc(first)
