"""The shared readers never raise on damaged input, stay bounded, and never write."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import orjson
import pytest
from cargento.errors import HarnessError, StoreLocked
from cargento.readers import (
    JsonlFollower,
    open_ro,
    query_ro,
    read_head_records,
    tail_lines,
    tail_records,
    walk_back,
    walk_back_records,
)
from cargento.testing.homes import snapshot_tree
from hypothesis import given, settings
from hypothesis import strategies as st

records = st.lists(st.dictionaries(st.text(max_size=5), st.integers(-(2**62), 2**62) | st.text(max_size=20), max_size=3), max_size=30)


def _write(path: Path, recs: list[dict[str, object]]) -> bytes:
    data = b"".join(orjson.dumps(r) + b"\n" for r in recs)
    path.write_bytes(data)
    return data


@settings(max_examples=80, deadline=None)
@given(recs=records, chunk=st.integers(1, 97))
def test_walk_back_yields_every_line_newest_first(tmp_path_factory: pytest.TempPathFactory, recs: list[dict[str, object]], chunk: int) -> None:
    path = tmp_path_factory.mktemp("wb") / "f.jsonl"
    _write(path, recs)
    got = [orjson.loads(line) for line in walk_back(path, chunk=chunk)]
    assert got == list(reversed(recs))


@settings(max_examples=80, deadline=None)
@given(data=st.binary(max_size=3000), chunk=st.integers(1, 64), line_cap=st.integers(1, 200))
def test_walk_back_never_raises_and_respects_line_bound(tmp_path_factory: pytest.TempPathFactory, data: bytes, chunk: int, line_cap: int) -> None:
    path = tmp_path_factory.mktemp("wb") / "g.jsonl"
    path.write_bytes(data)
    for line in walk_back(path, chunk=chunk, max_line_bytes=line_cap):
        assert len(line) <= line_cap
    list(walk_back_records(path))


def test_walk_back_skips_oversize_lines_and_reaches_older_records(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"n":1}\n' + b'{"blob":"' + b"x" * 300_000 + b'"}\n' + b'{"n":3}\n')
    got = list(walk_back_records(path, max_line_bytes=10_000))
    assert got == [{"n": 3}, {"n": 1}]


def test_walk_back_half_written_last_line(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'{"n":1}\n{"n":2}\n{"n":')
    assert list(walk_back_records(path)) == [{"n": 2}, {"n": 1}]
    path.write_bytes(b'{"n":1}\n{"n":2}')
    assert list(walk_back_records(path)) == [{"n": 2}, {"n": 1}], "a complete last line without newline counts"


def test_walk_back_bounded_by_bytes(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    _write(path, [{"n": i} for i in range(1000)])
    got = list(walk_back_records(path, max_bytes=100))
    assert got and got[0] == {"n": 999} and len(got) < 20


@settings(max_examples=80, deadline=None)
@given(data=st.binary(max_size=4000), limit=st.integers(1, 5000))
def test_tail_never_raises(tmp_path_factory: pytest.TempPathFactory, data: bytes, limit: int) -> None:
    path = tmp_path_factory.mktemp("t") / "t.jsonl"
    path.write_bytes(data)
    tail_lines(path, limit)
    tail_records(path, limit)


def test_tail_drops_partial_first_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    _write(path, [{"n": 1, "pad": "x" * 50}, {"n": 2}, {"n": 3}])
    got = tail_records(path, max_bytes=30)
    assert got == [{"n": 2}, {"n": 3}]


@settings(max_examples=60, deadline=None)
@given(recs=records, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_follower_hands_over_every_record_once_whatever_the_write_boundaries(
    tmp_path_factory: pytest.TempPathFactory, recs: list[dict[str, object]], cuts: list[int]
) -> None:
    path = tmp_path_factory.mktemp("f") / "f.jsonl"
    data = b"".join(orjson.dumps(r) + b"\n" for r in recs)
    follower = JsonlFollower(path)
    seen: list[dict[str, object]] = []
    path.write_bytes(b"")
    for cut in sorted({min(c, len(data)) for c in cuts} | {len(data)}):
        path.write_bytes(data[:cut])
        seen.extend(follower.poll())
        assert not follower.reset
    assert seen == [r for r in recs if isinstance(r, dict)]


def test_follower_partial_line_does_not_advance_offset(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    f = JsonlFollower(path)
    assert f.poll() == [{"a": 1}]
    assert f.offset == 8
    with open(path, "ab") as fh:
        fh.write(b'2}\n')
    assert f.poll() == [{"b": 2}]


def test_follower_detects_truncation_and_replacement(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    _write(path, [{"n": 1}, {"n": 2}])
    f = JsonlFollower(path)
    assert len(f.poll()) == 2
    _write(path, [{"m": 1}])
    assert f.poll() == [{"m": 1}] and f.reset
    other = tmp_path / "new.jsonl"
    _write(other, [{"z": 1}, {"z": 2}, {"z": 3}])
    os.replace(other, path)
    assert f.poll() == [{"z": 1}, {"z": 2}, {"z": 3}] and f.reset
    assert f.poll() == [] and not f.reset and not f.changed()


def test_head_records_conclusive_only_when_bounded(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    recs, conclusive = read_head_records(path, max_lines=5)
    assert recs == [{"a": 1}] and not conclusive
    _write(path, [{"i": i} for i in range(10)])
    recs, conclusive = read_head_records(path, max_lines=5)
    assert len(recs) == 5 and conclusive


def _wal_db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(50)])
    conn.commit()
    return conn


def test_sqlite_read_only_never_creates_or_changes_files(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    writer = _wal_db(db)
    before = snapshot_tree(tmp_path)
    assert query_ro(db, "SELECT count(*) FROM t") == [(50,)]
    assert snapshot_tree(tmp_path) == before
    writer.close()
    # A cleanly closed WAL database has no -wal/-shm: reading must not create them.
    (tmp_path / "store.db-wal").exists() and pytest.fail("writer left a wal")
    before = snapshot_tree(tmp_path)
    assert query_ro(db, "SELECT count(*) FROM t") == [(50,)]
    assert snapshot_tree(tmp_path) == before
    with pytest.raises(HarnessError):
        open_ro(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()


def test_sqlite_refuses_writes(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    _wal_db(db).close()
    conn = open_ro(db)
    with pytest.raises(sqlite3.Error):
        conn.execute("INSERT INTO t VALUES (1)")
    conn.close()


def test_sqlite_wal_snapshot_sees_new_frames(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    writer = _wal_db(db)
    assert query_ro(db, "SELECT count(*) FROM t") == [(50,)]
    writer.execute("INSERT INTO t VALUES (99)")
    writer.commit()
    assert query_ro(db, "SELECT count(*) FROM t") == [(51,)]
    writer.close()


def test_sqlite_locked_database_is_a_harness_error(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("BEGIN EXCLUSIVE")
    conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(StoreLocked):
        query_ro(db, "SELECT * FROM t", busy_ms=20)
    conn.execute("ROLLBACK")
    conn.close()


@pytest.mark.parametrize("content", [b"", b"garbage that is not sqlite" * 40, os.urandom(4096)])
def test_sqlite_broken_files_are_harness_errors(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "b.db"
    db.write_bytes(content)
    before = snapshot_tree(tmp_path)
    try:
        query_ro(db, "SELECT name FROM sqlite_master")
    except HarnessError:
        pass
    assert snapshot_tree(tmp_path) == before


def test_follower_start_at_resumes_after_a_backward_walk(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, [{"n": 1}, {"n": 2}])
    f = JsonlFollower(path)
    f.start_at(path.stat().st_size)
    assert f.poll() == []
    with open(path, "ab") as fh:
        fh.write(b'{"n":3}\n')
    assert f.poll() == [{"n": 3}]
    g = JsonlFollower(path)
    g.start_at(8)
    assert g.poll() == [{"n": 2}, {"n": 3}]
