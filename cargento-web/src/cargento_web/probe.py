"""Who is on a port: nothing, a Cargento dashboard, or some other process.

Used by ``--status``, ``--stop``, ``--daemon`` and the busy-port message. It only connects
over loopback and asks ``/api/health``, which scans nothing.
"""

from __future__ import annotations

import errno
import socket
from typing import Any, Literal

import attrs
import orjson
from cargento.sharedmethods import shared_methods

__all__ = ["Occupant", "bind_socket", "port_free", "probe"]

Kind = Literal["free", "cargento", "other"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Occupant:
    """What answers on a loopback port; ``health`` is the dashboard's ``/api/health``."""

    kind: Kind
    health: dict[str, Any] | None = None


def _listening(port: int, timeout: float) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def probe(port: int, *, timeout: float = 2.0) -> Occupant:
    """Connect to ``127.0.0.1:port`` and ask who it is."""
    if not _listening(port, timeout):
        return Occupant(kind="free")
    import http.client  # only when something listens: the server's own start never needs it

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/api/health", headers={"Host": f"127.0.0.1:{port}", "Accept": "application/json"})
        response = conn.getresponse()
        body = response.read(64 * 1024)
        if response.status != 200:
            return Occupant(kind="other")
        value = orjson.loads(body)
    except (OSError, http.client.HTTPException, orjson.JSONDecodeError):
        return Occupant(kind="other")
    finally:
        conn.close()
    if isinstance(value, dict) and value.get("app") == "cargento" and isinstance(value.get("pid"), int):
        return Occupant(kind="cargento", health=value)
    return Occupant(kind="other")


def post_shutdown(port: int, *, timeout: float = 5.0) -> bool:
    """Ask the dashboard on *port* to stop; True when it agreed."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/api/shutdown", body=b"", headers={"Host": f"127.0.0.1:{port}", "Content-Length": "0"})
        response = conn.getresponse()
        response.read(64 * 1024)
        return response.status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening IPv4 socket on *host*:*port* (port 0 picks one); raises OSError when busy.

    The protocol is named explicitly: asyncio sets ``TCP_NODELAY`` on accepted connections only
    when the listening socket says ``IPPROTO_TCP``, and without it every keep-alive request
    waits out a delayed ACK (about 40 ms each).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):  # Windows: refuse a shared bind
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def port_free(host: str, port: int) -> bool:
    """True when *host*:*port* can be bound right now."""
    try:
        bind_socket(host, port).close()
    except OSError:
        return False
    return True


def is_in_use(exc: OSError) -> bool:
    return (
        exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)) or getattr(exc, "winerror", None) == 10048
    )
