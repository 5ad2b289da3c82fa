"""Telemetry in: the real OpenTelemetry SDK exports to the receiver (protobuf, and the same
request as OTLP/JSON), and the session's exact figures appear on the board; each harness's
documented shapes; the receiver's bounds and its loopback refusal; local telemetry files;
the decoder and the file reader fuzzed."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from cargento.cli import Options
from cargento.plugins import load_registry
from cargento.telemetry import FigureSource, TelemetryVocabulary
from cargento_web.probe import bind_socket
from cargento_web.telemetry import own_stores, vocabularies
from cargento_web.telemetry.files import TelemetryFiles
from cargento_web.telemetry.ledger import STALE_AFTER, Ledger
from cargento_web.telemetry.otlp import BODY_LIMIT, Malformed, decode_logs, decode_metrics
from cargento_web.telemetry.receiver import receiver_app
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
CLAUDE_SID = "5ba58976-1f26-4cb3-8aee-4987785a10bb"
CODEX_SID = "01a22b41-0000-7000-8000-00000000d002"


def _free_port() -> int:
    sock = bind_socket("127.0.0.1", 0)
    port: int = sock.getsockname()[1]
    sock.close()
    return port


@pytest.fixture(scope="module")
def real_vocabularies() -> dict[str, TelemetryVocabulary]:
    """The first-party harnesses' own vocabularies, as the server loads them."""
    return vocabularies(load_registry(), {"HOME": "/nonexistent"}, "http://127.0.0.1:4318")


def _metric_request(
    name: str, value: int, sid: str, *, cumulative: bool, service: str, extra: dict[str, str], at: datetime = NOW
) -> bytes:
    """One sum data point, built with the proto classes (the exporters' own wire format)."""
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.metrics.v1.metrics_pb2 import (
        AggregationTemporality,
        Metric,
        NumberDataPoint,
        ResourceMetrics,
        ScopeMetrics,
        Sum,
    )
    from opentelemetry.proto.resource.v1.resource_pb2 import Resource

    def kv(k: str, v: str) -> KeyValue:
        return KeyValue(key=k, value=AnyValue(string_value=v))

    nanos = int(at.timestamp() * 1e9)
    temporality = (
        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
        if cumulative
        else AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA
    )
    point = NumberDataPoint(
        as_int=value,
        start_time_unix_nano=nanos - 3_600_000_000_000,
        time_unix_nano=nanos,
        attributes=[kv("session.id", sid), *(kv(k, v) for k, v in extra.items())],
    )
    metric = Metric(name=name, sum=Sum(data_points=[point], aggregation_temporality=temporality, is_monotonic=True))
    request = ExportMetricsServiceRequest(
        resource_metrics=[
            ResourceMetrics(
                resource=Resource(attributes=[kv("service.name", service)]),
                scope_metrics=[ScopeMetrics(metrics=[metric])],
            )
        ]
    )
    body: bytes = request.SerializeToString()
    return body


# -- the real SDK, end to end through the dashboard ----------------------------------------------


def _sdk_meter(endpoint: str) -> tuple[Any, Any]:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import Resource

    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=endpoint + "/v1/metrics"), export_interval_millis=60_000
    )
    provider = MeterProvider(resource=Resource.create({"service.name": "claude-code"}), metric_readers=[reader])
    return provider, provider.get_meter("com.anthropic.claude_code")


