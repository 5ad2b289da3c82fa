"""Asking a harness's vendor usage endpoint once, with the harness's own login.

The endpoint, and how its reply reads, are the harness plugin's (``quota_endpoint`` and
``read_quota``): this module only makes the request, with explicit timeouts, reads a bounded
reply, and turns what can go wrong into a :class:`Failure` with a fixed sentence (a timeout, a
refused login, a malformed reply, any other answer). Nothing read from the login or the reply
is ever quoted in a failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import attrs
from cargento.models import QuotaEndpoint, QuotaWindow
from cargento.sharedmethods import shared_methods

from cargento_web.capacity.windows import Window

__all__ = ["REPLY_LIMIT", "TIMEOUT", "Failure", "Vendor", "fetch", "windows_of"]

if TYPE_CHECKING:
    import httpx

    from cargento_web.capacity.credentials import Credential

#: Explicit timeouts (any step, then the connect), in seconds: a vendor that does not answer is
#: said, not waited on. (Plain numbers: httpx is imported on the first fetch, not at start.)
TIMEOUT = (10.0, 5.0)
#: The largest reply read.
REPLY_LIMIT = 256 * 1024


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Failure:
    """Why a vendor reading is withheld: ``timeout``, ``rejected``, ``malformed``,
    ``unavailable``, or a credential problem's kind."""

    kind: str
    text: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Vendor:
    """One harness's vendor endpoint, and its plugin's reader for the reply (``None`` when the
    reply holds no readable window, or the reader failed)."""

    harness: str
    label: str
    endpoint: QuotaEndpoint
    read: Callable[[Any, datetime], tuple[QuotaWindow, ...] | None]
    user_agent: str


def windows_of(harness: str, label: str, found: tuple[QuotaWindow, ...], at: datetime, source: str) -> list[Window]:
    """A plugin's windows as the strip keeps them (keyed by harness and window name)."""
    return [
        Window(
            key=f"{harness}:{w.name}",
            harness=harness,
            harness_label=label,
            name=w.name,
            used_percent=w.used_percent,
            window_s=w.window_s,
            resets_at=w.resets_at,
            read_at=at,
            source=source,
            detail=w.detail,
        )
        for w in found
    ]


def fetch(vendor: Vendor, credential: Credential, client: httpx.Client, now: datetime) -> list[Window] | Failure:
    """Ask *vendor* once; its windows, or why there are none."""
    endpoint = vendor.endpoint
    headers = {"User-Agent": vendor.user_agent, **dict(endpoint.headers), "Authorization": credential.authorization()}
    label = vendor.label
    import httpx

    timeout = httpx.Timeout(TIMEOUT[0], connect=TIMEOUT[1])
    try:
        with client.stream(endpoint.method, endpoint.url, headers=headers, content=endpoint.body, timeout=timeout) as r:
            status = r.status_code
            data = b""
            if status == 200:
                for chunk in r.iter_bytes():
                    data += chunk
                    if len(data) > REPLY_LIMIT:
                        return Failure(kind="malformed", text=f"{label}'s usage reply was larger than any reading")
    except httpx.TimeoutException:
        return Failure(kind="timeout", text=f"{label}'s usage endpoint did not answer in time")
    except httpx.HTTPError as exc:
        return Failure(kind="unavailable", text=f"{label}'s usage endpoint could not be reached ({type(exc).__name__})")
    if status in (401, 403):
        return Failure(
            kind="rejected", text=f"{label}'s vendor refused the stored login ({status}): sign in again in {label}"
        )
    if status == 429:
        return Failure(kind="unavailable", text=f"{label}'s vendor asked to be asked less often (429)")
    if status != 200:
        return Failure(kind="unavailable", text=f"{label}'s usage endpoint answered {status}")
    try:
        doc = json.loads(data)
    except ValueError:
        return Failure(kind="malformed", text=f"{label}'s usage reply is not JSON")
    found = vendor.read(doc, now)
    if not found:
        return Failure(kind="malformed", text=f"{label}'s usage reply had no readable window")
    return windows_of(vendor.harness, label, found, now, "vendor")
