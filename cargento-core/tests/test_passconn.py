"""One read-only connection per database per pass (``cargento.readers.passconn``)."""

from __future__ import annotations

import gc
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento import Discovery, HarnessContext, SessionReading, SessionRef, hookimpl
from cargento.board import BoardBuilder
from cargento.errors import HarnessDataMissing
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.readers import passconn
from cargento.testing.fakes import FakeHarness

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Owner:
    """Stands for a pass's HarnessContext: anything that can be weakly referenced."""


def _database(tmp_path: Path, wal: bool = False) -> Path:
    db = tmp_path / "store.db"
    raw = sqlite3.connect(db)
    if wal:
        raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("CREATE TABLE t (x INTEGER)")
    raw.execute("INSERT INTO t VALUES (1)")
    raw.commit()
    raw.close()
    return db


def _is_closed(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


def test_one_owner_gets_one_connection_per_database_and_release_closes_it(tmp_path: Path) -> None:
    db = _database(tmp_path)
    owner, other = Owner(), Owner()
    first = passconn.lease(owner, db)
    assert passconn.lease(owner, str(db)) is first
    assert first.execute("SELECT x FROM t").fetchall() == [(1,)]
    theirs = passconn.lease(other, db)
    assert theirs is not first
    passconn.release(owner)
    assert _is_closed(first) and not _is_closed(theirs)
    again = passconn.lease(owner, db)
    assert again is not first and not _is_closed(again)
    passconn.release(owner)
    passconn.release(other)
    assert _is_closed(again) and _is_closed(theirs)


def test_the_connections_of_an_owner_that_is_gone_are_closed(tmp_path: Path) -> None:
    db = _database(tmp_path, wal=True)
    owner = Owner()
    conn = passconn.lease(owner, db)
    del owner
    gc.collect()
    assert _is_closed(conn)
    # Nothing was created beside the store (the lease reads through open_ro).
    assert sorted(os.listdir(tmp_path)) == ["store.db"]


def test_discard_closes_the_connection_so_the_next_lease_opens_afresh(tmp_path: Path) -> None:
    db = _database(tmp_path)
    owner = Owner()
    first = passconn.lease(owner, db)
    replaced = passconn.lease(owner, db, text_errors="replace")
    passconn.discard(owner, db)
    assert _is_closed(first) and _is_closed(replaced)
    fresh = passconn.lease(owner, db)
    assert fresh is not first and not _is_closed(fresh)
    passconn.release(owner)


def test_a_failed_open_keeps_nothing(tmp_path: Path) -> None:
    owner = Owner()
    with pytest.raises(HarnessDataMissing):
        passconn.lease(owner, tmp_path / "missing.db")
    db = _database(tmp_path)
    conn = passconn.lease(owner, db)
    assert conn.execute("SELECT x FROM t").fetchall() == [(1,)]
    passconn.release(owner)


class LeasingHarness(FakeHarness):
    """Reads every session through the pass's leased connection, keeping what it was handed
    and the context it read with (so only the builder's release can close the connection)."""

    def __init__(self, db: Path) -> None:
        super().__init__("leases", [])
        self.db = db
        self.handed: list[sqlite3.Connection] = []
        self.contexts: list[HarnessContext] = []

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        refs = tuple(
            SessionRef(harness="leases", session_id=f"s{i}", path=str(self.db), modified_at=ctx.now) for i in range(3)
        )
        return Discovery(sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        conn = passconn.lease(ctx, ref.path)
        self.handed.append(conn)
        self.contexts.append(ctx)
        (count,) = conn.execute("SELECT COUNT(*) FROM t").fetchone()
        return SessionReading(ref=ref, title=f"{count} rows", last_active_at=ctx.now)


def test_the_builder_closes_what_a_pass_leased_when_the_pass_returns(tmp_path: Path) -> None:
    plugin = LeasingHarness(_database(tmp_path))
    registry = load_registry(entry_points=False, extra=[("leases", plugin)])
    builder = BoardBuilder(registry, env={}, home=tmp_path, clock=lambda: NOW, processes=StaticProcesses())
    board = builder.build()
    assert [s.title for s in board.sessions] == ["1 rows"] * 3
    assert len(plugin.handed) == 3 and len({id(c) for c in plugin.handed}) == 1
    assert _is_closed(plugin.handed[0])
    plugin.handed.clear()
    builder.build()  # a new pass leases a new connection
    assert len(plugin.handed) == 3 and all(_is_closed(c) for c in plugin.handed)


def test_a_database_written_since_the_lease_is_opened_again(tmp_path: Path) -> None:
    """A connection opened immutable=1 (a WAL database with no -wal) never sees a later
    write: once the files move, the lease is a new connection that does."""
    db = _database(tmp_path, wal=True)
    owner = Owner()
    first = passconn.lease(owner, db)
    assert first.execute("SELECT COUNT(*) FROM t").fetchone() == (1,)
    writer = sqlite3.connect(db)
    writer.execute("INSERT INTO t VALUES (2)")
    writer.commit()
    again = passconn.lease(owner, db)
    assert again is not first and _is_closed(first)
    assert again.execute("SELECT COUNT(*) FROM t").fetchone() == (2,)
    assert passconn.lease(owner, db) is again
    passconn.release(owner)
    writer.close()
