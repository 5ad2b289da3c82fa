"""The local history store: bounds, age-first eviction, the read cap, set-aside, write rate."""

from __future__ import annotations

import gc
import os
import tempfile
import tracemalloc
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
import orjson
import pytest
from cargento.redact import redact
from cargento.testing.redactions import record_redactions
from cargento.timestamps import iso
from cargento_web.history import store as history_store
from cargento_web.history.store import HISTORY_FILE, HistoryStore, Observation, parse_history
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def obs(minutes_ago: float, sid: str = "s1", *, now: datetime = T0, detail: str | None = None) -> Observation:
    return Observation(
        harness="claude",
        session_id=sid,
        kind="state",
        at=now - timedelta(minutes=minutes_ago),
        source="store",
        project="w/proj",
        state="working",
        previous="idle",
        detail=detail,
    )


def test_observations_survive_a_restart_and_read_per_session_and_project(tmp_path: Path) -> None:
    clock = Clock()
    store = HistoryStore(tmp_path, clock=clock)
    store.load()
    store.record([obs(5, "a"), obs(3, "b"), obs(1, "a")])
    assert store.flush()
    again = HistoryStore(tmp_path, clock=clock)
    again.load()
    assert [o.at for o in again.session("claude", "a")] == [T0 - timedelta(minutes=5), T0 - timedelta(minutes=1)]
    assert len(again.project("w/proj")) == 3
    window = again.window("claude", "a")
    assert window.first == T0 - timedelta(minutes=5) and window.last == T0 - timedelta(minutes=1)
    assert again.reset is None


def test_eviction_is_age_first_and_widening_brings_nothing_back(tmp_path: Path) -> None:
    clock = Clock()
    store = HistoryStore(tmp_path, days=1, clock=clock)
    store.load()
    store.record([obs(60 * 30), obs(60 * 2)])  # 30 hours ago is outside one day
    assert len(store) == 1 and store.window().evicted
    store.flush()
    wide = HistoryStore(tmp_path, days=14, clock=clock)
    wide.load()
    assert len(wide) == 1, "narrowing dropped it; widening again brings nothing back"


def test_a_file_larger_than_the_cap_is_set_aside_unread(tmp_path: Path) -> None:
    clock = Clock()
    big = HistoryStore(tmp_path, max_bytes=1_000_000, clock=clock)
    big.load()
    big.record([obs(i / 10, detail="x" * 150) for i in range(100)])
    big.flush()
    size = (tmp_path / HISTORY_FILE).stat().st_size
    small = HistoryStore(tmp_path, max_bytes=size - 1, clock=clock)
    small.load()
    assert len(small) == 0
    assert small.reset is not None and "discarded unread" in small.reset
    assert not (tmp_path / HISTORY_FILE).exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(HISTORY_FILE + ".unreadable-")]


@pytest.mark.parametrize(
    "content",
    [b"{broken", b"[]", b'{"schema":1,"store":"history","observations":[{"kind":"state"}]}', b'{"schema":9}'],
)
def test_a_store_that_cannot_be_read_whole_is_set_aside_never_written_over(tmp_path: Path, content: bytes) -> None:
    (tmp_path / HISTORY_FILE).write_bytes(content)
    store = HistoryStore(tmp_path, clock=Clock())
    store.load()
    assert store.reset is not None and "kept as" in store.reset and store.reset_at is not None
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(HISTORY_FILE + ".unreadable-")]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    store.record([obs(1)])
    store.flush()
    assert parse_history((tmp_path / HISTORY_FILE).read_bytes()) is not None


def test_a_fifo_in_the_store_place_is_left_alone(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / HISTORY_FILE)
    store = HistoryStore(tmp_path, clock=Clock())
    store.load()
    store.record([obs(1)])
    store.flush()
    assert store.reset is not None and "left alone" in store.reset
    assert (tmp_path / HISTORY_FILE).is_fifo()


