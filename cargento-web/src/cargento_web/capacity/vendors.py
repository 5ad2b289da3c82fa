"""The two vendor usage endpoints, asked with the harness's own credential, and their replies.

* Claude: ``GET https://api.anthropic.com/api/oauth/usage`` with ``anthropic-beta:
  oauth-2025-04-20``. ``five_hour`` and ``seven_day`` carry ``utilization`` (0 to 100) and
  ``resets_at``; the model-specific weekly limits are ``limits[]`` elements of kind
  ``weekly_scoped`` (``scope.model.display_name``, ``percent``, maybe ``resets_at``) and, on
  some plans, ``seven_day_<model>`` windows. Each model's weekly limit stays its own row.
* Cursor: ``POST https://api2.cursor.sh/aiserver.v1.DashboardService/GetCurrentPeriodUsage``
  with ``{}``. ``planUsage.totalSpend`` over ``planUsage.limit`` (both cents) is the level;
  ``billingCycleEnd`` (epoch milliseconds) the cycle's end. The cycle has no published start,
  so the row has a level and no clock.

A reply is a list of windows or a :class:`Failure` with a fixed sentence: a timeout, a refused
credential (401/403), a malformed body, any other status. Nothing read from the credential or
the reply is ever quoted in a failure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import attrs
import httpx
from cargento.timestamps import parse_ts

from cargento_web.capacity.credentials import Credential
from cargento_web.capacity.windows import FIVE_HOURS_S, MONTH, WEEK_S, Window

__all__ = [
    "CLAUDE_USAGE_URL",
    "CURSOR_USAGE_URL",
    "REPLY_LIMIT",
    "TIMEOUT",
    "Failure",
    "Vendor",
    "claude_vendor",
    "cursor_vendor",
    "fetch",
    "parse_claude",
    "parse_cursor",
]

CLAUDE_USAGE_URL = "https://api.anthropic.com/api/oauth/usage"
CURSOR_USAGE_URL = "https://api2.cursor.sh/aiserver.v1.DashboardService/GetCurrentPeriodUsage"
#: Explicit timeouts: a vendor that does not answer is said, not waited on.
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
#: The largest reply read.
REPLY_LIMIT = 256 * 1024
#: Longest model name kept for a model-specific row.
MODEL_NAME_LIMIT = 40


@attrs.frozen(kw_only=True)
class Failure:
    """Why a vendor reading is withheld: ``timeout``, ``rejected``, ``malformed``,
    ``unavailable``, or a credential problem's kind."""

    kind: str
    text: str


@attrs.frozen(kw_only=True)
class Vendor:
    """One vendor endpoint: how to ask it and how to read its reply."""

    key: str
    label: str
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    parse: Callable[[Any, datetime], list[Window]]


