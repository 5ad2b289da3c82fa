"""Reads held on a demo's SQLite stores the way the board reader holds them in ``cargento --demo``.

The demo writes its simulated SQLite stores from the dashboard's own process, and SQLite maps a
database's WAL index (the ``-shm``) once per process: when the board's read-only reader is the
first connection of the process to map it, every write made while that read is open is refused
with ``SQLITE_READONLY`` (:mod:`cargento.demowrites`). A demo test sets that up before each step
and hands the store its :meth:`HeldReads.pause`, which ends the reads as the board's read pass
would while a refused write waits::

    reads = HeldReads()
    store.pause = reads.pause
    for second in range(90):
        reads.hold(store.path)
        viewer.step(second)
        reads.release()
    assert reads.refusals > 0  # the writes met the read-only WAL index, and waited it out
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cargento.readers.sqlite import open_ro

__all__ = ["HeldReads", "read_holding_the_wal_index"]


def read_holding_the_wal_index(db: Path) -> sqlite3.Connection:
    """Leave the WAL-mode database *db* as the board reader leaves it in the demo's process, and
    return the read.

    A writer closes while an earlier read holds the database, so its ``-wal`` and ``-shm`` stay;
    that read ends, and the next one (the returned connection, opened the board's way) is the
    first connection of this process to map the WAL index, read-only. Until it is closed, SQLite
    lends that mapping to every write this process makes."""
    writer = sqlite3.connect(db)
    try:
        writer.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()  # opens the -wal and -shm
        earlier = open_ro(db)
    finally:
        writer.close()  # the earlier read holds the database: the -wal and -shm stay
    earlier.close()
    if not db.with_name(db.name + "-shm").exists():
        raise AssertionError(f"{db} kept no -shm: is it in WAL mode?")
    return open_ro(db)


class HeldReads:
    """The reads a test holds on demo stores, and how many writes they refused."""

    def __init__(self) -> None:
        self._held: list[sqlite3.Connection] = []
        #: How often a refused write waited (called :meth:`pause`).
        self.refusals = 0

    def hold(self, *dbs: Path) -> None:
        """Hold a read on each of *dbs* (see :func:`read_holding_the_wal_index`)."""
        self._held.extend(read_holding_the_wal_index(db) for db in dbs)

    def release(self) -> None:
        """End every read held (the board's read pass lets go)."""
        while self._held:
            self._held.pop().close()

    def pause(self, _seconds: float) -> None:
        """A refused write's wait: counted, and the reads end meanwhile (in the dashboard a read
        pass lasts milliseconds), so the next try finds the WAL index mapped for writing."""
        self.refusals += 1
        self.release()
