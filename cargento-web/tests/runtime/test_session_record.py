"""The session page's record: deliveries with the tab lane, reported commands, lifecycle marks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from cargento.board import Waiting
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.journal import records_in
from cargento_web.runtime.notifiers import OUTCOMES, MemoryNotifier, NoBackend
from cargento_web.runtime.record import OUTCOME_WORDS, lead_words
from cargento_web.runtime.stores import DELIVERIES_FILE, DeliveriesStore

WAIT = Waiting(kind="permission", text="asking to run rm -rf build", since=None, source="store")


def raise_gate(
    hub: EventHub, clock: Any, row: Callable[..., Any], board_of: Callable[..., Any], sid: str = "s1"
) -> None:
    """A store-read transition into Needs input: a quiet baseline board, then a waiting one."""
    hub.on_board(board_of(clock(), row(sid, state="idle", last_active_at=clock())))
    clock.tick(2)
    hub.on_board(board_of(clock(), row(sid, state="needs_input", last_active_at=clock(), waiting=WAIT)))
    assert hub.alerts.drain()


def test_a_tab_lane_report_is_recorded_in_the_next_delivery(
    make_hub: Callable[..., EventHub], clock: Any, row: Callable[..., Any], board_of: Callable[..., Any]
) -> None:
    hub = make_hub()
    reported = clock()
    hub.report_tab_lane()
    clock.tick(40)
    raise_gate(hub, clock, row, board_of)  # raised 42 s after the tab reported
    (delivery,) = hub.deliveries_for("claude", "s1")
    assert delivery.tab_lane_reported_at == reported and delivery.tab_lane_before_s == 42.0
    doc = hub.session_record("claude", "s1")
    (entry,) = doc["deliveries"]
    assert entry["tab_lane"] == {
        "reported": True,
        "reported_at": "2026-11-30T12:00:00Z",
        "before_s": 42.0,
        "words": "a dashboard tab had reported its own notification lane 42 s before this raise",
    }
    assert entry["outcome"] == "handed-over" and entry["kind"] == "gate"
    assert entry["title"] == "Claude · w/proj needs input"
    assert entry["outcome_words"].startswith("handed to this machine's notification service: it accepted the request")
    assert "seen" not in entry["outcome_words"] and "seen" not in doc["deliveries_note"].replace(
        "never that a person saw", ""
    )


def test_without_a_tab_lane_the_record_says_so_without_blaming_the_raise(
    make_hub: Callable[..., EventHub], clock: Any, row: Callable[..., Any], board_of: Callable[..., Any]
) -> None:
    hub = make_hub()
    raise_gate(hub, clock, row, board_of)
    (entry,) = hub.session_record("claude", "s1")["deliveries"]
    assert entry["tab_lane"]["reported"] is False and entry["tab_lane"]["before_s"] is None
    assert entry["tab_lane"]["words"].startswith("no dashboard tab had reported a notification lane of its own")
    assert "never means the alert missed you" in entry["tab_lane"]["words"]


def test_a_raise_with_no_backend_says_nothing_was_sent(
    make_hub: Callable[..., EventHub], clock: Any, row: Callable[..., Any], board_of: Callable[..., Any]
) -> None:
    hub = make_hub(notifier=NoBackend("no D-Bus session bus: no desktop here", name="freedesktop"))
    raise_gate(hub, clock, row, board_of)
    doc = hub.session_record("claude", "s1")
    (entry,) = doc["deliveries"]
    assert entry["outcome"] == "no-backend" and entry["detail"] == "no D-Bus session bus: no desktop here"
    assert entry["outcome_words"] == OUTCOME_WORDS["no-backend"]
    assert "no cooldown was spent" in entry["outcome_words"]
    assert doc["notifications"]["available"] is False and doc["notifications"]["backend"] == "freedesktop"


def test_every_outcome_has_its_own_words() -> None:
    assert set(OUTCOME_WORDS) == set(OUTCOMES)
    assert len(set(OUTCOME_WORDS.values())) == len(OUTCOMES)
    assert all("seen" not in words for words in OUTCOME_WORDS.values())


@pytest.mark.parametrize(
    ("seconds", "words"), [(0.4, "0 s"), (42, "42 s"), (185, "3 min"), (7500, "2 h 5 min"), (7200, "2 h")]
)
def test_lead_words(seconds: float, words: str) -> None:
    assert lead_words(seconds) == words


def test_the_record_is_one_sessions_newest_first(
    make_hub: Callable[..., EventHub],
    clock: Any,
    row: Callable[..., Any],
    board_of: Callable[..., Any],
    notifier: MemoryNotifier,
) -> None:
    hub = make_hub()
    raise_gate(hub, clock, row, board_of, "s1")
    clock.tick(30)
    notifier.outcome = "service-error"
    raise_gate(hub, clock, row, board_of, "s2")
    clock.tick(70)
    raise_gate(hub, clock, row, board_of, "s1")
    outcomes = [d["outcome"] for d in hub.session_record("claude", "s1")["deliveries"]]
    assert outcomes == ["service-error", "handed-over"]
    assert [d["outcome"] for d in hub.session_record("claude", "s2")["deliveries"]] == ["service-error"]
    assert hub.session_record("codex", "s1")["deliveries"] == []


def test_reports_and_marks_are_in_the_record(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest(
        "claude",
        {
            "session_id": "s1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push --force origin main"},
        },
    )
    clock.tick(5)
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "Stop"})
    clock.tick(5)
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd", "reason": "logout"})
    doc = hub.session_record("claude", "s1")
    (report,) = doc["irreversible"]["reports"]
    assert report["shape"] == "force-push" and report["shape_words"] == "force push"
    assert report["command"] == "git push --force origin main" and report["at"] == "2026-11-30T12:00:00Z"
    assert "not proof that it succeeded" in doc["irreversible"]["note"]
    assert doc["marks"] == {
        "enabled": True,
        "reason": None,
        "turn_ended_at": "2026-11-30T12:00:05Z",
        "session_ended": {"at": "2026-11-30T12:00:10Z", "reason": "logout"},
    }
    quiet = hub.session_record("claude", "other")
    assert quiet["irreversible"]["reports"] == [] and quiet["marks"]["turn_ended_at"] is None


def test_under_no_events_deliveries_stay_and_the_rest_says_why(
    make_hub: Callable[..., EventHub], clock: Any, row: Callable[..., Any], board_of: Callable[..., Any]
) -> None:
    hub = make_hub(events=False)
    assert hub.needs_fixed_scan
    raise_gate(hub, clock, row, board_of)  # a store-read wait still raises
    doc = hub.session_record("claude", "s1")
    assert doc["events"] is False and len(doc["deliveries"]) == 1
    assert doc["irreversible"]["enabled"] is False and "--no-events" in doc["irreversible"]["reason"]
    assert doc["marks"]["enabled"] is False and "--no-events" in doc["marks"]["reason"]
    assert doc["marks"]["turn_ended_at"] is None and doc["marks"]["session_ended"] is None


def test_no_irreversible_names_its_own_flag(make_hub: Callable[..., EventHub]) -> None:
    doc = make_hub(irreversible=False).session_record("claude", "s1")
    assert doc["irreversible"]["enabled"] is False and "--no-irreversible" in doc["irreversible"]["reason"]


def test_fixed_scan_whenever_a_raise_lane_is_on(make_hub: Callable[..., EventHub]) -> None:
    """With no page open only the fixed scan reads store-only waits, events on or off."""
    assert make_hub().needs_fixed_scan
    assert make_hub(events=False).needs_fixed_scan
    assert not make_hub(events=False, notify=False).needs_fixed_scan
    assert not make_hub(notify=False).needs_fixed_scan


def test_the_title_survives_a_restart_and_old_records_read_without_one(
    make_hub: Callable[..., EventHub], clock: Any, row: Callable[..., Any], board_of: Callable[..., Any], tmp_path: Path
) -> None:
    hub = make_hub()
    raise_gate(hub, clock, row, board_of)
    hub.close()
    (entry,) = make_hub().session_record("claude", "s1")["deliveries"]
    assert entry["title"] == "Claude · w/proj needs input"
    path = tmp_path / "state" / DELIVERIES_FILE
    (record,) = records_in(path)
    del record["title"]  # as a build before titles were kept wrote it (schema 1)
    path.write_bytes(orjson.dumps({"schema": 1, "deliveries": [record]}))
    store = DeliveriesStore(tmp_path / "state")
    store.load()
    (old,) = store.all()
    assert old.title is None and old.outcome == "handed-over"