def test_the_real_sdk_exports_claude_tokens_and_the_board_shows_the_exact_figure(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    from cargento_harness_claude import plugin as claude

    port = _free_port()
    server = serve(
        builder_for([("claude", claude)], tmp_path),
        features=["cargento_web.telemetry"],
        options=Options(otlp_port=port),
    )
    provider, meter = _sdk_meter(f"http://127.0.0.1:{port}")
    tokens = meter.create_counter("claude_code.token.usage", unit="tokens")
    tokens.add(1234, {"session.id": CLAUDE_SID, "type": "output", "model": "claude-sonnet-4-5"})
    tokens.add(9999, {"session.id": CLAUDE_SID, "type": "input", "model": "claude-sonnet-4-5"})
    cost = meter.create_counter("claude_code.cost.usage", unit="USD")
    cost.add(0.25, {"session.id": CLAUDE_SID, "model": "claude-sonnet-4-5"})
    assert provider.force_flush(10_000)
    tokens.add(66, {"session.id": CLAUDE_SID, "type": "output", "model": "claude-sonnet-4-5"})
    assert provider.force_flush(10_000)
    provider.shutdown()
    deadline = time.monotonic() + 10
    figures: dict[str, Any] = {}
    while time.monotonic() < deadline:
        doc = httpx.get(server.url + "/api/data", timeout=5).json()
        figures = doc["telemetry"]["sessions"].get(f"claude:{CLAUDE_SID}", {})
        if figures.get("output_tokens") == 1300:
            break
        time.sleep(0.1)
    assert figures["output_tokens"] == 1300, "cumulative export: 1234 then 1300 in all, input tokens not counted"
    assert figures["cost_usd"] == 0.25
    assert figures["tokens_from"] == "claude_code.token.usage"
    assert doc["telemetry"]["receiver"]["state"] == "listening"
    assert doc["telemetry"]["feeds"]["claude"]["stale"] is False


def test_the_real_sdk_logs_exporter_feeds_codex_tokens(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from cargento_harness_codex import plugin as codex
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource

    port = _free_port()
    server = serve(
        builder_for([("codex", codex)], tmp_path), features=["cargento_web.telemetry"], options=Options(otlp_port=port)
    )
    provider = LoggerProvider(resource=Resource.create({"service.name": "codex_cli_rs"}))
    provider.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"http://127.0.0.1:{port}/v1/logs"))
    )
    logger = provider.get_logger("codex_otel")
    for count in (120, 80):
        logger.emit(
            body="codex.sse_event",
            attributes={"event.name": "codex.sse_event", "conversation.id": CODEX_SID, "output_token_count": count},
        )
    provider.shutdown()
    deadline = time.monotonic() + 10
    figures: dict[str, Any] = {}
    while time.monotonic() < deadline:
        figures = (
            httpx.get(server.url + "/api/data", timeout=5).json()["telemetry"]["sessions"].get(f"codex:{CODEX_SID}", {})
        )
        if figures.get("output_tokens") == 200:
            break
        time.sleep(0.1)
    assert figures["output_tokens"] == 200 and figures["tokens_from"] == "codex.sse_event"


