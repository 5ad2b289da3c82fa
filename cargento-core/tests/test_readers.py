"""The shared readers never raise on damaged input, stay bounded, and never write."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from cargento.cache import HarnessCache
from cargento.errors import HarnessDataMissing, HarnessError, HarnessFormatUnsupported, StoreLocked
from cargento.readers import (
    FollowedSummary,
    JsonlFollower,
    cached_head,
    cached_summary,
    follow_summary,
    open_ro,
    query_ro,
    read_head_records,
    tail_lines,
    tail_records,
    walk_back,
    walk_back_records,
)
from cargento.readers import sqlite as sqlite_reader
from cargento.testing.homes import snapshot_tree
from cargento.testing.strategies import damaged
from hypothesis import given, settings
from hypothesis import strategies as st

records = st.lists(
    st.dictionaries(st.text(max_size=5), st.integers(-(2**62), 2**62) | st.text(max_size=20), max_size=3), max_size=30
)


def _write(path: Path, recs: list[dict[str, object]]) -> bytes:
    data = b"".join(orjson.dumps(r) + b"\n" for r in recs)
    path.write_bytes(data)
    return data


@settings(max_examples=80, deadline=None)
@given(recs=records, chunk=st.integers(1, 97))
def test_walk_back_yields_every_line_newest_first(
    tmp_path_factory: pytest.TempPathFactory, recs: list[dict[str, object]], chunk: int
) -> None:
    path = tmp_path_factory.mktemp("wb") / "f.jsonl"
    _write(path, recs)
    got = [orjson.loads(line) for line in walk_back(path, chunk=chunk)]
    assert got == list(reversed(recs))


@settings(max_examples=80, deadline=None)
@given(data=st.binary(max_size=3000), chunk=st.integers(1, 64), line_cap=st.integers(1, 200))
def test_walk_back_never_raises_and_respects_line_bound(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, chunk: int, line_cap: int
) -> None:
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
        fh.write(b"2}\n")
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


# -- SQLite ----------------------------------------------------------------------------------
# Every writer runs in another process, as a harness does: a writer in this process would share
# its -shm with the reader (SQLite keeps one per inode per process) and hide the reader's writes.

_WRITER = r"""
import os, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "wal":
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
print("ready", flush=True)
for line in sys.stdin:
    command = line.strip()
    if command == "crash":
        os._exit(0)
    if command == "close":
        conn.close()
        print("ok", flush=True)
        break
    try:
        conn.execute(command).fetchall()
        print("ok", flush=True)
    except sqlite3.Error as exc:
        print("error " + str(exc), flush=True)
"""

FIFTY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) INSERT INTO t (x) SELECT x FROM c"


class Writer:
    """A harness-like writer in another process, driven one statement at a time."""

    def __init__(self, db: Path, journal: str = "wal") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(db), journal], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self._line() == "ready"

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def __call__(self, *statements: str) -> None:
        assert self.proc.stdin is not None
        for sql in statements:
            self.proc.stdin.write(sql + "\n")
            self.proc.stdin.flush()
            assert self._line() == "ok", sql

    def close(self) -> None:
        """Close cleanly: SQLite checkpoints and deletes -wal and -shm."""
        self("close")
        self.proc.wait(10)

    def crash(self) -> None:
        """Exit without closing: -wal (with its frames) and -shm stay behind."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("crash\n")
        self.proc.stdin.flush()
        self.proc.wait(10)

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def _store(tmp_path: Path, name: str = "store.db") -> tuple[Path, Writer]:
    """A WAL database whose 50 committed rows are all in the -wal (nothing checkpointed)."""
    db = tmp_path / name
    writer = Writer(db)
    writer("CREATE TABLE t (x INTEGER)", "BEGIN", FIFTY, "COMMIT")
    return db, writer


