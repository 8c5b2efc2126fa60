"""The host's metric points as Prometheus text (exposition format 0.0.4).

The points come from the host's in-memory OpenTelemetry reader (cumulative); each metric
becomes a family of `prometheus_client`'s, so the text is the library's own rendering.
Names follow the OpenTelemetry-to-Prometheus rules: dots become underscores, a unit of
seconds adds `_seconds`, a counter gets `_total` (added by the library).

Every instrument the host records (`instruments.INSTRUMENTS`) has its family from the
first scrape on, as Prometheus users expect: one with no point yet is an unlabelled
counter or histogram at zero, or a labelled family with no series. The process's own
metrics (`process_*`: CPU, memory, file descriptors, start time; `python_*`: version and
garbage collection) come with them, from `prometheus_client`'s collectors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from opentelemetry.sdk.metrics.export import Gauge, Histogram, MetricsData, Sum
from prometheus_client import GCCollector, PlatformCollector, ProcessCollector
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector, CollectorRegistry

from clawharness.observability.instruments import INSTRUMENTS, Instrument

__all__ = ["CONTENT_TYPE", "render_prometheus"]

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
_INVALID: Final = re.compile(r"[^a-zA-Z0-9_:]")
_UNITS: Final = {"s": "seconds", "ms": "milliseconds", "By": "bytes"}


def _name(name: str, unit: str) -> str:
    out = _INVALID.sub("_", name)
    suffix = _UNITS.get(unit)
    if suffix and not out.endswith(f"_{suffix}"):
        out = f"{out}_{suffix}"
    return out


def _label(key: str) -> str:
    out = _INVALID.sub("_", key).replace(":", "_")
    return f"_{out}" if out[:1].isdigit() else out


def _labels(attributes: Any) -> tuple[list[str], list[str]]:
    items = sorted((attributes or {}).items())
    return [_label(k) for k, _ in items], [str(v) for _, v in items]


def _families(data: MetricsData) -> Iterator[Metric]:
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                yield from _family(metric)


def _family(metric: Any) -> Iterator[Metric]:
    name = _name(metric.name, metric.unit or "")
    doc = metric.description or metric.name
    points = list(metric.data.data_points)
    if not points:
        return
    if isinstance(metric.data, Histogram):
        for labels, group in _grouped(points):
            family = HistogramMetricFamily(name, doc, labels=labels)
            for values, point in group:
                cumulative, buckets = 0, []
                for bound, count in zip(point.explicit_bounds, point.bucket_counts, strict=False):
                    cumulative += count
                    buckets.append((_float(bound), cumulative))
                buckets.append(("+Inf", point.count))
                family.add_metric(values, buckets, point.sum)
            yield family
    elif isinstance(metric.data, Sum) and metric.data.is_monotonic:
        base = name.removesuffix("_total")
        for labels, group in _grouped(points):
            counter = CounterMetricFamily(base, doc, labels=labels)
            for values, point in group:
                counter.add_metric(values, point.value)
            yield counter
    elif isinstance(metric.data, Sum | Gauge):
        for labels, group in _grouped(points):
            gauge = GaugeMetricFamily(name, doc, labels=labels)
            for values, point in group:
                gauge.add_metric(values, point.value)
            yield gauge


def _grouped(points: list[Any]) -> Iterator[tuple[list[str], list[tuple[list[str], Any]]]]:
    """Points by label names (a family has one label set; OTel points may differ)."""
    groups: dict[tuple[str, ...], list[tuple[list[str], Any]]] = {}
    for point in points:
        names, values = _labels(point.attributes)
        groups.setdefault(tuple(names), []).append((values, point))
    for label_names, group in groups.items():
        yield list(label_names), group


def _float(value: float) -> str:
    return repr(float(value))


def _unrecorded(spec: Instrument) -> Metric:
    """The family of an instrument with no point yet."""
    name = _name(spec.name, spec.unit)
    if spec.kind == "counter":
        counter = CounterMetricFamily(name.removesuffix("_total"), spec.description,
                                      labels=None if not spec.labelled else [])
        if not spec.labelled:
            counter.add_metric([], 0)
        return counter
    if spec.kind == "histogram":
        if spec.labelled:
            return HistogramMetricFamily(name, spec.description, labels=[])
        buckets = [(_float(bound), 0.0) for bound in spec.buckets]
        return HistogramMetricFamily(name, spec.description, buckets=[*buckets, ("+Inf", 0.0)],
                                     sum_value=0.0)
    return GaugeMetricFamily(name, spec.description, labels=[] if spec.labelled else None)


class _Points(Collector):
    def __init__(self, data: MetricsData) -> None:
        self._data = data

    def collect(self) -> Iterator[Metric]:
        seen: set[str] = set()
        for family in _families(self._data):
            seen.add(family.name)
            yield family
        for spec in INSTRUMENTS:
            family = _unrecorded(spec)
            if family.name not in seen:
                seen.add(family.name)
                yield family


def render_prometheus(data: MetricsData | None) -> bytes:
    """The host's metrics as Prometheus text, with the process's own; `data` None means
    the host records no metrics (then only the process's are there)."""
    registry = CollectorRegistry(auto_describe=False)
    if data is not None:
        registry.register(_Points(data))
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    return generate_latest(registry)
