"""The delivery thread every raise lane shares: outcomes recorded off the caller's thread, a
full queue recorded as not started, a lane's failure recorded rather than killing the thread."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import attrs
from cargento_web.runtime.delivery import DeliveryWorker
from cargento_web.runtime.stores import Delivery

AT = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _delivery(sid: str) -> Delivery:
    return Delivery(harness="claude", session_id=sid, kind="gate", raised_at=AT, outcome="could-not-start", backend="t")


def test_outcomes_are_recorded_a_full_queue_and_a_failing_lane_too() -> None:
    recorded: list[Delivery] = []
    gate = threading.Event()
    started = threading.Event()

    def deliver(job: tuple[Delivery, str]) -> Delivery:
        delivery, what = job
        started.set()
        gate.wait(5)
        if what == "boom":
            raise RuntimeError("the backend fell over")
        return attrs.evolve(delivery, outcome="handed-over")

    worker: DeliveryWorker[tuple[Delivery, str]] = DeliveryWorker(
        name="test-delivery", deliver=deliver, record=recorded.append, maxsize=1
    )
    worker.submit((_delivery("a"), "ok"), if_full=attrs.evolve(_delivery("a"), detail="full"))
    assert started.wait(5), "the thread took the first job: the queue (of one) is empty again"
    worker.submit((_delivery("b"), "boom"), if_full=attrs.evolve(_delivery("b"), detail="full"))
    worker.submit((_delivery("c"), "ok"), if_full=attrs.evolve(_delivery("c"), detail="full"))
    assert not worker.drain(0.05), "jobs are still in flight"
    gate.set()
    assert worker.drain(5)
    by = {d.session_id: d for d in recorded}
    assert by["a"].outcome == "handed-over"
    assert by["b"].outcome == "could-not-start" and "the backend fell over" in (by["b"].detail or "")
    assert by["c"].detail == "full", "a full queue records the delivery as not started, never blocks"
    worker.close()
