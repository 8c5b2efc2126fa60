"""The public import surface for plugin authors (docs/writing-a-harness.md).

- `clawharness.plugin_sdk.agent_harness`: registration (`define_plugin_entry`,
  `PluginApi`, `AgentHarnessV2`), `supports(ctx)` types, the attempt's params and
  result, and transcript messages with their builders
- `clawharness.plugin_sdk.agent_harness_runtime`: a harness's errors and `NativeTurn`,
  the turn of a process-owning harness (its record, and its result)
- `clawharness.plugin_sdk.agent_harness_tool_runtime`: `ToolCalls`, the one tool-call
  routine every harness runs its tool calls through
- `clawharness.plugin_sdk.agent_harness_session_runtime`: native session bindings
  (`SessionBindings`) and recovery from a lost native session
- `clawharness.plugin_sdk.agent_harness_process`: spawning and supervising native
  runtime processes, and reading their output within limits
- `clawharness.plugin_sdk.agent_harness_telemetry`: spans and metrics of a harness's
  own work (model requests, native process starts), nested in the host's
- `clawharness.plugin_sdk.agent_harness_cli`: a CLI agent as a harness, from a
  description (docs/cli-backends.md)
- `clawharness.plugin_sdk.agent_harness_mcp`: the configured MCP servers a native
  harness hands to its runtime, and their projections (Codex, Claude CLI, ACP)
- `clawharness.plugin_sdk.testing`: the contract kit for a harness's tests

At most 100 names in all, each typed, documented and defined by the SDK or published by
it as its contract; `tests/plugin_sdk/test_sdk_surface.py` pins every one. Bundled
harnesses import only these modules, exactly as a third-party plugin would.
"""

from __future__ import annotations

__all__ = [
    "agent_harness",
    "agent_harness_cli",
    "agent_harness_mcp",
    "agent_harness_process",
    "agent_harness_runtime",
    "agent_harness_session_runtime",
    "agent_harness_telemetry",
    "agent_harness_tool_runtime",
    "testing",
]
