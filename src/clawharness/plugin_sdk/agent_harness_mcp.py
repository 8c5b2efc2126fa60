"""`clawharness.plugin_sdk.agent_harness_mcp`: the configured MCP servers a native
harness hands to its runtime (docs/mcp.md).

The host passes the enabled `mcp.servers` entries in `AttemptParams.mcp_servers`, each a
`McpServerLaunch` (name, sanitized `safe_name`, transport, command/args/env/cwd or
url/headers with `${ENV}` secrets resolved, timeouts, the `include` / `exclude` tool
filter). Never print one: `repr` hides `env` and `headers`. The built-in runtime gets
none there; it calls the servers through the host.

Projections into the runtimes' own shapes, each returning `(payload, left_out)` where
`left_out` names every server the runtime could not honour and why (warn about them):

- `codex_mcp_servers(servers)`: the `mcp_servers` table of a Codex thread's `config`
- `claude_mcp_config(servers)`: the JSON for `claude --mcp-config` (with
  `--strict-mcp-config`)
- `acp_mcp_servers(servers, http=, sse=)`: ACP's `mcpServers` for `session/new` and
  `session/load`, by the agent's `mcpCapabilities`

The tool policy rule stays the seeds': a harness claims
`conversation_tool_policy_support = "exact"` only where its MCP surface honours every
explicit policy layer; otherwise the host rejects a restricted turn before the harness
runs (fail closed).
"""

from __future__ import annotations

from clawharness.harness.mcp_servers import (
    McpServerLaunch,
    acp_mcp_servers,
    claude_mcp_config,
    codex_mcp_servers,
)

__all__ = ["McpServerLaunch", "acp_mcp_servers", "claude_mcp_config", "codex_mcp_servers"]
