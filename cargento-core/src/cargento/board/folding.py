"""Folding children onto parents: a subagent's own transcript becomes a line of its parent's row.

A session whose ``parent_id`` names another session of the same harness on this board folds
onto the root of that chain (at most 32 hops; a cycle or a missing parent leaves the session a
row of its own). The parent's last activity and output rate include its children's.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from cargento.board.session_row import SessionKey, SessionRow
from cargento.board.state import is_working
from cargento.models import Subagent
from cargento.rates import per_minute
from cargento.timestamps import newest_plausible

__all__ = ["MAX_HOPS", "fold", "subagents_of"]

#: How far up a chain of parents folding looks for the root.
MAX_HOPS = 32


def fold(rows: list[SessionRow], now: datetime) -> list[SessionRow]:
    """The rows that stay rows, with every foldable child attached to its root's ``children``.

    Sets every row's ``last_active`` and ``rate`` on the way; a root's include its children's.
    """
    for row in rows:
        row.last_active = newest_plausible(now, row.reading.last_active_at)
        row.rate = per_minute(row.usage.output_tokens_window if row.usage else None)
    by_id: dict[SessionKey, SessionRow] = {(r.info.key, r.reading.ref.session_id): r for r in rows}

    def root_of(row: SessionRow) -> SessionRow | None:
        hops = 0
        current = row
        while current.reading.parent_id and hops < MAX_HOPS:
            parent = by_id.get((current.info.key, current.reading.parent_id))
            if parent is None or parent is row:
                return None if current is row else current
            current = parent
            hops += 1
        return current if current is not row else None

    top: list[SessionRow] = []
    for row in rows:
        root = root_of(row) if row.reading.parent_id else None
        if root is None:
            top.append(row)
        else:
            root.children.append(row)
    for row in top:
        for child in row.children:
            row.last_active = newest_plausible(now, row.last_active, child.last_active)
            if child.rate is not None:
                row.rate = round((row.rate or 0.0) + child.rate, 1)
    return top


def subagents_of(row: SessionRow, now: datetime) -> list[Subagent]:
    """The row's subagents: its reading's own, then per folded child the child's subagents
    (credited to the child) and one entry for the child itself."""
    subagents = list(row.reading.subagents)
    for child in row.children:
        name = child.reading.agent_name or child.reading.title or child.reading.ref.session_id[:8]
        subagents.extend(attrs.evolve(sub, spawned_by=sub.spawned_by or name) for sub in child.reading.subagents)
        subagents.append(
            Subagent(
                name=name,
                running=is_working(child, now, None)[0],
                model=child.model.id if child.model else None,
                role=child.reading.agent_role,
                session_id=child.reading.ref.session_id,
                started_at=child.reading.started_at,
                last_active_at=child.last_active,
                output_tokens_per_min=child.rate,
            )
        )
    return subagents
