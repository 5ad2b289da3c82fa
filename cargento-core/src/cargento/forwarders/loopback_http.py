"""One HTTP/1.1 exchange with a server on ``127.0.0.1``, over a plain socket.

The forwarders make one or two requests per run to the dashboard on loopback; the standard
library's ``http.client`` costs more to import (it brings the e-mail parser) than the whole
exchange takes, and a forwarder runs on every tool call. This is the part of HTTP that
exchange needs: a request with a ``Content-Length`` body, ``Connection: close``, and a reply
read to its length (or to a chunked body's end, or to the close), bounded. It talks to the
interpreter's :mod:`_socket` directly: :mod:`socket` imports :mod:`enum` and :mod:`selectors`
for nothing a single loopback connection uses.
"""

from __future__ import annotations

import _socket

# ``typing`` and ``collections.abc`` only for the type checker: the hook forwarders import
# this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["exchange"]


class _Broken(Exception):
    """The reply is not HTTP this exchange understands."""


def exchange(
    port: int,
    method: str,
    path: str,
    headers: Mapping[str, str],
    body: bytes = b"",
    *,
    timeout_s: float,
    limit: int = 64 * 1024,
) -> tuple[int, bytes] | None:
    """``(status, body)`` of one request to ``127.0.0.1:<port>``; ``None`` when nothing
    answered in *timeout_s* or the answer was not HTTP. The body is cut at *limit* bytes."""
    head = [f"{method} {path} HTTP/1.1", "Connection: close", f"Content-Length: {len(body)}"]
    head += [f"{k}: {v}" for k, v in headers.items() if "\r" not in k + v and "\n" not in k + v]
    request = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace") + body
    try:
        sock = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        sock.settimeout(timeout_s)
        sock.connect(("127.0.0.1", port))
        sock.sendall(request)
        raw = _read(sock, limit)
    except OSError:
        return None
    finally:
        sock.close()
    try:
        return _parse(raw, limit)
    except _Broken:
        return None


def _read(sock: _socket.socket, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    cap = limit + 16 * 1024  # the head, then the body up to its limit
    while size < cap:
        data = sock.recv(min(65536, cap - size))
        if not data:
            break
        chunks.append(data)
        size += len(data)
        joined = b"".join(chunks)
        done = _complete(joined)
        if done:
            return joined
    return b"".join(chunks)


def _complete(raw: bytes) -> bool:
    """True once a reply with a known length has all of it (no need to wait for the close)."""
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        return False
    fields = _fields(raw[:end])
    length = fields.get("content-length")
    if length is not None and length.isdigit():
        return len(raw) - end - 4 >= int(length)
    if "chunked" in fields.get("transfer-encoding", ""):
        return raw.endswith(b"0\r\n\r\n")
    return False


def _fields(head: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in head.split(b"\r\n")[1:]:
        name, sep, value = line.partition(b":")
        if sep:
            out[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    return out


def _parse(raw: bytes, limit: int) -> tuple[int, bytes]:
    end = raw.find(b"\r\n\r\n")
    if end < 0:
        raise _Broken
    status_line = raw[: raw.find(b"\r\n")] if b"\r\n" in raw[:end] else raw[:end]
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise _Broken
    fields = _fields(raw[:end])
    body = raw[end + 4 :]
    if "chunked" in fields.get("transfer-encoding", ""):
        body = _unchunk(body)
    length = fields.get("content-length")
    if length is not None and length.isdigit():
        body = body[: int(length)]
    return int(parts[1]), body[:limit]


def _unchunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        line, sep, rest = data.partition(b"\r\n")
        if not sep:
            break
        try:
            size = int(line.split(b";")[0].strip() or b"0", 16)
        except ValueError:
            raise _Broken from None
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return bytes(out)
