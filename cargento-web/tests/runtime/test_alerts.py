"""Notification policy: cooldowns, floors, held alerts, no-backend raises, the deliveries record."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento_web.runtime.alerts import CONFIRM, GATE_FLOOR, SESSIONS_COOLING, Alerts
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.journal import records_in
from cargento_web.runtime.notifiers import MemoryNotifier, NoBackend
from cargento_web.runtime.stores import DELIVERIES_FILE, DeliveriesStore

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def alerts(tmp_path: Path, notifier: Any, clock: Callable[[], datetime] = lambda: T0) -> Alerts:
    """The desktop lane's own limits, with the confirmation delay (tested on its own in
    test_precision.py) set to zero."""
    store = DeliveriesStore(tmp_path)
    return Alerts(notifier, store, clock=clock, confirm=timedelta(0))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_sixty_second_per_session_cooldown(tmp_path: Path) -> None:
    n = MemoryNotifier()
    a = alerts(tmp_path, n)
    assert a.gate("claude", "s1", "t", "b", at(0)) == "raised"
    a.forget_kind("claude", "s1", "gate")  # answered; the next gate is a new transition
    assert a.gate("claude", "s1", "t", "b", at(30)) == "cooldown"
    a.forget_kind("claude", "s1", "gate")
    assert a.gate("claude", "s1", "t", "b", at(61)) == "raised"
    assert a.drain() and len(n.sent) == 2


def test_the_lane_floor_holds_then_raises(tmp_path: Path) -> None:
    n = MemoryNotifier()
    a = alerts(tmp_path, n)
    assert GATE_FLOOR < CONFIRM, "no wait that stands past its confirmation is held until it is over"
    floor = GATE_FLOOR.total_seconds()
    assert a.gate("claude", "s1", "t", "b", at(0)) == "raised"
    assert a.gate("codex", "s2", "t", "b", at(1)) == "held"
    assert a.retry(at(floor - 0.5), lambda p: True) == ["held"]
    assert a.retry(at(floor + 0.5), lambda p: True) == ["raised"]
    assert a.pending == ()
    assert a.drain() and len(n.sent) == 2


def test_a_held_alert_whose_wait_ended_is_dropped(tmp_path: Path) -> None:
    n = MemoryNotifier()
    a = alerts(tmp_path, n)
    a.gate("claude", "s1", "t", "b", at(0))
    a.gate("codex", "s2", "t", "b", at(1))
    assert a.retry(at(GATE_FLOOR.total_seconds() + 1), lambda p: False) == []
    assert a.drain() and len(n.sent) == 1


def test_questions_keep_their_own_floor(tmp_path: Path) -> None:
    n = MemoryNotifier()
    a = alerts(tmp_path, n)
    assert a.gate("claude", "s1", "gate", "b", at(0)) == "raised"
    assert a.question("claude", "s2", "q", "b", at(1)) == "raised", "the gate floor does not hold a question"
    assert a.question("claude", "s3", "q", "b", at(5)) == "held"
    assert a.question("claude", "s3", "q", "b", at(17)) == "raised"


def test_an_idle_nudge_does_not_silence_the_gate_that_follows(tmp_path: Path) -> None:
    n = MemoryNotifier()
    a = alerts(tmp_path, n)
    assert a.gate("claude", "s1", "idle", "b", at(0), kind="idle") == "raised"
    assert a.gate("claude", "s1", "gate", "b", at(20)) == "raised"
    a.forget_kind("claude", "s1", "idle")  # a new turn started and ended
    assert a.gate("claude", "s1", "idle", "b", at(40), kind="idle") == "cooldown"


def test_no_backend_records_and_spends_no_cooldown(tmp_path: Path) -> None:
    a = alerts(tmp_path, NoBackend("no desktop here"))
    assert a.gate("claude", "s1", "t", "b", at(0)) == "no-backend"
    a.forget_kind("claude", "s1", "gate")
    assert a.gate("claude", "s1", "t", "b", at(1)) == "no-backend", "still eligible: no cooldown was spent"
    assert a.deliveries.flush()
    record = records_in(tmp_path / DELIVERIES_FILE)
    assert [(d["outcome"], d["detail"]) for d in record] == [("no-backend", "no desktop here")] * 2


def test_one_delivery_entry_per_raise_with_the_outcome_and_the_tab_lane(tmp_path: Path) -> None:
    n = MemoryNotifier("service-error")
    a = alerts(tmp_path, n)
    a.report_tab_lane(at(-42))
    a.gate("claude", "s1", "t", "b", at(0))
    assert a.drain() and a.deliveries.flush()
    (entry,) = records_in(tmp_path / DELIVERIES_FILE)
    assert entry["outcome"] == "service-error" and entry["backend"] == "memory"
    assert entry["tab_lane_before_s"] == 42.0 and entry["tab_lane_reported_at"] == "2026-11-30T11:59:18Z"


def test_without_a_tab_lane_the_record_says_none(tmp_path: Path) -> None:
    a = alerts(tmp_path, MemoryNotifier())
    a.gate("claude", "s1", "t", "b", at(0))
    assert a.drain()
    (entry,) = a.deliveries.all()
    assert entry.tab_lane_reported_at is None and entry.tab_lane_before_s is None


def test_a_raising_backend_is_recorded_and_the_thread_survives(tmp_path: Path) -> None:
    class Broken(MemoryNotifier):
        def send(self, title: str, body: str, *, timeout_s: float = 5.0) -> Any:
            raise RuntimeError("boom")

    a = alerts(tmp_path, Broken())
    a.gate("claude", "s1", "t", "b", at(0))
    a.gate("claude", "s2", "t", "b", at(20))
    assert a.drain()
    assert [d.outcome for d in a.deliveries.all()] == ["could-not-start", "could-not-start"]
    a.close()


def test_notify_off_raises_nothing(tmp_path: Path) -> None:
    n = MemoryNotifier()
    a = Alerts(n, DeliveriesStore(tmp_path), clock=lambda: T0, enabled=False)
    assert a.gate("claude", "s1", "t", "b", at(0)) == "off"
    assert n.sent == [] and not (tmp_path / DELIVERIES_FILE).exists()


def test_questions_through_the_hub_notify_on_arrival(make_hub: Callable[..., EventHub], notifier: Any) -> None:
    hub = make_hub()
    assert hub.raise_question("claude", "s1", "Deploy to staging or production?") == "raised"
    assert hub.alerts.drain()
    assert notifier.sent == [("claude · s1 asks a question", "Deploy to staging or production?")]


def test_deliveries_survive_a_restart_and_list_per_session(make_hub: Callable[..., EventHub], notifier: Any) -> None:
    hub = make_hub()
    hub.ingest_notification(
        {"session_id": "s1", "hook_event_name": "Notification", "notification_type": "permission_prompt"}
    )
    assert hub.alerts.drain()
    hub.close()
    again = make_hub()
    (delivery,) = again.deliveries_for("claude", "s1")
    assert delivery.outcome == "handed-over" and delivery.kind == "gate"
    assert again.deliveries_for("claude", "other") == ()


def test_a_corrupt_deliveries_file_is_discarded(tmp_path: Path) -> None:
    (tmp_path / DELIVERIES_FILE).write_bytes(b'{"schema": 99, "deliveries": []}')
    store = DeliveriesStore(tmp_path)
    store.load()
    assert store.all() == () and store.reset is not None and "not a store this build can read" in store.reset
    # Set aside, never written over: the unreadable bytes are still there under another name.
    (aside,) = tmp_path.glob(f"{DELIVERIES_FILE}.unreadable-*")
    assert aside.read_bytes() == b'{"schema": 99, "deliveries": []}'
    assert aside.name in store.reset and not (tmp_path / DELIVERIES_FILE).exists()


def test_deliveries_are_bounded(tmp_path: Path) -> None:
    store = DeliveriesStore(tmp_path, limit=5)
    a = Alerts(MemoryNotifier(), store, clock=lambda: T0, confirm=timedelta(0))
    for i in range(9):
        assert a.gate("claude", f"s{i}", "t", "b", at(60 * i)) == "raised"
        assert a.drain()
    assert store.flush()
    assert len(store.all()) == 5
    reread = DeliveriesStore(tmp_path, limit=5)
    reread.load()
    assert [d.session_id for d in reread.all()] == [f"s{i}" for i in range(8, 3, -1)]


def test_no_backend_raises_never_push_real_delivery_history_out(tmp_path: Path) -> None:
    store = DeliveriesStore(tmp_path, limit=5, no_backend_limit=3)
    real = Alerts(MemoryNotifier(), store, clock=lambda: T0, confirm=timedelta(0))
    for i in range(4):
        assert real.gate("claude", f"real{i}", "t", "b", at(60 * i)) == "raised"
        assert real.drain()
    blind = Alerts(NoBackend("none"), store, clock=lambda: T0, confirm=timedelta(0))
    for i in range(50):
        assert blind.gate("claude", f"blind{i}", "t", "b", at(600 + 60 * i)) == "no-backend"
    assert store.flush()
    reread = DeliveriesStore(tmp_path, limit=5, no_backend_limit=3)
    reread.load()
    kept = [d.session_id for d in reread.all()]
    assert kept == ["blind49", "blind48", "blind47", "real3", "real2", "real1", "real0"]


def test_only_the_sessions_still_cooling_are_remembered(tmp_path: Path) -> None:
    """A server alerts for sessions that come and go for days: the last gate alert of each is
    kept while it can still hold one back (the cooldown), not for every session ever alerted."""
    n = MemoryNotifier()
    a = alerts(tmp_path, n)
    for i in range(3 * SESSIONS_COOLING):
        assert a.gate("claude", f"s{i}", "t", "b", at(5 * i)) == "raised"
    assert len(a._session_last) <= SESSIONS_COOLING + 1
    last = 5 * (3 * SESSIONS_COOLING - 1)
    a.forget_kind("claude", f"s{3 * SESSIONS_COOLING - 1}", "gate")
    assert a.gate("claude", f"s{3 * SESSIONS_COOLING - 1}", "t", "b", at(last + 10)) == "cooldown", "still cooling"
    assert a.drain()
