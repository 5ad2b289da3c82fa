"""Telemetry a harness writes to a local file instead of exporting (Copilot's file exporter,
Gemini CLI's ``outfile``): read read-only and incrementally, one OTLP/JSON export request per
line, like any store.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from cargento.readers.regular import open_regular

from cargento_web.telemetry.ledger import Ledger
from cargento_web.telemetry.otlp import Malformed, decode_logs, decode_metrics

__all__ = ["TelemetryFiles"]

#: Most bytes read from one file per poll; the rest waits for the next poll.
READ_LIMIT = 1024 * 1024
#: A line longer than this is skipped (an export request, not a novel).
LINE_LIMIT = 512 * 1024


class TelemetryFiles:
    """The read offset of every telemetry file, and the lines that could not be read."""

    def __init__(self, ledger: Ledger, paths: Iterable[Path]) -> None:
        self.ledger = ledger
        self.paths = tuple(paths)
        self._offsets: dict[Path, tuple[int, int]] = {}
        self.unreadable_lines = 0
        self.problems: dict[Path, str] = {}

    def poll(self, now: datetime) -> int:
        """Read what each file gained since the last poll; returns the figures fed."""
        fed = 0
        for path in self.paths:
            try:
                fed += self._read(path, now)
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

    def _line(self, line: bytes, now: datetime) -> int:
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
