"""The request guard: Host checks on every route, origin checks on every state change.

These functions are shared by every route module (the event ingress included), so each one
returns a ready :class:`~starlette.responses.Response` to send instead, or ``None`` to go on.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable, Iterable

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "HostGuard",
    "check_host",
    "check_state_change",
    "host_allowed",
    "is_loopback",
    "read_body",
]


# A machine's clients come from a handful of addresses: each is parsed once (every event POST
# asked ``ipaddress`` again, about 2 % of the event path's CPU).
@functools.lru_cache(maxsize=256)
def is_loopback(address: str | None) -> bool:
    """True for an IPv4/IPv6 loopback address (``127.0.0.0/8``, ``::1``, v4-mapped)."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def host_allowed(host: str | None, allowed: Iterable[str], *, any_ip_literal_port: int | None = None) -> bool:
    """True when *host* (a Host header value) names this server.

    With *any_ip_literal_port* set (a ``--host 0.0.0.0`` bind), any IPv4 literal with that
    port is also accepted: an IP literal cannot be re-pointed by DNS, a name can.
    """
    if not host:
        return False
    value = host.strip().lower()
    if value in {a.lower() for a in allowed}:
        return True
    if any_ip_literal_port is not None:
        name, _, port = value.rpartition(":")
        if port == str(any_ip_literal_port):
            try:
                ipaddress.IPv4Address(name)
            except ValueError:
                return False
            return True
    return False


def _refuse(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return PlainTextResponse(text + "\n", status_code=status, headers=headers)


def check_host(
    request: Request, allowed_hosts: Iterable[str], *, any_ip_literal_port: int | None = None
) -> Response | None:
    """Refuse a request whose Host header does not name this server (DNS rebinding)."""
    host = request.headers.get("host")
    if host_allowed(host, allowed_hosts, any_ip_literal_port=any_ip_literal_port):
        return None
    return _refuse(421, f"refused: Host {host!r} does not name this dashboard; open it at its 127.0.0.1 address")


def check_state_change(request: Request, allowed_origins: Iterable[str] | None = None) -> Response | None:
    """Refuse a state-changing request unless it is a plain loopback POST from this dashboard.

    Refuses (in this order): a method other than POST (405), a client that is not on
    loopback, a foreign ``Origin`` (``null`` included), ``Sec-Fetch-Site: cross-site``, and a
    document navigation (``Sec-Fetch-Mode: navigate`` or ``Sec-Fetch-Dest: document``), each
    with 403. A request with no ``Origin`` (a command-line client) is allowed from loopback.
    *allowed_origins* defaults to the origins of the request's own (already checked) Host.
    """
    if request.method != "POST":
        return _refuse(405, "refused: this route only accepts POST", {"Allow": "POST"})
    client = request.client.host if request.client else None
    if not is_loopback(client):
        return _refuse(403, "refused: state changes are accepted from this machine (loopback) only")
    origin = request.headers.get("origin")
    if origin is not None:
        if allowed_origins is None:
            host = request.headers.get("host", "")
            allowed_origins = {f"http://{host}"} if host else set()
        if origin.lower() not in {o.lower() for o in allowed_origins}:
            return _refuse(403, f"refused: Origin {origin!r} is not this dashboard")
    if request.headers.get("sec-fetch-site", "").lower() == "cross-site":
        return _refuse(403, "refused: a cross-site request cannot change state here")
    if (
        request.headers.get("sec-fetch-mode", "").lower() == "navigate"
        or request.headers.get("sec-fetch-dest", "").lower() == "document"
    ):
        return _refuse(403, "refused: a page navigation cannot change state here")
    return None


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, at most *limit* bytes.

    Raises :class:`~starlette.exceptions.HTTPException` 413 (which Starlette turns into a
    response) as soon as the declared or streamed length passes *limit*, without reading on.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise HTTPException(400, "Content-Length is not a number") from None
        if length > limit:
            raise HTTPException(413, f"body larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"body larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


class HostGuard:
    """ASGI middleware applying :func:`check_host` to every HTTP request."""

    def __init__(
        self, app: ASGIApp, *, allowed_hosts: Callable[[], Iterable[str]], any_ip_literal_port: Callable[[], int | None]
    ) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts
        self.any_ip_literal_port = any_ip_literal_port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = check_host(Request(scope), self.allowed_hosts(), any_ip_literal_port=self.any_ip_literal_port())
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
