"""``database_problem`` keeps one verdict a database path, made for the file as it is."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from cargento.readers import sqlite as reader


def _database(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("create table t (x)")
    conn.close()


def test_a_database_written_all_day_holds_one_verdict(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _database(db)
    start = len(reader._VERDICTS)
    for n in range(50):
        with sqlite3.connect(db) as conn:
            conn.execute("insert into t values (?)", (n,))
        conn.close()
        os.utime(db, ns=(n * 1_000_000_000, n * 1_000_000_000))
        assert reader.database_problem(db) is None
    assert len(reader._VERDICTS) == start + 1


def test_a_verdict_is_made_again_when_the_file_changes(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    _database(db)
    assert reader.database_problem(db) is None
    db.write_bytes(b"not a database at all, and longer than the hundred bytes of a header. " * 3)
    assert reader.database_problem(db) == "not an SQLite database"
    db.unlink()
    _database(db)
    assert reader.database_problem(db) is None
