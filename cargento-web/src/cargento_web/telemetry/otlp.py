"""Decoding what an OTLP/HTTP exporter posts: metrics and logs, protobuf or JSON.

Both encodings decode into the official ``opentelemetry-proto`` messages (JSON through
protobuf's own JSON mapping, which is what OTLP/JSON is), then into the two plain shapes the
ledger reads: a metric data point and a log event. Nothing else of the request is kept.
Imported only when a body arrives, so a run that receives no telemetry pays nothing for it.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["BODY_LIMIT", "Malformed", "Point", "Record", "decode_logs", "decode_metrics", "inflate"]

#: Largest body accepted, after decompression too (a batch of a few thousand points).
BODY_LIMIT = 4 * 1024 * 1024
#: Most data points or log records read from one request; the rest are dropped.
ITEM_LIMIT = 20_000

Encoding = Literal["protobuf", "json"]


class Malformed(ValueError):
    """The body is not an OTLP export request of the expected signal."""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Point:
    """One metric data point: a number sum or gauge value with its attributes."""

    name: str
    value: float
    at: datetime
    attributes: Mapping[str, Any]
    resource: Mapping[str, Any]
    #: A sum whose value is a running total since *start* (else a delta or a gauge).
    cumulative: bool
    start: datetime | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Record:
    """One log record read as an event: its names, attributes and time.

    A harness may name an event in its ``event.name`` attribute, the record's event-name
    field or a short string body (Claude Code puts ``api_request`` in the first and
    ``claude_code.api_request`` in the last); *names* holds each one found.
    """

    names: tuple[str, ...]
    at: datetime
    attributes: Mapping[str, Any]
    resource: Mapping[str, Any]


def inflate(body: bytes, content_encoding: str | None) -> bytes:
    """*body* decompressed per its ``Content-Encoding``, never past :data:`BODY_LIMIT`."""
    encoding = (content_encoding or "identity").strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise Malformed(f"content encoding {encoding!r} is not supported (gzip, deflate or none)")
    wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(body, BODY_LIMIT + 1)
    except (zlib.error, gzip.BadGzipFile) as exc:
        raise Malformed(f"the {encoding} body does not decompress: {exc}") from None
    if len(out) > BODY_LIMIT or inflater.unconsumed_tail:
        raise Malformed(f"the body decompresses past {BODY_LIMIT} bytes")
    return out


def _parse(message: Any, body: bytes, encoding: Encoding) -> Any:
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError

    try:
        if encoding == "json":
            json_format.Parse(body.decode("utf-8"), message, ignore_unknown_fields=True)
        else:
            message.ParseFromString(body)
    except (DecodeError, json_format.ParseError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Malformed(f"not an OTLP {type(message).__name__} ({encoding}): {str(exc)[:200]}") from None
    return message


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values[:64]]
    if kind == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in any_value.kvlist_value.values[:64]}
    if kind == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, kind)


def _attributes(items: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in list(items)[:128]}


def _moment(nanos: int) -> datetime | None:
    if nanos <= 0:
        return None
    try:
        return datetime.fromtimestamp(nanos / 1e9, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def decode_metrics(body: bytes, encoding: Encoding, *, now: datetime) -> list[Point]:
    """The number data points of an ``ExportMetricsServiceRequest`` (sums and gauges;
    histograms and summaries carry no figure the board reads)."""
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.metrics.v1.metrics_pb2 import AggregationTemporality

    request = _parse(ExportMetricsServiceRequest(), body, encoding)
    points: list[Point] = []
    for resource_metrics in request.resource_metrics:
        resource = _attributes(resource_metrics.resource.attributes)
        for scope in resource_metrics.scope_metrics:
            for metric in scope.metrics:
                kind = metric.WhichOneof("data")
                if kind not in ("sum", "gauge", "histogram"):
                    continue
                data = getattr(metric, kind)
                cumulative = (
                    kind in ("sum", "histogram")
                    and data.aggregation_temporality == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
                )
                for dp in data.data_points:
                    if kind == "histogram":
                        # A histogram of amounts (GenAI token usage): its sum is the figure.
                        if not dp.HasField("sum"):
                            continue
                        value = float(dp.sum)
                    else:
                        number = dp.WhichOneof("value")
                        if number is None:
                            continue
                        value = float(getattr(dp, number))
                    points.append(
                        Point(
                            name=metric.name,
                            value=value,
                            at=_moment(dp.time_unix_nano) or now,
                            start=_moment(dp.start_time_unix_nano),
                            attributes=_attributes(dp.attributes),
                            resource=resource,
                            cumulative=cumulative,
                        )
                    )
                    if len(points) >= ITEM_LIMIT:
                        return points
    return points


def _record_names(record: Any, attributes: Mapping[str, Any]) -> tuple[str, ...]:
    names: list[str] = []
    named = attributes.get("event.name")
    if isinstance(named, str) and named:
        names.append(named)
    if getattr(record, "event_name", ""):
        names.append(str(record.event_name))
    body = _value(record.body) if record.HasField("body") else None
    if isinstance(body, str) and 0 < len(body) <= 200:
        names.append(body)
    return tuple(dict.fromkeys(names))


def decode_logs(body: bytes, encoding: Encoding, *, now: datetime) -> list[Record]:
    """The log records of an ``ExportLogsServiceRequest``, each with the names it carries."""
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    request = _parse(ExportLogsServiceRequest(), body, encoding)
    records: list[Record] = []
    for resource_logs in request.resource_logs:
        resource = _attributes(resource_logs.resource.attributes)
        for scope in resource_logs.scope_logs:
            for record in scope.log_records:
                attributes = _attributes(record.attributes)
                records.append(
                    Record(
                        names=_record_names(record, attributes),
                        at=_moment(record.time_unix_nano) or _moment(record.observed_time_unix_nano) or now,
                        attributes=attributes,
                        resource=resource,
                    )
                )
                if len(records) >= ITEM_LIMIT:
                    return records
    return records


def encoding_of(content_type: str | None) -> Encoding | None:
    """``protobuf`` or ``json`` from a request's ``Content-Type``; ``None`` for anything else."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind in ("application/x-protobuf", "application/protobuf"):
        return "protobuf"
    if kind == "application/json":
        return "json"
    return None


def iter_json_lines(text: str) -> Iterator[str]:
    """The non-empty lines of a telemetry file a harness writes as JSON lines."""
    for line in text.splitlines():
        if line.strip():
            yield line
