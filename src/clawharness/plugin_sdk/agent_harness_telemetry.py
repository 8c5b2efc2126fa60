"""`clawharness.plugin_sdk.agent_harness_telemetry`: a harness's spans and metrics.

The host owns the tracer and the meter (`diagnostics.otel`, docs/observability.md); a
harness marks its own work with these helpers, which nest under the host's
`invoke_agent` and `harness_attempt` spans and cost nothing when tracing is off. Tool
calls need none: `ToolCalls` traces each one (`execute_tool <tool>`).

- `chat_span(provider, model)` ... `end_chat(span, ...)`: one model request, with the
  GenAI client metrics (token usage, operation duration);
- `native_process_start(label, argv0, env)`: a native process the harness starts
  itself, in a span, with the trace context in its environment (`TRACEPARENT`);
  `track_native_process(process, runtime)` counts it while it lives
  (`agent_harness_process.spawn` does both itself);
- `capture_trace_context()`: the trace context of the attempt, resumed (`with
  resume(): ...`) where its work goes on in another task, such as a request from the
  native runtime that its connection's reader task handles;
- `trace_carrier()`: the current span's W3C trace context (`traceparent`, `tracestate`)
  as a dict, empty when nothing is traced, for a protocol that carries it per request
  (ACP and MCP put it in a request's `_meta`).

The spans are the host's own (docs/observability.md); the SDK publishes these names as
its contract.
"""

from __future__ import annotations

from clawharness.observability.processes import track_native_process
from clawharness.observability.spans import (
    capture_trace_context,
    chat_span,
    end_chat,
    trace_carrier,
)
from clawharness.plugin_sdk._telemetry import native_process_start

__all__ = [
    "capture_trace_context",
    "chat_span",
    "end_chat",
    "native_process_start",
    "trace_carrier",
    "track_native_process",
]
