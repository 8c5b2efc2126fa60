"""A host's telemetry: its tracer, its meter and the instruments the core records into.

`Telemetry` is owned by `Host` (made in `start`, shut down in `close`); while a host runs a
turn it is the *current* telemetry (a context variable, so several hosts in one process
each trace their own turns). With tracing off there is no tracer at all and the span
helpers (`clawharness.observability.spans`) hand back one shared no-op context; with
metrics off the instruments record nothing, and with both off OpenTelemetry is not even
imported (a command that runs no turn, like `sessions list`, does without it).

Nothing here installs OpenTelemetry's process-global providers: an application that
embeds a host keeps its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

from clawharness.extras import requires_extra
from clawharness.observability.instruments import (
    COST,
    LEASE_WAIT,
    NATIVE_PROCESS_STARTS,
    NATIVE_PROCESSES,
    OPERATION_DURATION,
    QUEUE_DEPTH,
    STORE_APPEND,
    TOKEN_USAGE,
    TOOL_CALLS,
    TURN_DURATION,
    TURNS,
    Instrument,
)
from clawharness.observability.settings import TelemetrySettings

if TYPE_CHECKING:
    from opentelemetry import metrics as otel_metrics
    from opentelemetry import trace as otel_trace
    from opentelemetry.metrics import CallbackOptions, Observation

__all__ = ["Telemetry", "current_telemetry", "use_telemetry"]

log = logging.getLogger("clawharness.observability")

#: seconds one export may take, retries included, before it is given up: a host whose
#: collector is down still closes (a CLI turn exits) within a few seconds
EXPORT_TIMEOUT = 2.0

GaugeSource = Callable[[], Iterable[tuple[float, Mapping[str, str]]]]


class Counter(Protocol):
    def add(self, amount: int | float, attributes: Mapping[str, Any] | None = None) -> None: ...


class Histogram(Protocol):
    def record(self, amount: int | float,
               attributes: Mapping[str, Any] | None = None) -> None: ...


class _Unrecorded:
    """A counter or histogram with metrics off: records nothing, as the OpenTelemetry
    API's no-op instruments do, without importing the API."""

    __slots__ = ()

    def add(self, amount: int | float, attributes: Mapping[str, Any] | None = None) -> None:
        pass

    def record(self, amount: int | float,
               attributes: Mapping[str, Any] | None = None) -> None:
        pass


_UNRECORDED = _Unrecorded()


