"""Telemetry a harness writes to a local file instead of exporting (Copilot's file exporter,
Gemini CLI's ``outfile``): read read-only and incrementally, like any store.

Two forms (:class:`cargento.telemetry.TelemetryFile`): one OTLP/JSON export request per line,
and a stream of JSON objects as the OpenTelemetry JavaScript SDK prints its log records (each
object's ``attributes`` hold ``event.name`` and the record's fields; an object may span lines).
A read stops at the last complete line or object, so a half-written one waits for the next poll.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from cargento.readers.regular import open_regular
from cargento.telemetry import TelemetryFile

from cargento_web.telemetry.ledger import Ledger

if TYPE_CHECKING:
    from cargento_web.telemetry.otlp import Record

__all__ = ["TelemetryFiles"]

#: Most bytes read from one file per poll; the rest waits for the next poll.
READ_LIMIT = 1024 * 1024
#: A line longer than this is skipped (an export request, not a novel).
LINE_LIMIT = 512 * 1024


class TelemetryFiles:
    """The read offset of every telemetry file, and the lines that could not be read."""

    def __init__(self, ledger: Ledger, files: Iterable[TelemetryFile | Path]) -> None:
        self.ledger = ledger
        self.files = tuple(f if isinstance(f, TelemetryFile) else TelemetryFile(path=f) for f in files)
        self.paths = tuple(f.path for f in self.files)
        self._offsets: dict[Path, tuple[int, int]] = {}
        self.unreadable_lines = 0
        self.problems: dict[Path, str] = {}

    def poll(self, now: datetime) -> int:
        """Read what each file gained since the last poll; returns the figures fed."""
        fed = 0
        for file in self.files:
            path = file.path
            try:
                fed += self._read(path, now) if file.format == "otlp-json" else self._read_objects(path, now)
            except OSError as exc:
                if not isinstance(exc, FileNotFoundError):
                    self.problems[path] = exc.strerror or type(exc).__name__
        return fed

    def _read(self, path: Path, now: datetime) -> int:
        with open_regular(path) as fh:
            stat = os.fstat(fh.fileno())
            inode, offset = self._offsets.get(path, (stat.st_ino, 0))
            if inode != stat.st_ino or stat.st_size < offset:
                offset = 0  # replaced or truncated: start over
            fh.seek(offset)
            chunk = fh.read(READ_LIMIT)
        complete = chunk.rfind(b"\n") + 1
        self._offsets[path] = (stat.st_ino, offset + complete)
        fed = 0
        for line in chunk[:complete].splitlines():
            if not line.strip():
                continue
            if len(line) > LINE_LIMIT:
                self.unreadable_lines += 1
                continue
            fed += self._line(line, now)
        self.problems.pop(path, None)
        return fed

    def _chunk(self, path: Path) -> tuple[int, bytes]:
        """The bytes *path* gained since the last read (from 0 after a replacement or a cut)."""
        with open_regular(path) as fh:
            stat = os.fstat(fh.fileno())
            inode, offset = self._offsets.get(path, (stat.st_ino, 0))
            if inode != stat.st_ino or stat.st_size < offset:
                offset = 0
            fh.seek(offset)
            self._offsets[path] = (stat.st_ino, offset)
            return offset, fh.read(READ_LIMIT)

    def _read_objects(self, path: Path, now: datetime) -> int:
        offset, chunk = self._chunk(path)
        text = chunk.decode("utf-8", "replace")
        decoder = json.JSONDecoder()
        at, used, records = 0, 0, []
        while True:
            start = text.find("{", at)
            if start < 0:
                used = len(chunk) if not text[at:].strip() else used
                break
            try:
                value, end = decoder.raw_decode(text, start)
            except ValueError:
                break  # incomplete (still being written) or not JSON: wait, or give up below
            at = end
            used = len(text[:end].encode("utf-8"))
            record = _sdk_record(value, now)
            if record is None:
                self.unreadable_lines += 1
            else:
                records.append(record)
        if used == 0 and len(chunk) >= READ_LIMIT:
            used = len(chunk)  # one object larger than a read: skipped, never re-read forever
            self.unreadable_lines += 1
        inode = self._offsets[path][0]
        self._offsets[path] = (inode, offset + used)
        self.problems.pop(path, None)
        return self.ledger.take_records(records, now=now) if records else 0

    def _line(self, line: bytes, now: datetime) -> int:
        # The decoders are imported by the first line a file holds, not at start.
        from cargento_web.telemetry.otlp import Malformed, decode_logs, decode_metrics

        head = line[:200]
        try:
            if b"resourceMetrics" in head or b"resource_metrics" in head:
                return self.ledger.take_points(decode_metrics(line, "json", now=now), now=now)
            if b"resourceLogs" in head or b"resource_logs" in head:
                return self.ledger.take_records(decode_logs(line, "json", now=now), now=now)
        except Malformed:
            pass
        self.unreadable_lines += 1
        return 0


def _sdk_record(value: object, now: datetime) -> Record | None:
    """A log record as the OpenTelemetry JavaScript SDK prints it, or ``None`` for anything else
    (a span, a metric, a stray object): its ``attributes`` name the event."""
    if not isinstance(value, dict):
        return None
    attributes = value.get("attributes")
    if not isinstance(attributes, dict):
        return None
    names = [n for n in (attributes.get("event.name"), value.get("body")) if isinstance(n, str) and 0 < len(n) <= 200]
    if not names:
        return None
    from cargento_web.telemetry.otlp import Record  # the decoders' module, imported by the first record

    resource = value.get("resource")
    resource_attributes = resource.get("attributes") if isinstance(resource, dict) else None
    return Record(
        names=tuple(dict.fromkeys(names)),
        at=_stamp(value, now),
        attributes={str(k): v for k, v in list(attributes.items())[:128]},
        resource=dict(resource_attributes) if isinstance(resource_attributes, dict) else {},
    )


def _stamp(value: dict[str, object], now: datetime) -> datetime:
    """The record's time from its ``hrTime`` ([seconds, nanoseconds]) or ``event.timestamp``."""
    hr = value.get("hrTime")
    if isinstance(hr, list) and len(hr) == 2 and all(isinstance(x, int) for x in hr):
        try:
            return datetime.fromtimestamp(hr[0] + hr[1] / 1e9, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return now
    attributes = value.get("attributes")
    stamp = attributes.get("event.timestamp") if isinstance(attributes, dict) else None
    if isinstance(stamp, str):
        try:
            parsed = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            return now
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return now
