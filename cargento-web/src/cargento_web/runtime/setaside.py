"""Setting an unreadable own store aside: every server store that cannot be read whole is
renamed beside itself as ``<name>.unreadable-<UTC stamp>``, so it is never written over and a
person can still look at it, and the store starts empty (its header line says so)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["set_aside"]


def set_aside(path: Path, now: datetime | None = None) -> Path:
    """Rename *path* to ``<name>.unreadable-<stamp>`` and return the new path.

    :raises OSError: it could not be moved (the caller then keeps its records in memory and
        writes nothing over it).
    """
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}.unreadable-{stamp}")
    os.rename(path, aside)
    return aside
