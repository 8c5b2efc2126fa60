"""The configured servers in each native runtime's own shape, and what each leaves out."""

from __future__ import annotations

from clawharness.plugin_sdk.agent_harness_mcp import (
    McpServerLaunch,
    acp_mcp_servers,
    claude_mcp_config,
    codex_mcp_servers,
)

STDIO = McpServerLaunch("my tools", "my-tools", "stdio", command="srv", args=("a",),
                        env={"TOKEN": "s3cret-value"})
HTTP = McpServerLaunch("web", "web", "streamable-http", url="https://x/mcp",
                       headers={"Authorization": "Bearer t0ken-value"})
SSE = McpServerLaunch("old", "old", "sse", url="https://x/sse")
EXACT = McpServerLaunch("f", "f", "stdio", command="srv", include=("read",), exclude=("rm",))
GLOB = McpServerLaunch("g", "g", "stdio", command="srv", exclude=("rm*",))


def test_repr_never_shows_secrets() -> None:
    assert "s3cret" not in repr(STDIO) and "t0ken" not in repr(HTTP)


def test_codex_takes_stdio_and_http_and_exact_filters() -> None:
    table, notes = codex_mcp_servers([STDIO, HTTP, SSE, EXACT, GLOB])
    assert set(table) == {"my-tools", "web", "f"}
    assert table["my-tools"]["command"] == "srv" and table["my-tools"]["env"] == {
        "TOKEN": "s3cret-value"}
    assert table["web"]["http_headers"] == {"Authorization": "Bearer t0ken-value"}
    assert (table["f"]["enabled_tools"], table["f"]["disabled_tools"]) == (["read"], ["rm"])
    assert any("'old'" in n and "SSE" in n for n in notes)
    assert any("'g'" in n and "globs" in n for n in notes)


def test_claude_takes_every_transport_but_no_filtered_server() -> None:
    config, notes = claude_mcp_config([STDIO, HTTP, SSE, EXACT])
    servers = config["mcpServers"]
    assert [servers[k]["type"] for k in ("my-tools", "web", "old")] == ["stdio", "http", "sse"]
    assert "f" not in servers and any("'f'" in n for n in notes)


def test_acp_follows_the_agents_mcp_capabilities() -> None:
    listed, notes = acp_mcp_servers([STDIO, HTTP, SSE], http=True, sse=False)
    assert listed[0] == {"name": "my-tools", "command": "srv", "args": ["a"],
                         "env": [{"name": "TOKEN", "value": "s3cret-value"}]}
    assert listed[1]["type"] == "http" and listed[1]["headers"] == [
        {"name": "Authorization", "value": "Bearer t0ken-value"}]
    assert len(listed) == 2 and any("'old'" in n and "sse" in n for n in notes)
