"""Tools the caller runs: the turn stops at their calls; the next turn brings the results
and continues the same session (real host, built-in runtime, scripted model)."""

from __future__ import annotations

from typing import Any

import host_fake_plugins as fakes
import pytest

from clawharness.attempt.turn import TurnOptions
from clawharness.errors import ClientToolError, ClientToolsUnsupportedError
from clawharness.harness import CallerToolResult, caller_tool

WEATHER = caller_tool("get_weather", "The weather in a city",
                      {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]})
KEY = "agent:main:caller"


def roles(entries: list[Any]) -> list[str]:
    return [e.role for e in entries]


async def test_a_caller_tool_call_ends_the_turn_and_its_result_continues_it(
        scripted_host: Any) -> None:
    script = {"responses": [
        {"text": "Let me look.",
         "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "c1"}]},
        {"match": "sunny, 21", "text": "It is sunny in Oslo."},
    ]}
    host, model = await scripted_host(script)
    first = await host.run_turn(KEY, "weather in Oslo?",
                                TurnOptions(caller_tools=(WEATHER,)))
    assert first.terminal == "ok"
    assert first.client_tool_calls == ({"id": "c1", "name": "get_weather",
                                        "arguments": {"city": "Oslo"}},)
    assert first.text == "Let me look."
    offered = [t["name"] for t in model.requests[0].body["tools"]]
    assert "get_weather" in offered and "exec" in offered
    assert roles(await host.history(KEY)) == ["user", "assistant"]

    second = await host.run_turn(KEY, "", TurnOptions(
        caller_tools=(WEATHER,), caller_results=(CallerToolResult("c1", "sunny, 21"),)))
    assert (second.terminal, second.text) == ("ok", "It is sunny in Oslo.")
    assert second.client_tool_calls == ()
    history = await host.history(KEY)
    assert roles(history) == ["user", "assistant", "toolResult", "assistant"]
    result = history[2].content
    assert (result["toolCallId"], result["toolName"]) == ("c1", "get_weather")
    assert result["content"] == [{"type": "text", "text": "sunny, 21"}]
    # the model saw its call answered, not a synthesized "no result" stand-in
    sent = str(model.requests[1].body["input"])
    assert "sunny, 21" in sent and "No result was recorded" not in sent


async def test_host_tools_of_the_same_reply_run_and_the_caller_tools_wait(
        scripted_host: Any) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": "echo host-ran"}, "id": "h1"},
                        {"name": "get_weather", "arguments": {"city": "Rome"}, "id": "c2"}]},
        {"match": "cloudy", "text": "Done."},
    ]}
    host, _model = await scripted_host(script, tools={"exec": {"security": "full",
                                                               "ask": "off"}})
    first = await host.run_turn(KEY, "both", TurnOptions(caller_tools=(WEATHER,)))
    assert [c["id"] for c in first.client_tool_calls] == ["c2"]
    assert [(c.tool_name, not c.is_error) for c in first.tool_calls] == [("exec", True)]
    assert roles(await host.history(KEY)) == ["user", "assistant", "toolResult"]
    second = await host.run_turn(KEY, "", TurnOptions(
        caller_results=(CallerToolResult("c2", "cloudy"),)))
    assert second.text == "Done."


@pytest.mark.parametrize(("results", "says"), [
    ((CallerToolResult("nope", "x"),), "'nope' is not waiting for a result"),
    ((), None),
    ((CallerToolResult("c1", "a"), CallerToolResult("c1", "b")), "two results"),
])
async def test_results_must_answer_the_pending_calls(
        scripted_host: Any, results: tuple[CallerToolResult, ...], says: str | None) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "c1"},
                        {"name": "get_weather", "arguments": {"city": "Bergen"}, "id": "c3"}]},
        {"text": "fine"}]}
    host, _model = await scripted_host(script)
    await host.run_turn(KEY, "weather?", TurnOptions(caller_tools=(WEATHER,)))
    if says is None:  # one of two: the other is still owed
        results, says = (CallerToolResult("c1", "rain"),), "'c3'"
    with pytest.raises(ClientToolError, match=says):
        await host.run_turn(KEY, "", TurnOptions(caller_results=results))
    # nothing was stored: the session still waits for both results
    assert roles(await host.history(KEY)) == ["user", "assistant"]


async def test_a_caller_tool_may_not_shadow_a_host_tool(scripted_host: Any) -> None:
    host, model = await scripted_host({"responses": [{"text": "never"}]})
    shadow = caller_tool("exec", "mine", {"type": "object"})
    with pytest.raises(ClientToolError, match="'exec' has the name of one of the agent's"):
        await host.run_turn(KEY, "hi", TurnOptions(caller_tools=(shadow,)))
    assert model.requests == []


async def test_a_native_runtime_refuses_the_callers_tools_before_anything_runs(
        scripted_host: Any) -> None:
    fakes.CALLS["finalize"] = 0
    host, _model = await scripted_host(
        {"responses": []}, plugins={"load": ["host_fake_plugins:entry"]},
        agents={"defaults": {"model": "scripted/m1", "models": {
            "scripted/m1": {"agentRuntime": {"id": "finalizing"}}}}})
    with pytest.raises(ClientToolsUnsupportedError, match="runs 'finalizing'"):
        await host.run_turn(KEY, "hi", TurnOptions(caller_tools=(WEATHER,)))
    assert fakes.CALLS["finalize"] == 0
    assert await host.list_sessions() == []
