"""Observability: OpenTelemetry traces and metrics in the GenAI semantic conventions,
Prometheus text for the gateway's `/metrics`, and JSON log lines (docs/observability.md).

- `settings`: `diagnostics.*` in config over the standard `OTEL_*` variables;
- `telemetry`: a host's tracer, meter and instruments (`Telemetry`, owned by `Host`);
- `spans`: the span points of a turn, as helpers that cost nothing when tracing is off;
- `prometheus`: the metric points as Prometheus text;
- `logs`: one JSON object per log line, with trace and span ids, redacted;
- `trace_context`: a caller's W3C trace context (an HTTP header, an ACP `_meta`), checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face
from clawharness.observability.settings import TelemetrySettings, resolve_settings
from clawharness.observability.telemetry import Telemetry, current_telemetry, use_telemetry

if TYPE_CHECKING:
    from clawharness.observability.logs import configure_logging
    from clawharness.observability.processes import live_native_processes, track_native_process
    from clawharness.observability.prometheus import CONTENT_TYPE
    from clawharness.observability.spans import (
        TERMINAL,
        attempt_span,
        capture_trace_context,
        chat_span,
        cluster_turn_span,
        content_attribute,
        continued_trace,
        end_attempt,
        end_chat,
        end_tool,
        end_turn,
        lease_wait_span,
        mark_failed,
        native_process_span,
        store_append_span,
        tool_span,
        trace_carrier,
        trace_env,
        turn_span,
    )
    from clawharness.observability.telemetry import reset_telemetry
    from clawharness.observability.trace_context import caller_trace_context

__all__ = [
    "CONTENT_TYPE",
    "TERMINAL",
    "Telemetry",
    "TelemetrySettings",
    "attempt_span",
    "caller_trace_context",
    "capture_trace_context",
    "chat_span",
    "cluster_turn_span",
    "configure_logging",
    "content_attribute",
    "continued_trace",
    "current_telemetry",
    "end_attempt",
    "end_chat",
    "end_tool",
    "end_turn",
    "lease_wait_span",
    "live_native_processes",
    "mark_failed",
    "native_process_span",
    "reset_telemetry",
    "resolve_settings",
    "store_append_span",
    "tool_span",
    "trace_carrier",
    "trace_env",
    "track_native_process",
    "turn_span",
    "use_telemetry",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "CONTENT_TYPE": "clawharness.observability.prometheus",
    "TERMINAL": "clawharness.observability.spans",
    "attempt_span": "clawharness.observability.spans",
    "caller_trace_context": "clawharness.observability.trace_context",
    "capture_trace_context": "clawharness.observability.spans",
    "chat_span": "clawharness.observability.spans",
    "cluster_turn_span": "clawharness.observability.spans",
    "configure_logging": "clawharness.observability.logs",
    "content_attribute": "clawharness.observability.spans",
    "continued_trace": "clawharness.observability.spans",
    "end_attempt": "clawharness.observability.spans",
    "end_chat": "clawharness.observability.spans",
    "end_tool": "clawharness.observability.spans",
    "end_turn": "clawharness.observability.spans",
    "lease_wait_span": "clawharness.observability.spans",
    "live_native_processes": "clawharness.observability.processes",
    "mark_failed": "clawharness.observability.spans",
    "native_process_span": "clawharness.observability.spans",
    "reset_telemetry": "clawharness.observability.telemetry",
    "store_append_span": "clawharness.observability.spans",
    "tool_span": "clawharness.observability.spans",
    "trace_carrier": "clawharness.observability.spans",
    "trace_env": "clawharness.observability.spans",
    "track_native_process": "clawharness.observability.processes",
    "turn_span": "clawharness.observability.spans",
})