def test_writes_are_rate_bounded(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path, clock=Clock(), min_interval_s=60)
    store.load()
    store.record([obs(3)])
    store.flush()
    for i in range(50):
        store.record([obs(2 - i / 100)])
    assert store.writes == 1, "fifty records inside the interval wait for one write"
    store.flush()
    assert store.writes == 2
    assert store.flush() and store.writes == 2, "nothing changed: no write"
    store.close()


def test_reread_before_write_merges_another_writers_observations(tmp_path: Path) -> None:
    clock = Clock()
    mine = HistoryStore(tmp_path, clock=clock)
    mine.load()
    mine.record([obs(5, "mine")])
    mine.flush()
    other = HistoryStore(tmp_path, clock=clock)
    other.load()
    other.record([obs(4, "other")])
    other.flush()
    mine.record([obs(1, "mine")])
    mine.flush()
    on_disk = parse_history((tmp_path / HISTORY_FILE).read_bytes())
    assert on_disk is not None and {o.session_id for o in on_disk} == {"mine", "other"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    ages=st.lists(st.floats(min_value=0, max_value=60 * 24 * 30), min_size=0, max_size=60),
    detail=st.text(max_size=80),
    days=st.floats(min_value=0.01, max_value=30),
    cap=st.integers(min_value=60, max_value=6000),
)
def test_bounds_hold_for_any_history(tmp_path: Path, ages: list[float], detail: str, days: float, cap: int) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # a fresh folder per example
    clock = Clock()
    store = HistoryStore(folder, days=days, max_bytes=cap, clock=clock)
    store.load()
    for age in ages:
        store.record([obs(age, detail=detail)])
    kept = store.all()
    assert all(T0 - o.at <= timedelta(days=days) for o in kept), "nothing older than the window"
    assert store.size <= cap
    store.flush()
    if (folder / HISTORY_FILE).exists():
        data = (folder / HISTORY_FILE).read_bytes()
        assert len(data) == store.size, "the size the store counts is the size it writes"
        assert len(data) <= cap, "the file is never larger than its own read cap"
        parsed = parse_history(data)
        assert parsed is not None and len(parsed) == len(kept)
    in_window = sorted((a for a in ages if timedelta(minutes=a) <= timedelta(days=days)), reverse=True)
    # Age first, then the oldest: what is kept is always the newest observations in the window.
    assert [o.at for o in kept] == [T0 - timedelta(minutes=a) for a in in_window[len(in_window) - len(kept) :]]


@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=400)
    | st.from_regex(rb'\{"schema":1,"store":"history","observations":\[.*\]\}', fullmatch=True)
)
def test_the_reader_never_raises(data: bytes) -> None:
    parsed = parse_history(data)
    assert parsed is None or all(isinstance(o, Observation) for o in parsed)


@settings(max_examples=100, deadline=None)
@given(
    records=st.lists(
        st.dictionaries(
            st.sampled_from(["harness", "sid", "kind", "at", "source", "project", "state", "detail"]),
            st.none()
            | st.text(max_size=10)
            | st.integers(-(2**40), 2**40)
            | st.sampled_from(["state", "2026-11-30T12:00:00Z"]),
        ),
        max_size=5,
    )
)
def test_a_malformed_observation_rejects_the_whole_store(records: list[dict[str, object]]) -> None:
    data = orjson.dumps({"schema": 1, "store": "history", "observations": records})
    parsed = parse_history(data)
    if any(not isinstance(r.get("harness"), str) or not isinstance(r.get("sid"), str) for r in records):
        assert parsed is None, "one malformed observation and the store is not read whole"
    if parsed is not None:
        assert len(parsed) == len(records)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(count=10, slack=0).via("a cap of exactly the file's size reads it whole")
