"""What each transport sends: the shapes the OpenAI and Anthropic APIs expect, checked on
the scripted server's recorded requests after a real tool round trip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.types import AttemptParams, ResolvedModel, ToolSpec
from clawharness.harnesses.embedded import OpenClawHarness
from clawharness.testing import ScriptedModelServer
from clawharness.tools.builtin import read_tool
from clawharness.tools.policy import EffectiveToolPolicy

SCRIPT = {"responses": [
    {"tool_calls": [
        {"name": "read", "arguments": {"path": "a.txt"}, "id": "call_A"},
        {"name": "read", "arguments": {"path": "b.txt"}, "id": "call_B"},
    ]},
    {"text": "both read"},
]}


async def round_trip(tmp_path: Path, api: str) -> list[dict[str, Any]]:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    async with ScriptedModelServer(SCRIPT) as server:
        url = server.url if api == "anthropic-messages" else server.base_url_openai
        params = AttemptParams(
            run_id="r", session_key="agent:main:main", session_id="s", agent_id="main",
            prompt="read both", provider="test", model_id="model-x",
            model=ResolvedModel("test", "model-x", api=api, base_url=url, max_tokens=777,
                                params={"temperature": 0.25}),
            workspace_dir=str(tmp_path),
            host_capabilities=HostCapabilities(
                run_id="r", session_key="agent:main:main", workspace_dir=str(tmp_path),
                policy=EffectiveToolPolicy(), approvals=None),
            runtime_plan=None, system_prompt="Be brief.", tools=[read_tool()],
        )
        result = await OpenClawHarness().run_attempt(params)
        assert result.terminal.kind == "ok", result.terminal
        bodies = [r.body for r in server.requests if r.method == "POST"]
        headers = [r.headers for r in server.requests if r.method == "POST"]
    assert len(bodies) == 2
    assert all(h.get("authorization") or h.get("x-api-key") for h in headers)
    return bodies


def read_schema() -> dict[str, Any]:
    spec: ToolSpec = read_tool()
    return dict(spec.parameters)


async def test_openai_responses_request_shape(tmp_path: Path) -> None:
    first, second = await round_trip(tmp_path, "openai-responses")
    assert first["model"] == "model-x"
    assert first["stream"] is True
    assert first["instructions"] == "Be brief."
    assert first["max_output_tokens"] == 777
    assert first["temperature"] == 0.25
    assert first["input"] == [{"role": "user",
                               "content": [{"type": "input_text", "text": "read both"}]}]
    assert first["tools"] == [{"type": "function", "name": "read",
                               "description": read_tool().description,
                               "parameters": read_schema(), "strict": False}]
    follow = second["input"]
    assert follow[0] == first["input"][0]
    assert follow[1] == {"type": "function_call", "call_id": "call_A", "name": "read",
                         "arguments": '{"path": "a.txt"}'}
    assert follow[2]["call_id"] == "call_B"
    assert follow[3]["type"] == "function_call_output" and follow[3]["call_id"] == "call_A"
    assert "alpha" in follow[3]["output"]
    assert follow[4]["call_id"] == "call_B" and "beta" in follow[4]["output"]


async def test_openai_chat_request_shape(tmp_path: Path) -> None:
    first, second = await round_trip(tmp_path, "openai-completions")
    assert first["model"] == "model-x"
    assert first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}
    assert first["max_tokens"] == 777
    assert first["temperature"] == 0.25
    assert first["messages"] == [{"role": "system", "content": "Be brief."},
                                 {"role": "user", "content": "read both"}]
    assert first["tools"] == [{"type": "function", "function": {
        "name": "read", "description": read_tool().description, "parameters": read_schema()}}]
    follow = second["messages"]
    assert follow[2]["role"] == "assistant"
    assert [c["id"] for c in follow[2]["tool_calls"]] == ["call_A", "call_B"]
    assert follow[2]["tool_calls"][0]["function"] == {"name": "read",
                                                      "arguments": '{"path": "a.txt"}'}
    assert follow[3]["role"] == "tool" and follow[3]["tool_call_id"] == "call_A"
    assert "alpha" in follow[3]["content"]
    assert follow[4]["tool_call_id"] == "call_B" and "beta" in follow[4]["content"]


async def test_anthropic_messages_request_shape(tmp_path: Path) -> None:
    first, second = await round_trip(tmp_path, "anthropic-messages")
    assert first["model"] == "model-x"
    assert first["stream"] is True
    assert first["system"] == "Be brief."
    assert first["max_tokens"] == 777
    assert first["temperature"] == 0.25
    assert first["messages"] == [{"role": "user",
                                  "content": [{"type": "text", "text": "read both"}]}]
    assert first["tools"] == [{"name": "read", "description": read_tool().description,
                               "input_schema": read_schema()}]
    follow = second["messages"]
    assert [m["role"] for m in follow] == ["user", "assistant", "user"]
    assert follow[1]["content"] == [
        {"type": "tool_use", "id": "call_A", "name": "read", "input": {"path": "a.txt"}},
        {"type": "tool_use", "id": "call_B", "name": "read", "input": {"path": "b.txt"}},
    ]
    # both results travel in one user turn, as the API requires
    results = follow[2]["content"]
    assert [r["type"] for r in results] == ["tool_result", "tool_result"]
    assert [r["tool_use_id"] for r in results] == ["call_A", "call_B"]
    assert "alpha" in results[0]["content"] and "beta" in results[1]["content"]


@pytest.mark.parametrize("api", ["openai-responses", "openai-completions", "anthropic-messages"])
async def test_final_answer_usage_is_reported(tmp_path: Path, api: str) -> None:
    script = {"responses": [{"text": "hi", "usage": {"input_tokens": 11, "output_tokens": 7}}]}
    async with ScriptedModelServer(script) as server:
        from clawharness.providers import ModelRequest, Usage, transport_for

        url = server.url if api == "anthropic-messages" else server.base_url_openai
        transport = transport_for(ResolvedModel("t", "m", api=api, base_url=url), "key")
        events = [e async for e in transport.stream(ModelRequest(
            "m", None, [{"role": "user", "content": [{"type": "text", "text": "x"}]}]))]
    assert events[-1].usage == Usage.counted(11, 7, 0)  # type: ignore[union-attr]
