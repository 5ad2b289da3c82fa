"""A session's output-token total, kept between refreshes so that one costs its newest messages.

OpenCode records each assistant message's output tokens once the message completes. The total
of a session is the sum over every completed assistant message; summed afresh in SQL it cost a
JSON parse of every message on each refresh (10 ms at 10,000 messages). A :class:`TokenTally`
keeps the sum of the session's settled messages, those below its floor, a rowid: the newest
:data:`KEEP` messages and any added since are read again on each refresh, which is where
OpenCode writes (a reply streams into its own row, then completes).

The settled part is summed afresh when a refresh cannot vouch for it: the session's message
count no longer adds up (a revert deleted messages), the database is not the one it was read
from, or :data:`RECOUNT_S` passed since it was last summed (an old message rewritten in place
is seen by then at the latest).
"""

from __future__ import annotations

import sqlite3
import time

import attrs
from cargento.readers import sqlite
from cargento.sharedmethods import shared_methods

__all__ = ["KEEP", "RECOUNT_S", "TokenTally", "output_tokens"]

#: The newest messages of a session read again on every refresh.
KEEP = 64
#: The longest the settled part's sum is trusted without summing it again (seconds).
RECOUNT_S = 300.0

_OUTPUT = "json_extract(data, '$.tokens.output')"
_COUNTED = (
    "json_valid(data) AND json_extract(data, '$.role') = 'assistant' "
    "AND json_type(data, '$.time.completed') IS NOT NULL "
    f"AND json_type(data, '$.tokens.output') IN ('integer', 'real') AND {_OUTPUT} >= 0"
)
#: A message's counted output tokens (``NULL`` when it does not count).
_VALUE = f"CASE WHEN {_COUNTED} THEN CAST({_OUTPUT} AS INTEGER) END"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class TokenTally:
    """What one session's messages at or below ``floor`` (a rowid) add up to."""

    #: Rows at or below it are settled (``None``: none is; every row is read each time).
    floor: int | None
    #: How many messages are settled, their counted output tokens and how many counted.
    rows: int
    total: int
    counted: int
    #: ``time.monotonic()`` when the settled part was summed.
    summed_at: float
    #: The database file it was read from, as ``(st_dev, st_ino)`` of the path given.
    source: object = None
    #: The oldest ``time_created`` above the floor when last read (``None``: not known), so
    #: the next read seeks the (session_id, time_created) index there instead of walking the
    #: session's every entry; a row added with an older time is caught by the count.
    since: int | float | None = None


def output_tokens(
    conn: sqlite3.Connection,
    name: str,
    session_id: str,
    tally: TokenTally | None,
    source: object = None,
    count: int | None = None,
) -> tuple[int, int, TokenTally]:
    """``(output tokens, counted messages, tally to keep)`` of one session's completed
    assistant messages; *tally* is the one this answered last time (``None`` at first).
    *count* is the session's message count as the discovery pass read it, when it did: a tail
    that adds up to it needs no count of its own (a write since then is counted afresh)."""
    now = time.monotonic()
    if tally is None or tally.source != source or now - tally.summed_at > RECOUNT_S:
        tally = _settle(conn, name, session_id, now, source)
    tail = _tail(conn, name, session_id, tally.floor, tally.since)
    if count != tally.rows + len(tail):
        rows = sqlite.query(conn, "SELECT COUNT(*) FROM message WHERE session_id = ?", (session_id,), name=name)
        count = rows[0][0] if rows else None
    if count != tally.rows + len(tail):
        # Messages went (or came) below the floor, or came with an older time, since it was
        # summed: sum it again.
        tally = _settle(conn, name, session_id, now, source)
        tail = _tail(conn, name, session_id, tally.floor, None)
    total = tally.total + sum(v for _, v, _ in tail if v is not None)
    counted = tally.counted + sum(1 for _, v, _ in tail if v is not None)
    if len(tail) > 2 * KEEP:
        # The tail grew: its older part settles, and the next refresh reads KEEP rows again.
        settling, tail = tail[: len(tail) - KEEP], tail[len(tail) - KEEP :]
        tally = attrs.evolve(
            tally,
            floor=settling[-1][0],
            rows=tally.rows + len(settling),
            total=tally.total + sum(v for _, v, _ in settling if v is not None),
            counted=tally.counted + sum(1 for _, v, _ in settling if v is not None),
        )
    since = _oldest(tail)
    if since != tally.since:
        tally = attrs.evolve(tally, since=since)
    return total, counted, tally


def _oldest(tail: list[tuple[int, int | None, object]]) -> int | float | None:
    """The oldest ``time_created`` of *tail*; ``None`` when one is not a number (a hostile
    store), so the next read takes every row above the floor."""
    times: list[int | float] = []
    for _, _, created in tail:
        if not isinstance(created, int | float) or isinstance(created, bool):
            return None
        times.append(created)
    return min(times) if times else None


def _settle(conn: sqlite3.Connection, name: str, session_id: str, now: float, source: object) -> TokenTally:
    """Sum every message of the session but the newest :data:`KEEP` (by rowid)."""
    below = sqlite.query(
        conn,
        "SELECT rowid FROM message WHERE session_id = ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        (session_id, KEEP),
        name=name,
    )
    if not below or not isinstance(below[0][0], int):
        return TokenTally(floor=None, rows=0, total=0, counted=0, summed_at=now, source=source)
    floor = below[0][0]
    summed = sqlite.query(
        conn,
        f"SELECT COUNT(*), SUM({_VALUE}), COUNT({_VALUE}) FROM message WHERE session_id = ? AND rowid <= ?",
        (session_id, floor),
        name=name,
    )
    rows, total, counted = summed[0] if summed else (0, 0, 0)
    return TokenTally(
        floor=floor,
        rows=int(rows or 0),
        total=int(total) if isinstance(total, int | float) else 0,
        counted=int(counted or 0),
        summed_at=now,
        source=source,
    )


def _tail(
    conn: sqlite3.Connection, name: str, session_id: str, floor: int | None, since: int | float | None
) -> list[tuple[int, int | None, object]]:
    """The session's messages above *floor* (created at *since* or later, when given), oldest
    first: ``(rowid, counted output or None, time_created)``."""
    sql = f"SELECT rowid, {_VALUE}, time_created FROM message WHERE session_id = ?"
    params: list[object] = [session_id]
    if since is not None:
        sql += " AND time_created >= ?"
        params.append(since)
    if floor is not None:
        sql += " AND rowid > ?"
        params.append(floor)
    rows = sqlite.query(conn, sql + " ORDER BY rowid", params, name=name, max_rows=1_000_000)
    return [(r, v if isinstance(v, int) else None, created) for r, v, created in rows]
