"""The pure parts of the MCP client: specs from config, the catalog, result mapping."""

from __future__ import annotations

import mcp.types as mcp_types
import pytest

from clawharness.config.schema import McpConfig
from clawharness.errors import McpConnectError
from clawharness.mcp.catalog import McpServerTool, build_catalog, model_tool_name
from clawharness.mcp.results import map_call_result
from clawharness.mcp.specs import resolve_secrets, server_specs

OBJ = {"type": "object", "properties": {"x": {"type": "string"}}}


def _specs(servers: dict[str, object]) -> tuple:  # type: ignore[type-arg]
    return server_specs(McpConfig.model_validate({"servers": servers}))


def test_specs_keep_declaration_order_skip_disabled_and_sanitize_names() -> None:
    specs = _specs({"my server": {"command": "a"}, "off": {"command": "b", "enabled": False},
                    "web": {"url": "http://127.0.0.1:1/mcp"}})
    assert [(s.name, s.safe_name, s.transport) for s in specs] == [
        ("my server", "my-server", "stdio"), ("web", "web", "streamable-http")]


def test_secrets_resolve_late_and_a_missing_variable_names_key_not_value() -> None:
    [spec] = _specs({"s": {"command": "a", "env": {"TOKEN": "${MY_TOKEN}"},
                           "headers": {}}})
    assert "MY_TOKEN" not in repr(spec)  # env values (and names) stay out of repr
    assert resolve_secrets(spec, {"MY_TOKEN": "v"}) == ({"TOKEN": "v"}, {})
    with pytest.raises(McpConnectError, match=r"mcp\.servers\.s\.env\.TOKEN refers to "
                                              r"\$\{MY_TOKEN\}"):
        resolve_secrets(spec, {})
    assert "(env: TOKEN)" in spec.launch_summary()


def test_catalog_filters_leaves_out_bad_schemas_and_never_shadows() -> None:
    [a, b] = _specs({"a": {"command": "x", "tools": {"exclude": ["secret*"]}},
                     "b": {"command": "y", "tools": {"include": ["get*", "g.*"]}}})
    entries, warnings = build_catalog([
        (a, [McpServerTool("get.it", "", OBJ), McpServerTool("get-it", "", OBJ),
             McpServerTool("secret_tool", "", OBJ), McpServerTool("bad", "", {"type": "array"})]),
        (b, [McpServerTool("get", "", OBJ), McpServerTool("put", "", OBJ)]),
    ])
    assert [(e.model_name, e.server, e.tool) for e in entries] == [
        ("a__get-it", "a", "get.it"), ("a__get-it-2", "a", "get-it"), ("b__get", "b", "get")]
    assert any("'bad' left out" in w and "'a'" in w for w in warnings)
    assert any("'a__get-it-2'" in w for w in warnings)


def test_model_tool_names_fit_the_provider_limit() -> None:
    assert len(model_tool_name("s" * 30, "t" * 80)) == 64


def test_results_map_text_images_resources_structured_and_errors() -> None:
    result = mcp_types.CallToolResult(content=[
        mcp_types.TextContent(type="text", text="hi"),
        mcp_types.ImageContent(type="image", data="aGk=", mime_type="image/png"),
        mcp_types.EmbeddedResource(type="resource", resource=mcp_types.TextResourceContents(
            uri="file:///a.txt", text="inside")),
    ], structured_content={"k": 1}, is_error=True)
    mapped = map_call_result(result, server="s", tool="t", max_chars=1000)
    assert mapped["content"] == [
        {"type": "text", "text": "hi"},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        {"type": "text", "text": "[resource file:///a.txt]\ninside"}]
    assert mapped["isError"] is True
    assert mapped["details"]["mcp"] == {"server": "s", "tool": "t", "structuredContent": {"k": 1}}


def test_a_result_over_the_limit_is_cut_with_a_note() -> None:
    result = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="x" * 50)])
    mapped = map_call_result(result, server="s", tool="t", max_chars=10)
    assert mapped["content"][0]["text"] == "x" * 10
    assert "10 of 50 characters" in mapped["content"][-1]["text"]
    assert "mcp.servers.s.maxResultChars" in mapped["content"][-1]["text"]
