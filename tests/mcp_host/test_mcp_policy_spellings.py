"""MCP tool policy under every spelling of a tool (issue 31): a rule written with the
configured server name (`my.fs__*`) matches the offered `my-fs__...`, and two tools whose
names collide cannot get past a deny written for either."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from clawharness.config.schema import McpConfig, ToolsConfig
from clawharness.harness.capabilities import HostCapabilities, check_tool_names
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.mcp.catalog import McpCatalogEntry, McpServerTool, build_catalog
from clawharness.mcp.specs import server_specs
from clawharness.tools.policy import EffectiveToolPolicy

OBJ = {"type": "object", "properties": {}}


def catalog(servers: dict[str, list[str]]) -> tuple[McpCatalogEntry, ...]:
    specs = server_specs(McpConfig.model_validate(
        {"servers": {name: {"command": "x"} for name in servers}}))
    entries, _warnings = build_catalog(
        [(spec, [McpServerTool(t, "", OBJ) for t in servers[spec.name]]) for spec in specs])
    return entries


def offered(entries: tuple[McpCatalogEntry, ...], **tools: Any) -> list[str]:
    policy = EffectiveToolPolicy(ToolsConfig.model_validate(tools))
    return [e.model_name for e in entries
            if check_tool_names(policy, (e.model_name, *e.policy_names)) is None]


def test_a_deny_written_with_the_configured_server_name_matches() -> None:
    entries = catalog({"my.fs": ["read_file", "write_file"], "web": ["fetch"]})
    assert [e.model_name for e in entries] == ["my-fs__read_file", "my-fs__write_file",
                                              "web__fetch"]
    assert offered(entries) == ["my-fs__read_file", "my-fs__write_file", "web__fetch"]
    assert offered(entries, deny=["my.fs__*"]) == ["web__fetch"]
    assert offered(entries, deny=["my.fs__write_file"]) == ["my-fs__read_file", "web__fetch"]
    # the offered spelling keeps working, and allow lists take either spelling
    assert offered(entries, deny=["my-fs__*"]) == ["web__fetch"]
    assert offered(entries, allow=["my.fs__read_file"]) == ["my-fs__read_file"]
    assert offered(entries, allow=["my-fs__read_file", "web__*"]) == ["my-fs__read_file",
                                                                       "web__fetch"]
    # a spelling only widens what a rule can name: an allow of another server admits nothing
    assert offered(entries, allow=["other__*"]) == []


def test_colliding_tools_cannot_get_past_a_deny() -> None:
    # server "fs" tool "x__y" and server "fs__x" tool "y" are both `fs__x__y`
    entries = catalog({"fs": ["x__y"], "fs__x": ["y"]})
    assert [e.model_name for e in entries] == ["fs__x__y", "fs__x__y-2"]
    assert offered(entries, deny=["fs__x__y"]) == []
    # two servers whose names sanitize alike: `a.b` and `a-b` (offered as a-b-2__...)
    entries = catalog({"a.b": ["run"], "a-b": ["run"]})
    assert [e.model_name for e in entries] == ["a-b__run", "a-b-2__run"]
    assert offered(entries, deny=["a-b__run"]) == []
    assert offered(entries, deny=["a.b__*"]) == ["a-b-2__run"]
    assert offered(entries, deny=["a-b-2__run"]) == ["a-b__run"]


async def test_a_call_by_the_offered_name_is_judged_under_every_spelling() -> None:
    [entry] = catalog({"my.fs": ["write_file"]})
    ran: list[Mapping[str, Any]] = []

    async def execute(args: Mapping[str, Any], _ctx: ToolCallContext) -> dict[str, Any]:
        ran.append(args)
        return {"content": []}

    spec = ToolSpec(entry.model_name, "", OBJ, execute, policy_names=entry.policy_names)
    policy = EffectiveToolPolicy(ToolsConfig.model_validate({"deny": ["my.fs__*"]}))
    caps = HostCapabilities(run_id="r", session_key="agent:main:x", workspace_dir="/tmp",
                            policy=policy, approvals=None,
                            spellings={spec.name: (spec.name, *spec.policy_names)})
    decision = await caps.run_before_tool_call("my-fs__write_file", {})
    assert not decision.allowed
    assert 'entry "my.fs__*"' in (decision.reason or "")
    assert caps.bind_tool_surface([spec]) == ()
    assert "my.fs__*" in caps.unavailable_tool_reason("my-fs__write_file")


class _NamesOnly:
    """A policy that knows no spellings: it denies the configured name only."""

    def check(self, tool_name: str) -> str | None:
        return "denied" if tool_name == "my.fs__write_file" else None

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        return None


@pytest.mark.parametrize("names", [("my-fs__write_file", "my.fs__write_file"),
                                   ("my.fs__write_file", "my-fs__write_file")])
def test_a_policy_that_cannot_weigh_spellings_refuses_on_any(names: tuple[str, str]) -> None:
    assert check_tool_names(_NamesOnly(), names) == "denied"
    assert check_tool_names(_NamesOnly(), ("web__fetch",)) is None