@example(count=10, slack=-1).via("one byte less sets it aside")
@given(count=st.integers(min_value=0, max_value=40), slack=st.integers(min_value=-300, max_value=300))
def test_the_size_cap_is_the_read_cap(tmp_path: Path, count: int, slack: int) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # a fresh folder per example
    writer = HistoryStore(folder, max_bytes=10_000_000, clock=Clock())
    writer.load()
    writer.record([obs(i / 10, detail="d" * 20) for i in range(count)])
    writer.flush()
    size = (folder / HISTORY_FILE).stat().st_size if count else 0
    cap = max(1, size + slack)  # around the file's size, and exactly it
    reader = HistoryStore(folder, max_bytes=cap, clock=Clock())
    reader.load()
    if size > cap:
        assert len(reader) == 0 and reader.reset is not None and "discarded unread" in reader.reset
        assert not (folder / HISTORY_FILE).exists(), "set aside, never parsed"
    else:
        assert len(reader) == count and reader.reset is None


def test_diagnose_names_the_history_store(tmp_path: Path) -> None:
    from cargento_web.history import own_stores

    env = {"CARGENTO_HOME": str(tmp_path)}
    assert [s.status for s in own_stores(env)] == ["absent"]
    store = HistoryStore(tmp_path, clock=Clock())
    store.load()
    store.record([obs(1), obs(2)])
    store.flush()
    [found] = own_stores(env)
    assert (found.status, found.detail) == ("read", "2 observations")
    (tmp_path / HISTORY_FILE).write_bytes(b"{torn")
    [found] = own_stores(env)
    assert found.status == "unreadable"
    assert (tmp_path / HISTORY_FILE).read_bytes() == b"{torn", "--diagnose reads, never sets aside"
    (tmp_path / HISTORY_FILE).unlink()
    os.mkfifo(tmp_path / HISTORY_FILE)
    [found] = own_stores(env)
    assert found.status == "unreadable", "a pipe in the store's place is refused without blocking"


