"""When a reading no longer describes its window: it is withheld and said, never shown as zero."""

from __future__ import annotations

from datetime import datetime

from cargento.timestamps import iso

from cargento_web.capacity.windows import Window

__all__ = ["VENDOR_STALE_S", "stale_reason"]

#: A vendor reading older than this (three missed polls) is stale.
VENDOR_STALE_S = 15 * 60.0


def stale_reason(window: Window, now: datetime) -> str | None:
    """Why *window*'s reading is stale at *now*, or ``None`` while it still holds.

    Every source: the window has reset since the reading, or the reading is older than a
    whole window. A vendor reading also goes stale when polls stop landing.
    """
    if window.resets_at is not None and window.resets_at <= now:
        return f"stale: read at {iso(window.read_at)}, and the window has reset since"
    age = (now - window.read_at).total_seconds()
    if window.window_s is not None and age > window.window_s:
        return f"stale: read at {iso(window.read_at)}, longer ago than the window lasts"
    if window.source == "vendor" and age > VENDOR_STALE_S:
        return f"stale: last read at {iso(window.read_at)}, and no poll has landed since"
    return None
