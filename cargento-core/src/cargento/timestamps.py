"""Timestamp parsing shared by every reader: lenient in, aware UTC out."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

__all__ = ["FUTURE_TOLERANCE_S", "iso", "newest_plausible", "parse_ts"]

#: Timestamps further ahead of "now" than this are rejected rather than clamped.
FUTURE_TOLERANCE_S = 120.0
_MS_THRESHOLD = 1e12
_MIN_EPOCH = 0.0
_MAX_EPOCH = 253402300799.0  # 9999-12-31


def parse_ts(value: object) -> datetime | None:
    """Parse *value* into an aware UTC datetime, or ``None`` when it is not a timestamp.

    Accepts ISO-8601 strings with or without an offset (no offset means UTC, ``Z`` is
    accepted), SQLite's ``YYYY-MM-DD HH:MM:SS`` text (UTC), epoch seconds, and epoch
    milliseconds (numbers above 1e12). Never raises.
    """
    if type(value) is str:  # the common case first: every reader parses text stamps
        return _parse_text(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            return None
        if abs(number) > _MS_THRESHOLD:
            number /= 1000.0
        if not _MIN_EPOCH < number < _MAX_EPOCH:
            return None
        return datetime.fromtimestamp(number, UTC)
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, bytes):
        try:
            value = value.decode("ascii")
        except UnicodeDecodeError:
            return None
    if not isinstance(value, str):
        return None
    return _parse_text(value)


def _parse_text(value: str) -> datetime | None:
    text = value.strip()
    if not text or len(text) > 64:
        return None
    if text[0].isdigit() and text.replace(".", "", 1).isdigit():
        try:
            return parse_ts(float(text))
        except ValueError:
            return None
    if text[-1] in "Zz":
        text = text[:-1] + "+00:00"
    try:
        parsed = _fromisoformat(text)
    except ValueError:
        return None
    tz = parsed.tzinfo
    if tz is None:
        return parsed.replace(tzinfo=UTC)
    # ``astimezone`` of a moment already in UTC is that moment: skip the call.
    return parsed if tz is UTC else parsed.astimezone(UTC)


_fromisoformat = datetime.fromisoformat


def newest_plausible(now: datetime, *moments: datetime | None) -> datetime | None:
    """The newest of *moments* that is not more than two minutes in the future of *now*."""
    limit = now + timedelta(seconds=FUTURE_TOLERANCE_S)
    best: datetime | None = None
    for moment in moments:
        if moment is None or moment > limit:
            continue
        if best is None or moment > best:
            best = moment
    return best


def iso(moment: datetime | None) -> str | None:
    """Render *moment* as ISO-8601 UTC with a ``Z`` suffix."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