class Telemetry:
    """One host's tracer, meter and instruments."""

    def __init__(self, settings: TelemetrySettings, *,
                 span_processors: Sequence[Any] | None = None,
                 metric_readers: Sequence[Any] = ()) -> None:
        """`span_processors`: instead of the OTLP exporter (a test's or bench's own);
        `metric_readers`: besides the Prometheus reader (and OTLP's when exporting)."""
        self.settings = settings
        self._tracer_provider: Any = None
        self._meter_provider: Any = None
        self._prometheus: Any = None
        self._gauges: dict[str, GaugeSource] = {}
        self.tracer: otel_trace.Tracer | None = None
        self.tracing = settings.tracing or bool(span_processors)
        self.capture_content = settings.capture_content
        if self.tracing:
            self._start_tracing(span_processors)
        if settings.metrics:
            self._instruments(self._start_metrics(metric_readers))
        else:
            self._unrecorded()

    @classmethod
    def off(cls) -> Telemetry:
        return cls(TelemetrySettings(tracing=False, metrics=False))

    # set-up ----------------------------------------------------------------------------

    def _resource(self) -> Any:
        from opentelemetry.sdk.resources import Resource

        from clawharness import __version__

        return Resource({"service.name": self.settings.service_name,
                         "service.version": __version__, "telemetry.sdk.language": "python",
                         **self.settings.resource_attributes})

    def _start_tracing(self, processors: Sequence[Any] | None) -> None:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased, TraceIdRatioBased

        settings = self.settings
        root = ALWAYS_ON if settings.sample_rate >= 1 else TraceIdRatioBased(settings.sample_rate)
        # no atexit hook: the host shuts its provider down (and hosts come and go)
        provider = TracerProvider(resource=self._resource(), shutdown_on_exit=False,
                                  sampler=ParentBased(root))
        if processors is None:
            with requires_extra("otel"):
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )

            processors = [BatchSpanProcessor(OTLPSpanExporter(
                endpoint=settings.traces_endpoint, headers=dict(settings.headers),
                timeout=EXPORT_TIMEOUT))]
        for processor in processors:
            provider.add_span_processor(processor)
        self._tracer_provider = provider
        self.tracer = provider.get_tracer("clawharness")

    def _start_metrics(self, readers: Sequence[Any]) -> Any:
        from opentelemetry.sdk.metrics import AlwaysOffExemplarFilter, MeterProvider
        from opentelemetry.sdk.metrics.export import (
            InMemoryMetricReader,
            PeriodicExportingMetricReader,
        )

        self._prometheus = InMemoryMetricReader()
        all_readers = [self._prometheus, *readers]
        if self.settings.export_metrics:
            with requires_extra("otel"):
                from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
                    OTLPMetricExporter,
                )

            all_readers.append(PeriodicExportingMetricReader(OTLPMetricExporter(
                endpoint=self.settings.metrics_endpoint, headers=dict(self.settings.headers),
                timeout=EXPORT_TIMEOUT)))
        # exemplars would cost a sampled span's lookup on every measurement
        self._meter_provider = MeterProvider(resource=self._resource(),
                                             metric_readers=all_readers,
                                             exemplar_filter=AlwaysOffExemplarFilter(),
                                             shutdown_on_exit=False)
        return self._meter_provider.get_meter("clawharness")

    def _unrecorded(self) -> None:
        self.token_usage: Histogram = _UNRECORDED
        self.operation_duration: Histogram = _UNRECORDED
        self.turns: Counter = _UNRECORDED
        self.turn_duration: Histogram = _UNRECORDED
        self.cost: Counter = _UNRECORDED
        self.tool_calls: Counter = _UNRECORDED
        self.lease_wait: Histogram = _UNRECORDED
        self.store_append: Histogram = _UNRECORDED
        self.native_processes_started: Counter = _UNRECORDED

    def _instruments(self, meter: otel_metrics.Meter) -> None:
        def counter(spec: Instrument) -> otel_metrics.Counter:
            return meter.create_counter(spec.name, unit=spec.unit, description=spec.description)

        def histogram(spec: Instrument) -> otel_metrics.Histogram:
            return meter.create_histogram(spec.name, unit=spec.unit,
                                          description=spec.description,
                                          explicit_bucket_boundaries_advisory=spec.buckets)

        self.token_usage = histogram(TOKEN_USAGE)
        self.operation_duration = histogram(OPERATION_DURATION)
        self.turns = counter(TURNS)
        self.turn_duration = histogram(TURN_DURATION)
        self.cost = counter(COST)
        self.tool_calls = counter(TOOL_CALLS)
        self.lease_wait = histogram(LEASE_WAIT)
        self.store_append = histogram(STORE_APPEND)
        self.native_processes_started = counter(NATIVE_PROCESS_STARTS)
        for spec, source in ((QUEUE_DEPTH, "queue_depth"),
                             (NATIVE_PROCESSES, "native_processes")):
            meter.create_observable_gauge(spec.name, callbacks=[self._observe(source)],
                                          unit=spec.unit, description=spec.description)

    def _observe(self, name: str) -> Callable[[CallbackOptions], Iterable[Observation]]:
        from opentelemetry.metrics import Observation

        def callback(options: CallbackOptions) -> Iterable[Observation]:
            source = self._gauges.get(name)
            if source is None:
                return []
            return [Observation(value, dict(attrs)) for value, attrs in source()]
        return callback

    def gauge_source(self, name: str, source: GaugeSource) -> None:
        """Where an observable gauge (`queue_depth`, `native_processes`) reads its values."""
        self._gauges[name] = source

    # reading and shutting down ---------------------------------------------------------

    @property
    def metrics_on(self) -> bool:
        return self._prometheus is not None

    def metrics_data(self) -> Any:
        """The current metric points (for `/metrics`); None with metrics off, and no
        resource metrics (not None) before the first point."""
        if self._prometheus is None:
            return None
        data = self._prometheus.get_metrics_data()
        if data is None:
            from opentelemetry.sdk.metrics.export import MetricsData

            data = MetricsData(resource_metrics=[])
        return data

    def prometheus_text(self) -> bytes:
        """The host's metrics as Prometheus text, with the process's own (`/metrics`)."""
        # imported at the first scrape: the Prometheus client is not needed before
        from clawharness.observability.prometheus import render_prometheus

        return render_prometheus(self.metrics_data())

    def force_flush(self) -> None:
        if self._tracer_provider is not None:
            self._tracer_provider.force_flush(int(EXPORT_TIMEOUT * 1000))

    def shutdown(self) -> None:
        """Export what is pending (bounded) and stop; safe to call twice."""
        provider, self._tracer_provider = self._tracer_provider, None
        meters, self._meter_provider = self._meter_provider, None
        self.tracer = None
        self.tracing = False
        try:
            if provider is not None:
                provider.shutdown()
            if meters is not None:
                meters.shutdown(timeout_millis=EXPORT_TIMEOUT * 1000)
        except Exception as exc:  # a collector that is down must not fail the host's close
            log.warning("telemetry shutdown: %s", exc)


_OFF = Telemetry.off()
_current: ContextVar[Telemetry] = ContextVar("clawharness_telemetry", default=_OFF)


def current_telemetry() -> Telemetry:
    """The telemetry of the host whose turn is running here (the no-op one elsewhere)."""
    return _current.get()


def use_telemetry(telemetry: Telemetry) -> Any:
    """Make `telemetry` current in this context; returns the token to reset it with."""
    return _current.set(telemetry)


def reset_telemetry(token: Any) -> None:
    _current.reset(token)
