"""Claude Code's allowance: the OAuth usage endpoint, where Claude Code keeps its login, and
what the endpoint's reply says.

``GET https://api.anthropic.com/api/oauth/usage`` with ``anthropic-beta: oauth-2025-04-20``.
The login is Claude Code's own OAuth credential: on macOS the Keychain generic password
``Claude Code-credentials``, elsewhere ``.credentials.json`` in Claude Code's config directory
(``$CLAUDE_CONFIG_DIR``, else ``~/.claude``), a JSON document whose
``claudeAiOauth.accessToken`` is the token and ``claudeAiOauth.expiresAt`` its expiry in epoch
milliseconds.

The reply carries ``five_hour`` and ``seven_day`` (``utilization`` on a 0-to-100 scale,
``resets_at``), and the model-specific weekly limits as ``limits[]`` elements of kind
``weekly_scoped`` (``scope.model.display_name``, ``percent``, and a ``resets_at`` that may be
absent) and, on some plans, as ``seven_day_<model>`` windows. Each model's weekly limit stays
a window of its own: the tightest model allowance can stop work before the account-wide one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento.models import HarnessContext, QuotaEndpoint, QuotaWindow
from cargento.timestamps import parse_ts

from cargento_harness_claude import locations

__all__ = ["KEYCHAIN_SERVICE", "URL", "endpoint", "read_reply"]

URL = "https://api.anthropic.com/api/oauth/usage"
KEYCHAIN_SERVICE = "Claude Code-credentials"
FIVE_HOURS_S = 5 * 3600.0
WEEK_S = 7 * 86400.0
#: Longest model name kept for a model-specific window.
MODEL_NAME_LIMIT = 40
#: At most this many model-specific windows are read from one reply.
MODELS_LIMIT = 8


def endpoint(env: Mapping[str, str], home: Path, platform: str) -> QuotaEndpoint:
    """The usage endpoint and where Claude Code keeps its login on *platform*."""
    common: dict[str, Any] = {
        "method": "GET",
        "url": URL,
        "headers": (("anthropic-beta", "oauth-2025-04-20"), ("Accept", "application/json")),
        "token_field": ("claudeAiOauth", "accessToken"),
        "expires_field": ("claudeAiOauth", "expiresAt"),
    }
    if platform == "darwin":
        return QuotaEndpoint(keychain_service=KEYCHAIN_SERVICE, **common)
    ctx = HarnessContext(now=datetime(1970, 1, 1, tzinfo=UTC), env=env, home=home, platform=platform)
    return QuotaEndpoint(credential_file=locations.store(ctx).root / ".credentials.json", **common)


def _percent(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0.0 <= number <= 1000.0 else None


def _window(raw: object, name: str, length: float) -> QuotaWindow | None:
    if not isinstance(raw, dict):
        return None
    used = _percent(raw.get("utilization"))
    if used is None:
        return None
    return QuotaWindow(name=name, used_percent=used, window_s=length, resets_at=parse_ts(raw.get("resets_at")))


def _model_name(element: Mapping[str, Any]) -> str | None:
    scope = element.get("scope")
    model = scope.get("model") if isinstance(scope, dict) else None
    name = model.get("display_name") if isinstance(model, dict) else None
    if not isinstance(name, str):
        return None
    cleaned = " ".join(name.split())[:MODEL_NAME_LIMIT]
    return cleaned or None


def read_reply(doc: Any) -> tuple[QuotaWindow, ...]:
    """The windows of one usage reply; ``()`` when none is readable."""
    if not isinstance(doc, dict):
        return ()
    out: list[QuotaWindow] = []
    for field, name, length in (("five_hour", "5h", FIVE_HOURS_S), ("seven_day", "weekly", WEEK_S)):
        found = _window(doc.get(field), name, length)
        if found is not None:
            out.append(found)
    models: dict[str, QuotaWindow] = {}
    for field, raw in doc.items():
        if isinstance(field, str) and field.startswith("seven_day_"):
            model = field.removeprefix("seven_day_")[:MODEL_NAME_LIMIT]
            found = _window(raw, f"weekly · {model}", WEEK_S) if model.isidentifier() else None
            if found is not None:
                models[model.lower()] = found
    limits = doc.get("limits")
    for element in limits if isinstance(limits, list) else []:
        if not isinstance(element, dict) or element.get("kind") != "weekly_scoped":
            continue
        scoped = _model_name(element)
        used = _percent(element.get("percent"))
        if scoped is None or used is None:
            continue
        models[scoped.lower()] = QuotaWindow(
            name=f"weekly · {scoped}", used_percent=used, window_s=WEEK_S, resets_at=parse_ts(element.get("resets_at"))
        )
    out.extend(models[k] for k in sorted(models)[:MODELS_LIMIT])
    return tuple(out)