def test_otlp_json_carries_the_same_figures_as_protobuf(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    """Copilot exports OTLP/JSON only: the same request re-encoded as JSON (enums as numbers,
    64-bit integers as strings, as the OTLP/JSON mapping says) reads the same."""
    from cargento_harness_claude import plugin as claude

    port = _free_port()
    serve(
        builder_for([("claude", claude)], tmp_path),
        features=["cargento_web.telemetry"],
        options=Options(otlp_port=port),
    )
    body = _metric_request(
        "claude_code.token.usage", 77, CLAUDE_SID, cumulative=False, service="claude-code", extra={"type": "output"}
    )
    message = ExportMetricsServiceRequest()
    message.ParseFromString(body)
    as_json = json_format.MessageToJson(message, use_integers_for_enums=True)
    assert '"asInt": "77"' in as_json
    url = f"http://127.0.0.1:{port}/v1/metrics"
    reply = httpx.post(url, content=as_json, headers={"Content-Type": "application/json"}, timeout=5)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/json")
    proto_reply = httpx.post(url, content=body, headers={"Content-Type": "application/x-protobuf"}, timeout=5)
    assert proto_reply.status_code == 200 and proto_reply.headers["content-type"] == "application/x-protobuf"


# -- each harness's documented shapes, replayed through the decoder and the ledger --------------


def test_each_harness_shape_maps_onto_its_session(real_vocabularies: dict[str, TelemetryVocabulary]) -> None:
    ledger = Ledger(real_vocabularies)
    take = ledger.take_points
    # Claude Code: a cumulative counter, output type only.
    take(
        decode_metrics(
            _metric_request(
                "claude_code.token.usage", 500, "c1", cumulative=True, service="claude-code", extra={"type": "output"}
            ),
            "protobuf",
            now=NOW,
        ),
        now=NOW,
    )
    take(
        decode_metrics(
            _metric_request(
                "claude_code.token.usage", 800, "c1", cumulative=True, service="claude-code", extra={"type": "output"}
            ),
            "protobuf",
            now=NOW,
        ),
        now=NOW,
    )
    take(
        decode_metrics(
            _metric_request(
                "claude_code.token.usage",
                7000,
                "c1",
                cumulative=True,
                service="claude-code",
                extra={"type": "cacheRead"},
            ),
            "protobuf",
            now=NOW,
        ),
        now=NOW,
    )
    # Gemini CLI: delta temporality adds up.
    for value in (40, 60):
        take(
            decode_metrics(
                _metric_request(
                    "gemini_cli.token.usage",
                    value,
                    "g1",
                    cumulative=False,
                    service="gemini-cli",
                    extra={"type": "output"},
                ),
                "protobuf",
                now=NOW,
            ),
            now=NOW,
        )
    snap = ledger.snapshot(NOW)
    assert snap["claude:c1"]["output_tokens"] == 800, "a running total is read once, not summed"
    assert snap["gemini:g1"]["output_tokens"] == 100
    # Claude's api_request events carry the same tokens: never counted on top of the metric.
    events = ExportLogsServiceRequest()
    json_format.ParseDict(
        {
            "resourceLogs": [
                {
                    "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]},
                    "scopeLogs": [
                        {
                            "logRecords": [
                                {
                                    "timeUnixNano": str(int(NOW.timestamp() * 1e9)),
                                    "body": {"stringValue": "claude_code.api_request"},
                                    "attributes": [
                                        {"key": "event.name", "value": {"stringValue": "api_request"}},
                                        {"key": "session.id", "value": {"stringValue": "c1"}},
                                        {"key": "output_tokens", "value": {"stringValue": "300"}},
                                        {"key": "cost_usd", "value": {"doubleValue": 0.01}},
                                    ],
                                },
                                {
                                    "body": {"stringValue": "claude_code.api_error"},
                                    "attributes": [{"key": "session.id", "value": {"stringValue": "c1"}}],
                                },
                                {
                                    "body": {"stringValue": "claude_code.tool_decision"},
                                    "attributes": [
                                        {"key": "session.id", "value": {"stringValue": "c1"}},
                                        {"key": "decision", "value": {"stringValue": "reject"}},
                                    ],
                                },
                            ]
                        }
                    ],
                }
            ]
        },
        events,
    )
    ledger.take_records(decode_logs(events.SerializeToString(), "protobuf", now=NOW), now=NOW)
    c1 = ledger.snapshot(NOW)["claude:c1"]
    assert c1["output_tokens"] == 800 and c1["tokens_from"] == "claude_code.token.usage"
    assert c1["cost_usd"] == 0.01, "cost from the event while no cost metric has arrived"
    assert c1["api_errors"] == 1 and c1["decisions"] == {"reject": 1}


def test_copilot_genai_histogram_json_with_a_conversation_id(real_vocabularies: dict[str, TelemetryVocabulary]) -> None:
    body = json.dumps(
        {
            "resourceMetrics": [
                {
                    "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "github-copilot"}}]},
                    "scopeMetrics": [
                        {
                            "metrics": [
                                {
                                    "name": "gen_ai.client.token.usage",
                                    "histogram": {
                                        "aggregationTemporality": 1,
                                        "dataPoints": [
                                            {
                                                "timeUnixNano": str(int(NOW.timestamp() * 1e9)),
                                                "count": "2",
                                                "sum": 420,
                                                "attributes": [
                                                    {"key": "gen_ai.token.type", "value": {"stringValue": "output"}},
                                                    {"key": "gen_ai.conversation.id", "value": {"stringValue": "cp-1"}},
                                                ],
                                            }
                                        ],
                                    },
                                }
                            ]
                        }
                    ],
                }
            ]
        }
    ).encode()
    ledger = Ledger(real_vocabularies)
    ledger.take_points(decode_metrics(body, "json", now=NOW), now=NOW)
    assert ledger.snapshot(NOW)["copilot:cp-1"]["output_tokens"] == 420


def test_a_quiet_feed_is_stale_and_an_unnamed_session_is_counted_not_guessed(
    real_vocabularies: dict[str, TelemetryVocabulary],
) -> None:
    ledger = Ledger(real_vocabularies)
    body = _metric_request(
        "claude_code.token.usage", 5, "c9", cumulative=False, service="claude-code", extra={"type": "output"}
    )
    ledger.take_points(decode_metrics(body, "protobuf", now=NOW), now=NOW)
    later = NOW + STALE_AFTER + timedelta(seconds=1)
    assert ledger.snapshot(later)["claude:c9"]["stale"] is True
    assert ledger.snapshot(later)["claude:c9"]["output_tokens"] == 5, "stale keeps its last figure, never zero"
    anonymous = Ledger(
        {
            "x": TelemetryVocabulary(
                services=("x",),
                session_attributes=("session.id",),
                output_tokens=(FigureSource(kind="metric", name="m"),),
            )
        }
    )
    from cargento_web.telemetry.otlp import Point

    anonymous.take_points(
        [Point(name="m", value=3, at=NOW, attributes={}, resource={"service.name": "x"}, cumulative=False)], now=NOW
    )
    assert anonymous.snapshot(NOW) == {} and anonymous.unattributed == {"x": 1}
    assert anonymous.feeds(NOW)["x"]["unattributed"] == 1


# -- the receiver's bounds ---------------------------------------------------------------------


def _receiver_client(peer: str = "127.0.0.1") -> tuple[httpx.AsyncClient, Ledger]:
    ledger = Ledger({})
    transport = httpx.ASGITransport(app=receiver_app(ledger, lambda: None), client=(peer, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4318"), ledger


async def _post(client: Any, path: str, body: bytes, **headers: str) -> httpx.Response:
    async with client:
        response: httpx.Response = await client.post(path, content=body, headers=headers)
    return response


@pytest.mark.parametrize(
    ("peer", "body", "headers", "status"),
    [
        ("10.0.0.5", b"", {"Content-Type": "application/x-protobuf"}, 403),
        ("127.0.0.1", b"{}", {"Content-Type": "text/plain"}, 415),
        ("127.0.0.1", b"\xff\xfe not a message", {"Content-Type": "application/x-protobuf"}, 400),
        ("127.0.0.1", b"[1, 2", {"Content-Type": "application/json"}, 400),
        ("127.0.0.1", b"x" * (BODY_LIMIT + 1), {"Content-Type": "application/x-protobuf"}, 413),
        (
            "127.0.0.1",
            gzip.compress(b"\0" * (BODY_LIMIT + 10)),
            {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
            400,
        ),
        ("127.0.0.1", b"x", {"Content-Type": "application/x-protobuf", "Content-Encoding": "br"}, 400),
        ("127.0.0.1", b"", {"Content-Type": "application/x-protobuf"}, 200),
    ],
)
def test_the_receiver_refuses_what_it_cannot_take(peer: str, body: bytes, headers: dict[str, str], status: int) -> None:
    import asyncio

    client, _ = _receiver_client(peer)
    assert asyncio.run(_post(client, "/v1/metrics", body, **headers)).status_code == status


def test_a_gzipped_export_is_read() -> None:
    import asyncio

    ledger = Ledger(
        {
            "claude": TelemetryVocabulary(
                services=("claude-code",),
                session_attributes=("session.id",),
                output_tokens=(FigureSource(kind="metric", name="claude_code.token.usage", where={"type": "output"}),),
            )
        }
    )
    transport = httpx.ASGITransport(app=receiver_app(ledger, lambda: None), client=("127.0.0.1", 5))
    client = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:4318")
    body = gzip.compress(
        _metric_request(
            "claude_code.token.usage", 9, "gz", cumulative=False, service="claude-code", extra={"type": "output"}
        )
    )
    reply = asyncio.run(
        _post(client, "/v1/metrics", body, **{"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"})
    )
    assert reply.status_code == 200 and ledger.snapshot(NOW)["claude:gz"]["output_tokens"] == 9


def test_the_receiver_is_off_under_no_events_and_in_a_replay_and_says_why_when_its_port_is_taken(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    from cargento_harness_claude import plugin as claude

    off = serve(
        builder_for([("claude", claude)], tmp_path),
        features=["cargento_web.telemetry"],
        options=Options(no_events=True),
    )
    receiver = httpx.get(off.url + "/api/data", timeout=5).json()["telemetry"]["receiver"]
    assert receiver == {"state": "off", "reason": "lifecycle events are off for this run (--no-events)"}
    replay = serve(
        builder_for([("claude", claude)], tmp_path),
        features=["cargento_web.telemetry"],
        options=Options(as_of=datetime.now(UTC)),
    )
    receiver = httpx.get(replay.url + "/api/data", timeout=5).json()["telemetry"]["receiver"]
    assert receiver == {"state": "off", "reason": "a replay (--as-of) takes no live telemetry"}
    holder = bind_socket("127.0.0.1", 0)
    taken = holder.getsockname()[1]
    try:
        busy = serve(
            builder_for([("claude", claude)], tmp_path),
            features=["cargento_web.telemetry"],
            options=Options(otlp_port=taken),
        )
        receiver = httpx.get(busy.url + "/api/data", timeout=5).json()["telemetry"]["receiver"]
    finally:
        holder.close()
    assert receiver["state"] == "failed" and f"127.0.0.1:{taken} is not free" in receiver["reason"]


# -- local telemetry files -------------------------------------------------------------------


def test_a_telemetry_file_is_read_incrementally_and_a_partial_line_waits(tmp_path: Path) -> None:
    vocabulary = TelemetryVocabulary(
        services=("github-copilot",),
        session_attributes=("session.id",),
        output_tokens=(FigureSource(kind="metric", name="claude_code.token.usage", where={"type": "output"}),),
    )
    ledger = Ledger({"copilot": vocabulary})
    path = tmp_path / "otel.jsonl"
    message = ExportMetricsServiceRequest()
    message.ParseFromString(
        _metric_request(
            "claude_code.token.usage", 10, "f1", cumulative=False, service="github-copilot", extra={"type": "output"}
        )
    )
    line = json_format.MessageToJson(message, indent=None)
    path.write_text(line + "\n" + line[:20])
    files = TelemetryFiles(ledger, [path])
    assert files.poll(NOW) == 1
    assert ledger.snapshot(NOW)["copilot:f1"]["output_tokens"] == 10
    with path.open("a") as fh:
        fh.write(line[20:] + "\nnot json at all\n")
    assert files.poll(NOW) == 1, "the completed line is read once"
    assert ledger.snapshot(NOW)["copilot:f1"]["output_tokens"] == 20 and files.unreadable_lines == 1
    before = path.stat()
    files.poll(NOW)
    assert path.stat().st_mtime_ns == before.st_mtime_ns, "read-only: the file is never touched"


def test_diagnose_says_which_harnesses_fed_and_when(tmp_path: Path) -> None:
    env = {"CARGENTO_HOME": str(tmp_path)}
    [absent] = own_stores(env)
    assert absent.status == "absent"
    (tmp_path / "cargento-telemetry.json").write_text(
        json.dumps({"schema": 1, "feeds": {"claude": "2026-12-01T12:00:00+00:00"}})
    )
    [read] = own_stores(env)
    assert read.status == "read" and read.detail == "claude last fed 2026-12-01T12:00:00+00:00"
    (tmp_path / "cargento-telemetry.json").write_text("{broken")
    [broken] = own_stores(env)
    assert broken.status == "unreadable"


# -- fuzzing the readers -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.binary(max_size=512), json_encoded=st.booleans())
def test_the_decoders_never_fail_but_as_malformed(body: bytes, json_encoded: bool) -> None:
    for decode in (decode_metrics, decode_logs):
        try:
            decode(body, "json" if json_encoded else "protobuf", now=NOW)
        except Malformed:
            pass


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.text(max_size=200), max_size=8))
def test_the_file_reader_takes_any_text(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    TelemetryFiles(Ledger({}), [path]).poll(NOW)


def test_the_demo_feeds_telemetry_in_each_vocabularys_own_shape(tmp_path: Path) -> None:
    """The demo's working sessions get figures through the decoder, shaped by the harnesses'
    own vocabularies: a counter where the first source is a metric, a log event where it is
    an event."""
    import os

    from cargento.board import BoardBuilder
    from cargento.demo import Demo
    from cargento.processes import LocalProcesses
    from cargento_web.telemetry.demo import DemoTelemetry

    demo = Demo(load_registry(env=dict(os.environ)), base_env=dict(os.environ))
    demo.start()
    try:
        registry = load_registry(env=demo.env)
        # As `--demo` serves it: nothing running on this machine speaks for the simulated stores.
        board = BoardBuilder(registry, env=demo.env, home=demo.home, processes=LocalProcesses(listing=False)).build(
            all_sessions=True
        )
        found = vocabularies(registry, demo.env, "http://127.0.0.1:4318")
        ledger = Ledger(found)

        def written(more: int) -> Any:
            """The board with each working session's store *more* output tokens on (one that
            recorded none yet, from zero)."""
            return attrs.evolve(
                board,
                sessions=tuple(
                    attrs.evolve(s, output_tokens_total=(s.output_tokens_total or 0) + more)
                    if s.state == "working"
                    else s
                    for s in board.sessions
                ),
            )

        shown = [written(0)]
        feeder = DemoTelemetry(ledger, lambda: shown[0])
        now = datetime.now(UTC)
        assert feeder.feed(now) >= 1
        shown[0] = written(500)  # the stores move on
        assert feeder.feed(now + timedelta(seconds=5)) >= 2
    finally:
        demo.stop()
    figures = ledger.snapshot(now + timedelta(seconds=5))
    working = {
        s.key: s
        for s in board.sessions
        if s.state == "working" and s.harness in found and found[s.harness].output_tokens
    }
    assert working and set(figures) == set(working)
    kinds = {found[f["harness"]].output_tokens[0].kind for f in figures.values()}
    assert kinds == {"metric", "event"}, "both shapes are exercised"
    followed: set[str] = set()
    for key, f in figures.items():
        source = found[f["harness"]].output_tokens[0]
        assert f["tokens_from"] == source.name
        total = working[key].output_tokens_total or 0
        # The figures follow the store: a counter carries its total, an event what was added.
        assert f["output_tokens"] == (total + 500 if source.kind == "metric" else 500), (key, f)
        followed.add(source.kind)
    assert followed == {"metric", "event"}
    # The demo starts new sessions as it goes; what the feeder keeps is only the rows on the board.
    for round_ in range(120):
        shown[0] = attrs.evolve(
            board,
            sessions=tuple(
                attrs.evolve(s, key=f"{s.key}-{round_}", output_tokens_total=round_) for s in board.sessions
            ),
        )
        feeder.feed(now + timedelta(seconds=10 + round_))
    kept = set(feeder.running) | set(feeder.started) | set(feeder.totals)
    assert len(kept) <= 4 * len(board.sessions) + 64, len(kept)


def test_gemini_outfile_objects_are_read_as_they_complete(tmp_path: Path) -> None:
    """Gemini CLI with ``telemetry.outfile``: the plugin finds the file in its settings, and
    the SDK's printed log records (pretty-printed over several lines) feed the session; a
    record still being written waits; a span printed beside them is not a record."""
    home = tmp_path / "home"
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"telemetry": {"enabled": True, "outfile": "~/.gemini/telemetry.log"}}))
    found = vocabularies(load_registry(), {"HOME": str(home)}, "http://127.0.0.1:4318")["gemini"]
    [file] = found.files
    assert file.path == home / ".gemini" / "telemetry.log" and file.format == "sdk-json"

    def record(tokens: int) -> str:
        return json.dumps(
            {
                "hrTime": [int(NOW.timestamp()), 0],
                "body": "API response from gemini-2.5-pro.",
                "attributes": {
                    "session.id": "g-out",
                    "event.name": "gemini_cli.api_response",
                    "output_token_count": tokens,
                },
                "resource": {"attributes": {"service.name": "gemini-cli"}},
            },
            indent=2,
        )

    span = json.dumps({"traceId": "ab", "name": "llm_call", "attributes": {"x": 1}}, indent=2)
    whole, partial = record(120), record(30)
    file.path.write_text(whole + "\n" + span + "\n" + partial[:25])
    ledger = Ledger({"gemini": found})
    files = TelemetryFiles(ledger, found.files)
    assert files.poll(NOW) == 1
    assert ledger.snapshot(NOW)["gemini:g-out"]["output_tokens"] == 120
    with file.path.open("a") as fh:
        fh.write(partial[25:] + "\n")
    assert files.poll(NOW) == 1 and ledger.snapshot(NOW)["gemini:g-out"]["output_tokens"] == 150
    assert files.unreadable_lines == 1, "the span is counted as not a record, once"
    assert files.poll(NOW) == 0, "nothing is read twice"


def test_a_session_fed_for_hours_keeps_only_the_rate_windows_samples(
    real_vocabularies: dict[str, TelemetryVocabulary],
) -> None:
    """The rate reads the last ten minutes: a sample older than that never counts again, and
    a cost has no rate at all, so neither is held (a session fed every few seconds for hours
    held thousands, about 140 bytes each)."""
    from cargento_web.telemetry.otlp import Point

    ledger = Ledger(real_vocabularies)
    start = NOW - timedelta(hours=3)
    for i in range(3 * 360):  # every 10 s for three hours, the board reading it every minute
        at = start + timedelta(seconds=10 * i)
        attributes = {"session.id": "c9", "type": "output"}
        ledger.take_points(
            [
                Point(
                    name="claude_code.token.usage",
                    value=6,
                    at=at,
                    attributes=attributes,
                    resource={"service.name": "claude-code"},
                    cumulative=False,
                ),
                Point(
                    name="claude_code.cost.usage",
                    value=0.01,
                    at=at,
                    attributes={"session.id": "c9"},
                    resource={"service.name": "claude-code"},
                    cumulative=False,
                ),
            ],
            now=at,
        )
        if i % 6 == 5:
            ledger.snapshot(at)
    figures = ledger.snapshot(NOW)["claude:c9"]
    assert figures["output_tokens"] == 6 * 3 * 360, "the total still counts every point"
    assert figures["output_tokens_per_min"] == 36.0, "six tokens every ten seconds"
    assert figures["cost_usd"] == pytest.approx(0.01 * 3 * 360)
    session = ledger._sessions[("claude", "c9")]
    assert [len(t.samples) for t in session.tokens.values()] == [60], "ten minutes of samples, not three hours"
    assert [len(t.samples) for t in session.cost.values()] == [0], "a cost has no rate to keep samples for"
