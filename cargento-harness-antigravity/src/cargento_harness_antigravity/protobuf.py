"""A bounded protobuf wire-format walker that never raises.

Only the wire format is read (no schema): varints (wire type 0), 64-bit (1), length-delimited
(2) and 32-bit (5) fields. Groups (3, 4) and unknown wire types stop the walk. A truncated field
is absent, never an exception, and the walk reports whether it reached the end cleanly so a
caller can say a reading is incomplete. Work is bounded by the input length and a field cap.
"""

from __future__ import annotations

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["MAX_FIELDS", "Decoded", "decode", "read_varint"]

MAX_FIELDS = 4096
_VARINT_MAX = 10


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Decoded:
    """The fields of one message level: ``(number, wire type, value)`` in order."""

    fields: tuple[tuple[int, int, int | bytes], ...]
    #: True when the walk consumed the whole input without meeting a broken field.
    complete: bool

    def first(self, number: int, wire: int) -> int | bytes | None:
        """The first value of field *number* with wire type *wire*, or ``None``."""
        for num, kind, value in self.fields:
            if num == number and kind == wire:
                return value
        return None

    def varint(self, number: int) -> int | None:
        value = self.first(number, 0)
        return value if isinstance(value, int) else None

    def bytes(self, number: int) -> bytes | None:
        value = self.first(number, 2)
        return value if isinstance(value, bytes) else None

    def text(self, number: int) -> str | None:
        """Field *number* decoded as UTF-8 text, or ``None`` when absent or not text."""
        raw = self.bytes(number)
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return None


def read_varint(data: bytes, pos: int) -> tuple[int, int] | None:
    """Decode a varint at *pos*: ``(value, next position)``, or ``None`` when truncated."""
    if pos < len(data) and data[pos] < 0x80:  # one byte: every tag and most lengths and counts
        return data[pos], pos + 1
    value = 0
    for shift in range(_VARINT_MAX):
        if pos >= len(data):
            return None
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << (7 * shift)
        if not byte & 0x80:
            return value, pos
    return None


def decode(data: bytes | bytearray | memoryview | None, *, max_fields: int = MAX_FIELDS) -> Decoded:
    """Walk one message level of *data*."""
    if data is None:
        return Decoded((), False)
    raw = bytes(data)
    out: list[tuple[int, int, int | bytes]] = []
    pos = 0
    while pos < len(raw):
        if len(out) >= max_fields:
            return Decoded(tuple(out), False)
        tag = read_varint(raw, pos)
        if tag is None:
            return Decoded(tuple(out), False)
        key, pos = tag
        number, wire = key >> 3, key & 7
        if number == 0:
            return Decoded(tuple(out), False)
        if wire == 0:
            got = read_varint(raw, pos)
            if got is None:
                return Decoded(tuple(out), False)
            value: int | bytes = got[0]
            pos = got[1]
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > len(raw):
                return Decoded(tuple(out), False)
            value = int.from_bytes(raw[pos : pos + size], "little")
            pos += size
        elif wire == 2:
            got = read_varint(raw, pos)
            if got is None or got[1] + got[0] > len(raw):
                return Decoded(tuple(out), False)
            length, pos = got
            value = raw[pos : pos + length]
            pos += length
        else:
            return Decoded(tuple(out), False)
        out.append((number, wire, value))
    return Decoded(tuple(out), True)
