"""Evidence per reading: what a row's state, wait, detail and model rest on, and overrules."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
from cargento.board import Board, BoardBuilder, BoardSession, Overlay, board_json
from cargento.events.lanes import Lane
from cargento.events.payloads import LifecycleEvent
from cargento.models import Evidence, Gate
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _builder(sessions: list[FakeSession], clock: list[datetime]) -> BoardBuilder:
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", sessions))])
    return BoardBuilder(reg, env={"HOME": "/home/u"}, clock=lambda: clock[0], processes=StaticProcesses())


def _build(sessions: list[FakeSession], overlays: dict[tuple[str, str], Overlay] | None = None) -> Board:
    return _builder(sessions, [NOW]).build(overlays=overlays)


def _row(board: Board, sid: str) -> BoardSession:
    return next(s for s in board.sessions if s.session_id == sid)


def _of(row: BoardSession, reading: str) -> list[Evidence]:
    return [e for e in row.evidence if e.reading == reading]


def test_a_quiet_store_rests_on_its_last_write_and_the_recency_rule() -> None:
    row = _row(_build([FakeSession("q", age_s=600)]), "q")
    state = _of(row, "state")
    assert [e.signal for e in state] == ["store record", "clock rule"]
    assert state[0].observed_at == NOW - timedelta(seconds=600)
    assert state[0].source == "/fake/q"
    assert "idle" in state[1].said
    (model,) = _of(row, "model")
    assert "fake-model-1" in model.said


def test_a_recorded_turn_end_is_cited_as_a_store_record() -> None:
    row = _row(_build([FakeSession("d", age_s=3, turn="ended")]), "d")
    (state,) = _of(row, "state")
    assert state.signal == "store record" and "turn ended" in state.said


def test_a_store_gate_is_the_wait_evidence_and_says_what_is_asked() -> None:
    gate = Gate(kind="question", text="Which database?", since=NOW - timedelta(seconds=40), source="transcript")
    row = _row(_build([FakeSession("g", age_s=40, gate=gate)]), "g")
    (wait,) = _of(row, "wait")
    assert wait.signal == "store record" and wait.said == "Which database?"
    assert wait.observed_at == gate.since and wait.source.endswith("· transcript")


def test_an_event_newer_than_the_store_overrules_the_store_and_names_both_sides() -> None:
    overlay = Overlay(state="working", at=NOW, source="event:UserPromptSubmit")
    row = _row(_build([FakeSession("e", age_s=600)], {("fake", "e"): overlay}), "e")
    assert row.state == "working"
    won = next(e for e in row.evidence if e.overruled is not None)
    assert won.signal == "hook event" and "UserPromptSubmit" in won.source
    assert won.overruled is not None
    assert won.overruled.signal == "store record" and won.overruled.said == "the session's last write"
    assert "newer" in won.overruled.why


def test_a_store_write_after_an_idle_claim_overrules_the_event() -> None:
    overlay = Overlay(state="idle", at=NOW - timedelta(seconds=60), source="event:Stop")
    row = _row(_build([FakeSession("s", age_s=10)], {("fake", "s"): overlay}), "s")
    assert row.state == "working"
    won = next(e for e in row.evidence if e.overruled is not None)
    assert won.signal == "store record"
    assert won.overruled is not None and won.overruled.signal == "hook event"
    assert "event:Stop" in won.overruled.said and "came after the event" in won.overruled.why


def _event(name: str, kind: str, at: datetime, **kw: object) -> LifecycleEvent:
    return LifecycleEvent(harness="fake", name=name, kind=kind, session_id="p", received_at=at, **kw)  # type: ignore[arg-type]


def test_a_lane_s_cleared_gate_is_an_overrule_naming_the_request_and_what_cleared_it() -> None:
    lane = Lane(harness="fake", session_id="p")
    asked = NOW - timedelta(seconds=30)
    lane.apply(_event("PermissionRequest", "permission", asked, tool="Bash", gate_text="run tests"), 1)
    standing = lane.overlay(NOW)
    assert standing is not None and standing.gate is not None
    (wait,) = [e for e in standing.evidence if e.reading == "wait"]
    assert wait.observed_at == asked and "run tests" in wait.said
    answered = NOW - timedelta(seconds=5)
    lane.apply(_event("PostToolUse", "tool_finished", answered, tool="Bash"), 2)
    after = lane.overlay(NOW)
    assert after is not None and after.gate is None
    cleared = next(e for e in after.evidence if e.overruled is not None)
    assert cleared.observed_at == answered and "PostToolUse" in cleared.said
    assert cleared.overruled is not None
    assert cleared.overruled.observed_at == asked and "PermissionRequest" in cleared.overruled.said
    assert "finished" in cleared.overruled.why
    row = _row(_build([FakeSession("p", age_s=5)], {("fake", "p"): after}), "p")
    assert cleared in row.evidence, "the lane's overrule reaches the row"


def test_the_revision_does_not_move_when_only_the_clock_does() -> None:
    sessions = [FakeSession("a", at=NOW - timedelta(seconds=500)), FakeSession("b", at=NOW - timedelta(seconds=20))]
    clock = [NOW]
    builder = _builder(sessions, clock)
    first = builder.build()
    assert all(s.evidence for s in first.sessions)
    clock[0] = NOW + timedelta(seconds=30)
    again = builder.build()
    assert again.revision == first.revision
    assert _row(again, "a").evidence == _row(first, "a").evidence
    clock[0] = NOW + timedelta(seconds=90)  # b's last write leaves the working window: content moved
    assert builder.build().revision == first.revision + 1


def test_evidence_is_in_the_document_and_redacted() -> None:
    gate = Gate(kind="command", text="export KEY=sk-ant-abcdefghijklmnopqrstuvwx", source="transcript")
    doc = orjson.loads(board_json(_build([FakeSession("r", age_s=5, gate=gate)])))
    items = doc["sessions"][0]["evidence"]
    assert {"reading", "signal", "source", "observed_at", "said", "overruled"} <= set(items[0])
    assert not any("abcdefghijklmnop" in i["said"] for i in items)
