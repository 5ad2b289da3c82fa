"""One read-only connection per database for the length of one pass over a shared store.

A harness whose sessions all live in one database (Goose's ``sessions.db``, OpenCode's
``opencode.db``) reads each session with a few bounded queries. Opening the database for each
session costs more than those queries: :func:`~cargento.readers.sqlite.open_ro` looks at the
files beside it and opens it, and SQLite parses the schema and prepares every statement again
on each new connection. :func:`lease` hands every reader of the same *owner* (the
``HarnessContext`` of one pass: core makes a new one for every harness in every build) the same
connection to one database, opened with ``open_ro`` on first use and opened again whenever the
database's files moved since (:func:`~cargento.readers.sqlite.database_stamp`, two ``stat``
calls): a connection opened ``immutable=1`` never sees a later write, and a writer may have
started or removed a ``-wal``, which changes the way in. A reader whose query on it
fails calls :func:`discard`, so the next one opens the database again the way its files then
call for (a writer may have started a ``-wal`` meanwhile).

The connection lives only as long as the pass: :func:`release` closes every connection of an
owner (the board builder calls it when a harness's pass returns), and they are closed in any
case once the owner itself is gone, so no connection outlives the pass that opened it (an open
connection to a WAL-mode database would keep the harness from removing its ``-wal`` on close).
"""

from __future__ import annotations

import os
import threading
import weakref

# Only for the type checker: a board whose harnesses lease nothing never imports SQLite.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Literal

__all__ = ["discard", "lease", "release"]

_Key = tuple[str, str]
_lock = threading.Lock()
#: Per owner (by ``id``): its open connections and the database stamp each was opened at, by
#: database path and text error mode.
_open: dict[int, dict[_Key, tuple[sqlite3.Connection, str]]] = {}


def lease(
    owner: object,
    path: str | os.PathLike[str],
    *,
    text_errors: Literal["strict", "replace"] = "strict",
) -> sqlite3.Connection:
    """The connection *owner*'s pass reads *path* through, opened by ``open_ro`` on first use.

    Never close it yourself: :func:`release` (or *owner* going away) does.

    :raises HarnessError: as :func:`~cargento.readers.sqlite.open_ro` does; nothing is kept,
        so the next lease tries again.
    """
    from cargento.readers import sqlite

    key = (os.fspath(path), text_errors)
    ident = id(owner)
    stamp = sqlite.database_stamp(key[0])
    stale: sqlite3.Connection | None = None
    with _lock:
        held = _open.get(ident, {})
        found = held.get(key)
        if found is not None:
            if found[1] == stamp:
                return found[0]
            stale = held.pop(key)[0]
    if stale is not None:
        stale.close()
    conn = sqlite.open_ro(key[0], text_errors=text_errors)
    with _lock:
        mine = _open.get(ident)
        if mine is None:
            mine = _open[ident] = {}
            weakref.finalize(owner, release_id, ident)
        other = mine.setdefault(key, (conn, stamp))[0]
    if other is not conn:  # another reader of the same owner won the race
        conn.close()
    return other


def discard(owner: object, path: str | os.PathLike[str]) -> None:
    """Close *owner*'s connections to *path* now (a query on it failed: the next lease opens
    the database afresh, the way its files then call for)."""
    name = os.fspath(path)
    with _lock:
        held = _open.get(id(owner), {})
        gone = [held.pop(key)[0] for key in [k for k in held if k[0] == name]]
    for conn in gone:
        conn.close()


def release(owner: object) -> None:
    """Close every connection *owner* leased (at the end of its pass)."""
    release_id(id(owner))


def release_id(ident: int) -> None:
    with _lock:
        held = _open.pop(ident, None)
    for conn, _ in (held or {}).values():
        conn.close()
