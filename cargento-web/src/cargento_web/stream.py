"""Server-sent events: the wire encoding and the per-client event generator.

Event names are a closed set: ``board`` (a new board revision: the page refetches
``/api/data``) and ``ping`` (a heartbeat while nothing changed, so the page can tell a quiet
board from a dead server). Each ``data`` line is one JSON object.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

import orjson
from cargento.timestamps import iso

from cargento_web.live import LiveBoard

__all__ = ["EVENT_NAMES", "encode_event", "events"]

EventName = Literal["board", "ping"]
EVENT_NAMES: tuple[EventName, ...] = ("board", "ping")
#: Milliseconds a disconnected EventSource waits before it reconnects.
RETRY_MS = 1500


def encode_event(name: EventName, data: Mapping[str, Any], *, event_id: int | None = None) -> bytes:
    """One SSE message: ``event:``, optional ``id:``, one ``data:`` line, a blank line."""
    if name not in EVENT_NAMES:
        raise ValueError(f"unknown event name {name!r}")
    out = b"event: " + name.encode() + b"\n"
    if event_id is not None:
        out += b"id: " + str(event_id).encode() + b"\n"
    # orjson never emits a raw newline, so one data line always suffices.
    return out + b"data: " + orjson.dumps(dict(data)) + b"\n\n"


async def events(live: LiveBoard, *, all_sessions: bool, heartbeat_s: float) -> AsyncIterator[bytes]:
    """The stream of one client: the current revision at once, then each new one; a ping
    after every quiet *heartbeat_s*; ends when the server closes."""
    async with live.subscribe(all_sessions) as queue:
        board = await live.board(all_sessions)
        last = board.revision
        yield f"retry: {RETRY_MS}\n\n".encode()
        yield encode_event("board", {"revision": last, "generated_at": iso(board.generated_at)}, event_id=last)
        while True:
            try:
                if queue.empty():
                    async with asyncio.timeout(heartbeat_s):
                        revision = await queue.get()
                else:
                    revision = queue.get_nowait()
            except TimeoutError:
                yield encode_event("ping", {"revision": last})
                continue
            if revision is None:
                return
            if revision != last:
                last = revision
                current = live.feed(all_sessions).board
                stamp = iso(current.generated_at) if current is not None else None
                yield encode_event("board", {"revision": last, "generated_at": stamp}, event_id=last)
