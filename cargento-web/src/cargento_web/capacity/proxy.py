"""The HTTP client vendor allowance polls go out through, honouring the run's proxy settings.

A person behind an outbound proxy would otherwise read "could not be reached" for every vendor.
The client takes ``HTTPS_PROXY`` (else ``ALL_PROXY``; either case) and ``NO_PROXY`` from the
dashboard's own environment, and nothing else from it: no ``.netrc`` (the login is the only
credential a poll carries, set by :func:`cargento_web.capacity.vendors.fetch`), no redirects.
Vendor endpoints are ``https://``, so a proxy sees a ``CONNECT`` to the vendor's host and
never the login, which travels inside the tunnel.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx

__all__ = ["proxy_settings", "vendor_client"]

TIMEOUT = httpx.Timeout(10.0, connect=5.0)


def _first(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        for spelled in (name, name.lower()):
            value = env.get(spelled, "").strip()
            if value:
                return value
    return None


def proxy_settings(env: Mapping[str, str]) -> tuple[str | None, tuple[str, ...]]:
    """The proxy URL *env* names for ``https://`` requests, and the hosts it exempts
    (``NO_PROXY``, with any leading ``.`` or ``*.`` dropped; ``*`` exempts everything)."""
    proxy = _first(env, "HTTPS_PROXY", "ALL_PROXY")
    exempt = tuple(
        host.removeprefix("*.").removeprefix(".")
        for host in (h.strip() for h in (_first(env, "NO_PROXY") or "").split(","))
        if host
    )
    return proxy, exempt


def vendor_client(env: Mapping[str, str]) -> httpx.Client:
    """A client for one poll: through the proxy *env* names, except for exempt hosts."""
    proxy, exempt = proxy_settings(env)
    if proxy is None or "*" in exempt:
        return httpx.Client(timeout=TIMEOUT, follow_redirects=False, trust_env=False)
    mounts: dict[str, httpx.BaseTransport | None] = {"all://": httpx.HTTPTransport(proxy=proxy)}
    for host in exempt:
        mounts[f"all://{host}"] = None
        mounts[f"all://*.{host}"] = None
    return httpx.Client(timeout=TIMEOUT, follow_redirects=False, trust_env=False, mounts=mounts)
