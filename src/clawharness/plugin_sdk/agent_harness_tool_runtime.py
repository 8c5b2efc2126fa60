"""`clawharness.plugin_sdk.agent_harness_tool_runtime`: tool calls, the one way.

`ToolCalls(params, placement=...)` is the one tool-call routine every harness uses
(docs/writing-a-harness.md, "Tool calls"): policy and approval
(`host_capabilities.run_before_tool_call`), execution, the host's observer
(`observe_tool_terminal`), tool-result middleware, the attempt's record (`metas`,
`last_tool_error`), the transcript and the `tool` events.

- `run_host_tool(call)` runs a host tool (a `ToolSpec` of `params.tools`) the model
  called: a `ToolCallRequest` (`call_id`, `name`, `arguments`) in, a `ToolCallOutcome`
  (the `result` the model sees, `is_error`, `execution_started`, `error`) out;
- `ask(call, cwd=)` answers a native runtime that asks to run a tool, with a
  `ToolPermission` (`allowed`, `reason`, `arguments`, `cancelled`);
  `settle_native(call, result=, is_error=)` settles its result when the runtime reports it;
- `settle_unfinished(call, note)` settles a host call an abort or a bound cut off;
- `ResultPlacement` is the harness's one strategy: where a settled `toolResult`
  message goes (none for a runtime that records its own items);
- `text_result(text, details=)` makes the host tool-result shape
  `{"content": [{"type": "text", "text": ...}], "details"?: ...}`.

`resolve_workspace_path(workspace, path)`: a path inside the attempt's workspace, or
`WorkspacePathEscapeError` (for a native file operation the harness serves itself).
"""

from __future__ import annotations

from clawharness.errors import WorkspacePathEscapeError
from clawharness.harness.workspace import resolve_workspace_path
from clawharness.plugin_sdk._tool_calls import (
    ResultPlacement,
    ToolCallOutcome,
    ToolCallRequest,
    ToolCalls,
    ToolPermission,
    text_result,
)

__all__ = [
    "ResultPlacement",
    "ToolCallOutcome",
    "ToolCallRequest",
    "ToolCalls",
    "ToolPermission",
    "WorkspacePathEscapeError",
    "resolve_workspace_path",
    "text_result",
]
