"""The public import surface for plugin authors.

- `clawharness.plugin_sdk.agent_harness`: registration contract, support types,
  `define_plugin_entry`
- `clawharness.plugin_sdk.agent_harness_runtime`: errors and runtime helpers
- `clawharness.plugin_sdk.agent_harness_tool_runtime`: tool-surface helpers
- `clawharness.plugin_sdk.agent_harness_session_runtime`: native session bindings

Bundled harnesses import only from here, exactly as a third-party plugin would.
"""

from __future__ import annotations

__all__ = [
    "agent_harness",
    "agent_harness_runtime",
    "agent_harness_session_runtime",
    "agent_harness_tool_runtime",
]
