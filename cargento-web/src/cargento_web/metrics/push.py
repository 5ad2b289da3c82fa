"""``--otlp-endpoint URL``: the same samples pushed to an OpenTelemetry collector by the
official SDK (OTLP/HTTP protobuf), every :data:`PUSH_INTERVAL_S` seconds."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from cargento_web.metrics.readings import Sample

__all__ = ["PUSH_INTERVAL_S", "Pusher"]

PUSH_INTERVAL_S = 15.0
#: The instruments pushed, by sample name (each an observable gauge or counter).
INSTRUMENTS = {
    "cargento_sessions": ("gauge", "sessions"),
    "cargento_waits_open": ("gauge", "sessions"),
    "cargento_wait_age_seconds": ("gauge", "s"),
    "cargento_output_tokens_per_minute": ("gauge", "tokens/min"),
    "cargento_turn_elapsed_seconds": ("gauge", "s"),
    "cargento_quota_used_ratio": ("gauge", "1"),
    "cargento_store_read_faults": ("counter", "faults"),
    "cargento_notifications": ("counter", "notifications"),
}


class Pusher:
    def __init__(
        self, endpoint: str, samples: Callable[[], list[Sample]], *, interval_s: float = PUSH_INTERVAL_S
    ) -> None:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.metrics import CallbackOptions, Observation
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource

        self.samples = samples
        url = endpoint.rstrip("/") + "/v1/metrics"
        reader = PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=url, timeout=5), export_interval_millis=interval_s * 1000
        )
        self.provider = MeterProvider(resource=Resource.create({"service.name": "cargento"}), metric_readers=[reader])
        meter = self.provider.get_meter("cargento")
        self.histograms = {
            "collection": meter.create_histogram("cargento_collection_seconds", unit="s"),
            "sse": meter.create_histogram("cargento_sse_latency_seconds", unit="s"),
        }

        def observer(name: str) -> Callable[[CallbackOptions], Iterable[Observation]]:
            def observe(options: CallbackOptions) -> Iterable[Observation]:
                return [Observation(s.value, dict(s.labels)) for s in self.samples() if s.name == name]

            return observe

        for name, (kind, unit) in INSTRUMENTS.items():
            make: Any = meter.create_observable_gauge if kind == "gauge" else meter.create_observable_counter
            make(name, callbacks=[observer(name)], unit=unit)

    def observe(self, kind: str, seconds: float) -> None:
        histogram = self.histograms.get(kind)
        if histogram is not None:
            histogram.record(seconds)

    def close(self) -> None:
        self.provider.shutdown()
