"""Calls are dispatched per harness: a raising or wrong-typed plugin is a fault on its own row."""

from __future__ import annotations

from datetime import UTC, datetime

import attrs
import pytest
from cargento.board import BoardBuilder
from cargento.models import HarnessInfo
from cargento.plugins import Fault, Ok, load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import BrokenDiscover, FakeHarness, FakeSession, RaisingRead, WrongType

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _builder(*plugins: tuple[str, object]) -> BoardBuilder:
    reg = load_registry(entry_points=False, extra=list(plugins))
    return BoardBuilder(reg, env={"HOME": "/nonexistent"}, clock=lambda: NOW, processes=StaticProcesses())


def test_hook_discover_fault_stays_on_its_row() -> None:
    b = _builder(
        ("good", FakeHarness("good", [FakeSession("g1")])), ("bad", BrokenDiscover("bad", [FakeSession("b1")]))
    )
    board = b.build()
    rows = {h.key: h for h in board.harnesses}
    assert rows["bad"].error and "discover exploded" in rows["bad"].error
    assert rows["good"].error is None
    assert [s.session_id for s in board.sessions] == ["g1"]
    fault = b.registry.faults["bad"][-1]
    assert fault.kind == "bug" and fault.traceback and "RuntimeError" in fault.message


def test_hook_read_session_expected_error_has_no_traceback() -> None:
    b = _builder(
        ("good", FakeHarness("good", [FakeSession("g1")])), ("locked", RaisingRead("locked", [FakeSession("l1")]))
    )
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


def test_hook_simulate_runs_in_a_demo_home_and_steps(tmp_path: object) -> None:
    from pathlib import Path

    from cargento import hookimpl
    from cargento.demo import Demo

    written: list[tuple[Path, datetime]] = []

    class Sim:
        def __init__(self, home: Path) -> None:
            self.home = home

        def step(self, now: datetime) -> None:
            (self.home / "tick").write_text(now.isoformat())
            written.append((self.home, now))

    class Demoable(FakeHarness):
        @hookimpl
        def harness_info(self) -> HarnessInfo:
            return HarnessInfo(key=self.key, label="Demoable", relocation_variables=("DEMOABLE_HOME",))

        @hookimpl
        def simulate(self, home: Path, ctx: object) -> Sim:
            assert ctx.env["HOME"] == str(home) and "DEMOABLE_HOME" not in ctx.env  # type: ignore[attr-defined]
            return Sim(home)

    class Broken(FakeHarness):
        @hookimpl
        def simulate(self, home: Path, ctx: object) -> object:
            raise RuntimeError("no demo today")

    reg = load_registry(entry_points=False, extra=[("d", Demoable("d")), ("b", Broken("b"))])
    demo = Demo(
        reg, base_env={"HOME": "/real/home", "DEMOABLE_HOME": "/real/store"}, clock=lambda: NOW, interval_s=3600
    )
    demo.start()
    try:
        assert set(demo.simulations) == {"d"} and "no demo today" in demo.faults["b"]
        demo.step()
        assert written and written[-1][0] == demo.home and (demo.home / "tick").read_text() == NOW.isoformat()
        assert demo.env["HOME"] == str(demo.home) and "DEMOABLE_HOME" not in demo.env, (
            "a declared relocation variable is cleared"
        )
    finally:
        demo.stop()
    assert not demo.home.exists(), "the demo home is removed on exit"


