"""Metrics out: ``/metrics`` matches ``/api/data``, labels stay bounded, unknown figures have no
series, a real Prometheus scrapes it and agrees, the alert rules pass ``promtool test rules``,
the Grafana dashboard names only published series, and ``--otlp-endpoint`` pushes the same
instruments through the OpenTelemetry SDK."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import attrs
import httpx
import pytest
from cargento.board import Board
from cargento.cli import Options
from cargento.models import Gate
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.metrics.readings import PROJECT_LIMIT, SERIES, board_samples
from cargento_web.probe import bind_socket
from cargento_web.telemetry.otlp import decode_metrics
from prometheus_client.parser import text_string_to_metric_families

FLEET = Path(__file__).resolve().parents[2] / "docs" / "fleet"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        if IN_CI:
            pytest.fail(f"{tool} is missing; .ci/run installs Debian's prometheus package")
        pytest.skip(f"{tool} is not installed here (Debian: apt-get install prometheus)")
    return found


def _harnesses() -> list[tuple[str, object]]:
    wait = Gate(kind="permission", text="run tests?", since=datetime.now(UTC) - timedelta(seconds=90), source="store")
    alpha = FakeHarness(
        "alpha",
        [
            FakeSession("a1", cwd="/w/acme/api", turn="open", age_s=5),
            FakeSession("a2", cwd="/w/acme/api", gate=wait, age_s=5),
            FakeSession("a3", cwd="/w/acme/web", age_s=7200, tokens_window=None, turn="closed"),
        ],
    )
    beta = FakeHarness("beta", [FakeSession("b1", cwd="/w/tools/cli", turn="open", age_s=3, tokens_window=None)])
    return [("alpha", alpha), ("beta", beta)]


def _series(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


@pytest.fixture
def metrics_server(serve: Any, builder_for: Any, tmp_path: Path) -> Any:
    return serve(builder_for(_harnesses(), tmp_path), features=["cargento_web.metrics"])


def test_metrics_match_the_board(metrics_server: Any) -> None:
    doc = httpx.get(metrics_server.url + "/api/data", timeout=5).json()
    reply = httpx.get(metrics_server.url + "/metrics", timeout=5)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain; version=")
    series = _series(reply.text)
    for harness in ("alpha", "beta"):
        for state in ("working", "needs_input", "idle"):
            expected = sum(1 for s in doc["sessions"] if s["harness"] == harness and s["state"] == state)
            assert series[("cargento_sessions", (("harness", harness), ("state", state)))] == expected
    assert series[("cargento_waits_open", (("harness", "alpha"),))] == 1
    age = series[("cargento_wait_age_seconds", (("harness", "alpha"), ("project", "acme/api")))]
    assert 85 <= age <= 200
    rates = {k[1]: v for k, v in series.items() if k[0] == "cargento_output_tokens_per_minute"}
    measured = {(s["harness"], s["project"]) for s in doc["sessions"] if s["output_tokens_per_min"] is not None}
    assert {(dict(k)["harness"], dict(k)["project"]) for k in rates} == measured
    assert ("beta", "tools/cli") not in measured, "an unmeasured rate has no series, never a zero"
    assert any(k[0] == "cargento_collection_seconds_count" and v >= 1 for k, v in series.items())


def test_no_prompt_title_or_path_reaches_a_label(metrics_server: Any) -> None:
    text = httpx.get(metrics_server.url + "/metrics", timeout=5).text
    labels = {
        (k, v) for family in text_string_to_metric_families(text) for s in family.samples for k, v in s.labels.items()
    }
    assert {k for k, _ in labels} <= {"harness", "state", "project", "window", "outcome", "le"}
    values = {v for _, v in labels}
    assert not any("/w/" in v or "A fake session" in v or "run tests" in v for v in values)


def test_project_labels_are_capped(builder_for: Any, tmp_path: Path) -> None:
    many = FakeHarness(
        "many", [FakeSession(f"s{i}", cwd=f"/w/org/p{i:03}", turn="open", age_s=2) for i in range(PROJECT_LIMIT + 12)]
    )
    board: Board = builder_for([("many", many)], tmp_path).build()
    projects = {s.labels["project"] for s in board_samples(board) if "project" in s.labels}
    assert len(projects) == PROJECT_LIMIT + 1 and "other" in projects
    rate = sum(s.value for s in board_samples(board) if s.name == "cargento_output_tokens_per_minute")
    assert rate == pytest.approx(sum(s.output_tokens_per_min or 0 for s in board.sessions)), "other sums the rest"


def test_a_harness_that_could_not_be_read_has_no_session_series(builder_for: Any, tmp_path: Path) -> None:
    from cargento.testing.fakes import BrokenDiscover

    board: Board = builder_for([("ok", FakeHarness("ok")), ("broken", BrokenDiscover("broken"))], tmp_path).build()
    harnesses = {s.labels["harness"] for s in board_samples(board) if s.name == "cargento_sessions"}
    assert harnesses == {"ok"}, "unknown is not zero: no series for a harness whose store was not read"


def test_the_grafana_dashboard_names_only_published_series(metrics_server: Any) -> None:
    text = httpx.get(metrics_server.url + "/metrics", timeout=5).text
    published = {s.name for family in text_string_to_metric_families(text) for s in family.samples}
    published |= set(SERIES) | {"cargento_notifications_total", "cargento_store_read_faults_total"}
    dashboard = json.loads((FLEET / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert exprs
    for expr in exprs:
        for name in re.findall(r"\b(cargento_[a-z_]+)", expr):
            assert name in published, f"{name} in the Grafana dashboard is never published"


def test_the_alert_rules_pass_promtool() -> None:
    promtool = _need("promtool")
    result = subprocess.run(
        [promtool, "test", "rules", "cargento-rules.test.yml"], cwd=FLEET, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    checked = subprocess.run(
        [promtool, "check", "config", "prometheus.yml"], cwd=FLEET, capture_output=True, text=True, timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- a real Prometheus ----------------------------------------------------------------------------


def _free_port() -> int:
    sock = bind_socket("127.0.0.1", 0)
    port: int = sock.getsockname()[1]
    sock.close()
    return port


@pytest.fixture
def prometheus(metrics_server: Any, tmp_path: Path) -> Iterator[str]:
    binary = _need("prometheus")
    port = _free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: cargento\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{metrics_server.port}']\n        labels: {{machine: test}}\n"
    )
    proc = subprocess.Popen(
        [
            binary,
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'tsdb'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _query(base: str, expr: str) -> list[dict[str, Any]]:
    reply = httpx.get(base + "/api/v1/query", params={"query": expr}, timeout=5).json()
    assert reply["status"] == "success", reply
    result: list[dict[str, Any]] = reply["data"]["result"]
    return result


def test_a_real_prometheus_scrapes_the_board_and_agrees_with_it(metrics_server: Any, prometheus: str) -> None:
    deadline = time.monotonic() + 90
    sessions: list[dict[str, Any]] = []
    ages: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            sessions = _query(prometheus, "cargento_sessions")
            ages = _query(prometheus, "cargento_wait_age_seconds")
        except httpx.HTTPError:  # Prometheus is still starting
            sessions, ages = [], []
        if sessions and ages:
            break
        time.sleep(0.5)
    assert sessions and ages, "Prometheus never scraped /metrics"
    doc = httpx.get(metrics_server.url + "/api/data", timeout=5).json()
    by_state = {(r["metric"]["harness"], r["metric"]["state"]): float(r["value"][1]) for r in sessions}
    for (harness, state), value in by_state.items():
        assert value == sum(1 for s in doc["sessions"] if s["harness"] == harness and s["state"] == state)
    assert all(r["metric"]["machine"] == "test" and r["metric"]["job"] == "cargento" for r in sessions)
    [age] = ages
    assert age["metric"]["harness"] == "alpha" and age["metric"]["project"] == "acme/api"
    waiting = next(s for s in doc["sessions"] if s["state"] == "needs_input")
    expected = (
        datetime.fromisoformat(doc["generated_at"]) - datetime.fromisoformat(waiting["waiting"]["since"])
    ).total_seconds()
    assert abs(float(age["value"][1]) - expected) < 30, "the wait-age series is the board's wait age"
    [up] = _query(prometheus, 'up{job="cargento"}')
    assert up["value"][1] == "1"


# -- the OTLP push -------------------------------------------------------------------------------


class _Collector(BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        type(self).bodies.append(self.rfile.read(length))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_otlp_endpoint_pushes_the_same_instruments(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    _Collector.bodies = []
    collector = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{collector.server_address[1]}"
        server = serve(
            builder_for(_harnesses(), tmp_path),
            features=["cargento_web.metrics"],
            options=Options(otlp_endpoint=endpoint),
        )
        httpx.get(server.url + "/api/data", timeout=5)  # a board to publish
        [metrics] = server.extensions.items
        assert metrics.pusher is not None
        assert metrics.pusher.provider.force_flush(10_000)
        points = [p for body in _Collector.bodies for p in decode_metrics(body, "protobuf", now=datetime.now(UTC))]
    finally:
        collector.shutdown()
    sessions = {
        (p.attributes["harness"], p.attributes["state"]): p.value for p in points if p.name == "cargento_sessions"
    }
    assert sessions[("alpha", "needs_input")] == 1 and sessions[("beta", "working")] == 1
    assert any(p.resource.get("service.name") == "cargento" for p in points)


def test_the_latency_histograms_count_builds_and_stream_publications(metrics_server: Any) -> None:
    from cargento_web.metrics.latency import Latency

    latency = Latency("x", "y")
    for seconds in (0.0005, 0.003, 0.003, 20.0, float("nan"), -1.0):
        latency.observe(seconds)
    buckets, total, count = latency.cumulative()
    assert count == 4 and dict(buckets)["0.001"] == 1 and dict(buckets)["0.005"] == 3 and dict(buckets)["+Inf"] == 4
    assert total == pytest.approx(20.0065)

    stop = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", metrics_server.url + "/api/stream", timeout=10) as response:
            for _ in response.iter_lines():
                if stop.is_set():
                    return

    threading.Thread(target=listen, daemon=True).start()
    time.sleep(0.5)
    metrics_server.extensions.changed()  # a change with no store write: a new revision goes out
    deadline = time.monotonic() + 10
    published = 0.0
    while time.monotonic() < deadline and not published:
        series = _series(httpx.get(metrics_server.url + "/metrics", timeout=5).text)
        published = series.get(("cargento_sse_latency_seconds_count", ()), 0.0)
        time.sleep(0.1)
    stop.set()
    assert published >= 1, "a revision published on the stream is timed"


def test_a_starting_row_is_counted_under_its_own_state(builder_for: Any, tmp_path: Path) -> None:
    board: Board = builder_for([("ok", FakeHarness("ok", [FakeSession("s1", age_s=2)]))], tmp_path).build()
    starting = attrs.evolve(board.sessions[0], state="starting")
    board = attrs.evolve(board, sessions=(*board.sessions, attrs.evolve(starting, session_id="pid-4242")))
    counted = {s.labels["state"]: s.value for s in board_samples(board) if s.name == "cargento_sessions"}
    assert counted["starting"] == 1, "a running process with no store yet is neither working nor idle"
    assert sum(counted.values()) == len(board.sessions)
