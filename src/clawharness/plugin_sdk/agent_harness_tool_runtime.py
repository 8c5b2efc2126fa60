"""`clawharness.plugin_sdk.agent_harness_tool_runtime`: tool calls and tool-surface helpers.

- `ToolCalls(params, placement=...)`: the one tool-call routine (policy and approval,
  execution, the host's observer, middleware, the record, the transcript, events):
  `run_host_tool(call)` (a `ToolCallRequest`) -> `ToolCallOutcome` for a host tool the harness
  runs; `ask(...)` -> `ToolPermission` and `settle_native(...)` for a tool the native
  runtime runs; `ResultPlacement` is where a settled `toolResult` message goes;
  `text_result(text)` makes the host tool-result shape and `result_text(content)` reads
  its text back;

- `resolve_workspace_path(workspace, path)`: a path inside the attempt's workspace, or
  `WorkspacePathEscapeError` (for a native file operation the harness serves itself);
- `normalize_accepted_session_spawn_result(result)` -> `AcceptedSessionSpawn | None`: a
  successful `sessions_spawn` receipt, for `AttemptResult.accepted_session_spawns`;
- `normalize_tool_name`, `expand_tool_groups`: canonical tool ids (what
  `conversation_tool_policy_safe_deny_tools` must list);
- `assign_mcp_catalog_safe_server_names(names)`: collision-safe MCP server names for a
  native MCP inventory;
- `create_agent_harness_tool_surface_runtime(...)`: compact tool routing (tool search,
  code mode, hidden catalog) for a harness that wants the built-in runtime's;
- `ToolOutcomeLedger` (`AttemptParams.tool_outcomes`): tool side effects exactly once
  across retried turns: `await ledger.begin(call_id, name, args)` before running a call
  gives a `ToolCallDecision` (`run`, `replay` the committed result, or `interrupted`
  with unknown effect), and `await ledger.commit(call_id, result, error)` stores the
  outcome before the model sees it; `tool_call_interrupted_text(name)` is what the model
  is told of an interrupted call.

Loaded on first use (the tool modules are large); the checker sees the real types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness.harness.workspace import resolve_workspace_path
from clawharness.plugin_sdk._lazy import LazyTable, install_lazy_exports
from clawharness.plugin_sdk._tool_calls import (
    ResultPlacement,
    ToolCallOutcome,
    ToolCallRequest,
    ToolCalls,
    ToolPermission,
    result_text,
    text_result,
)

if TYPE_CHECKING:
    # the checker's view of the names `LAZY_EXPORTS` serves (kept equal by a test)
    from clawharness.names.mcp_names import assign_mcp_catalog_safe_server_names
    from clawharness.names.tool_groups import expand_tool_groups, normalize_tool_name
    from clawharness.runtime_plan.spawns import (
        AcceptedSessionSpawn,
        normalize_accepted_session_spawn_result,
    )
    from clawharness.tools.outcomes import ToolCallDecision, ToolOutcomeLedger
    from clawharness.tools.outcomes import interrupted_text as tool_call_interrupted_text
    from clawharness.tools.surface import create_agent_harness_tool_surface_runtime

#: public name -> (providing module, attribute)
LAZY_EXPORTS: LazyTable = {
    "AcceptedSessionSpawn": ("clawharness.runtime_plan.spawns", "AcceptedSessionSpawn"),
    "normalize_accepted_session_spawn_result": (
        "clawharness.runtime_plan.spawns", "normalize_accepted_session_spawn_result"),
    "assign_mcp_catalog_safe_server_names": (
        "clawharness.names.mcp_names", "assign_mcp_catalog_safe_server_names"),
    "expand_tool_groups": ("clawharness.names.tool_groups", "expand_tool_groups"),
    "normalize_tool_name": ("clawharness.names.tool_groups", "normalize_tool_name"),
    "create_agent_harness_tool_surface_runtime": (
        "clawharness.tools.surface", "create_agent_harness_tool_surface_runtime"),
    "ToolCallDecision": ("clawharness.tools.outcomes", "ToolCallDecision"),
    "ToolOutcomeLedger": ("clawharness.tools.outcomes", "ToolOutcomeLedger"),
    "tool_call_interrupted_text": ("clawharness.tools.outcomes", "interrupted_text"),
}

__all__ = [
    "AcceptedSessionSpawn",
    "ResultPlacement",
    "ToolCallDecision",
    "ToolCallOutcome",
    "ToolCallRequest",
    "ToolCalls",
    "ToolOutcomeLedger",
    "ToolPermission",
    "assign_mcp_catalog_safe_server_names",
    "create_agent_harness_tool_surface_runtime",
    "expand_tool_groups",
    "normalize_accepted_session_spawn_result",
    "normalize_tool_name",
    "resolve_workspace_path",
    "result_text",
    "text_result",
    "tool_call_interrupted_text",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = install_lazy_exports(__name__, LAZY_EXPORTS)
