"""``GET /metrics``: the board's samples and the live path's latency histograms in the
Prometheus text format, through ``prometheus-client``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from cargento_web.metrics.readings import Sample

__all__ = ["LATENCY_BUCKETS", "Exposition"]

#: Seconds; from a millisecond to ten seconds.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _BoardCollector(Collector):
    def __init__(self, samples: Callable[[], list[Sample]]) -> None:
        self.samples = samples

    def collect(self) -> Iterator[Metric]:
        families: dict[str, GaugeMetricFamily | CounterMetricFamily] = {}
        for s in self.samples():
            family = families.get(s.name)
            if family is None:
                maker = GaugeMetricFamily if s.kind == "gauge" else CounterMetricFamily
                family = families[s.name] = maker(s.name, s.help, labels=sorted(s.labels))
            family.add_metric([s.labels[k] for k in sorted(s.labels)], s.value)
        yield from families.values()


class Exposition:
    """One server's registry: the board collector and the two latency histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.current: list[Sample] = []
        self.registry.register(_BoardCollector(lambda: self.current))
        self.collection = Histogram(
            "cargento_collection_seconds",
            "Time to build one board from the stores.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.sse = Histogram(
            "cargento_sse_latency_seconds",
            "From a change noticed (a store write or an event) to its revision on the stream.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

    def observe(self, kind: str, seconds: float) -> None:
        if kind == "collection":
            self.collection.observe(seconds)
        elif kind == "sse":
            self.sse.observe(seconds)

    def render(self, samples: list[Sample], accept: str | None) -> tuple[bytes, str]:
        from prometheus_client.exposition import choose_encoder

        self.current = samples
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type
