"""The demo's own telemetry: what Claude Code's token metric and Codex's SSE events would say
about the demo's working sessions, built as real OTLP requests and read through the same
decoder as an export, so the badges, the figures and ``/metrics`` are populated."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from cargento.board import Board

from cargento_web.telemetry.ledger import Ledger
from cargento_web.telemetry.otlp import decode_logs, decode_metrics

if TYPE_CHECKING:
    from opentelemetry.proto.common.v1.common_pb2 import KeyValue

__all__ = ["DemoTelemetry"]

#: Output tokens a working demo session generates per feed (every five seconds).
TOKENS_PER_FEED = {"claude": 180, "codex": 95}


class DemoTelemetry:
    def __init__(self, ledger: Ledger, latest_board: Callable[[], Board | None]) -> None:
        self.ledger = ledger
        self.latest_board = latest_board
        self.running: dict[str, int] = {}
        self.started: dict[str, int] = {}

    def feed(self, now: datetime) -> int:
        board = self.latest_board()
        if board is None:
            return 0
        fed = 0
        nanos = int(now.timestamp() * 1e9)
        for s in board.sessions:
            if s.state != "working" or s.harness not in TOKENS_PER_FEED or s.harness not in self.ledger.vocabularies:
                continue
            step = TOKENS_PER_FEED[s.harness]
            if s.harness == "claude":
                self.started.setdefault(s.key, nanos)
                self.running[s.key] = self.running.get(s.key, 0) + step
                body = _claude_tokens(s.session_id, self.running[s.key], self.started[s.key], nanos)
                fed += self.ledger.take_points(decode_metrics(body, "protobuf", now=now), now=now)
            else:
                body = _codex_event(s.session_id, step, nanos)
                fed += self.ledger.take_records(decode_logs(body, "protobuf", now=now), now=now)
        return fed


def _attrs(pairs: dict[str, str]) -> list[KeyValue]:
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

    return [KeyValue(key=k, value=AnyValue(string_value=v)) for k, v in pairs.items()]


def _claude_tokens(session_id: str, total: int, start: int, now: int) -> bytes:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.metrics.v1.metrics_pb2 import (
        AggregationTemporality,
        Metric,
        NumberDataPoint,
        ResourceMetrics,
        ScopeMetrics,
        Sum,
    )
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource

    point = NumberDataPoint(
        as_int=total,
        start_time_unix_nano=start,
        time_unix_nano=now,
        attributes=_attrs({"session.id": session_id, "type": "output", "model": "claude-sonnet-4-5"}),
    )
    metric = Metric(
        name="claude_code.token.usage",
        unit="tokens",
        sum=Sum(
            data_points=[point],
            aggregation_temporality=AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE,
            is_monotonic=True,
        ),
    )
    request = ExportMetricsServiceRequest(
        resource_metrics=[
            ResourceMetrics(
                resource=Resource(attributes=_attrs({"service.name": "claude-code"})),
                scope_metrics=[ScopeMetrics(metrics=[metric])],
            )
        ]
    )
    serialized: bytes = request.SerializeToString()
    return serialized


def _codex_event(session_id: str, tokens: int, now: int) -> bytes:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource

    record = LogRecord(
        time_unix_nano=now,
        attributes=[
            *_attrs(
                {"event.name": "codex.sse_event", "event.kind": "response.completed", "conversation.id": session_id}
            ),
            KeyValue(key="output_token_count", value=AnyValue(int_value=tokens)),
        ],
    )
    request = ExportLogsServiceRequest(
        resource_logs=[
            ResourceLogs(
                resource=Resource(attributes=_attrs({"service.name": "codex_cli_rs"})),
                scope_logs=[ScopeLogs(log_records=[record])],
            )
        ]
    )
    serialized: bytes = request.SerializeToString()
    return serialized
