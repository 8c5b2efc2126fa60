"""`diagnostics`: OpenTelemetry export (`otel`) and the host's metrics."""

from typing import Literal

from pydantic import Field

from clawharness.config._factories import made
from clawharness.config._node import _Node

__all__ = [
    "DiagnosticsConfig",
    "MetricsConfig",
    "OtelConfig",
]


OtelProtocol = Literal["http/protobuf", "grpc"]


class OtelConfig(_Node):
    """`diagnostics.otel`: OpenTelemetry export (docs/observability.md). Unset keys fall
    back to the standard `OTEL_*` environment variables."""

    #: None: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces one) is set
    enabled: bool | None = None
    #: the OTLP base URL (`/v1/traces` and `/v1/metrics` are added), e.g. http://127.0.0.1:4318
    endpoint: str | None = None
    protocol: OtelProtocol | None = None
    #: sent with every export (credentials: never shown, never logged)
    headers: dict[str, str] | None = None
    service_name: str | None = Field(default=None, alias="serviceName")
    #: the share of root traces kept, 0..1 (a child follows its parent's decision)
    sample_rate: float | None = Field(default=None, ge=0, le=1, alias="sampleRate")
    #: record prompts, replies and tool arguments/results on spans (redacted)
    capture_content: bool = Field(default=False, alias="captureContent")
    #: export metrics by OTLP too (when traces are exported)
    metrics: bool = True


class MetricsConfig(_Node):
    """`diagnostics.metrics`: the host's counters and histograms (served at the
    gateway's `/metrics`, exported by OTLP when `diagnostics.otel` is on)."""

    #: None: on when the host serves the gateway or exports by OTLP, else off
    enabled: bool | None = None


class DiagnosticsConfig(_Node):
    otel: OtelConfig = Field(default_factory=made(OtelConfig))
    metrics: MetricsConfig = Field(default_factory=made(MetricsConfig))
