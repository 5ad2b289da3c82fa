"""The machine's reading budget: twelve reserved or actual attempts per rolling 24 hours.

``cargento-reading-budget.json`` keeps one timestamp per attempt that reached the point of
spending (a reservation is made just before the prompt is sent). Nothing refunds one: a failed,
timed-out, cancelled-after-sending or interrupted attempt still counts; only a cancel that landed
before anything was sent releases its own reservation. Turning readings off and on, and
``--forget``, leave this file alone. Timestamps older than the window fall out on the next write.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .jsonstore import JsonStore

__all__ = ["BUDGET_FILE", "CAP", "WINDOW", "BudgetStore"]

BUDGET_FILE = "cargento-reading-budget.json"
CAP = 12
WINDOW = timedelta(hours=24)
_LIMIT = 16 * 1024


def _empty() -> dict[str, Any]:
    return {"version": 1, "spent": []}


def _times(data: dict[str, Any]) -> list[datetime]:
    found: list[datetime] = []
    for value in data.get("spent") or []:
        if isinstance(value, str):
            try:
                at = datetime.fromisoformat(value)
            except ValueError:
                continue
            found.append(at if at.tzinfo else at.replace(tzinfo=UTC))
    return sorted(found)


class BudgetStore:
    def __init__(self, state_dir: Path, *, cap: int = CAP) -> None:
        self.cap = cap
        self.store = JsonStore("reading budget", state_dir / BUDGET_FILE, limit=_LIMIT, empty=_empty)

    def _live(self, data: dict[str, Any], now: datetime) -> list[datetime]:
        return [t for t in _times(data) if t > now - WINDOW]

    def status(self, now: datetime | None = None) -> dict[str, Any]:
        now = now or datetime.now(UTC)
        live = self._live(self.store.read(), now)
        retry = (live[0] + WINDOW) if len(live) >= self.cap else None
        return {"used": len(live), "cap": self.cap, "retry_at": retry.isoformat() if retry else None}

    def reserve(self, now: datetime | None = None) -> str | None:
        """Reserve one attempt; returns its stamp, or ``None`` when the cap is reached."""
        at = now or datetime.now(UTC)

        def change(data: dict[str, Any]) -> str | None:
            live = self._live(data, at)
            if len(live) >= self.cap:
                data["spent"] = [t.isoformat() for t in live]
                return None
            stamp = at.isoformat()
            data["spent"] = [*(t.isoformat() for t in live), stamp]
            return stamp

        result: str | None = self.store.update(change)
        return result

    def release(self, stamp: str) -> None:
        """Give back a reservation made for an attempt that sent nothing."""

        def change(data: dict[str, Any]) -> None:
            spent = list(data.get("spent") or [])
            if stamp in spent:
                spent.remove(stamp)
            data["spent"] = spent

        self.store.update(change)
