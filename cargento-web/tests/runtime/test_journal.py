"""The server's own stores as journals: constant write volume, never written over, never blocking."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.journal import Journal, records_in
from cargento_web.runtime.notifiers import NoBackend
from cargento_web.runtime.stores import DELIVERIES_FILE, ENDS_FILE, DeliveriesStore, Delivery

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def delivery(n: int, outcome: str = "handed-over") -> Delivery:
    return Delivery(
        harness="claude",
        session_id=f"s{n}",
        kind="gate",
        raised_at=T0 + timedelta(seconds=n),
        outcome=outcome,
        backend="x",
    )


def flood(tmp_path: Path, events: int) -> tuple[EventHub, int]:
    """*events* hook events on 200 sessions, half of them a transition into needs input, on a
    machine with no notification backend (each transition is recorded, no cooldown spent)."""
    now = [T0]
    hub = EventHub(
        clock=lambda: now[0],
        state_dir=tmp_path / "state",
        notifier=NoBackend("no desktop here"),
        capability="c" * 32,
        confirm=timedelta(0),  # every transition raises: the subject is the write volume
    )
    for i in range(events):
        now[0] = T0 + timedelta(milliseconds=10 * i)
        name = "PermissionRequest" if (i // 200) % 2 == 0 else "Stop"
        hub.ingest(
            "claude",
            {
                "session_id": f"flood-{i % 200:03d}",
                "hook_event_name": name,
                "tool_name": "Bash",
                "tool_input": {"command": "make"},
            },
        )
    assert hub.flush(30)
    journal = hub.deliveries.journal
    assert journal is not None
    return hub, journal.bytes_written


def test_write_volume_per_event_is_constant_whatever_the_history(tmp_path: Path) -> None:
    small_hub, small = flood(tmp_path / "a", 2_000)
    big_hub, big = flood(tmp_path / "b", 10_000)
    raises_small, raises_big = 1_000, 5_000
    per_small, per_big = small / raises_small, big / raises_big
    print(f"deliveries journal: {big} bytes written per 10,000 events ({per_big:.0f} bytes per recorded raise)")
    # A rewrite per raise grew with the history (559 MB per 10,000 events); a journal line does not.
    assert per_big < 1.5 * per_small
    assert big < 10 * 1024 * 1024
    size = (tmp_path / "b" / "state" / DELIVERIES_FILE).stat().st_size
    assert size < 2 * (big_hub.deliveries.limit + big_hub.deliveries.no_backend_limit) * 400
    assert len(big_hub.deliveries.all()) == big_hub.deliveries.no_backend_limit
    small_hub.close()
    big_hub.close()


def test_a_write_never_runs_on_the_callers_thread(tmp_path: Path) -> None:
    """The caller (the server's event loop) queues the line and returns; the disk is the
    journal thread's."""
    writers: set[str] = set()
    original = os.write

    def spy(fd: int, data: Any) -> int:
        writers.add(threading.current_thread().name)
        return original(fd, data)

    store = DeliveriesStore(tmp_path)
    store.load()
    os.write = spy
    try:
        for n in range(20):
            store.add(delivery(n))
        assert store.flush()
    finally:
        os.write = original
    assert writers and threading.current_thread().name not in writers
    assert all(name.startswith("cargento-deliveries-journal") for name in writers)


def test_compaction_keeps_the_bound_and_a_restart_reads_the_same_records(tmp_path: Path) -> None:
    store = DeliveriesStore(tmp_path, limit=10, no_backend_limit=5)
    store.load()
    for n in range(137):
        store.add(delivery(n, "no-backend" if n % 3 == 0 else "handed-over"))
    store.close()
    lines = (tmp_path / DELIVERIES_FILE).read_bytes().splitlines()
    assert orjson.loads(lines[0]) == {"schema": 2, "store": "deliveries"}
    assert len(lines) - 1 < 2 * 15
    again = DeliveriesStore(tmp_path, limit=10, no_backend_limit=5)
    again.load()
    assert again.all() == store.all()


def test_a_line_torn_by_a_crash_loses_only_itself(tmp_path: Path) -> None:
    store = DeliveriesStore(tmp_path)
    store.load()
    for n in range(3):
        store.add(delivery(n))
    store.close()
    with open(tmp_path / DELIVERIES_FILE, "ab") as fh:
        fh.write(b'{"harness": "claude", "sess')
    again = DeliveriesStore(tmp_path)
    again.load()
    assert [d.session_id for d in again.all()] == ["s2", "s1", "s0"] and again.reset is None


def test_a_schema_one_file_still_reads(tmp_path: Path) -> None:
    legacy = {
        "schema": 1,
        "ends": [{"harness": "claude", "session_id": "old", "at": "2026-11-30T11:00:00Z", "reason": "exit"}],
    }
    (tmp_path / ENDS_FILE).write_bytes(orjson.dumps(legacy))
    hub = EventHub(clock=lambda: T0, state_dir=tmp_path, notifier=NoBackend("x"))
    assert hub.ends is not None and [e.session_id for e in hub.ends.all()] == ["old"]
    hub.ingest("claude", {"session_id": "new", "hook_event_name": "SessionEnd"})
    hub.close()
    assert [r["session_id"] for r in records_in(tmp_path / ENDS_FILE)] == ["old", "new"]


def test_another_writer_is_noticed_before_appending(tmp_path: Path) -> None:
    """Re-read before write: a file replaced behind the journal's back is not appended to
    blindly; the journal compacts its own records over a file it does not know."""
    store = DeliveriesStore(tmp_path)
    store.load()
    store.add(delivery(1))
    assert store.flush()
    (tmp_path / DELIVERIES_FILE).write_bytes(b"garbage that is not ours\n")
    store.add(delivery(2))
    store.close()
    assert [r["session_id"] for r in records_in(tmp_path / DELIVERIES_FILE)] == ["s1", "s2"]


@pytest.mark.parametrize("name", [DELIVERIES_FILE, ENDS_FILE])
def test_a_named_pipe_in_place_of_a_store_is_refused_without_hanging(tmp_path: Path, name: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / name)
    hub = EventHub(clock=lambda: T0, state_dir=state, notifier=NoBackend("x"))  # a blocking open would hang here
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "SessionEnd"})
    hub.ingest("claude", {"session_id": "s2", "hook_event_name": "PermissionRequest"})
    assert hub.flush()
    hub.close()
    status = hub.status()
    assert any(name in r and "not a regular file" in r for r in status["resets"])
    assert any(str(state / name) in w for w in status["write_errors"])
    assert (state / name).is_fifo(), "left exactly as it was"


def test_a_journal_with_nothing_queued_flushes_at_once(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "x.json", name="x", bound=4, snapshot=list)
    assert journal.load() == [] and journal.flush(0.1)
    assert not (tmp_path / "x.json").exists()
