"""`mcp.servers`: the MCP servers a host connects to (stdio or HTTP/SSE), their limits
and tool filters."""

from typing import Literal

from pydantic import Field, model_validator

from clawharness.config._factories import made, no_entries
from clawharness.config._node import PositiveInt, _empty, _Node
from clawharness.config.checks import CheckFailed

__all__ = [
    "McpConfig",
    "McpServerConfig",
    "McpToolFilter",
]


McpTransport = Literal["stdio", "streamable-http", "sse"]


class McpToolFilter(_Node):
    """`mcp.servers.<name>.tools`: which of a server's tools are offered (globs)."""

    include: list[str] | None = None
    exclude: list[str] = Field(default_factory=_empty)


class McpServerConfig(_Node):
    """`mcp.servers.<name>`: one MCP server (stdio: `command`; HTTP/SSE: `url`).

    `env` and `headers` values may be `${ENV_VAR}` references, read when the server
    starts; both are secret-bearing keys, never shown in messages.
    """

    transport: McpTransport | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=_empty)
    env: dict[str, str] = Field(default_factory=no_entries)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=no_entries)
    enabled: bool = True
    connection_timeout_ms: int = Field(default=30_000, ge=1, le=600_000,
                                       alias="connectionTimeoutMs")
    tool_timeout_ms: int = Field(default=60_000, ge=1, le=3_600_000, alias="toolTimeoutMs")
    max_result_chars: PositiveInt = Field(default=100_000, alias="maxResultChars")
    tools: McpToolFilter = Field(default_factory=made(McpToolFilter))

    @model_validator(mode="after")
    def _one_transport(self) -> "McpServerConfig":
        if self.transport is None and not self.command and not self.url:
            raise CheckFailed("an MCP server needs `command` (stdio) or `url` "
                              "(streamable-http, sse)", code="mcp-server-invalid",
                              show_value=False)
        transport = self.transport or ("stdio" if self.command else "streamable-http")
        if transport == "stdio" and not self.command:
            raise CheckFailed("a stdio MCP server needs `command`", code="mcp-server-invalid",
                              hint='set command (and args), or transport "streamable-http" '
                                   "with url", show_value=False)
        if transport != "stdio" and not self.url:
            raise CheckFailed(f"a {transport} MCP server needs `url`",
                              code="mcp-server-invalid",
                              hint="set url, or command for a stdio server", show_value=False)
        if transport != "stdio" and self.url and not self.url.startswith(("http://", "https://")):
            raise CheckFailed("an MCP server url must start with http:// or https://",
                              code="mcp-server-invalid", show_value=False)
        self.transport = transport
        return self


class McpConfig(_Node):
    servers: dict[str, McpServerConfig] = Field(default_factory=no_entries)