def test_a_simulation_that_fails_while_the_demo_runs_is_dropped_and_said_at_once(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    from cargento import hookimpl
    from cargento.demo import Demo

    class Sim:
        def step(self, now: datetime) -> None:
            raise OSError("database is locked")

    class Failing(FakeHarness):
        @hookimpl
        def simulate(self, home: Path, ctx: object) -> Sim:
            return Sim()

    demo = Demo(
        load_registry(entry_points=False, extra=[("f", Failing("f"))]), base_env={}, clock=lambda: NOW, interval_s=3600
    )
    demo.start()
    try:
        demo.step()
        assert "f" not in demo.simulations and "database is locked" in demo.faults["f"]
        assert "the demo of f stopped: OSError: database is locked" in capsys.readouterr().err
    finally:
        demo.stop()


def test_record_fault_shows_on_the_strip_and_in_diagnose_like_a_failed_call() -> None:
    from cargento.diagnose import diagnose, render_text

    b = _builder(
        ("fake", FakeHarness("fake", [FakeSession("f1")])), ("other", FakeHarness("other", [FakeSession("o1")]))
    )
    registry = b.registry
    assert registry.last_fault("fake") is None
    recorded = registry.record_fault("fake", "discover", "session x carries harness 'y'")
    assert (recorded.harness, recorded.hook, recorded.kind, recorded.traceback) == (
        "fake",
        "discover",
        "contract",
        None,
    )
    assert recorded.at.tzinfo is not None
    assert registry.last_fault("fake") is recorded and registry.faults["fake"] == [recorded]
    board = b.build()
    strip = {h.key: h for h in board.harnesses}
    assert strip["fake"].error == "discover: session x carries harness 'y'"
    assert strip["other"].error is None
    assert {s.session_id for s in board.sessions} == {"f1", "o1"}, "a recorded fault hides no session"
    report = diagnose(registry, b, now=NOW)
    fake = next(h for h in report.harnesses if h.key == "fake")
    assert fake.faults == ("discover: session x carries harness 'y'",) and fake.fault_count == 1
    assert "faults: 1" in render_text(report)


def test_record_fault_cuts_the_message_and_keeps_the_newest_twenty() -> None:
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake"))])
    bug = reg.record_fault("fake", "usage", "x" * 600, kind="bug", traceback="Traceback ...")
    assert len(bug.message) == 500 and bug.kind == "bug" and bug.traceback == "Traceback ..."
    for i in range(24):
        reg.record_fault("fake", "model", f"fault {i}", kind="expected")
    assert len(reg.faults["fake"]) == 20 and reg.fault_counts["fake"] == 25
    newest = reg.last_fault("fake")
    assert newest is not None and newest.message == "fault 23"


def test_a_session_carrying_another_harness_is_a_contract_fault_on_discover() -> None:
    from cargento import hookimpl
    from cargento.models import Discovery, HarnessContext

    class Mislabelled(FakeHarness):
        @hookimpl
        def discover(self, ctx: HarnessContext) -> Discovery:
            found = super().discover(ctx)
            stray = attrs.evolve(found.sessions[0], harness="someone-else", session_id="stray")
            return attrs.evolve(found, sessions=(*found.sessions, stray))

    b = _builder(("mis", Mislabelled("mis", [FakeSession("m1")])))
    board = b.build()
    assert [s.session_id for s in board.sessions] == ["m1"]
    fault = b.registry.last_fault("mis")
    assert fault is not None and fault.kind == "contract" and fault.hook == "discover"
    assert board.harnesses[0].error == "discover: session stray carries harness 'someone-else'"


def test_hook_telemetry_is_called_on_its_plugin_and_a_wrong_type_is_a_contract_fault() -> None:
    from pathlib import Path

    from cargento import hookimpl
    from cargento.plugins import load_registry
    from cargento.telemetry import TelemetryVocabulary
    from cargento.testing.fakes import FakeHarness

    class Exporting(FakeHarness):
        @hookimpl
        def telemetry(self, env: object, home: Path, endpoint: str) -> TelemetryVocabulary:
            return TelemetryVocabulary(services=("exporting",), session_attributes=("session.id",))

    class Wrong(FakeHarness):
        @hookimpl
        def telemetry(self, env: object, home: Path, endpoint: str) -> object:
            return {"services": ["wrong"]}

    registry = load_registry(
        entry_points=False, extra=[("exporting", Exporting("exporting")), ("wrong", Wrong("wrong"))]
    )
    ok = registry.call("exporting", "telemetry", env={}, home=Path("/h"), endpoint="http://127.0.0.1:4318")
    assert getattr(ok, "value", None) == TelemetryVocabulary(
        services=("exporting",), session_attributes=("session.id",)
    )
    bad = registry.call("wrong", "telemetry", env={}, home=Path("/h"), endpoint="http://127.0.0.1:4318")
    assert getattr(bad, "kind", None) == "contract" and "expected TelemetryVocabulary or None" in getattr(
        bad, "message", ""
    )


def test_hook_work_record_is_called_on_its_plugin_bounded_and_a_wrong_type_is_a_contract_fault() -> None:
    from pathlib import Path

    from cargento import hookimpl
    from cargento.models import WORK_LINE_CHARS, WORK_LINES, HarnessContext, SessionRef, WorkRecord
    from cargento.plugins import load_registry
    from cargento.testing.fakes import FakeHarness
    from cargento.testing.homes import make_context

    class Working(FakeHarness):
        @hookimpl
        def work_record(self, ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> WorkRecord:
            lines = tuple(f"check ran: step {i} " + "x" * 2000 for i in range(WORK_LINES + 5)) if tool_output else ()
            return WorkRecord(describes="the checks it ran", lines=lines)

    class Wrong(FakeHarness):
        @hookimpl
        def work_record(self, ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> object:
            return ["check ran: pytest"]

    registry = load_registry(entry_points=False, extra=[("working", Working("working")), ("wrong", Wrong("wrong"))])
    ctx = make_context(Path("/h"))
    ref = SessionRef(harness="working", session_id="s1", path="")
    told = getattr(registry.call("working", "work_record", ref=ref, ctx=ctx, tool_output=False), "value", None)
    assert told == WorkRecord(describes="the checks it ran"), "without tool output nothing is read"
    read = getattr(registry.call("working", "work_record", ref=ref, ctx=ctx, tool_output=True), "value", None)
    assert isinstance(read, WorkRecord)
    assert len(read.lines) == WORK_LINES and read.lines[-1].startswith(f"check ran: step {WORK_LINES + 4} ")
    assert all(len(line) == WORK_LINE_CHARS and line.endswith("…") for line in read.lines), "each line is bounded"
    assert registry.implements("working", "work_record") and not registry.implements("wrong", "reading_provider")
    bad = registry.call("wrong", "work_record", ref=ref, ctx=ctx, tool_output=True)
    assert getattr(bad, "kind", None) == "contract" and "expected WorkRecord or None" in getattr(bad, "message", "")


def test_hook_reading_provider_is_called_on_its_plugin_and_a_wrong_type_is_a_contract_fault() -> None:
    from cargento import hookimpl
    from cargento.models import ReadingProvider
    from cargento.plugins import load_registry
    from cargento.testing.fakes import FakeHarness

    reader = ReadingProvider(
        key="reader",
        label="Reader CLI",
        executable="reader",
        arguments=("--print", "", "read only"),
        destination="a vendor, through the Reader CLI",
        default_rank=3,
    )

    class Reading(FakeHarness):
        @hookimpl
        def reading_provider(self) -> ReadingProvider:
            return reader

    class Wrong(FakeHarness):
        @hookimpl
        def reading_provider(self) -> object:
            return ("reader", "--print")

    registry = load_registry(entry_points=False, extra=[("reading", Reading("reading")), ("wrong", Wrong("wrong"))])
    found = getattr(registry.call("reading", "reading_provider"), "value", None)
    assert found == reader and found.summaries is False
    assert found.command("/usr/bin/reader") == ["/usr/bin/reader", "--print", "", "read only"]
    assert found.command_line() == "reader --print '' 'read only'", "what the disclosure prints, quoted as typed"
    bad = registry.call("wrong", "reading_provider")
    assert getattr(bad, "kind", None) == "contract" and "expected ReadingProvider or None" in getattr(
        bad, "message", ""
    )
