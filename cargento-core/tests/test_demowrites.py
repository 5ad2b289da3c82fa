"""A demo store's write refused because a reader of the same process holds the WAL index read-only
(:func:`cargento.demowrites.retry_refused_write`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from cargento.demowrites import (
    FIRST_PAUSE_S,
    LONGEST_PAUSE_S,
    READONLY_TRIES,
    refused_read_only,
    retry_refused_write,
)
from cargento.readers.sqlite import open_ro


def sqlite_error(code: int, message: str = "refused") -> sqlite3.OperationalError:
    """An error as the sqlite3 module raises it, carrying SQLite's (extended) result code."""
    exc = sqlite3.OperationalError(message)
    exc.sqlite_errorcode = code
    return exc


class Attempts:
    """An attempt that raises each of *failures* in turn, then returns how many calls it took."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return self.calls


def refusals(n: int) -> list[sqlite3.OperationalError]:
    return [sqlite_error(sqlite3.SQLITE_READONLY, "attempt to write a readonly database") for _ in range(n)]


def test_a_refused_write_is_tried_again_after_a_doubling_pause_until_it_goes_through() -> None:
    attempt = Attempts(*refusals(3))
    pauses: list[float] = []
    assert retry_refused_write(attempt, pause=pauses.append) == 4
    assert attempt.calls == 4
    assert pauses == [FIRST_PAUSE_S, 2 * FIRST_PAUSE_S, 4 * FIRST_PAUSE_S]


def test_a_write_refused_every_time_raises_the_last_refusal_after_all_the_tries() -> None:
    failures = refusals(READONLY_TRIES + 1)
    attempt = Attempts(*failures)
    pauses: list[float] = []
    with pytest.raises(sqlite3.OperationalError) as raised:
        retry_refused_write(attempt, pause=pauses.append)
    assert raised.value is failures[READONLY_TRIES - 1]
    assert attempt.calls == READONLY_TRIES and len(pauses) == READONLY_TRIES - 1
    assert max(pauses) == LONGEST_PAUSE_S and pauses == sorted(pauses)
    assert 4.0 < sum(pauses) < 6.0, "about five seconds in all, far longer than a board read"


def test_fewer_tries_can_be_asked_for_and_one_means_no_retry() -> None:
    attempt = Attempts(*refusals(5))
    with pytest.raises(sqlite3.OperationalError):
        retry_refused_write(attempt, pause=lambda _s: None, tries=3)
    assert attempt.calls == 3
    once = Attempts(*refusals(1))
    with pytest.raises(sqlite3.OperationalError):
        retry_refused_write(once, pause=lambda _s: None, tries=1)
    assert once.calls == 1
    with pytest.raises(ValueError):
        retry_refused_write(Attempts(), tries=0)


@pytest.mark.parametrize(
    "failure",
    [
        sqlite_error(sqlite3.SQLITE_BUSY, "database is locked"),
        sqlite_error(sqlite3.SQLITE_IOERR, "disk I/O error"),
        sqlite_error(sqlite3.SQLITE_CANTOPEN, "unable to open database file"),
        sqlite3.OperationalError("no code attached"),
        sqlite3.IntegrityError("UNIQUE constraint failed"),
        OSError("the demo home went"),
        ValueError("not SQLite at all"),
    ],
    ids=lambda exc: f"{type(exc).__name__}:{exc}",
)
def test_any_other_failure_is_raised_at_once_and_never_tried_again(failure: Exception) -> None:
    attempt = Attempts(failure, *refusals(1))
    pauses: list[float] = []
    with pytest.raises(type(failure)) as raised:
        retry_refused_write(attempt, pause=pauses.append)
    assert raised.value is failure
    assert attempt.calls == 1 and pauses == []


def test_any_extended_code_of_readonly_counts_as_refused_and_no_other_code_does() -> None:
    assert refused_read_only(sqlite_error(sqlite3.SQLITE_READONLY))
    assert refused_read_only(sqlite_error(sqlite3.SQLITE_READONLY_RECOVERY))
    assert refused_read_only(sqlite_error(sqlite3.SQLITE_READONLY_CANTINIT))
    assert not refused_read_only(sqlite_error(sqlite3.SQLITE_BUSY))
    assert not refused_read_only(sqlite_error(sqlite3.SQLITE_BUSY_SNAPSHOT))
    assert not refused_read_only(sqlite3.OperationalError("no code attached"))


def _count(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        (n,) = conn.execute("SELECT COUNT(*) FROM t").fetchone()
    assert isinstance(n, int)
    return n


def _insert_once(db: Path) -> Callable[[], None]:
    """One whole try: open, insert a row and a second one, commit (or roll back) and close."""

    def attempt() -> None:
        with closing(sqlite3.connect(db)) as conn, conn:
            conn.execute("INSERT INTO t VALUES ('first')")
            conn.execute("INSERT INTO t VALUES ('second')")

    return attempt


def test_a_real_refusal_beside_a_read_only_wal_index_commits_nothing_and_the_retry_writes_once(
    tmp_path: Path,
) -> None:
    db = tmp_path / "store.db"
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t (v TEXT)")
        conn.commit()
    # A writer closes while a read holds the store (its -wal and -shm stay); the next read,
    # opened the board's way, is the first connection of this process to map the WAL index.
    writer = sqlite3.connect(db)
    writer.execute("SELECT COUNT(*) FROM t").fetchall()
    earlier = open_ro(db)
    writer.close()
    earlier.close()
    held = [open_ro(db)]
    refused: list[int] = []

    def counted() -> None:
        try:
            _insert_once(db)()
        except sqlite3.OperationalError as exc:
            refused.append(exc.sqlite_errorcode)
            raise

    def end_the_read(_pause_s: float) -> None:
        while held:
            held.pop().close()

    retry_refused_write(counted, pause=end_the_read)
    assert refused == [sqlite3.SQLITE_READONLY], "the first try met the read-only WAL index"
    assert _count(db) == 2, "the refused try committed nothing; the retry wrote its rows once"