def test_held_observations_cost_their_size_not_the_serialiser_buffer(tmp_path: Path) -> None:
    """Each held observation keeps its encoded bytes: orjson's 4 KiB buffer a record would
    grow the held history to about 20 MB at the 1 MB byte cap (the demo soak's climb)."""
    import tracemalloc

    store = HistoryStore(tmp_path, max_bytes=8_000_000, min_interval_s=3600)
    store.load()
    batch = [obs(i / 100, f"s{i % 7}") for i in range(2000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        store.record(batch)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(store) == 2000
    per = grown / 2000
    assert per < 1024, f"{per:.0f} bytes held per observation of {store.size / 2000:.0f} encoded bytes"


def _held_bytes_per_observation(build: Callable[[], HistoryStore]) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        store = build()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return held / len(store)


def test_an_observation_held_costs_about_its_stored_bytes(tmp_path: Path) -> None:
    """The store holds what it writes, not an object beside it: at the 1 MB cap an observation
    held as an object and its bytes cost 630 bytes (900 read back, each of its strings its
    own), 3 to 4.5 MB; held as its ~210 stored bytes and one string per session and project,
    under 450."""
    n = 3000
    sids = [f"{i:08x}-1111-4222-8333-444455556666" for i in range(60)]

    def fresh(directory: Path) -> HistoryStore:
        directory.mkdir()
        store = HistoryStore(directory, clock=Clock(T0 + timedelta(minutes=n)), min_interval_s=3600)
        for i in range(n):
            # Each board's row names its session and project with strings of its own.
            row_sid, row_project = "".join(sids[i % 60]), "".join(f"/home/someone/code/p{i % 7}")
            store.record([attrs.evolve(obs(n - i, row_sid), project=row_project)])
        return store

    assert _held_bytes_per_observation(lambda: fresh(tmp_path / "measured")) < 450
    kept = fresh(tmp_path / "kept")
    assert kept.flush() and len(kept) == n

    def read_back() -> HistoryStore:
        store = HistoryStore(tmp_path / "kept", clock=Clock(T0 + timedelta(minutes=n)))
        store.load()
        return store

    assert _held_bytes_per_observation(read_back) < 450
    again = read_back()
    assert [o.record() for o in again.all()] == [o.record() for o in kept.all()]
    assert again.last("claude", sids[5]) == kept.last("claude", sids[5]) is not None


def test_records_are_what_the_questions_return_as_stored(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path, clock=Clock())
    store.record([obs(9 - i, f"s{i % 3}", detail=f"step {i}") for i in range(9)])
    assert store.records(harness="claude", session_id="s1", limit=10) == (
        3,
        [o.record() for o in store.session("claude", "s1")],
    )
    total, newest = store.records(project="w/proj", limit=4)
    assert total == 9 and newest == [o.record() for o in store.project("w/proj")][-4:]
    assert store.records(harness="claude", session_id="nobody", limit=10) == (0, [])


def test_holds_says_whether_a_session_is_held_until_its_last_observation_goes(tmp_path: Path) -> None:
    clock = Clock()
    store = HistoryStore(tmp_path, days=1, clock=clock)
    store.load()
    store.record([obs(60 * 20, "old"), obs(60 * 2, "old"), obs(5, "new")])
    assert store.holds("claude", "old") and store.holds("claude", "new") and not store.holds("codex", "old")
    clock.now = T0 + timedelta(hours=10)  # the first of "old" is now past the day
    store.record([obs(0, "newer", now=clock.now)])
    assert store.holds("claude", "old"), "one of its observations is still held"
    clock.now = T0 + timedelta(hours=23)
    store.record([obs(0, "newest", now=clock.now)])
    assert not store.holds("claude", "old") and store.holds("claude", "new")
    assert store.flush()
    again = HistoryStore(tmp_path, days=1, clock=clock)
    again.load()
    assert again.holds("claude", "newest") and not again.holds("claude", "old")
    assert [again.holds("claude", s) for s in ("new", "newer")] == [True, True]


def test_a_first_batch_out_of_time_order_is_held_oldest_first_and_trimmed_from_the_oldest(tmp_path: Path) -> None:
    """A batch newest first into an empty store (a caller may hand one so) is held in time order,
    and a size trim lets go of its oldest, not of whatever came first."""
    store = HistoryStore(tmp_path, max_bytes=300, clock=Clock())
    store.load()
    store.record([obs(0, "a", detail="newest"), obs(1, "a", detail="older")])
    assert [o.detail for o in store.all()] == ["newest"]
    roomy = HistoryStore(tmp_path / "roomy", clock=Clock())
    roomy.load()
    roomy.record([obs(0, "a"), obs(2, "b"), obs(1, "a")])
    assert [o.at for o in roomy.all()] == sorted(o.at for o in roomy.all())


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=st.lists(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "b"]),
                st.sampled_from(["state", "turn_started", "wait_started"]),
                st.sampled_from(["idle", "working", "needs_input"]),
                st.integers(min_value=0, max_value=3000),
            ),
            min_size=1,
            max_size=6,
        ),
        max_size=8,
    ),
    cap=st.integers(min_value=300, max_value=4000),
)
def test_last_state_is_the_newest_state_observation_held(
    tmp_path: Path, batches: list[list[tuple[str, str, str, int]]], cap: int
) -> None:
    """Through out-of-order batches, eviction by age and by size, and a restart, the state a
    first sight compares with is that of the newest state observation still held."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    clock = Clock()
    store = HistoryStore(folder, days=1, max_bytes=cap, clock=clock)
    store.load()

    def expected(held: HistoryStore, sid: str) -> str | None:
        states = [o.state for o in held.session("claude", sid) if o.kind == "state"]
        return states[-1] if states else None

    for batch in batches:
        store.record(
            [
                attrs.evolve(obs(minutes, sid), kind=kind, state=state if kind == "state" else None)
                for sid, kind, state, minutes in batch
            ]
        )
        for sid in ("a", "b"):
            assert store.last_state("claude", sid) == expected(store, sid)
    store.flush()
    again = HistoryStore(folder, days=1, max_bytes=cap, clock=clock)
    again.load()
    for sid in ("a", "b"):
        assert again.last_state("claude", sid) == expected(again, sid) == store.last_state("claude", sid)


def test_a_store_read_back_redacts_each_distinct_string_once_and_still_redacts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read back, a store's observations repeat their harness, kind, source, project and state;
    each distinct string is redacted once per batch, and a credential written into the file
    by another writer is still cut out."""
    clock = Clock()
    store = HistoryStore(tmp_path, clock=clock)
    store.load()
    store.record([obs(i / 10, f"s{i % 3}", detail=f"step {i}") for i in range(30)])
    assert store.flush()
    path = tmp_path / HISTORY_FILE
    doc = orjson.loads(path.read_bytes())
    first_of_s0 = next(o for o in doc["observations"] if o["sid"] == "s0")
    first_of_s0["detail"] = "ran deploy --password hunter2hunter2"
    path.write_bytes(orjson.dumps(doc))

    asked = record_redactions(monkeypatch)
    again = HistoryStore(tmp_path, clock=clock)
    again.load()
    assert len(asked) == len(set(asked)), "a string repeated across observations is redacted once"
    assert len(asked) < 30 * 4, "not every string of every observation"
    details = [o.detail for o in again.session("claude", "s0")]
    assert "ran deploy --password …REDACTED" in details


