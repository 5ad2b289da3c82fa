"""``GET /metrics``: the board's samples and the live path's latency histograms in the
Prometheus text format, through ``prometheus-client`` (imported on the first scrape)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cargento_web.metrics.latency import Latency

if TYPE_CHECKING:
    from prometheus_client.core import Metric

    from cargento_web.metrics.readings import Sample

__all__ = ["Exposition"]


class Exposition:
    """One server's latency histograms, and the rendering of a scrape."""

    def __init__(self) -> None:
        self.collection = Latency("cargento_collection_seconds", "Time to build one board from the stores.")
        self.sse = Latency(
            "cargento_sse_latency_seconds",
            "From a change noticed (a store write or an event) to its revision on the stream.",
        )
        self._registry: Any = None
        self._current: list[Sample] = []

    def observe(self, kind: str, seconds: float) -> None:
        if kind == "collection":
            self.collection.observe(seconds)
        elif kind == "sse":
            self.sse.observe(seconds)

    def _collect(self) -> Iterator[Metric]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        families: dict[str, GaugeMetricFamily | CounterMetricFamily] = {}
        for s in self._current:
            family = families.get(s.name)
            if family is None:
                maker = GaugeMetricFamily if s.kind == "gauge" else CounterMetricFamily
                family = families[s.name] = maker(s.name, s.help, labels=sorted(s.labels))
            family.add_metric([s.labels[k] for k in sorted(s.labels)], s.value)
        yield from families.values()
        for latency in (self.collection, self.sse):
            buckets, total, _ = latency.cumulative()
            yield HistogramMetricFamily(latency.name, latency.help, buckets=buckets, sum_value=total)

    def render(self, samples: list[Sample], accept: str | None) -> tuple[bytes, str]:
        from prometheus_client import CollectorRegistry
        from prometheus_client.exposition import choose_encoder

        if self._registry is None:
            exposition = self

            class _Board:
                def collect(self) -> Iterator[Metric]:
                    return exposition._collect()

            self._registry = CollectorRegistry(auto_describe=False)
            self._registry.register(_Board())
        self._current = samples
        encoder, content_type = choose_encoder(accept or "")
        body: bytes = encoder(self._registry)
        return body, content_type