def _count(db: Path, **kwargs: Any) -> int:
    conn = open_ro(db, **kwargs)
    try:
        return int(conn.execute("SELECT count(*) FROM t").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture
def no_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail when the reader falls back to the private snapshot (the database must be read in place)."""

    def refuse(path: str) -> str:
        raise AssertionError(f"snapshot taken of {path}")

    monkeypatch.setattr(sqlite_reader._SNAPSHOTS, "copy_of", refuse)


@pytest.mark.parametrize("open_transaction", [False, True])
def test_sqlite_live_writer_is_read_in_place_and_its_shm_is_not_written(
    tmp_path: Path, no_snapshot: None, open_transaction: bool
) -> None:
    db, writer = _store(tmp_path)
    with writer:
        if open_transaction:
            writer("BEGIN IMMEDIATE", "INSERT INTO t VALUES (-1)")
        before = snapshot_tree(tmp_path)
        assert {"store.db-wal", "store.db-shm"} <= set(before)
        assert _count(db) == 50  # every committed frame, and not the open transaction's row
        assert query_ro(db, "SELECT max(x) FROM t") == [(50,)]
        assert snapshot_tree(tmp_path) == before
        if open_transaction:
            writer("COMMIT")
        writer("INSERT INTO t VALUES (99)")
        conn = open_ro(db)
        before = snapshot_tree(tmp_path)
        expected = 52 if open_transaction else 51
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == expected
        writer("INSERT INTO t VALUES (100)")
        before = snapshot_tree(tmp_path)
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == expected + 1  # a later statement sees it
        assert snapshot_tree(tmp_path) == before
        conn.close()
        assert snapshot_tree(tmp_path) == before


def test_sqlite_plain_read_only_open_would_write_the_writers_shm(tmp_path: Path) -> None:
    """The hazard the in-place read avoids, measured: without ``readonly_shm`` a ``mode=ro``
    read of a live writer's database writes a read mark into its -shm."""
    db, writer = _store(tmp_path)
    with writer:
        before = snapshot_tree(tmp_path)
        raw = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        assert raw.execute("SELECT count(*) FROM t").fetchone() == (50,)
        raw.close()
        assert snapshot_tree(tmp_path)["store.db-shm"] != before["store.db-shm"]
        before = snapshot_tree(tmp_path)
        assert _count(db) == 50
        assert snapshot_tree(tmp_path) == before


def test_sqlite_cleanly_closed_wal_database_creates_nothing(tmp_path: Path, no_snapshot: None) -> None:
    db, writer = _store(tmp_path)
    writer.close()
    before = snapshot_tree(tmp_path)
    assert set(before) == {"store.db"} and sqlite_reader.is_wal_mode(db)
    assert _count(db) == 50
    conn = open_ro(db)
    assert sqlite_reader.has_table(conn, "t")
    conn.close()
    assert snapshot_tree(tmp_path) == before


def test_sqlite_crashed_writer_wal_and_shm_are_read_in_place(tmp_path: Path, no_snapshot: None) -> None:
    db, writer = _store(tmp_path)
    writer.crash()
    before = snapshot_tree(tmp_path)
    assert {"store.db-wal", "store.db-shm"} <= set(before) and sqlite_reader.wal_has_frames(db)
    assert _count(db) == 50
    assert snapshot_tree(tmp_path) == before


def test_sqlite_wal_frames_without_shm_are_read_from_a_snapshot(tmp_path: Path) -> None:
    db, writer = _store(tmp_path)
    writer.crash()
    (tmp_path / "store.db-shm").unlink()
    before = snapshot_tree(tmp_path)
    # The main file alone does not even have the table: reading it would be stale.
    main_only = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    assert main_only.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
    main_only.close()
    assert _count(db) == 50
    assert snapshot_tree(tmp_path) == before
    assert "store.db-shm" not in snapshot_tree(tmp_path)


def test_sqlite_shm_without_wal_is_read_immutable(tmp_path: Path, no_snapshot: None) -> None:
    db, writer = _store(tmp_path)
    writer("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.crash()
    (tmp_path / "store.db-wal").unlink()
    before = snapshot_tree(tmp_path)
    assert _count(db) == 50
    assert snapshot_tree(tmp_path) == before


def test_sqlite_in_place_failure_falls_back_to_the_snapshot(tmp_path: Path) -> None:
    """A -shm SQLite cannot open read-only (here a symlink, refused by O_NOFOLLOW) is a
    SQLITE_CANTOPEN: the frames are then read from the private snapshot, never skipped."""
    db, writer = _store(tmp_path)
    writer.crash()
    shm = tmp_path / "store.db-shm"
    shm.rename(tmp_path / "elsewhere-shm")
    shm.symlink_to(tmp_path / "elsewhere-shm")
    before = snapshot_tree(tmp_path)
    assert _count(db) == 50
    assert snapshot_tree(tmp_path) == before


def test_sqlite_immutable_open_is_redone_when_a_writer_commits_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, writer = _store(tmp_path)
    writer.close()
    real = sqlite_reader._connect

    def racing(target: str, query_string: str, busy_ms: int) -> sqlite3.Connection:
        conn = real(target, query_string, busy_ms)
        if "immutable" in query_string:  # the writer starts and commits right after the check
            late = Writer(db)
            late("INSERT INTO t VALUES (51)")
            late.crash()
        return conn

    monkeypatch.setattr(sqlite_reader, "_connect", racing)
    assert _count(db) == 51


def test_sqlite_snapshot_is_reused_while_unchanged_and_bounded(tmp_path: Path) -> None:
    snapshots = sqlite_reader._Snapshots(limit=2)
    dbs = []
    for name in ("a.db", "b.db", "c.db"):
        db, writer = _store(tmp_path, name)
        writer.crash()
        (tmp_path / f"{name}-shm").unlink()
        dbs.append(db)
    first = snapshots.copy_of(str(dbs[0]))
    assert snapshots.copy_of(str(dbs[0])) == first
    with open(str(dbs[0]) + "-wal", "ab") as fh:  # the -wal changed: a new copy
        fh.write(b"\0" * 8)
    second = snapshots.copy_of(str(dbs[0]))
    assert second != first and not os.path.exists(first)
    snapshots.copy_of(str(dbs[1]))
    snapshots.copy_of(str(dbs[2]))
    assert not os.path.exists(second)  # the oldest copy is dropped beyond the limit


def test_sqlite_refuses_writes(tmp_path: Path) -> None:
    db, writer = _store(tmp_path)
    writer.close()
    conn = open_ro(db)
    with pytest.raises(sqlite3.Error):
        conn.execute("INSERT INTO t VALUES (1)")
    conn.close()


def test_sqlite_locked_database_is_store_locked(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    with Writer(db, journal="delete") as writer:
        writer("CREATE TABLE t (x)", "BEGIN EXCLUSIVE", "INSERT INTO t VALUES (1)")
        before = snapshot_tree(tmp_path)
        assert "l.db-journal" in before
        with pytest.raises(StoreLocked):
            query_ro(db, "SELECT * FROM t", busy_ms=20)
        assert snapshot_tree(tmp_path) == before
        writer("ROLLBACK")
        assert query_ro(db, "SELECT count(*) FROM t") == [(0,)]


def test_sqlite_missing_database_is_data_missing_and_not_created(tmp_path: Path) -> None:
    with pytest.raises(HarnessDataMissing):
        open_ro(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()


@pytest.mark.parametrize(
    "content", [b"", b"garbage that is not sqlite" * 40, b"SQLite format 3\x00" + b"\x00" * 20, os.urandom(4096)]
)
def test_sqlite_broken_files_are_format_errors(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "b.db"
    db.write_bytes(content)
    before = snapshot_tree(tmp_path)
    with pytest.raises(HarnessFormatUnsupported):
        query_ro(db, "SELECT name FROM sqlite_master")
    assert snapshot_tree(tmp_path) == before


@pytest.fixture(scope="module")
def reference_stores(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, bytes]]:
    """A rollback-journal database, and a WAL database left by a crashed writer (-wal, -shm)."""
    folder = tmp_path_factory.mktemp("ref")
    db = folder / "d.db"
    writer = Writer(db, journal="delete")
    writer("CREATE TABLE t (x INTEGER, y TEXT)", "CREATE TABLE u (z BLOB)", FIFTY)
    writer("INSERT INTO u SELECT CAST(printf('%0300d', x * 7919) AS BLOB) FROM t")
    writer.close()
    rollback = {"d.db": db.read_bytes()}
    db.unlink()
    _, writer = _store(folder, "d.db")
    writer("INSERT INTO t SELECT x * 2 FROM t")
    writer.crash()
    wal = {name: (folder / name).read_bytes() for name in ("d.db", "d.db-wal", "d.db-shm")}
    return [rollback, wal]


@settings(max_examples=80, deadline=None, database=None)
@given(data=st.data())
def test_sqlite_damaged_databases_raise_only_harness_errors(
    tmp_path_factory: pytest.TempPathFactory, reference_stores: list[dict[str, bytes]], data: st.DataObject
) -> None:
    files = dict(data.draw(st.sampled_from(reference_stores)))
    target = data.draw(st.sampled_from(sorted(files)))
    files[target] = data.draw(damaged(files[target]))
    for extra in ("d.db-wal", "d.db-shm"):
        if extra in files and extra != target and data.draw(st.booleans()):
            del files[extra]  # a writer's file gone (or never there)
        elif extra not in files and data.draw(st.booleans()):
            files[extra] = data.draw(st.binary(max_size=200))
    folder = tmp_path_factory.mktemp("dmg")
    for name, content in files.items():
        (folder / name).write_bytes(content)
    before = snapshot_tree(folder)
    try:
        conn = open_ro(folder / "d.db")
    except HarnessError:
        pass
    else:
        try:
            for table in sqlite_reader.tables(conn):
                sqlite_reader.columns(conn, table)
                sqlite_reader.query(conn, f'SELECT * FROM "{table}"', max_rows=100)
        except HarnessError:
            pass
        finally:
            conn.close()
    assert snapshot_tree(folder) == before


def test_sqlite_damaged_wal_header_holds_no_frames(
    tmp_path: Path, no_snapshot: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite ignores a -wal whose header is damaged. Read in place with a read-only -shm and no
    writer, such a -wal makes SQLite retry for about ten seconds, so it is read as what it is:
    no frames, the main file alone."""
    db, writer = _store(tmp_path)
    writer("PRAGMA wal_checkpoint(PASSIVE)", "INSERT INTO t VALUES (51)")
    writer.crash()
    assert sqlite_reader.wal_has_frames(db)
    wal = tmp_path / "store.db-wal"
    header = bytearray(wal.read_bytes())
    header[30] ^= 0xFF  # the header checksum no longer matches
    wal.write_bytes(bytes(header))
    assert not sqlite_reader.wal_has_frames(db)

    def refuse(name: str, busy_ms: int) -> sqlite3.Connection:
        raise AssertionError("read in place through the damaged -wal")

    monkeypatch.setattr(sqlite_reader, "_open_shared", refuse)
    before = snapshot_tree(tmp_path)
    assert _count(db) == 50  # the checkpointed rows; the row only in the ignored -wal is not there
    assert snapshot_tree(tmp_path) == before


def test_sqlite_helpers(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    writer = Writer(db, journal="delete")
    writer('CREATE TABLE "odd name" (a, "b c")', "CREATE TABLE t (x)", FIFTY, "CREATE VIEW v AS SELECT 1")
    writer("INSERT INTO t VALUES (CAST(x'ff41' AS TEXT))")
    writer.close()
    conn = open_ro(db)
    assert sqlite_reader.tables(conn) == {"odd name", "t"}
    assert sqlite_reader.has_table(conn, "odd name") and not sqlite_reader.has_table(conn, "v")
    assert sqlite_reader.columns(conn, "odd name") == {"a", "b c"}
    assert sqlite_reader.columns(conn, "absent") == frozenset()
    assert sqlite_reader.columns(conn, "t; DROP TABLE t") == frozenset()
    assert len(sqlite_reader.query(conn, "SELECT x FROM t", max_rows=7)) == 7
    with pytest.raises(HarnessError, match=r"h\.db"):
        sqlite_reader.query(conn, "SELECT x FROM t WHERE typeof(x) = 'text'", name="h.db")
    with pytest.raises(HarnessError):
        sqlite_reader.query(conn, "SELECT nope FROM t")
    conn.close()
    lenient = open_ro(db, text_errors="replace")
    assert sqlite_reader.query(lenient, "SELECT x FROM t WHERE typeof(x) = 'text'") == [("\ufffdA",)]
    lenient.close()


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


def _fold(seen: list[dict[str, Any]], record: dict[str, Any]) -> None:
    seen.append(record)


@settings(max_examples=40, deadline=None)
@given(recs=records, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_follow_summary_folds_every_record_once_whatever_the_write_boundaries(
    tmp_path_factory: pytest.TempPathFactory, recs: list[dict[str, object]], cuts: list[int]
) -> None:
    path = tmp_path_factory.mktemp("s") / "s.jsonl"
    data = b"".join(orjson.dumps(r) + b"\n" for r in recs)
    cache = HarnessCache()
    path.write_bytes(b"")
    for cut in sorted({min(c, len(data)) for c in cuts} | {len(data)}):
        path.write_bytes(data[:cut])
        summary = follow_summary(cache, "k", path, list, _fold)
    assert summary == recs


def test_follow_summary_reads_only_appended_records_and_restarts_after_a_reset(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, [{"n": 1}, {"n": 2}])
    cache = HarnessCache()
    first = follow_summary(cache, "k", path, list, _fold)
    assert first == [{"n": 1}, {"n": 2}]
    entry = cache.get("k")
    assert isinstance(entry, FollowedSummary) and entry.summary is first
    with open(path, "ab") as fh:
        fh.write(b'{"n":3}\n{"n":')
    assert follow_summary(cache, "k", path, list, _fold) is first
    assert first == [{"n": 1}, {"n": 2}, {"n": 3}]  # the half-written line waits
    with open(path, "ab") as fh:
        fh.write(b"4}\n")
    assert follow_summary(cache, "k", path, list, _fold) == [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}]
    _write(path, [{"m": 1}])  # truncated and rewritten
    again = follow_summary(cache, "k", path, list, _fold)
    assert again == [{"m": 1}] and again is not first
    path.write_bytes(b"")  # emptied: the summary starts over with nothing to fold
    assert follow_summary(cache, "k", path, list, _fold) == []
    path.unlink()  # gone: an empty summary, not the old one
    assert follow_summary(cache, "k", path, list, _fold) == []


def test_follow_summary_unreadable_file_is_data_missing_and_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.mkdir()  # stat works, open does not
    cache = HarnessCache()
    with pytest.raises(HarnessDataMissing, match=r"cannot read .*d\.jsonl"):
        follow_summary(cache, "k", path, list, _fold)
    assert "k" not in cache


def test_cached_summary_peeks_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    _write(path, [{"n": 1}])
    cache = HarnessCache()
    assert cached_summary(cache, "k", list) is None
    follow_summary(cache, "k", path, list, _fold)
    with open(path, "ab") as fh:
        fh.write(b'{"n":2}\n')
    assert cached_summary(cache, "k", list) == [{"n": 1}]
    assert cached_summary(cache, "k", dict) is None
    cache.set("other", [{"n": 1}])
    assert cached_summary(cache, "other", list) is None


def test_database_stamp_changes_with_the_database_or_its_wal_and_opens_nothing(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    assert sqlite_reader.database_stamp(db) == "-/-"
    db.write_bytes(b"x" * 10)
    os.utime(db, ns=(1_000_000_000, 1_000_000_000))
    assert sqlite_reader.database_stamp(db) == "10.1000000000/-"
    wal = tmp_path / "s.db-wal"
    wal.write_bytes(b"y" * 4)
    os.utime(wal, ns=(2_000_000_000, 2_000_000_000))
    assert sqlite_reader.database_stamp(str(db)) == "10.1000000000/4.2000000000"
    before = snapshot_tree(tmp_path)
    sqlite_reader.database_stamp(db)
    assert snapshot_tree(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db", "s.db-wal"]


def test_cached_head_keeps_only_a_final_verdict_while_the_file_keeps_its_inode(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    calls: list[str] = []

    def first_line(p: str) -> tuple[dict[str, Any] | None, bool]:
        calls.append(p)
        records, conclusive = read_head_records(p, max_lines=1, max_bytes=1024)
        return (records[0] if records else None), conclusive

    cache = HarnessCache()
    assert cached_head(cache, "k", str(path), first_line) is None and calls == []  # missing: not read
    path.write_bytes(b'{"id":')
    assert cached_head(cache, "k", str(path), first_line) is None  # half-written: not kept
    with open(path, "ab") as fh:
        fh.write(b'1}\n{"more":2}\n')
    assert cached_head(cache, "k", str(path), first_line) == {"id": 1}
    assert cached_head(cache, "k", str(path), first_line) == {"id": 1} and len(calls) == 2  # kept
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b'{"id":2}\n')
    os.replace(replacement, path)  # a new inode: read again
    assert cached_head(cache, "k", str(path), first_line) == {"id": 2} and len(calls) == 3
    path.unlink()
    assert cached_head(cache, "k", str(path), first_line) is None and "k" not in cache
