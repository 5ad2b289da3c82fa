"""Antigravity's allowance, as its status line pushes it: the ``quota`` block.

Buckets are ``<family>-5h`` and ``<family>-weekly`` (families ``gemini`` and ``3p``, the
third-party models), each ``{remaining_fraction, reset_time}``. Used is ``1 - remaining``; the
suffix picks the window; per window the worse family wins, and the window says which family
that was. Antigravity keeps no quota on disk and no usable login, so there is no endpoint to
ask: the push is the whole source.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from cargento.models import QuotaWindow
from cargento.timestamps import parse_ts

__all__ = ["MAX_BUCKETS", "read_pushed"]

#: At most this many buckets are read from one block.
MAX_BUCKETS = 16
_BUCKET = re.compile(r"^([a-z0-9][a-z0-9_.]{0,31})-(5h|weekly)$")
_LENGTHS = {"5h": 5 * 3600.0, "weekly": 7 * 86400.0}
_FAMILIES = {"gemini": "Gemini models", "3p": "third-party models"}


def read_pushed(block: Any) -> tuple[QuotaWindow, ...]:
    """One window per slot (``5h``, ``weekly``), the worse family's; ``()`` when no bucket of
    the block is well formed."""
    if not isinstance(block, Mapping):
        return ()
    worst: dict[str, tuple[float, str, Any]] = {}
    for name, bucket in list(block.items())[:MAX_BUCKETS]:
        match = _BUCKET.match(name) if isinstance(name, str) else None
        if match is None or not isinstance(bucket, Mapping):
            continue
        fraction = bucket.get("remaining_fraction")
        if isinstance(fraction, bool) or not isinstance(fraction, int | float):
            continue
        if not (math.isfinite(float(fraction)) and 0.0 <= float(fraction) <= 1.0):
            continue
        reset = bucket.get("reset_time")
        resets = parse_ts(reset) if isinstance(reset, str) and len(reset) <= 64 else None
        family, slot = match.group(1), match.group(2)
        used = 100.0 * (1.0 - float(fraction))
        if slot not in worst or used > worst[slot][0]:
            worst[slot] = (used, family, resets)
    return tuple(
        QuotaWindow(
            name=slot,
            used_percent=used,
            window_s=_LENGTHS[slot],
            resets_at=resets,
            detail=f"the worse family: {_FAMILIES.get(family, family)}",
        )
        for slot, (used, family, resets) in sorted(worst.items())
    )
