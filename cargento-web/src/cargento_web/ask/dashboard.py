"""The asking server's side of the loopback conversation with the running dashboard.

:func:`ask` registers a question (``POST /api/ask``) with this run's capability, read from the
dashboard's state file the way the event forwarders read it, then polls ``GET /api/ask/{id}``
with short requests until the question is answered, expires or is declined. Every way it can
fail ends in a :class:`Outcome` promptly: no dashboard, a dashboard run with ``--no-ask`` or
``--no-events``, a refusal, the cap, a stop (the port stops answering), a restart (the new run
has another capability and never heard of the question). It connects to ``127.0.0.1`` only and
never consults a proxy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any, Literal

import attrs
import orjson
from cargento.forwarders._post import capability_for, proven
from cargento.sharedmethods import shared_methods
from cargento.statedir import CAPABILITY_HEADER

__all__ = ["Asking", "Outcome", "Reply", "ask", "request"]

#: Seconds a single request may take (a poll is held at most about a second).
REQUEST_TIMEOUT_S = 5.0
#: Extra seconds past a question's own expiry before the asker stops polling by itself.
EXPIRY_GRACE_S = 5.0
_RESPONSE_LIMIT = 256 * 1024


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Reply:
    status: int
    body: Any


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Asking:
    """One question to ask, with the asking session's attribution (``None`` when unknown)."""

    question: str
    options: tuple[str, ...]
    timeout_s: float | None = None
    harness: str | None = None
    session_id: str | None = None
    project: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Outcome:
    outcome: Literal["answered", "declined", "expired"]
    #: The chosen option (the asker's own copy of ``options[index]``) when answered.
    choice: str | None = None
    index: int | None = None
    reason: str | None = None
    question_id: str | None = None


async def request(
    port: int,
    method: str,
    path: str,
    *,
    capability: str,
    body: bytes | None = None,
    timeout_s: float = REQUEST_TIMEOUT_S,
) -> Reply | None:
    """One HTTP/1.1 request to ``127.0.0.1:port``; ``None`` when nothing answered."""
    head = [
        f"{method} {path} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Accept: application/json",
        "Connection: close",
        f"{CAPABILITY_HEADER}: {capability}",
    ]
    if body is not None:
        head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    data = ("\r\n".join(head) + "\r\n\r\n").encode() + (body or b"")
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(data)
            await writer.drain()
            raw = await reader.read(_RESPONSE_LIMIT)
            while len(raw) < _RESPONSE_LIMIT:
                more = await reader.read(_RESPONSE_LIMIT - len(raw))
                if not more:
                    break
                raw += more
    except (OSError, TimeoutError):
        return None
    finally:
        if writer is not None:
            writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    try:
        status = int(header.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None
    if b"transfer-encoding: chunked" in header.lower():
        return Reply(status=status, body=None)
    try:
        parsed = orjson.loads(payload) if payload else None
    except orjson.JSONDecodeError:
        parsed = None
    return Reply(status=status, body=parsed)


def _declined(reason: str, question_id: str | None = None) -> Outcome:
    return Outcome(outcome="declined", reason=reason, question_id=question_id)


def _refusal_reason(reply: Reply) -> str:
    error = reply.body.get("error") if isinstance(reply.body, dict) else None
    if reply.status == 429:
        return "too many questions are already waiting for the operator"
    return str(error) if error else f"the dashboard refused the question (HTTP {reply.status})"


async def ask(asking: Asking, port: int, env: Mapping[str, str], *, poll_pause_s: float = 0.05) -> Outcome:
    """Ask the dashboard on *port* and wait for the outcome (see the module docstring)."""
    capability = capability_for(port, env)
    if capability is None:
        return _declined(
            f"no Cargento dashboard with the ask lane is running on port {port} (or it runs with --no-events)"
        )
    if not await asyncio.to_thread(proven, port, capability, env):
        return _declined(f"the process on port {port} is not the dashboard that wrote the state file")
    document: dict[str, Any] = {"question": asking.question, "options": list(asking.options)}
    if asking.timeout_s is not None:
        document["timeout_s"] = asking.timeout_s
    if asking.harness is not None and asking.session_id is not None:
        document.update(harness=asking.harness, session_id=asking.session_id)
    if asking.project is not None:
        document["project"] = asking.project
    reply = await request(port, "POST", "/api/ask", capability=capability, body=orjson.dumps(document))
    if reply is None:
        return _declined("the dashboard did not answer")
    if reply.status != 201 or not isinstance(reply.body, dict) or not isinstance(reply.body.get("id"), str):
        return _declined(_refusal_reason(reply))
    question_id: str = reply.body["id"]
    timeout = asking.timeout_s if asking.timeout_s is not None else 1800.0
    give_up = time.monotonic() + timeout + EXPIRY_GRACE_S
    try:
        while True:
            if time.monotonic() > give_up:
                return Outcome(outcome="expired", reason="nobody answered in time", question_id=question_id)
            reply = await request(port, "GET", f"/api/ask/{question_id}", capability=capability)
            if reply is None:
                return _declined("the dashboard stopped before anyone answered", question_id)
            if reply.status in (403, 404):
                return _declined("the dashboard restarted, so the question was lost", question_id)
            if reply.status == 503:
                return _declined(_refusal_reason(reply), question_id)
            body = reply.body if isinstance(reply.body, dict) else {}
            status = body.get("status")
            if status == "answered":
                index = body.get("index")
                if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(asking.options):
                    return Outcome(
                        outcome="answered", choice=asking.options[index], index=index, question_id=question_id
                    )
                return _declined("the dashboard sent an answer that is not one of the options", question_id)
            if status == "expired":
                return Outcome(outcome="expired", reason="nobody answered in time", question_id=question_id)
            if status == "declined":
                return _declined(str(body.get("reason") or "the question was declined"), question_id)
            if status != "open":
                return _declined(f"the dashboard answered the poll with HTTP {reply.status}", question_id)
            await asyncio.sleep(poll_pause_s)
    except asyncio.CancelledError:
        # The tool call was cancelled: take the question off the board before giving up.
        await asyncio.shield(
            request(port, "POST", f"/api/ask/{question_id}/withdraw", capability=capability, body=b"{}", timeout_s=1.0)
        )
        raise
