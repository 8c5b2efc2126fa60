"""Tool surface runtime: tool search over a hidden catalog, code mode, lean, schemas."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from clawharness.harness.types import ToolCallContext, ToolSpec
from clawharness.tools.surface import (
    CatalogCall,
    ToolSearchInputError,
    create_agent_harness_tool_surface_runtime,
    filter_runtime_compatible_tools,
    is_local_model,
)

OBJ = {"type": "object", "properties": {"url": {"type": "string"}}}


async def _unused(args: Any, ctx: ToolCallContext) -> dict[str, Any]:
    raise AssertionError("hidden tools run through the harness callback")


def tool(name: str, description: str = "", params: Any = None, owner: str | None = None) -> ToolSpec:
    return ToolSpec(name, description or f"{name} tool", OBJ if params is None else params,
                    _unused, owner)


TOOLS = [tool("read", "Read a file"), tool("web_fetch", "Fetch a web page by URL"),
         tool("message", "Send a message to a channel"), tool("browser", "Drive a browser"),
         tool("gh_issues", "List GitHub issues", owner="github")]


class Executor:
    def __init__(self) -> None:
        self.calls: list[CatalogCall] = []

    async def __call__(self, call: CatalogCall) -> dict[str, Any]:
        self.calls.append(call)
        return {"content": [{"type": "text", "text": f"ran {call.tool_name}"}],
                "details": {"input": dict(call.input)}}


def ctx(call_id: str = "call-1") -> ToolCallContext:
    return ToolCallContext(call_id, "/w", asyncio.Event(), "agent:main:main", "run-1")


def by_name(tools: Any) -> dict[str, ToolSpec]:
    return {t.name: t for t in tools}


async def test_tool_search_finds_and_executes_a_hidden_tool() -> None:
    executor = Executor()
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=executor, config={"tools": {"toolSearch": True}}, model_provider="openai"
    )
    assert runtime.plan.tool_search_controls_enabled
    surface = runtime.compact_tools(TOOLS)
    visible = by_name(surface.tools)
    assert set(visible) == {"tool_search", "tool_describe", "tool_call"}
    assert surface.compacted and surface.catalog_tool_count == len(TOOLS)

    found = await visible["tool_search"].execute({"query": "fetch web page"}, ctx())
    hits = json.loads(found["content"][0]["text"])["tools"]
    assert hits[0]["name"] == "web_fetch" and hits[0]["id"] == "openclaw:core:web_fetch"

    described = await visible["tool_describe"].execute({"id": "web_fetch"}, ctx())
    assert described["details"]["parameters"] == OBJ

    result = await visible["tool_call"].execute(
        {"id": "web_fetch", "args": {"url": "https://example.com"}}, ctx("parent-7")
    )
    assert result["content"][0]["text"] == "ran web_fetch"
    (call,) = executor.calls
    assert call.tool.name == "web_fetch" and call.input == {"url": "https://example.com"}
    assert call.parent_tool_call_id == "parent-7" and "parent-7" in call.tool_call_id
    assert runtime.catalog is not None and runtime.catalog.call_count == 1


async def test_plugin_tools_keep_their_owner_in_the_catalog_id() -> None:
    executor = Executor()
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=executor, config={"tools": {"toolSearch": {"searchDefaultLimit": 2}}})
    runtime.compact_tools(TOOLS)
    await runtime.execute_catalog_tool("openclaw:github:gh_issues", {})
    assert executor.calls[0].source_name == "github"
    with pytest.raises(ToolSearchInputError, match="Unknown tool id: fetch_page"):
        await runtime.execute_catalog_tool("fetch_page", {})


async def test_cleanup_clears_the_catalog() -> None:
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config={"tools": {"toolSearch": True}})
    surface = runtime.compact_tools(TOOLS)
    runtime.cleanup()
    assert runtime.catalog is None
    with pytest.raises(ToolSearchInputError, match="unavailable"):
        await by_name(surface.tools)["tool_call"].execute({"id": "read"}, ctx())


def test_a_forced_message_tool_stays_direct() -> None:
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config={"tools": {"toolSearch": True}},
        source_reply_delivery_mode="message_tool_only")
    names = set(by_name(runtime.compact_tools(TOOLS).tools))
    assert "message" in names and "web_fetch" not in names


def test_local_models_get_lean_defaults() -> None:
    assert is_local_model("ollama") and is_local_model("openai", "http://localhost:11434/v1")
    assert not is_local_model("openai", "https://api.openai.com/v1")
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), model_provider="vllm", model_id="qwen")
    assert runtime.plan.local_model_lean and runtime.plan.tool_search_controls_enabled
    assert runtime.plan.tool_search.search_default_limit == 5
    runtime.compact_tools(TOOLS)
    assert runtime.catalog is not None
    hidden = {e.name for e in runtime.catalog.entries}
    assert "browser" not in hidden and "message" not in hidden and "read" in hidden
    opted_out = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), model_provider="ollama",
        config={"agents": {"defaults": {"experimental": {"localModelLean": False}}}})
    assert not opted_out.plan.local_model_lean and not opted_out.plan.tool_search_controls_enabled


def test_tools_with_schemas_the_runtime_cannot_take_are_dropped() -> None:
    bad = [tool("dyn", params={"type": "object", "$defs": {"n": {"$dynamicRef": "#x"}}}),
           tool("arr", params={"type": "array"}), tool("nan", params={"x": float("nan")})]
    kept, diagnostics = filter_runtime_compatible_tools([tool("ok"), *bad])
    assert [t.name for t in kept] == ["ok"]
    assert [d["toolName"] for d in diagnostics] == ["dyn", "arr", "nan"]
    assert diagnostics[0]["violations"] == ["dyn.parameters.$defs.n.$dynamicRef"]
    surface = create_agent_harness_tool_surface_runtime(execute_tool=Executor()).compact_tools(
        [tool("ok"), *bad])
    assert [t.name for t in surface.tools] == ["ok"] and len(surface.diagnostics) == 3


@pytest.mark.parametrize(
    "kwargs",
    [{"skill_workshop_proposal_only": True}, {"disable_tools": True}, {"tools_allow": []},
     {"is_raw_model_run": True}, {"force_message_tool": True, "tools_allow": ["message"]}],
)
def test_narrow_runs_keep_the_raw_surface(kwargs: dict[str, Any]) -> None:
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config={"tools": {"toolSearch": True, "codeMode": True}},
        code_mode_tools_factory=lambda _rt: [tool("exec")], **kwargs)
    assert not runtime.plan.tool_search_controls_enabled
    assert not runtime.plan.code_mode_controls_enabled
    surface = runtime.compact_tools(TOOLS)
    assert not surface.compacted and runtime.catalog is None


def test_code_mode_controls_replace_tool_search_when_engaged() -> None:
    def controls(rt: Any) -> list[ToolSpec]:
        return [tool("exec", "run code over the catalog"), tool("wait")]

    config = {"tools": {"toolSearch": True, "codeMode": "auto"}}
    engaged = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config=config, model_compat={"codeMode": "preferred"},
        code_mode_tools_factory=controls, tools_allow=["read"])
    assert engaged.plan.code_mode_controls_enabled
    assert not engaged.plan.tool_search_controls_enabled
    assert engaged.runtime_tool_allowlist == ("read", "exec", "wait")
    assert [t.name for t in engaged.compact_tools(TOOLS).tools] == ["exec", "wait"]
    not_preferred = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config=config, code_mode_tools_factory=controls)
    assert not not_preferred.plan.code_mode_controls_enabled
    assert not_preferred.plan.tool_search_controls_enabled
    no_factory = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config={"tools": {"toolSearch": True, "codeMode": True}})
    assert not no_factory.plan.code_mode_controls_enabled


def test_directory_mode_lists_names_and_hydrates_relevant_tools() -> None:
    runtime = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config={"tools": {"toolSearch": {"mode": "directory"}}})
    surface = runtime.compact_tools(TOOLS, prompt="please fetch https://example.com/page")
    names = [t.name for t in surface.tools]
    assert names[:3] == ["tool_search", "tool_describe", "tool_call"]
    assert "web_fetch" in names and "gh_issues" not in names
    assert surface.directory_prompt is not None
    assert "- gh_issues (github): List GitHub issues" in surface.directory_prompt
    deferred = create_agent_harness_tool_surface_runtime(
        execute_tool=Executor(), config={"tools": {"toolSearch": {"mode": "directory"}}},
        supports_deferred_tool_calls=False)
    assert deferred.plan.tool_search.mode == "tools"
