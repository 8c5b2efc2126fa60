"""MCP servers: configured once (`mcp.servers.<name>`), offered to every runtime.

- `specs`: config -> typed server specs (`McpServerSpec`), `${ENV}` secrets resolved late
- `connection`: one client session per server (the official `mcp` SDK), restarted with
  back-off after a crash, closed with the host
- `catalog`: the model-facing tool names, include/exclude filters, schema checks, collisions
- `results`: an MCP `CallToolResult` as a transcript tool result (size-cut)
- `manager`: `McpManager`, owned by `Host` as `host.mcp`: connections, catalog, `ToolSpec`s
The other direction, the host as an MCP server (`clawharness mcp serve`), is a front:
`clawharness.mcp_serve`.

See docs/mcp.md.

"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.mcp.manager import McpManager, McpProbe
    from clawharness.mcp.specs import McpServerSpec, server_specs

__all__ = [
    "McpManager",
    "McpProbe",
    "McpServerSpec",
    "server_specs",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "McpManager": "clawharness.mcp.manager",
    "McpProbe": "clawharness.mcp.manager",
    "McpServerSpec": "clawharness.mcp.specs",
    "server_specs": "clawharness.mcp.specs",
})
