"""The demo's own telemetry: what each harness's vocabulary says its export would carry for
the demo's working sessions, built as real OTLP requests (a cumulative counter for a metric
source, a log record for an event source) and read through the same decoder as an export,
so the OTel marks, the figures and ``/metrics`` are populated. No harness is named here: the
shapes come from the vocabularies the plugins declare.

The figures follow the simulated stores, as a harness's export follows its own work: a
counter carries the session's output total as its store records it, and an event carries
the output written since the last feed, so the session page's telemetry corroborates its
token measurements instead of contradicting them. A row whose store records no total gets
a steady made-up step instead."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from cargento.board import Board
from cargento.telemetry import FigureSource, TelemetryVocabulary

from cargento_web.telemetry.ledger import Ledger
from cargento_web.telemetry.otlp import decode_logs, decode_metrics

if TYPE_CHECKING:
    from opentelemetry.proto.common.v1.common_pb2 import KeyValue
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource

__all__ = ["DemoTelemetry"]


def _step(key: str) -> int:
    """Output tokens a working demo session generates per feed: steady, and different per row."""
    return 60 + zlib.crc32(key.encode()) % 140


class DemoTelemetry:
    def __init__(self, ledger: Ledger, latest_board: Callable[[], Board | None]) -> None:
        self.ledger = ledger
        self.latest_board = latest_board
        self.running: dict[str, int] = {}
        self.started: dict[str, int] = {}
        #: Each row's output total at the last feed (an event carries what was added since).
        self.totals: dict[str, int] = {}

    def feed(self, now: datetime) -> int:
        board = self.latest_board()
        if board is None:
            return 0
        fed = 0
        nanos = int(now.timestamp() * 1e9)
        for s in board.sessions:
            vocabulary = self.ledger.vocabularies.get(s.harness)
            if s.state != "working" or vocabulary is None or not vocabulary.output_tokens:
                continue
            source = vocabulary.output_tokens[0]
            total = s.output_tokens_total
            if source.kind == "metric":
                self.started.setdefault(s.key, nanos)
                # A counter never goes back.
                counted = self.running.get(s.key, 0) + _step(s.key) if total is None else total
                self.running[s.key] = max(self.running.get(s.key, 0), counted)
                body = _counter(vocabulary, source, s.session_id, self.running[s.key], self.started[s.key], nanos)
                fed += self.ledger.take_points(decode_metrics(body, "protobuf", now=now), now=now)
            elif source.field is not None:
                if total is None:
                    added = _step(s.key)
                else:
                    before = self.totals.get(s.key)
                    self.totals[s.key] = total
                    added = total - before if before is not None and total > before else 0
                if added:
                    body = _event(vocabulary, source, s.session_id, added, nanos)
                    fed += self.ledger.take_records(decode_logs(body, "protobuf", now=now), now=now)
        if len(self.started) + len(self.totals) > 4 * len(board.sessions) + 64:
            # The demo starts new sessions as it goes: keep only the rows still on the board.
            keys = {s.key for s in board.sessions}
            for kept in (self.running, self.started, self.totals):
                for key in [k for k in kept if k not in keys]:
                    del kept[key]
        return fed


def _attrs(pairs: dict[str, str]) -> list[KeyValue]:
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

    return [KeyValue(key=k, value=AnyValue(string_value=v)) for k, v in pairs.items()]


def _resource(vocabulary: TelemetryVocabulary) -> Resource:
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource

    return Resource(attributes=_attrs({"service.name": vocabulary.services[0]}))


def _counter(
    vocabulary: TelemetryVocabulary, source: FigureSource, sid: str, total: int, start: int, now: int
) -> bytes:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.metrics.v1.metrics_pb2 import (
        AggregationTemporality,
        Metric,
        NumberDataPoint,
        ResourceMetrics,
        ScopeMetrics,
        Sum,
    )

    point = NumberDataPoint(
        as_int=total,
        start_time_unix_nano=start,
        time_unix_nano=now,
        attributes=_attrs({vocabulary.session_attributes[0]: sid, **dict(source.where)}),
    )
    metric = Metric(
        name=source.name,
        sum=Sum(
            data_points=[point],
            aggregation_temporality=AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE,
            is_monotonic=True,
        ),
    )
    request = ExportMetricsServiceRequest(
        resource_metrics=[
            ResourceMetrics(resource=_resource(vocabulary), scope_metrics=[ScopeMetrics(metrics=[metric])])
        ]
    )
    serialized: bytes = request.SerializeToString()
    return serialized


def _event(vocabulary: TelemetryVocabulary, source: FigureSource, sid: str, tokens: int, now: int) -> bytes:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs

    assert source.field is not None
    record = LogRecord(
        time_unix_nano=now,
        attributes=[
            *_attrs({"event.name": source.name, vocabulary.session_attributes[0]: sid}),
            KeyValue(key=source.field, value=AnyValue(int_value=tokens)),
        ],
    )
    request = ExportLogsServiceRequest(
        resource_logs=[ResourceLogs(resource=_resource(vocabulary), scope_logs=[ScopeLogs(log_records=[record])])]
    )
    serialized: bytes = request.SerializeToString()
    return serialized
