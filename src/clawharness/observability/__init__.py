"""Observability: OpenTelemetry traces and metrics in the GenAI semantic conventions,
Prometheus text for the gateway's `/metrics`, and JSON log lines (docs/observability.md).

- `settings`: `diagnostics.*` in config over the standard `OTEL_*` variables;
- `telemetry`: a host's tracer, meter and instruments (`Telemetry`, owned by `Host`);
- `spans`: the span points of a turn, as helpers that cost nothing when tracing is off;
- `prometheus`: the metric points as Prometheus text;
- `logs`: one JSON object per log line, with trace and span ids, redacted.
"""

from __future__ import annotations

from clawharness.observability.settings import TelemetrySettings, resolve_settings
from clawharness.observability.telemetry import Telemetry, current_telemetry, use_telemetry

__all__ = ["Telemetry", "TelemetrySettings", "current_telemetry", "resolve_settings",
           "use_telemetry"]
