"""`clawharness.plugin_sdk.agent_harness_telemetry`: a harness's spans and metrics.

The host owns the tracer and the meter (`diagnostics.otel`, docs/observability.md); a
harness marks its own work with these helpers, which nest under the host's
`invoke_agent` and `harness_attempt` spans and cost nothing when tracing is off:

- `chat_span(provider, model)` ... `end_chat(span, ...)`: one model request, with the
  GenAI client metrics (token usage, operation duration);
- `tool_span(name, call_id)` ... `end_tool(span, name, ok=, started=)`: one tool call;
- `native_process_span(label, argv0)` and `trace_env(env)`: starting a native runtime's
  process with the trace context in its environment (`TRACEPARENT`);
  `track_native_process(process, runtime)` counts it while it lives. `spawn` from
  `agent_harness_process` does all three itself;
- `capture_trace_context()`: the trace context of the attempt, resumed (`with
  resume(): ...`) where its work goes on in another task, such as a request from the
  native runtime that its connection's reader task handles;
- `content_attribute(span, key, value)`: prompt or tool content, only when the operator
  opted in (`captureContent`), and redacted; `mark_failed(span, error)`.
"""

from __future__ import annotations

from clawharness.observability.processes import track_native_process
from clawharness.observability.spans import (
    capture_trace_context,
    chat_span,
    content_attribute,
    end_chat,
    end_tool,
    mark_failed,
    native_process_span,
    tool_span,
    trace_env,
)

__all__ = [
    "capture_trace_context",
    "chat_span",
    "content_attribute",
    "end_chat",
    "end_tool",
    "mark_failed",
    "native_process_span",
    "tool_span",
    "trace_env",
    "track_native_process",
]
