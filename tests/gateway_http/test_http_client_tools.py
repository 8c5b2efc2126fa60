"""The client's function tools over both endpoints, with the real `openai` SDK: the turn
stops at their calls, the client's results continue the same session."""

from __future__ import annotations

import json
from typing import Any

import httpx
import openai
import pytest
from http_support import TOKEN, Served, ServeFactory

WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}},
                  "required": ["city"]}
CHAT_TOOLS: Any = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": WEATHER_SCHEMA}}]
RESPONSES_TOOLS: Any = [{"type": "function", "name": "get_weather",
                         "description": "The weather in a city", "parameters": WEATHER_SCHEMA}]
SCRIPT = {"responses": [
    {"match": "weather", "tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_oslo"}]},
    {"match": "sunny", "text": "It is sunny in Oslo."},
]}
ASK: Any = [{"role": "user", "content": "What is the weather in Oslo?"}]


def sdk(served: Served) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN)


async def transcript_roles(served: Served, key: str) -> list[str]:
    return [e.role for e in await served.host.history(key)]


async def test_chat_stops_at_the_clients_call_and_its_result_continues_the_session(
        serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        client = sdk(served)
        raw = await client.chat.completions.with_raw_response.create(
            model="openclaw", messages=ASK, tools=CHAT_TOOLS)
        first = raw.parse()
        choice = first.choices[0]
        assert choice.finish_reason == "tool_calls"
        call = choice.message.tool_calls[0]  # type: ignore[index]
        assert (call.id, call.function.name) == ("call_oslo", "get_weather")  # type: ignore[union-attr]
        assert json.loads(call.function.arguments) == {"city": "Oslo"}  # type: ignore[union-attr]
        assert choice.message.content is None
        key = raw.headers["x-openclaw-session-key"]
        assert await transcript_roles(served, key) == ["user", "assistant"]
        # the client runs its tool and sends the whole conversation back, statelessly
        history = [*ASK, choice.message.model_dump(exclude_none=True),
                   {"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 C"}]
        raw2 = await client.chat.completions.with_raw_response.create(
            model="openclaw", messages=history, tools=CHAT_TOOLS)
        second = raw2.parse()
        assert second.choices[0].message.content == "It is sunny in Oslo."
        assert second.choices[0].finish_reason == "stop"
        assert raw2.headers["x-openclaw-session-key"] == key
        assert await transcript_roles(served, key) == [
            "user", "assistant", "toolResult", "assistant"]
        assert len(await served.host.list_sessions()) == 1


async def test_chat_streams_the_clients_call_and_the_continuation(serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        client = sdk(served)
        stream = await client.chat.completions.create(
            model="openclaw", messages=ASK, tools=CHAT_TOOLS, user="streamer", stream=True)
        chunks = [c async for c in stream]
        assert chunks[-1].choices[0].finish_reason == "tool_calls"
        deltas = [tc for c in chunks for tc in (c.choices[0].delta.tool_calls or [])]
        assert [(d.index, d.id, d.function.name) for d in deltas] == [  # type: ignore[union-attr]
            (0, "call_oslo", "get_weather")]
        assert json.loads(deltas[0].function.arguments) == {"city": "Oslo"}  # type: ignore[union-attr, arg-type]
        # the session is named by `user`: the result alone continues it
        stream = await client.chat.completions.create(
            model="openclaw", user="streamer", stream=True, tools=CHAT_TOOLS, messages=[
                {"role": "tool", "tool_call_id": "call_oslo", "content": "sunny"}])
        text = "".join([c.choices[0].delta.content or "" async for c in stream])
        assert text == "It is sunny in Oslo."
        assert await transcript_roles(served, "agent:main:openai-user:streamer") == [
            "user", "assistant", "toolResult", "assistant"]


async def test_responses_function_call_then_output_with_previous_response_id(
        serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        client = sdk(served)
        first = await client.responses.create(model="openclaw", input=ASK[0]["content"],
                                              tools=RESPONSES_TOOLS)
        calls = [item for item in first.output if item.type == "function_call"]
        assert [(c.call_id, c.name) for c in calls] == [("call_oslo", "get_weather")]
        assert first.status == "completed" and first.output_text == ""
        second = await client.responses.create(
            model="openclaw", previous_response_id=first.id, tools=RESPONSES_TOOLS,
            input=[{"type": "function_call_output", "call_id": "call_oslo",
                    "output": "sunny"}])
        assert second.output_text == "It is sunny in Oslo."
        assert len(await served.host.list_sessions()) == 1


async def test_responses_streams_the_call_and_continues_from_the_full_history(
        serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        client = sdk(served)
        async with client.responses.stream(model="openclaw", input=ASK,
                                           tools=RESPONSES_TOOLS) as stream:
            kinds = [event.type async for event in stream]
            first = await stream.get_final_response()
        assert "response.function_call_arguments.done" in kinds
        assert "response.output_text.delta" not in kinds
        call = next(item for item in first.output if item.type == "function_call")
        assert json.loads(call.arguments) == {"city": "Oslo"}
        # no previous_response_id: the full history, as the Agents SDK sends it
        history: Any = [*ASK, call.model_dump(exclude_none=True),
                        {"type": "function_call_output", "call_id": call.call_id,
                         "output": "sunny"}]
        async with client.responses.stream(model="openclaw", input=history,
                                           tools=RESPONSES_TOOLS) as stream:
            second = await stream.get_final_response()
        assert second.output_text == "It is sunny in Oslo."
        assert len(await served.host.list_sessions()) == 1


async def test_the_hosts_own_tool_calls_are_shown_when_asked(serve: ServeFactory) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": "echo from-the-host"},
                         "id": "h1"}]},
        {"text": "The host said hello."}]}
    async with serve(script) as served:
        answer = await sdk(served).responses.create(
            model="openclaw", input="run it",
            extra_headers={"x-openclaw-host-tool-calls": "include"})
        kinds = [item.type for item in answer.output]
        assert kinds == ["message", "mcp_call"]
        host = answer.output[1]
        assert (host.name, host.server_label, host.status) == (  # type: ignore[union-attr]
            "exec", "openclaw", "completed")
        assert "from-the-host" in (host.output or "")  # type: ignore[union-attr]
        assert json.loads(host.arguments) == {"command": "echo from-the-host"}  # type: ignore[union-attr]
        plain = await sdk(served).responses.create(model="openclaw", input="again")
        assert [item.type for item in plain.output] == ["message"]


