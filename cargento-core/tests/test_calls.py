"""Calls are dispatched per harness: a raising or wrong-typed plugin is a fault on its own row."""

from __future__ import annotations

from datetime import UTC, datetime

from cargento.board import BoardBuilder
from cargento.plugins import Fault, Ok, load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import BrokenDiscover, FakeHarness, FakeSession, RaisingRead, WrongType

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _builder(*plugins: tuple[str, object]) -> BoardBuilder:
    reg = load_registry(entry_points=False, extra=list(plugins))
    return BoardBuilder(reg, env={"HOME": "/nonexistent"}, clock=lambda: NOW, processes=StaticProcesses())


def test_hook_discover_fault_stays_on_its_row() -> None:
    b = _builder(("good", FakeHarness("good", [FakeSession("g1")])), ("bad", BrokenDiscover("bad", [FakeSession("b1")])))
    board = b.build()
    rows = {h.key: h for h in board.harnesses}
    assert rows["bad"].error and "discover exploded" in rows["bad"].error
    assert rows["good"].error is None
    assert [s.session_id for s in board.sessions] == ["g1"]
    fault = b.registry.faults["bad"][-1]
    assert fault.kind == "bug" and fault.traceback and "RuntimeError" in fault.message


def test_hook_read_session_expected_error_has_no_traceback() -> None:
    b = _builder(("good", FakeHarness("good", [FakeSession("g1")])), ("locked", RaisingRead("locked", [FakeSession("l1")])))
    board = b.build()
    assert [s.session_id for s in board.sessions] == ["g1"]
    fault = b.registry.faults["locked"][-1]
    assert fault.kind == "expected" and fault.traceback is None and fault.message == "store is locked"
    assert next(h for h in board.harnesses if h.key == "locked").error == "read_session: store is locked"


def test_hook_model_wrong_type_is_a_contract_fault() -> None:
    b = _builder(("odd", WrongType("odd", [FakeSession("o1")])))
    board = b.build()
    (session,) = board.sessions
    assert session.model is None
    assert session.faults and "model returned dict" in session.faults[0]
    assert b.registry.faults["odd"][-1].kind == "contract"


def test_hook_gate_state_routed_to_owner_only() -> None:
    from cargento.models import Gate

    gated = FakeHarness("a", [FakeSession("s", gate=Gate(kind="permission", text="Run tests?", source="t"))])
    other = FakeHarness("b", [FakeSession("s")])
    reg = load_registry(entry_points=False, extra=[("a", gated), ("b", other)])
    b = BoardBuilder(reg, env={}, clock=lambda: NOW, processes=StaticProcesses())
    board = b.build()
    states = {(s.harness, s.session_id): s.state for s in board.sessions}
    assert states == {("a", "s"): "needs_input", ("b", "s"): "working"}


def test_hook_usage_and_harness_info_calls_return_ok() -> None:
    reg = load_registry(entry_points=False, extra=[("u", FakeHarness("u", [FakeSession("x", tokens_window=600)]))])
    got = reg.call("u", "harness_info")
    assert isinstance(got, Ok) and got.value.key == "u"
    missing = reg.call("u", "no_such_hook")
    assert isinstance(missing, Fault)


def test_hook_harness_info_identity_is_checked_against_the_entry_point_name() -> None:
    reg = load_registry(entry_points=False, extra=[("wrong-name", FakeHarness("fake"))])
    assert reg.records["wrong-name"].status == "invalid"
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake"))])
    assert reg.harnesses["fake"].label == "Fake fake"
