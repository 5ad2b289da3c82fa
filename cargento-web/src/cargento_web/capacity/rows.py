"""What the board's rows carry of quota: the windows a harness wrote into its own store
(Codex's rate-limit snapshots) and Copilot's per-session AI Units.

Every Codex session of one account repeats the same account-wide windows, so each window is
taken from the row that was active most recently. AI Units stay per session: they are never
turned into a percentage (no entitlement is stored locally), into money, or into a sum.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import attrs
from cargento.board.document import BoardSession
from cargento.sharedmethods import shared_methods

from cargento_web.capacity.windows import Window

__all__ = ["AIUnits", "ai_units", "store_windows"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class AIUnits:
    key: str
    harness_label: str
    display_id: str
    title: str | None
    project: str | None
    units: float


def store_windows(sessions: Iterable[BoardSession], generated_at: datetime) -> list[Window]:
    newest: dict[tuple[str, str], tuple[datetime, Window]] = {}
    for s in sessions:
        if not s.rate_limits:
            continue
        read_at = s.last_active_at or generated_at
        for r in s.rate_limits:
            window = Window(
                key=f"{s.harness}:{r.name}",
                harness=s.harness,
                harness_label=s.harness_label,
                name=r.name,
                used_percent=float(r.used_percent),
                window_s=None if r.window_minutes is None else r.window_minutes * 60.0,
                resets_at=r.resets_at,
                read_at=read_at,
                source="store",
            )
            slot = (s.harness, r.name)
            if slot not in newest or read_at > newest[slot][0]:
                newest[slot] = (read_at, window)
    return [w for _, w in sorted(newest.values(), key=lambda pair: pair[1].key)]


def ai_units(sessions: Iterable[BoardSession]) -> list[AIUnits]:
    found = [
        AIUnits(
            key=s.key,
            harness_label=s.harness_label,
            display_id=s.display_id,
            title=s.title,
            project=s.project,
            units=float(s.ai_units),
        )
        for s in sessions
        if s.ai_units is not None
    ]
    return sorted(found, key=lambda u: (-u.units, u.key))