@pytest.mark.parametrize("results", [
    [{"type": "function_call_output", "call_id": "call_other", "output": "x"}],
])
async def test_a_result_for_a_call_that_is_not_pending_is_refused(
        serve: ServeFactory, results: list[dict[str, Any]]) -> None:
    async with serve(SCRIPT) as served, httpx.AsyncClient() as http:
        auth = {"authorization": f"Bearer {TOKEN}"}
        first = await http.post(f"{served.v1}/responses", headers=auth, json={
            "model": "openclaw", "input": "weather?", "tools": RESPONSES_TOOLS})
        refused = await http.post(f"{served.v1}/responses", headers=auth, json={
            "model": "openclaw", "previous_response_id": first.json()["id"],
            "tools": RESPONSES_TOOLS, "input": results})
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert error["code"] == "client_tool_invalid"
        assert "'call_other' is not waiting for a result" in error["message"]
        assert "'call_oslo'" in error["message"]


async def test_a_client_tool_named_like_a_host_tool_is_refused(serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        with pytest.raises(openai.BadRequestError) as refused:
            await sdk(served).chat.completions.create(
                model="openclaw", messages=ASK, tools=[{"type": "function", "function": {
                    "name": "exec", "parameters": {"type": "object"}}}])
        assert "'exec' has the name of one of the agent's own tools" in refused.value.message
        assert served.model.requests == []


async def test_a_keyed_request_that_stopped_at_a_call_replays_the_call(
        serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        client = sdk(served)
        headers = {"Idempotency-Key": "tool-turn"}
        first = await client.chat.completions.create(
            model="openclaw", messages=ASK, tools=CHAT_TOOLS, extra_headers=headers)
        again = await client.chat.completions.with_raw_response.create(
            model="openclaw", messages=ASK, tools=CHAT_TOOLS, extra_headers=headers)
        replayed = again.parse()
        assert again.headers["idempotent-replayed"] == "true"
        assert replayed.choices[0].finish_reason == "tool_calls"
        assert replayed.choices[0].message.tool_calls == first.choices[0].message.tool_calls
        assert len(served.model.requests) == 1


async def test_chat_shows_the_hosts_own_calls_when_asked(serve: ServeFactory) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": "exit 3"}, "id": "h2"}]},
        {"text": "It failed."}]}
    async with serve(script) as served:
        answer = await sdk(served).chat.completions.create(
            model="openclaw", messages=[{"role": "user", "content": "run"}],
            extra_headers={"x-openclaw-host-tool-calls": "include"})
        message = answer.choices[0].message
        assert message.content == "It failed."
        shown = (message.model_extra or {})["openclaw_host_tool_calls"]
        assert [(c["id"], c["name"], c["isError"]) for c in shown] == [("h2", "exec", True)]
