"""Cursor's content-addressed ``blobs``: the root's child list, message models, the pending gate.

``blobs(id, data)`` is append-only and ``id`` is the sha256 of the bytes, so ``rowid`` is the only
chronology. The chat's root blob (named by ``meta.latestRootBlobId``) is a protobuf frame whose
field 1 repeats the 32-byte ids of the message blobs, oldest first. Message blobs are JSON whose
``providerOptions.cursor.modelName`` names the model. The gate rides inside a binary frame on
the newest blob by ``rowid``: a non-empty ``pendingToolExecutionContracts`` map with
``pendingToolCallStartedAtMs`` beside it, so both are matched on bytes rather than parsed.
"""

from __future__ import annotations

import re

import attrs
import orjson
from cargento.sharedmethods import shared_methods

__all__ = ["KNOWN_ROLES", "PendingGate", "child_ids", "message_role", "model_name", "pending_gate", "readable_message"]

#: Message roles Cursor writes; any other is counted as schema drift.
KNOWN_ROLES = frozenset({"system", "user", "assistant", "tool"})

_CONTRACTS = b'"pendingToolExecutionContracts"'
_STAMP = re.compile(rb'"pendingToolCallStartedAtMs"\s*:\s*(\d{1,16})(?![\d.eE])')
_MODEL = re.compile(rb'"modelName"\s*:\s*"((?:[^"\\\x00-\x1f]|\\.){1,200})"')
_WS = b" \t\r\n"
_FRAME = b"\x0a\x20"


def _varint(data: bytes, pos: int) -> tuple[int, int] | None:
    value = shift = 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7
    return None


def _parse_fields(data: bytes) -> list[bytes] | None:
    """Field-1 32-byte values of a well-formed protobuf message, or ``None`` when malformed."""
    ids: list[bytes] = []
    pos = 0
    while pos < len(data):
        tag = _varint(data, pos)
        if tag is None:
            return None
        key, pos = tag
        field, wire = key >> 3, key & 7
        if field == 0:
            return None
        if wire == 0:
            got = _varint(data, pos)
            if got is None:
                return None
            pos = got[1]
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            got = _varint(data, pos)
            if got is None or got[1] + got[0] > len(data):
                return None
            length, pos = got
            if field == 1 and length == 32:
                ids.append(data[pos : pos + 32])
            pos += length
        else:
            return None
        if pos > len(data):
            return None
    return ids


def _scan_frames(data: bytes) -> list[bytes]:
    ids = []
    start = data.find(_FRAME)
    while start != -1 and start + 34 <= len(data):
        ids.append(data[start + 2 : start + 34])
        start = data.find(_FRAME, start + 34)
    return ids


def child_ids(root: bytes, *, complete: bool, newest: int = 12) -> list[str]:
    """The newest *newest* child ids (hex), newest first, from a root blob (or its tail).

    A complete root is parsed as protobuf; a tail (or a root that does not parse) is scanned
    for ``0a 20 <32 bytes>`` frames, where a stray frame costs one lookup that finds nothing.
    """
    ids = _parse_fields(root) if complete else None
    if ids is None:
        ids = _scan_frames(root)
    return [i.hex() for i in reversed(ids[-newest:])]


def readable_message(blob: bytes) -> bool:
    """True when a message blob reads as a JSON message (plaintext), not encrypted bytes."""
    return blob.lstrip()[:1] == b"{"


def message_role(blob: bytes) -> str | None:
    """The ``role`` of a message blob that reads in full as a JSON object, else ``None``."""
    if blob[:1] != b"{":
        return None
    try:
        message = orjson.loads(blob)
    except orjson.JSONDecodeError:
        return None
    role = message.get("role") if isinstance(message, dict) else None
    return role[:80] if isinstance(role, str) else None


def _named(holder: object) -> str | None:
    """``providerOptions.cursor.modelName`` of a message or of one content block."""
    options = holder.get("providerOptions") if isinstance(holder, dict) else None
    cursor = options.get("cursor") if isinstance(options, dict) else None
    name = cursor.get("modelName") if isinstance(cursor, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else None


def model_name(blob: bytes) -> str | None:
    """``providerOptions.cursor.modelName`` of one message blob, verbatim, or ``None``.

    The message's own ``providerOptions`` is read first, then its content blocks', newest
    first: an assistant message as the CLI writes it carries the model on its blocks (a
    ``reasoning`` or ``tool-call`` block's ``providerOptions.cursor.modelName``) while the
    message level holds only a ``requestId``, or nothing."""
    if blob[:1] == b"{":
        try:
            message = orjson.loads(blob)
        except orjson.JSONDecodeError:
            message = None
        if isinstance(message, dict):
            named = _named(message)
            content = message.get("content")
            if named is None and isinstance(content, list):
                named = next((n for block in reversed(content) if (n := _named(block)) is not None), None)
            return named
    found = _MODEL.search(blob)
    if found is None or (found.start() > 0 and blob[found.start() - 1 : found.start()] == b"\\"):
        return None
    try:
        name = orjson.loads(b'"' + found.group(1) + b'"')
    except orjson.JSONDecodeError:
        return None
    return name.strip() if isinstance(name, str) and name.strip() else None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class PendingGate:
    """What the newest blob says about a standing tool-call gate."""

    #: A non-empty contracts map is on the blob: somebody is being asked.
    open: bool
    #: ``pendingToolCallStartedAtMs`` nearest that map, epoch milliseconds.
    started_ms: int | None = None


def _escaped(data: bytes, pos: int) -> bool:
    """True when the quote at *pos* is escaped (the key is quoted inside some string)."""
    slashes = 0
    while pos - slashes - 1 >= 0 and data[pos - slashes - 1] == 0x5C:
        slashes += 1
    return slashes % 2 == 1


def _skip_ws(data: bytes, pos: int) -> int:
    while pos < len(data) and data[pos] in _WS:
        pos += 1
    return pos


def pending_gate(blob: bytes) -> PendingGate:
    """Match the gate keys on the bytes of the newest blob."""
    opened: list[int] = []
    start = blob.find(_CONTRACTS)
    while start != -1:
        if not _escaped(blob, start):
            pos = _skip_ws(blob, start + len(_CONTRACTS))
            if pos < len(blob) and blob[pos] == 0x3A:  # ':'
                pos = _skip_ws(blob, pos + 1)
                if pos < len(blob) and blob[pos] == 0x7B:  # '{'
                    inner = _skip_ws(blob, pos + 1)
                    if inner < len(blob) and blob[inner] == 0x22:  # a key follows: not empty
                        opened.append(start)
        start = blob.find(_CONTRACTS, start + 1)
    if not opened:
        return PendingGate(open=False)
    stamps = [(m.start(), int(m.group(1))) for m in _STAMP.finditer(blob) if not _escaped(blob, m.start())]
    if not stamps:
        return PendingGate(open=True)
    anchor = opened[-1]
    _, stamp = min(stamps, key=lambda s: abs(s[0] - anchor))
    return PendingGate(open=True, started_ms=stamp)
