"""What every forwarder shares: the state file, the loopback-only POST, and silence.

A forwarder is one interpreter invocation that behaves the same in every shell: it reads its
payload from stdin, reads the running dashboard's state file (``cargento-<port>.json`` in
Cargento's state directory) for this run's capability, POSTs to ``127.0.0.1`` only, prints
nothing (a hook's stdout can reach the agent's context, and a status line's is drawn on
screen) and exits 0 whatever happens: with no dashboard running it reads one small file and
stops. Proxies are never consulted (the connection is made directly).
"""

from __future__ import annotations

import os
import sys
import time

from cargento.forwarders import leanjson
from cargento.forwarders.loopback_http import exchange
from cargento.forwarders.proof import challenge, expected_proof, same
from cargento.liveness import pid_alive
from cargento.readers.regular import read_regular
from cargento.statepath import CAPABILITY_HEADER, HEALTH_CHALLENGE, state_file_path

# ``typing`` and ``collections.abc`` only for the type checker: the hook forwarders import
# this module on every hook, and each import is time a person may wait on (see
# docs/benchmark.md, "Whole processes").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any

__all__ = [
    "DEFAULT_PORT",
    "HOOK_AT_HEADER",
    "Target",
    "capability_for",
    "compact_json",
    "loopback_target",
    "port_from",
    "post",
    "proven",
    "read_object",
    "read_payload",
    "read_state",
]

DEFAULT_PORT = 4553
HOOK_AT_HEADER = "X-Cargento-Hook-At"
#: Largest payload a forwarder reads from stdin (a tool response can be large).
STDIN_LIMIT = 16 * 1024 * 1024
#: Seconds to connect and be answered: loopback answers in milliseconds or not at all.
TIMEOUT_S = 2.0
#: Largest state file read (as :func:`cargento.statedir.read_state`).
STATE_LIMIT = 64 * 1024


class Target:
    """A loopback address to POST to."""

    def __init__(self, port: int, path: str) -> None:
        self.port = port
        self.path = path


def port_from(text: str | None, env: Mapping[str, str]) -> int | None:
    """A port from an argument, else ``CARGENTO_PORT``, else the default; ``None`` if bad."""
    value = text if text else env.get("CARGENTO_PORT", "").strip() or str(DEFAULT_PORT)
    try:
        port = int(value)
    except ValueError:
        return None
    return port if 1 <= port <= 65535 else None


def loopback_target(url: str) -> Target | None:
    """The loopback target of an ``http://`` URL, or ``None`` when it names anywhere else.

    Only IP literals on loopback (``127.0.0.0/8``, ``::1``) and ``localhost`` are accepted;
    ``localhost`` is never resolved, the POST goes to ``127.0.0.1``.
    """
    plain = _plain_loopback(url.strip())
    if plain is not None:
        return plain
    import ipaddress
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or parts.username or parts.password:
        return None
    host = (parts.hostname or "").lower()
    if host != "localhost":
        try:
            if not ipaddress.ip_address(host).is_loopback:
                return None
        except ValueError:
            return None
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(port or 80, path)


def read_state(port: int, env: Mapping[str, str]) -> dict[str, Any] | None:
    """The running dashboard's state document for *port*, as
    :func:`cargento.statedir.read_state` reads it (a regular file of at most 64 KiB holding
    one JSON object, never blocking on a named pipe), or ``None``."""
    return read_object(state_file_path(port, env), STATE_LIMIT)


