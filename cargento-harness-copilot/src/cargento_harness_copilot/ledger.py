"""Per-session AI Units from the global ``session-store.db`` ledger.

``assistant_usage_events(id, session_id, agent_id, model, total_nano_aiu, created_at, ...)``
holds one row per API response. AI Units are ``total_nano_aiu / 1e9``, summed over the rows
inside the display window: never converted to money and never summed across harnesses. At
most :data:`MAX_ROWS` newest rows of a session are read; when more exist and the read never
crossed the window edge, there is no figure. A row whose units are absent (BYOK sessions
write none) leaves the figure unmeasured; a row whose units are not a number makes it unknown.
"""

from __future__ import annotations

import os
from datetime import datetime

import attrs
from cargento.errors import HarnessError
from cargento.readers import sqlite
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["MAX_ROWS", "LedgerRows", "ai_units", "read_ledger"]

MAX_ROWS = 5000


@shared_methods
@attrs.frozen(repr=False, eq=False)
class LedgerRows:
    """One session's newest ledger rows: ``(created_at, nano AIU or None, readable)``."""

    rows: tuple[tuple[datetime | None, int | None, bool], ...] = ()
    #: More rows exist than were read.
    truncated: bool = False
    #: The newest main-agent model the ledger names.
    model: str | None = None


def read_ledger(path: str | os.PathLike[str], session_id: str) -> LedgerRows | None:
    """Read a session's rows; ``None`` when there is no ledger or no usage table in it.

    :raises HarnessError: the ledger exists but cannot be read (locked, corrupt, shifted).
    """
    name = os.fspath(path)
    if not os.path.isfile(name):
        return None
    conn = sqlite.open_ro(name, text_errors="replace")
    try:
        cols = sqlite.columns(conn, "assistant_usage_events", name=name)
        if not cols:
            return None
        if not {"session_id", "total_nano_aiu", "created_at"} <= cols:
            raise HarnessError(f"{os.path.basename(name)}: assistant_usage_events lacks its AI Unit columns")
        order = "id" if "id" in cols else "rowid"
        model = "model" if "model" in cols else "NULL"
        agent = "agent_id" if "agent_id" in cols else "NULL"
        raw = sqlite.query(
            conn,
            f"SELECT created_at, total_nano_aiu, {model}, {agent} FROM assistant_usage_events "
            f"WHERE session_id = ? ORDER BY {order} DESC LIMIT ?",
            (session_id, MAX_ROWS + 1),
            name=name,
            max_rows=MAX_ROWS + 1,
        )
    finally:
        conn.close()
    rows: list[tuple[datetime | None, int | None, bool]] = []
    newest_model: str | None = None
    for created, nano, row_model, agent_id in raw[:MAX_ROWS]:
        if newest_model is None and agent_id is None and isinstance(row_model, str) and row_model:
            newest_model = row_model
        if nano is None:
            rows.append((parse_ts(created), None, True))
        elif isinstance(nano, int | float) and not isinstance(nano, bool) and nano >= 0:
            rows.append((parse_ts(created), int(nano), True))
        else:
            rows.append((parse_ts(created), None, False))
    return LedgerRows(rows=tuple(rows), truncated=len(raw) > MAX_ROWS, model=newest_model)


def ai_units(ledger: LedgerRows | None, now: datetime, window_s: float | None) -> float | None:
    """AI Units spent inside the window ending at *now*; ``None`` when not measurable."""
    if ledger is None or not any(nano is not None for _, nano, _ in ledger.rows):
        return None
    total = 0
    crossed = False
    for created, nano, readable in ledger.rows:
        if window_s is not None:
            if created is None:
                return None
            if (now - created).total_seconds() > window_s:
                crossed = True
                continue
        if not readable or nano is None:
            return None
        total += nano
    if ledger.truncated and not crossed:
        return None
    return total / 1e9
