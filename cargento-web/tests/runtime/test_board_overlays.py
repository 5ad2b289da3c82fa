"""The hub's overlays and marks through core's real board builder, and the ends store."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardBuilder, ago
from cargento.models import Gate
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.runtime import hub as hub_module
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.journal import records_in
from cargento_web.runtime.stores import ENDS_FILE


def build(hub: EventHub, sessions: list[FakeSession], clock: Any, key: str = "claude") -> Board:
    registry = load_registry(entry_points=False, extra=[(key, FakeHarness(key, sessions))])
    builder = BoardBuilder(registry, env={"HOME": "/home/u"}, clock=clock, processes=StaticProcesses())
    board = builder.build(overlays=hub.overlays(clock()))
    return hub.on_board(board)


def row(board: Board, sid: str) -> Any:
    return next(s for s in board.sessions if s.session_id == sid)


def test_working_overlay_beats_a_quiet_store_until_the_stop(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    quiet = FakeSession("s1", at=clock() - timedelta(seconds=5))
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt_id": "p"})
    clock.tick(300)  # five minutes of a long tool run: recency alone would read idle
    assert row(build(hub, [quiet], clock), "s1").state == "working"
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "Stop", "prompt_id": "p"})
    s = row(build(hub, [quiet], clock), "s1")
    assert s.state == "idle" and s.state_source == "event:Stop"


def test_idle_overlay_reads_idle_at_once_where_recency_says_working(
    make_hub: Callable[..., EventHub], clock: Any
) -> None:
    hub = make_hub()
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "Stop"})
    fresh = FakeSession("s1", at=clock() - timedelta(seconds=1))  # written a second before the stop
    clock.tick(10)
    assert row(build(hub, [fresh], clock), "s1").state == "idle"


def test_gate_overlay_makes_needs_input_with_its_wording(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest(
        "claude",
        {
            "session_id": "s1",
            "hook_event_name": "PermissionRequest",
            "tool_name": "ExitPlanMode",
            "tool_input": {"plan": "# Migrate the schema\n\n1. add column"},
        },
    )
    s = row(build(hub, [FakeSession("s1", age_s=1)], clock), "s1")
    assert s.state == "needs_input" and s.waiting.kind == "plan" and s.waiting.text == "Migrate the schema"


def test_a_store_gate_still_outranks_an_event_working_claim(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "UserPromptSubmit"})
    gated = FakeSession("s1", age_s=1, gate=Gate(kind="question", text="Which?", source="transcript"))
    assert row(build(hub, [gated], clock), "s1").state == "needs_input"


def test_session_end_persists_and_reads_as_ended_after_a_restart(
    make_hub: Callable[..., EventHub], clock: Any, tmp_path: Path
) -> None:
    hub = make_hub()
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd", "reason": "other"})
    assert hub.flush()
    stored = records_in(tmp_path / "state" / ENDS_FILE)
    assert [(e["harness"], e["session_id"], e["reason"]) for e in stored] == [("claude", "s1", "other")]
    hub.close()
    restarted = make_hub()
    clock.tick(30)
    s = row(build(restarted, [FakeSession("s1", at=clock() - timedelta(seconds=31))], clock), "s1")
    assert s.ended and s.state == "idle" and s.detail.startswith("session ended")


def test_a_write_after_the_end_means_the_session_resumed(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd"})
    clock.tick(120)
    s = row(build(hub, [FakeSession("s1", at=clock() - timedelta(seconds=60))], clock), "s1")
    assert not s.ended


def test_session_start_withdraws_an_end(make_hub: Callable[..., EventHub], clock: Any, tmp_path: Path) -> None:
    hub = make_hub()
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd"})
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionStart", "source": "resume"})
    assert hub.session_end("claude", "s1") is None
    hub.close()
    assert make_hub().session_end("claude", "s1") is None, "the withdrawal reached the disk"


def test_no_events_neither_reads_nor_writes_the_ends_store(
    make_hub: Callable[..., EventHub], clock: Any, tmp_path: Path
) -> None:
    first = make_hub()
    first.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd"})
    first.close()
    before = (tmp_path / "state" / ENDS_FILE).read_bytes()
    quiet = make_hub(events=False)
    s = row(build(quiet, [FakeSession("s1", at=clock() - timedelta(seconds=600))], clock), "s1")
    assert not s.ended, "a session that ended before this run reads as quiet"
    assert (tmp_path / "state" / ENDS_FILE).read_bytes() == before


def test_a_corrupt_ends_store_is_discarded_and_says_so(make_hub: Callable[..., EventHub], tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / ENDS_FILE).write_bytes(b"{not json")
    hub = make_hub()
    assert hub.ends is not None and hub.ends.all() == ()
    assert any("not a store this build can read" in r and "unreadable-" in r for r in hub.status()["resets"])
    (aside,) = (tmp_path / "state").glob(f"{ENDS_FILE}.unreadable-*")
    assert aside.read_bytes() == b"{not json", "set aside, never written over"
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd"})
    assert hub.flush()
    assert records_in(tmp_path / "state" / ENDS_FILE)[0]["session_id"] == "s1"


def test_transition_into_needs_input_pops_once_not_on_every_refresh(
    make_hub: Callable[..., EventHub], clock: Any, notifier: Any
) -> None:
    hub = make_hub()
    gate = Gate(kind="permission", text="asking to run a command", source="store")
    build(hub, [FakeSession("s1", age_s=5)], clock)  # the first board is the baseline
    for _ in range(5):
        clock.tick(2)
        build(hub, [FakeSession("s1", age_s=5, gate=gate)], clock)
    assert hub.alerts.drain() and len(notifier.sent) == 1
    assert "needs input" in notifier.sent[0][0]


def test_waiting_at_startup_is_a_baseline_not_a_transition(
    make_hub: Callable[..., EventHub], clock: Any, notifier: Any
) -> None:
    hub = make_hub()
    build(hub, [FakeSession("s1", age_s=5, gate=Gate(kind="permission"))], clock)
    assert hub.alerts.drain() and notifier.sent == []


def test_folded_subagent_rows_never_pop(make_hub: Callable[..., EventHub], clock: Any, notifier: Any) -> None:
    hub = make_hub()
    parent = FakeSession("p", age_s=5)
    child = FakeSession("c", age_s=5, parent_id="p", agent_name="helper")
    build(hub, [parent, child], clock)
    clock.tick(5)
    hub.ingest("claude", {"session_id": "c", "hook_event_name": "PermissionRequest", "tool_name": "Bash"})
    assert hub.alerts.drain() and notifier.sent == []


def test_a_turn_end_mark_tells_a_finished_turn_from_a_quiet_one(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", {"session_id": "done", "hook_event_name": "Stop", "prompt_id": "p"})
    clock.tick(600)
    board = build(
        hub, [FakeSession("done", at=clock() - timedelta(seconds=601)), FakeSession("quiet", age_s=600)], clock
    )
    assert row(board, "done").detail.startswith("turn ended · last active")
    assert row(board, "quiet").detail.startswith("last active")
    # A write after the stop (the next prompt typed with no hook): the mark no longer applies.
    later = build(hub, [FakeSession("done", age_s=100)], clock)
    assert row(later, "done").detail.startswith("last active")


def _a_turn_ended_ten_minutes_ago(make_hub: Callable[..., EventHub], clock: Any) -> tuple[EventHub, BoardBuilder]:
    """A hub that saw session "done" stop 600 s ago, and a builder whose one session last
    wrote 601 s ago (before the stop, so the turn-end mark applies)."""
    hub = make_hub()
    hub.ingest("claude", {"session_id": "done", "hook_event_name": "Stop", "prompt_id": "p"})
    clock.tick(600)
    registry = load_registry(
        entry_points=False,
        extra=[("claude", FakeHarness("claude", [FakeSession("done", at=clock() - timedelta(seconds=601))]))],
    )
    return hub, BoardBuilder(registry, env={"HOME": "/home/u"}, clock=clock, processes=StaticProcesses())


def test_an_unchanged_marked_row_stays_the_same_object(make_hub: Callable[..., EventHub], clock: Any) -> None:
    """The turn-end mark is applied to every board; a row read the same gets the very object
    the last board published, so the revision hash and every feature skip it."""
    hub, builder = _a_turn_ended_ten_minutes_ago(make_hub, clock)
    first = hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
    again = hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
    assert row(first, "done").detail.startswith("turn ended · last active")
    assert row(again, "done") is row(first, "done")
    clock.tick(3600)  # the wording moves: a new object with the new wording
    later = hub.on_board(builder.build(overlays=hub.overlays(clock())))
    assert row(later, "done") is not row(first, "done")
    assert row(later, "done").detail != row(first, "done").detail
    assert row(later, "done").detail.startswith("turn ended · last active")


def test_a_mark_whose_wording_still_stands_is_not_worked_out_again(
    make_hub: Callable[..., EventHub], clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event's board re-reads one session: every other marked row keeps last board's
    decision until its "last active ... ago" would read otherwise (no age worked out, no text
    made for each of 640 rows on every event), and its wording moves on when that time comes."""
    worded: list[float | None] = []

    def counted(seconds: float | None) -> str:
        worded.append(seconds)
        return ago(seconds)

    monkeypatch.setattr(hub_module, "ago", counted)
    hub, builder = _a_turn_ended_ten_minutes_ago(make_hub, clock)
    first = hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
    assert row(first, "done").detail == "turn ended · last active 10 min ago" and len(worded) == 1
    clock.tick(50)  # 651 s: still "10 min ago"
    again = hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
    assert row(again, "done") is row(first, "done") and len(worded) == 1
    clock.tick(10)  # 661 s: "11 min ago" now
    later = hub.on_board(builder.build(overlays=hub.overlays(clock()), changes={}))
    assert row(later, "done").detail == "turn ended · last active 11 min ago" and len(worded) == 2