_texts = st.text(max_size=12) | st.sampled_from(["sk-ant-api03-" + "a" * 40, "token=hunter2hunter2", "w/proj", ""])
_stored = st.fixed_dictionaries(
    {
        "harness": st.text(max_size=8) | st.sampled_from(["claude", "codex"]),
        "sid": _texts,
        "kind": st.sampled_from(history_store.KINDS) | st.text(max_size=6),
        "at": st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat())
        | st.datetimes(timezones=st.just(UTC)).map(iso)  # as this build writes it
        | st.sampled_from(
            ["2026-11-30T12:00:00Z", "2026-11-30T12:00:00.000000Z", "2026-11-30T13:00:00+01:00", "not a time"]
        ),
        "source": _texts,
    },
    optional={name: st.none() | _texts | st.integers(0, 9) for name in ("project", "state", "previous", "detail")},
)


#: The order Observation.record writes a stored observation's keys in (Hypothesis shuffles them).
_WRITTEN_ORDER = ("harness", "sid", "kind", "at", "source", "project", "state", "previous", "detail")


def _in_written_order(raw: Mapping[str, object]) -> dict[str, object]:
    return {name: raw[name] for name in _WRITTEN_ORDER if name in raw}


@settings(max_examples=500, deadline=None)
@given(
    raw=_stored.map(_in_written_order) | _stored | st.none() | st.integers(),
    repeat=st.booleans(),
)
def test_an_observation_read_back_is_held_as_making_it_first_held_it(raw: object, repeat: bool) -> None:
    """A stored observation goes straight to its held form at a start (no Observation made,
    no record walked): the same time, names and bytes as making the Observation and encoding
    it, and refused exactly where ``_observation`` refuses it."""
    made = history_store._observation(raw)
    memo: dict[str, str] = {}
    if repeat:  # a batch's memo holding the strings already
        history_store._held_of(raw, {}, memo)
    held = history_store._held_of(raw, {}, memo)
    if made is None:
        assert held is None
    else:
        assert held == history_store._held(made, {})


@settings(max_examples=200, deadline=None)
@given(moment=st.datetimes(timezones=st.just(UTC)))
def test_no_redaction_changes_a_stored_time_or_kind(moment: datetime) -> None:
    """Why a read-back leaves ``at`` and ``kind`` unredacted: redacting them changes nothing."""
    text = iso(moment)
    assert text is not None and redact(text) == text
    assert all(redact(kind) == kind for kind in history_store.KINDS)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_stored.map(_in_written_order) | _stored, max_size=8))
def test_a_store_read_back_holds_what_its_observations_make(tmp_path: Path, records: list[dict[str, object]]) -> None:
    data = orjson.dumps({"schema": 1, "store": "history", "observations": records})
    parsed = parse_history(data)
    held = history_store._read_held(data, {})
    if parsed is None:
        assert held is None
    else:
        memo: dict[str, str] = {}
        assert held == [history_store._held(o, {}, memo) for o in parsed]
