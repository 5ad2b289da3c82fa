"""Cursor's allowance: the usage RPC the Cursor CLI's own ``/usage`` calls, where the CLI keeps
its login, and what the reply says.

``POST https://api2.cursor.sh/aiserver.v1.DashboardService/GetCurrentPeriodUsage`` with ``{}``.
The login is the session token the CLI keeps in the macOS Keychain (generic password
``cursor-access-token``); where it keeps it on Linux and Windows is unverified, so there
nothing is read. Cursor meters money over a monthly billing cycle: ``planUsage.totalSpend``
over ``planUsage.limit`` (both integer cents) is the level, and ``billingCycleEnd`` (epoch
milliseconds, as a decimal string) the cycle's end. The cycle is published with an end and no
start, so the window has a level and no clock. The reply's own ``*PercentUsed`` fields describe
another pool and are not read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento.models import QuotaEndpoint, QuotaWindow

__all__ = ["KEYCHAIN_SERVICE", "URL", "endpoint", "read_reply"]

URL = "https://api2.cursor.sh/aiserver.v1.DashboardService/GetCurrentPeriodUsage"
KEYCHAIN_SERVICE = "cursor-access-token"
#: The largest whole number read (cents, or epoch milliseconds).
WHOLE_LIMIT = 10**15


def endpoint(env: Mapping[str, str], home: Path, platform: str) -> QuotaEndpoint:
    """The usage RPC, and the Keychain item on macOS (nothing elsewhere)."""
    common: dict[str, Any] = {
        "method": "POST",
        "url": URL,
        "headers": (("Content-Type", "application/json"), ("Accept", "application/json")),
        "body": b"{}",
    }
    if platform == "darwin":
        return QuotaEndpoint(keychain_service=KEYCHAIN_SERVICE, **common)
    return QuotaEndpoint(
        unavailable="Cursor's usage is read on macOS only: where its CLI keeps the login elsewhere is unverified",
        **common,
    )


def _whole(value: object) -> int | None:
    """A non-negative whole number (a decimal string, as protobuf's JSON writes an int64)."""
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 16):
            return None
        number = int(text)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    else:
        return None
    return number if 0 <= number < WHOLE_LIMIT else None


def read_reply(doc: Any) -> tuple[QuotaWindow, ...]:
    """The billing cycle's level; ``()`` when the reply has no spend against an allowance."""
    plan = doc.get("planUsage") if isinstance(doc, dict) else None
    if not isinstance(plan, dict):
        return ()
    spent, limit = _whole(plan.get("totalSpend")), _whole(plan.get("limit"))
    if spent is None or limit is None or limit <= 0:
        return ()
    used = 100.0 * spent / limit
    if used > 1000.0:
        return ()
    end_ms = _whole(doc.get("billingCycleEnd"))
    resets = datetime.fromtimestamp(end_ms / 1000.0, UTC) if end_ms is not None and end_ms < 10**14 else None
    return (
        QuotaWindow(
            name="monthly",
            used_percent=used,
            window_s=None,
            resets_at=resets,
            detail=f"${spent / 100:.2f} of ${limit / 100:.2f}",
        ),
    )
