"""Reading permission, remembered across tabs and restarts: ``cargento-reading-consent.json``.

Permission is per provider: the first authorised press (``"allow": true``) allows the provider
its route named and no other. Tool output (a Claude Code session's check output and written
paths, a Pi session's work results) is a second, separate permission per provider, given beside
the button that names its destination. Turn off readings revokes both; ``--forget`` clears the
file (:func:`forget`) and leaves the spend record of :mod:`.budget` alone. Goal summaries keep
a permission of their own here too (``summaries``, per provider: the one whose plugin declares
it offers summaries, :attr:`cargento.models.ReadingProvider.summaries`), which readings never use.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .budget import BUDGET_FILE
from .jsonstore import JsonStore

__all__ = ["CONSENT_FILE", "ConsentStore", "forget"]

CONSENT_FILE = "cargento-reading-consent.json"
_LIMIT = 16 * 1024


def _empty() -> dict[str, Any]:
    return {"version": 1, "providers": {}, "tool_output": {}, "summaries": {}}


class ConsentStore:
    def __init__(self, state_dir: Path) -> None:
        self.store = JsonStore("reading permission", state_dir / CONSENT_FILE, limit=_LIMIT, empty=_empty)

    def _section(self, name: str) -> dict[str, Any]:
        value = self.store.read().get(name)
        return value if isinstance(value, dict) else {}

    def allowed(self, provider: str) -> bool:
        return provider in self._section("providers")

    def tool_output_allowed(self, provider: str) -> bool:
        return provider in self._section("tool_output")

    def summaries_allowed(self, provider: str | None) -> bool:
        """Whether goal summaries by *provider* are allowed (``None``: no provider offers them)."""
        return provider is not None and provider in self._section("summaries")

    def allow(self, provider: str, *, tool_output: bool | None = None) -> None:
        now = datetime.now(UTC).isoformat()

        def change(data: dict[str, Any]) -> None:
            data.setdefault("providers", {})[provider] = {"at": now}
            if tool_output is True:
                data.setdefault("tool_output", {})[provider] = {"at": now}
            elif tool_output is False:
                data.setdefault("tool_output", {}).pop(provider, None)

        self.store.update(change)

    def allow_summaries(self, provider: str, on: bool) -> None:
        def change(data: dict[str, Any]) -> None:
            summaries = data.setdefault("summaries", {})
            if on:
                summaries[provider] = {"at": datetime.now(UTC).isoformat()}
            else:
                summaries.pop(provider, None)

        self.store.update(change)

    def revoke(self) -> None:
        """Turn off readings: every provider's permission and every tool-output permission."""

        def change(data: dict[str, Any]) -> None:
            data["providers"] = {}
            data["tool_output"] = {}

        self.store.update(change)

    def as_dict(self, summary_provider: str | None = None) -> dict[str, Any]:
        return {
            "providers": sorted(self._section("providers")),
            "tool_output": sorted(self._section("tool_output")),
            "summaries": self.summaries_allowed(summary_provider),
        }


def forget(state_dir: Path) -> list[str]:
    """``--forget``'s turn for the observer (``cargento_web.forget`` calls every feature's
    ``forget(state_dir)``): clear reading permission and goal summary permission (one file) and
    keep the spend record. Returns what it
    did, a line each, for the command to print."""
    path = state_dir / CONSENT_FILE
    try:
        path.unlink()
    except FileNotFoundError:
        cleared = f"{path}: not there (no reading or goal summary permission was kept)"
    else:
        cleared = f"cleared reading permission and goal summary permission ({path})"
    return [cleared, f"kept the reading budget's spend timestamps ({state_dir / BUDGET_FILE})"]
