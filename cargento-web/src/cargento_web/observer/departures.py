"""What the checks run while you were away raised: ``cargento-departures.json``.

Written only with ``--unasked-readings``. It keeps two lists: ``raises`` (one per departure an
unasked check raised, quoting the goal it read against and the revision) and ``checks`` (one per
unasked check that ran, whatever it found, so "nobody checked" and "checked, nothing raised"
stay different sentences). Both are bounded; turning the lane off stops new entries and retracts
nothing already here. Discarding a session's words withdraws the quotations (:meth:`withdraw`):
the entries stay, without text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .jsonstore import JsonStore

__all__ = ["DEPARTURES_FILE", "DeparturesStore"]

DEPARTURES_FILE = "cargento-departures.json"
KEEP_RAISES = 200
KEEP_CHECKS = 400
_LIMIT = 512 * 1024


def _empty() -> dict[str, Any]:
    return {"version": 1, "raises": [], "checks": []}


class DeparturesStore:
    def __init__(self, state_dir: Path) -> None:
        self.store = JsonStore("departures", state_dir / DEPARTURES_FILE, limit=_LIMIT, empty=_empty)

    def read(self) -> dict[str, Any]:
        data = self.store.read()
        return {"raises": list(data.get("raises") or []), "checks": list(data.get("checks") or [])}

    def add(self, check: Mapping[str, Any], raised: Mapping[str, Any] | None) -> None:
        def change(data: dict[str, Any]) -> None:
            data["checks"] = [*(data.get("checks") or []), dict(check)][-KEEP_CHECKS:]
            if raised is not None:
                data["raises"] = [*(data.get("raises") or []), dict(raised)][-KEEP_RAISES:]

        self.store.update(change)

    def withdraw(self, harness: str, sid: str) -> None:
        def change(data: dict[str, Any]) -> None:
            for row in data.get("raises") or []:
                if row.get("harness") == harness and row.get("sid") == sid:
                    row.pop("goal", None)
                    row.pop("evidence", None)
                    row["withdrawn"] = True

        self.store.update(change)
