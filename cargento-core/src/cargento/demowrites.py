"""A demo's writes to its own simulated SQLite stores, made beside the board reader.

``cargento --demo`` writes each simulated harness store from the dashboard's own process, which
a real harness never does. SQLite maps a database's WAL index (the ``-shm``) once per process and
lends that one mapping to every connection of the process. When the board's read-only reader
(:func:`cargento.readers.sqlite.open_ro`, which opens with ``readonly_shm``) is the first
connection of the process to map a ``-shm`` left behind by an earlier write (a writer that closes
while a read holds the database leaves its ``-wal`` and ``-shm``), the mapping is read-only, and
every write the demo makes while that read is open is refused with ``SQLITE_READONLY``. The read
lasts milliseconds, so :func:`retry_refused_write` waits it out instead of losing the write.

A try must be whole on its own: open a connection, write, commit and close. A refused try then
committed nothing (its transaction rolled back as its connection closed), so trying again writes
the change once; and the next try's fresh connection maps the WAL index anew, writable once the
read has let go. Any other failure is raised at once: only this refusal is known to pass.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["FIRST_PAUSE_S", "LONGEST_PAUSE_S", "READONLY_TRIES", "Pause", "refused_read_only", "retry_refused_write"]

#: How many times one write is tried while the WAL index is mapped read-only, and the pauses
#: between tries: doubling from the first to the longest, about five seconds in all (a board
#: read that holds on longer than that is not the short read this waits for).
READONLY_TRIES = 32
FIRST_PAUSE_S = 0.005
LONGEST_PAUSE_S = 0.2

#: How a refused write waits before its next try, given the seconds to wait (``time.sleep``; a
#: test passes its own, say one that ends the read it holds).
Pause = Callable[[float], object]

T = TypeVar("T")


def refused_read_only(exc: sqlite3.Error) -> bool:
    """True when *exc* is ``SQLITE_READONLY`` (any extended code of it): for a demo store, whose
    files are its own and writable, the WAL index mapped read-only by a reader of this process."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_READONLY


def retry_refused_write(attempt: Callable[[], T], *, pause: Pause = time.sleep, tries: int = READONLY_TRIES) -> T:
    """Call *attempt* until it is not refused with ``SQLITE_READONLY``, and return what it returns.

    *attempt* is one whole try on its own connection (open, write, commit, close), so a refused
    try committed nothing. Between tries *pause* is called with a wait doubling from
    :data:`FIRST_PAUSE_S` to :data:`LONGEST_PAUSE_S`; the refusal of the last of *tries* tries is
    raised, and any other exception is raised at once, untried again.
    """
    if tries < 1:
        raise ValueError(f"tries must be at least 1, not {tries!r}")
    wait_s = FIRST_PAUSE_S
    for tried in range(1, tries + 1):
        try:
            return attempt()
        except sqlite3.Error as exc:
            if not refused_read_only(exc) or tried == tries:
                raise
        pause(wait_s)
        wait_s = min(2 * wait_s, LONGEST_PAUSE_S)
    raise AssertionError("unreachable: the last try returns or raises")
