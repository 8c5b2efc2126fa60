"""The public import surface for plugin authors (docs/writing-a-harness.md).

- `clawharness.plugin_sdk.agent_harness`: registration (`define_plugin_entry`,
  `PluginApi`, `AgentHarnessV2`), `supports(ctx)` types, the attempt's params and result,
  and typed transcript messages
- `clawharness.plugin_sdk.agent_harness_runtime`: errors, host capabilities and
  callbacks, and the shared rules a native harness applies while it runs
- `clawharness.plugin_sdk.agent_harness_tool_runtime`: tool-surface helpers
- `clawharness.plugin_sdk.agent_harness_session_runtime`: native session bindings
  (`SessionBindings`) and recovery from a lost native session
- `clawharness.plugin_sdk.agent_harness_process`: spawning and supervising native
  runtime processes, and reading their output within limits
- `clawharness.plugin_sdk.agent_harness_cli`: a CLI agent as a harness, from a
  description (docs/cli-backends.md)
- `clawharness.plugin_sdk.agent_harness_mcp`: the configured MCP servers a native
  harness hands to its runtime, and their projections (Codex, Claude CLI, ACP)
- `clawharness.plugin_sdk.testing`: the contract kit for a harness's tests

Bundled harnesses import only from here, exactly as a third-party plugin would.
"""

from __future__ import annotations

__all__ = [
    "agent_harness",
    "agent_harness_cli",
    "agent_harness_mcp",
    "agent_harness_process",
    "agent_harness_runtime",
    "agent_harness_session_runtime",
    "agent_harness_tool_runtime",
    "testing",
]