def read_object(path: str, limit: int) -> dict[str, Any] | None:
    """The JSON object in the regular file *path* of at most *limit* bytes (a larger one is
    refused, not cut), as :func:`cargento.readers.jsonobject.read_json_object` reads it, or
    ``None``; the open never blocks on a named pipe."""
    try:
        data = read_regular(path, limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    try:
        value = leanjson.loads(data.decode("utf-8"), constants=False)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


_PLAIN_HOSTS = ("http://127.0.0.1:", "http://localhost:")
_NOT_PLAIN = frozenset("?#@%\\[] \t\r\n")


def _plain_loopback(url: str) -> Target | None:
    """The usual shape, ``http://127.0.0.1:<port>/<path>`` (or ``localhost``) with a plain
    ASCII path, read without :mod:`urllib.parse` and :mod:`ipaddress` (which a forwarder
    would otherwise import on every hook); ``None`` for anything else, which
    :func:`loopback_target` parses in full. Both give the same target (a test holds them to it).
    """
    for prefix in _PLAIN_HOSTS:
        if url.startswith(prefix):
            digits, slash, path = url[len(prefix) :].partition("/")
            if not (slash and digits.isascii() and digits.isdigit()) or int(digits) > 65535:
                return None
            if not (path.isascii() and path.isprintable()) or not _NOT_PLAIN.isdisjoint(path):
                return None
            return Target(int(digits) or 80, "/" + path)
    return None


def capability_for(port: int, env: Mapping[str, str]) -> str | None:
    """This run's capability from the dashboard's state file, or ``None`` (no dashboard on
    *port*, or one started with ``--no-events``)."""
    state = read_state(port, env)
    if state is None:
        return None
    value = state.get("capability")
    return value if isinstance(value, str) and value else None


def proven(port: int, capability: str, env: Mapping[str, str], *, timeout_s: float = TIMEOUT_S) -> bool:
    """True when the process on *port* is the dashboard whose state file gave *capability*.

    The state file outlives a crash, and another process may hold the port since. So the pid
    it records must be alive, and the process on the port must answer a fresh challenge on
    ``/api/health`` with the proof only the capability's holder can compute. Nothing but the
    challenge is sent before that; a dead pid means nothing is sent at all.
    """
    state = read_state(port, env)
    if state is None or not pid_alive(state.get("pid")):
        return False
    nonce = challenge()
    reply = exchange(
        port,
        "GET",
        f"/api/health?{HEALTH_CHALLENGE}={nonce}",
        {"Host": f"127.0.0.1:{port}", "Accept": "application/json"},
        timeout_s=timeout_s,
    )
    if reply is None or reply[0] != 200:
        return False
    try:
        answer = leanjson.loads(reply[1].decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    proof = answer.get("proof") if isinstance(answer, dict) else None
    if not isinstance(proof, str) or answer.get("pid") != state.get("pid"):
        return False
    return same(proof, expected_proof(capability, nonce))


def compact_json(value: Any, *, sort_keys: bool = False) -> bytes:
    """*value* as compact ASCII JSON (through :mod:`cargento.forwarders.leanjson`: a forwarder
    imports nothing heavier than it needs)."""
    return leanjson.dumps(value, sort_keys=sort_keys)


def read_payload(stream: IO[bytes]) -> Any:
    """The JSON document on *stream*, or ``None`` when it is absent, too large or broken."""
    try:
        data = stream.read(STDIN_LIMIT + 1)
    except (OSError, ValueError):
        return None
    if not data or len(data) > STDIN_LIMIT:
        return None
    try:
        return leanjson.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None


def post(
    target: Target, body: bytes, capability: str, *, hook_at: float | None = None, timeout_s: float = TIMEOUT_S
) -> int | None:
    """POST *body* to ``127.0.0.1``; the HTTP status, or ``None`` when nothing answered."""
    headers = {
        "Content-Type": "application/json",
        CAPABILITY_HEADER: capability,
        "Host": f"127.0.0.1:{target.port}",
        HOOK_AT_HEADER: f"{hook_at if hook_at is not None else time.time():.3f}",
    }
    reply = exchange(target.port, "POST", target.path, headers, body, timeout_s=timeout_s)
    return None if reply is None else reply[0]


def stdin_bytes() -> IO[bytes]:
    return sys.stdin.buffer


def environ() -> Mapping[str, str]:
    return os.environ