def _percent(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if 0.0 <= number <= 1000.0 else None


def _claude_window(raw: object, *, key: str, name: str, length: float, now: datetime) -> Window | None:
    if not isinstance(raw, dict):
        return None
    used = _percent(raw.get("utilization"))
    if used is None:
        return None
    return Window(
        key=key,
        harness="claude",
        harness_label="Claude Code",
        name=name,
        used_percent=used,
        window_s=length,
        resets_at=parse_ts(raw.get("resets_at")),
        read_at=now,
        source="vendor",
    )


def _model_name(element: dict[str, Any]) -> str | None:
    scope = element.get("scope")
    model = scope.get("model") if isinstance(scope, dict) else None
    name = model.get("display_name") if isinstance(model, dict) else None
    if not isinstance(name, str) or not name.strip():
        return None
    return " ".join(name.split())[:MODEL_NAME_LIMIT]


def parse_claude(doc: Any, now: datetime) -> list[Window]:
    """The windows of a Claude usage reply; raises ``ValueError`` when none is readable."""
    if not isinstance(doc, dict):
        raise ValueError("not an object")
    out: list[Window] = []
    for field, name, length in (("five_hour", "5h", FIVE_HOURS_S), ("seven_day", "weekly", WEEK_S)):
        window = _claude_window(doc.get(field), key=f"claude:{name}", name=name, length=length, now=now)
        if window is not None:
            out.append(window)
    models: dict[str, Window] = {}
    for field, raw in doc.items():
        if isinstance(field, str) and field.startswith("seven_day_") and isinstance(raw, dict):
            model = field.removeprefix("seven_day_")[:MODEL_NAME_LIMIT]
            if model.isidentifier():
                w = _claude_window(raw, key=f"claude:weekly:{model}", name=f"weekly · {model}", length=WEEK_S, now=now)
                if w is not None:
                    models[model.lower()] = w
    limits = doc.get("limits")
    for element in limits if isinstance(limits, list) else []:
        if not isinstance(element, dict) or element.get("kind") != "weekly_scoped":
            continue
        scoped = _model_name(element)
        used = _percent(element.get("percent"))
        if scoped is None or used is None:
            continue
        models[scoped.lower()] = Window(
            key=f"claude:weekly:{scoped}",
            harness="claude",
            harness_label="Claude Code",
            name=f"weekly · {scoped}",
            used_percent=used,
            window_s=WEEK_S,
            resets_at=parse_ts(element.get("resets_at")),
            read_at=now,
            source="vendor",
        )
    out.extend(models[k] for k in sorted(models))
    if not out:
        raise ValueError("no window in the reply")
    return out


#: The largest whole number read from a Cursor reply (cents, or epoch milliseconds).
WHOLE_LIMIT = 10**15


def _cents(value: object) -> int | None:
    """A non-negative whole number (a decimal string, as protobuf's JSON writes an int64)."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 16:
        number = int(value.strip())
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    else:
        return None
    return number if 0 <= number < WHOLE_LIMIT else None


def parse_cursor(doc: Any, now: datetime) -> list[Window]:
    """Cursor's billing-cycle level; raises ``ValueError`` when the reply has none."""
    plan = doc.get("planUsage") if isinstance(doc, dict) else None
    if not isinstance(plan, dict):
        raise ValueError("no plan usage")
    spent, limit = _cents(plan.get("totalSpend")), _cents(plan.get("limit"))
    if spent is None or limit is None or limit <= 0:
        raise ValueError("no spend against an allowance")
    used = 100.0 * spent / limit
    if used > 1000.0:
        raise ValueError("a spend past any allowance")
    end_ms = _cents(doc.get("billingCycleEnd")) if isinstance(doc, dict) else None
    resets = datetime.fromtimestamp(end_ms / 1000.0, UTC) if end_ms is not None and end_ms < 10**14 else None
    return [
        Window(
            key="cursor:monthly",
            harness="cursor",
            harness_label="Cursor",
            name=MONTH,
            used_percent=used,
            window_s=None,
            resets_at=resets,
            read_at=now,
            source="vendor",
            detail=f"${spent / 100:.2f} of ${limit / 100:.2f}",
        )
    ]


def claude_vendor(user_agent: str) -> Vendor:
    return Vendor(
        key="claude",
        label="Claude Code",
        method="GET",
        url=CLAUDE_USAGE_URL,
        headers={"anthropic-beta": "oauth-2025-04-20", "Accept": "application/json", "User-Agent": user_agent},
        body=None,
        parse=parse_claude,
    )


def cursor_vendor(user_agent: str) -> Vendor:
    return Vendor(
        key="cursor",
        label="Cursor",
        method="POST",
        url=CURSOR_USAGE_URL,
        headers={"Content-Type": "application/json", "Accept": "application/json", "User-Agent": user_agent},
        body=b"{}",
        parse=parse_cursor,
    )


def fetch(vendor: Vendor, credential: Credential, client: httpx.Client, now: datetime) -> list[Window] | Failure:
    """Ask *vendor* once; its windows, or why there are none."""
    headers = dict(vendor.headers)
    headers["Authorization"] = credential.authorization()
    try:
        with client.stream(vendor.method, vendor.url, headers=headers, content=vendor.body, timeout=TIMEOUT) as reply:
            status = reply.status_code
            data = b""
            if status == 200:
                for chunk in reply.iter_bytes():
                    data += chunk
                    if len(data) > REPLY_LIMIT:
                        return Failure(
                            kind="malformed", text=f"{vendor.label}'s usage reply was larger than any reading"
                        )
    except httpx.TimeoutException:
        return Failure(kind="timeout", text=f"{vendor.label}'s usage endpoint did not answer in time")
    except httpx.HTTPError as exc:
        return Failure(
            kind="unavailable", text=f"{vendor.label}'s usage endpoint could not be reached ({type(exc).__name__})"
        )
    if status in (401, 403):
        return Failure(
            kind="rejected",
            text=f"{vendor.label} refused the stored login ({status}): sign in again in {vendor.label}",
        )
    if status == 429:
        return Failure(kind="unavailable", text=f"{vendor.label} asked to be asked less often (429)")
    if status != 200:
        return Failure(kind="unavailable", text=f"{vendor.label}'s usage endpoint answered {status}")
    try:
        return vendor.parse(json.loads(data), now)
    except (ValueError, TypeError):
        return Failure(kind="malformed", text=f"{vendor.label}'s usage reply had no readable window")
