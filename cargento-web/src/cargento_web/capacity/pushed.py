"""Quota a harness pushes in: Antigravity's status-line quota block, read into windows.

The block arrives two ways: the status-line forwarder sends it to ``/api/events/antigravity``
(the event hub keeps the newest), and the older ``notify_hook.py …/api/usage`` line posts the
whole status-line document to ``POST /api/usage`` (kept here, in memory, quota block only:
never the account email or the transcript path that document also carries).

Buckets are ``<family>-5h`` and ``<family>-weekly`` (families ``gemini`` and ``3p``), each
``{remaining_fraction, reset_time}``; used is ``1 - remaining``, and per slot the worse
family wins.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from cargento.timestamps import parse_ts

from cargento_web.capacity.windows import FIVE_HOURS_S, WEEK_S, Window

__all__ = ["MAX_BUCKETS", "PushedQuota", "parse_block", "windows_from_block"]

#: At most this many buckets are read from one block.
MAX_BUCKETS = 16
_BUCKET = re.compile(r"^([a-z0-9][a-z0-9_.]{0,31})-(5h|weekly)$")
_SLOTS = {"5h": FIVE_HOURS_S, "weekly": WEEK_S}
_FAMILIES = {"gemini": "Gemini models", "3p": "third-party models"}


def parse_block(value: object) -> dict[str, dict[str, Any]] | None:
    """The well-formed buckets of a quota block, or ``None`` when none is well formed."""
    if not isinstance(value, Mapping):
        return None
    out: dict[str, dict[str, Any]] = {}
    for name, bucket in list(value.items())[:MAX_BUCKETS]:
        if not isinstance(name, str) or not _BUCKET.match(name) or not isinstance(bucket, Mapping):
            continue
        fraction = bucket.get("remaining_fraction")
        if isinstance(fraction, bool) or not isinstance(fraction, int | float) or not 0.0 <= float(fraction) <= 1.0:
            continue
        entry: dict[str, Any] = {"remaining_fraction": float(fraction)}
        reset = bucket.get("reset_time")
        if isinstance(reset, str) and len(reset) <= 64 and parse_ts(reset) is not None:
            entry["reset_time"] = reset
        out[name] = entry
    return out or None


def windows_from_block(block: Mapping[str, Any], read_at: datetime, *, harness_label: str) -> list[Window]:
    """One window per slot (5h, weekly), the worse family's."""
    parsed = parse_block(block) or {}
    worst: dict[str, tuple[float, str, datetime | None]] = {}
    for name, entry in parsed.items():
        match = _BUCKET.match(name)
        assert match is not None
        family, slot = match.group(1), match.group(2)
        used = 100.0 * (1.0 - float(entry["remaining_fraction"]))
        if slot not in worst or used > worst[slot][0]:
            worst[slot] = (used, family, parse_ts(entry.get("reset_time")))
    out: list[Window] = []
    for slot, (used, family, resets) in sorted(worst.items()):
        out.append(
            Window(
                key=f"antigravity:{slot}",
                harness="antigravity",
                harness_label=harness_label,
                name=slot,
                used_percent=used,
                window_s=_SLOTS[slot],
                resets_at=resets,
                read_at=read_at,
                source="pushed",
                detail=f"the worse family: {_FAMILIES.get(family, family)}",
            )
        )
    return out


class PushedQuota:
    """The newest quota block ``POST /api/usage`` received, in memory only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: tuple[datetime, dict[str, dict[str, Any]]] | None = None

    def take(self, block: dict[str, dict[str, Any]], at: datetime) -> bool:
        """Keep *block*; ``True`` when it differs from the one kept."""
        with self._lock:
            changed = self._latest is None or self._latest[1] != block
            self._latest = (at, block)
            return changed

    def latest(self) -> tuple[datetime, dict[str, dict[str, Any]]] | None:
        with self._lock:
            return self._latest
