"""SQLite stays read-only while a harness keeps opening and closing its database.

A WAL-mode writer deletes its ``-wal`` and ``-shm`` when it closes as the last connection; a
reader that looked for them just before must not then create an empty ``-wal`` (the race the
issue measured). Every writer runs in another process, as a harness does. Nothing here times
anything: the assertions are on directory listings, taken while the writer is known closed.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from cargento.errors import HarnessError
from cargento.readers import open_ro
from cargento.readers import sqlite as sqlite_reader

SIDECARS = ("-wal", "-shm", "-journal")

# A harness-like writer: every iteration takes the "writer busy" lock, checks that no sidecar
# it did not leave is there, opens, writes, closes (checkpointing and deleting -wal/-shm when
# it is the last connection), and lets go of the lock. It prints one line per foreign file.
_LOOP_WRITER = r"""
import fcntl, os, sqlite3, sys
db, mutex, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
def foreign():
    have = {s for s in ("-wal", "-shm", "-journal") if os.path.exists(db + s)}
    # What this writer can leave behind is the -wal/-shm pair (when a reader kept it from
    # deleting them); a -wal alone, a -shm alone or a -journal is someone else's.
    return sorted(have) if have not in (set(), {"-wal", "-shm"}) else []
lock = open(mutex, "w")
for i in range(rounds):
    fcntl.flock(lock, fcntl.LOCK_EX)
    bad = foreign()
    if bad:
        print("foreign before open", i, bad, flush=True)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("INSERT INTO t (x) VALUES (?)", (i,)) if i % 50 == 0 else conn.execute("SELECT 1 FROM t LIMIT 1").fetchall()
    conn.close()
    fcntl.flock(lock, fcntl.LOCK_UN)
print("done", flush=True)
"""


def _make_wal_db(db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.close()
    assert not any(os.path.exists(f"{db}{s}") for s in SIDECARS)


def _foreign(db: Path) -> set[str]:
    have = {s for s in SIDECARS if os.path.exists(f"{db}{s}")}
    return set() if have in (set(), {"-wal", "-shm"}) else have


def test_reads_racing_a_writer_that_opens_and_closes_create_no_sidecar(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    mutex = tmp_path / "writer.lock"
    _make_wal_db(db)
    rounds = 400
    writer = subprocess.Popen(
        [sys.executable, "-c", _LOOP_WRITER, str(db), str(mutex), str(rounds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    seen: list[set[str]] = []
    reads = 0
    try:
        with open(mutex, "a") as lock:
            while writer.poll() is None and reads < 20_000:
                try:
                    conn = open_ro(db, busy_ms=50)
                    try:
                        conn.execute("SELECT count(*) FROM t").fetchone()
                    finally:
                        conn.close()
                except HarnessError:
                    pass  # a locked or changing store is skipped for one read, as on the board
                reads += 1
                # Look while the writer is known closed (between its iterations).
                fcntl.flock(lock, fcntl.LOCK_EX)
                try:
                    found = _foreign(db)
                finally:
                    fcntl.flock(lock, fcntl.LOCK_UN)
                if found:
                    seen.append(found)
        out, _ = writer.communicate(timeout=120)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(10)
    assert out.strip().endswith("done")
    assert [line for line in out.splitlines() if line.startswith("foreign")] == []
    assert seen == []
    assert _foreign(db) == set()
    assert reads > 0


_HOLDING_WRITER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("PRAGMA wal_autocheckpoint=0")
conn.execute("INSERT INTO t (x) VALUES (1)")
print("ready", flush=True)
sys.stdin.readline()
conn.close()
print("closed", flush=True)
"""


def test_a_writer_closing_between_the_check_and_the_open_leaves_no_wal_of_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exact window: the route is chosen with -wal and -shm present, then the last writer
    closes before SQLite opens the database. The writer must not be able to delete its files
    under the reader (or the reader's open would create an empty -wal)."""
    db = tmp_path / "store.db"
    _make_wal_db(db)
    writer = subprocess.Popen(
        [sys.executable, "-c", _HOLDING_WRITER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None and writer.stdin is not None
    to_writer, from_writer = writer.stdin, writer.stdout
    try:
        assert writer.stdout.readline().strip() == "ready"
        assert os.path.exists(f"{db}-wal") and os.path.exists(f"{db}-shm")
        real_route = sqlite_reader._route
        closed: list[bool] = []

        def route_then_writer_closes(*args: object, **kwargs: object) -> str:
            chosen = real_route(*args, **kwargs)  # type: ignore[arg-type]
            if not closed:
                assert chosen == "shared"
                to_writer.write("close\n")
                to_writer.flush()
                assert from_writer.readline().strip() == "closed"
                writer.wait(30)
                closed.append(True)
            return chosen

        monkeypatch.setattr(sqlite_reader, "_route", route_then_writer_closes)
        conn = open_ro(db)
        try:
            assert conn.execute("SELECT count(*) FROM t").fetchone() == (1,)
        finally:
            conn.close()
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(10)
    assert closed
    # Either the writer deleted both files and the reader created none, or the reader kept the
    # writer from deleting them and the pair is the writer's: never a -wal alone.
    assert _foreign(db) == set()
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size > 0


def test_a_named_pipe_in_place_of_a_database_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "store.db"
    os.mkfifo(fifo)
    code = (
        "import sys\n"
        "from cargento.errors import HarnessError\n"
        "from cargento.readers import open_ro\n"
        "try:\n"
        "    open_ro(sys.argv[1])\n"
        "except HarnessError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"{fifo}: not a regular file (named pipe)" in done.stdout


def test_a_named_pipe_in_place_of_the_wal_is_not_copied(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _make_wal_db(db)
    os.mkfifo(f"{db}-wal")
    code = (
        "import sys\n"
        "from cargento.errors import HarnessError\n"
        "from cargento.readers import open_ro\n"
        "try:\n"
        "    open_ro(sys.argv[1]).close()\n"
        "    print('opened')\n"
        "except HarnessError as exc:\n"
        "    print('refused', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_snapshot_folders_of_dead_processes_are_removed(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    stale = tmp_path / f"{sqlite_reader.SNAPSHOT_PREFIX}{dead_pid}-abc"
    stale.mkdir()
    (stale / "copy.db").write_bytes(b"x")
    mine = tmp_path / f"{sqlite_reader.SNAPSHOT_PREFIX}{os.getpid()}-def"
    mine.mkdir()
    parent = tmp_path / f"{sqlite_reader.SNAPSHOT_PREFIX}{os.getppid()}-ghi"
    parent.mkdir()
    unrelated = tmp_path / "cargento-other"
    unrelated.mkdir()
    removed = sqlite_reader.remove_stale_snapshots(str(tmp_path))
    assert removed == [str(stale)]
    assert not stale.exists() and mine.exists() and parent.exists() and unrelated.exists()


def test_a_snapshot_taken_after_a_kill_cleans_the_killed_process_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    killed = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    stale = tmp_path / f"{sqlite_reader.SNAPSHOT_PREFIX}{killed.pid}-xyz"
    stale.mkdir()
    (stale / "left.db").write_bytes(b"x")
    killed.kill()
    killed.wait(10)
    db = tmp_path / "store.db"
    _make_wal_db(db)
    snapshots = sqlite_reader._Snapshots()
    copy = snapshots.copy_of(str(db))
    assert os.path.basename(os.path.dirname(copy)).startswith(f"{sqlite_reader.SNAPSHOT_PREFIX}{os.getpid()}-")
    assert not stale.exists()
