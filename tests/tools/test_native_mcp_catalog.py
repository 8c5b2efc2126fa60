"""Native MCP inventory: bounded to configured servers, safe names, session denials kept."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.tools.mcp_catalog import (
    McpCatalogParams,
    McpToolCatalog,
    bound_mcp_catalog,
    load_native_mcp_catalog,
)

PARAMS = McpCatalogParams(agent_id="main", session_id="s1", session_key="agent:main:main",
                          workspace_dir="/w", mcp_server_names=("My Server", "my-server", "docs"))

NATIVE_ANSWER: dict[str, Any] = {
    "version": 1,
    "generatedAt": 1_700_000_000_000,
    "servers": {
        "my-server": {"serverName": "my-server", "safeServerName": "spoofed",
                      "launchSummary": "npx my-server", "toolCount": 99, "pluginId": "x"},
        "My Server": {"serverName": "My Server", "launchSummary": "uvx a"},
        "secret-internal": {"serverName": "secret-internal"},
    },
    "tools": [
        {"serverName": "my-server", "toolName": "Search Docs!", "description": "raw name kept",
         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
        {"serverName": "My Server", "toolName": "run", "deniedBySession": True},
        {"serverName": "secret-internal", "toolName": "leak"},
    ],
    "sessionDeniedTools": [{"serverName": "my-server", "toolName": "delete_all"}],
}


class BoundHarness:
    id = "native"

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[McpCatalogParams] = []

    async def load_mcp_tool_catalog(self, params: McpCatalogParams) -> Any:
        self.calls.append(params)
        return self.answer


async def test_the_catalog_is_bounded_to_configured_servers_with_safe_names() -> None:
    catalog = await load_native_mcp_catalog(BoundHarness(NATIVE_ANSWER), PARAMS)
    assert isinstance(catalog, McpToolCatalog)
    assert list(catalog.servers) == ["My Server", "my-server"]  # host declaration order
    assert {n: s.safe_server_name for n, s in catalog.servers.items()} == {
        "My Server": "My-Server", "my-server": "my-server-2"
    }
    assert [(t.server_name, t.tool_name) for t in catalog.tools] == [("my-server", "Search Docs!")]
    assert catalog.tools[0].safe_server_name == "my-server-2"
    assert catalog.servers["my-server"].extra == {"pluginId": "x"}
    assert "secret-internal" not in catalog.to_json()["servers"]


async def test_session_denied_tools_are_retained_apart_from_visible_tools() -> None:
    catalog = await load_native_mcp_catalog(BoundHarness(NATIVE_ANSWER), PARAMS)
    assert catalog is not None
    denied = {(t.server_name, t.tool_name) for t in catalog.session_denied_tools}
    assert denied == {("my-server", "delete_all"), ("My Server", "run")}
    assert all(t.denied_by_session for t in catalog.session_denied_tools)
    js = catalog.to_json()
    assert {t["toolName"] for t in js["sessionDeniedTools"]} == {"delete_all", "run"}
    assert catalog.servers["my-server"].tool_count == 2


async def test_no_binding_means_no_call_and_no_catalog() -> None:
    harness = BoundHarness(NATIVE_ANSWER)
    assert await load_native_mcp_catalog(harness, PARAMS, is_bound=lambda: False) is None
    assert harness.calls == []


async def test_missing_capability_none_answer_and_empty_bounds_yield_none() -> None:
    class NoCatalog:
        id = "plain"

    assert await load_native_mcp_catalog(NoCatalog(), PARAMS) is None
    assert await load_native_mcp_catalog(BoundHarness(None), PARAMS) is None
    empty = McpCatalogParams(agent_id="main", session_id="s1", session_key="k",
                             workspace_dir="/w", mcp_server_names=())
    harness = BoundHarness(NATIVE_ANSWER)
    assert await load_native_mcp_catalog(harness, empty) is None
    assert harness.calls == []


async def test_a_retired_caller_is_rechecked_after_the_await() -> None:
    state = {"live": True}

    def assert_current() -> None:
        if not state["live"]:
            raise RuntimeError("session retired")

    class RetiringHarness(BoundHarness):
        async def load_mcp_tool_catalog(self, params: McpCatalogParams) -> Any:
            state["live"] = False
            return self.answer

    params = McpCatalogParams(agent_id="main", session_id="s1", session_key="k",
                              workspace_dir="/w", mcp_server_names=("docs",),
                              assert_current=assert_current)
    with pytest.raises(RuntimeError, match="retired"):
        await load_native_mcp_catalog(RetiringHarness(NATIVE_ANSWER), params)


def test_dataclass_catalogs_are_rebounded_too() -> None:
    first = bound_mcp_catalog(NATIVE_ANSWER, ["my-server"])
    assert first is not None
    again = bound_mcp_catalog(first, ["my-server"])
    assert again is not None
    assert again.servers["my-server"].safe_server_name == "my-server"
    assert [t.tool_name for t in again.tools] == ["Search Docs!"]
