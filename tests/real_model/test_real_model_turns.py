"""Turns against a real model (SmolLM2-135M on llama.cpp), through the whole host.

Each test asserts what the host did: what it sent the model (recorded by the front before
llama.cpp), what it stored, which tools it ran. None asserts the model's wording. The
model is greedy and every request is evaluated whole (no prompt cache), so the model's
choices (to call `read`, to answer after the result) are the same every run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from real_rig import RealHostFactory, RealRig

from clawharness.models.routes import resolve_route
from clawharness.names.model_refs import parse_model_ref
from clawharness.testing.real_model import CONTEXT_WINDOW, RealModelServer
from clawharness.testing.real_model.session import (
    READ_REQUEST,
    SEED_ANSWER,
    SEED_REQUEST,
    TOOLS_POLICY,
    WORKSPACE_FILES,
)

pytestmark = pytest.mark.real_model

NO_TOOLS = {"deny": ["*"]}


def _entries_by_role(entries: list[Any]) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for entry in entries:
        found.setdefault(entry.role, []).append(entry)
    return found


async def test_a_plain_turn_reaches_the_model_and_is_stored(
        make_real_host: RealHostFactory) -> None:
    async with make_real_host(tools=NO_TOOLS) as rig:
        result = await rig.turn("agent:main:plain", "What is the capital of France?")

        assert result.terminal == "ok", result.error
        assert result.text.strip()
        assert result.tool_calls == ()
        (request,) = rig.model.chat_requests()
        body = request.body
        # what the host sent: its system prompt, the user's words, the model's params
        assert body["model"] == rig.model.model_id
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["messages"][1]["content"] == "What is the capital of France?"
        assert "tools" not in body  # the tool policy denies every tool
        assert body["temperature"] == 0 and body["seed"] == 42 and body["max_tokens"] == 64
        # what the host stored: the user's message, then the model's answer as it came
        entries = await rig.host.history("agent:main:plain")
        roles = _entries_by_role(entries)
        assert roles["user"][0].text == "What is the capital of France?"
        assert roles["assistant"][-1].text == result.text
        # the usage the host reports is the server's own count
        (exchange,) = rig.model.exchanges
        usage = next(e["usage"] for e in exchange.events() if e.get("usage"))
        assert result.usage is not None
        assert result.usage.input == usage["prompt_tokens"]
        assert result.usage.output == usage["completion_tokens"]


async def test_a_streamed_reply_reaches_the_caller_piece_by_piece(
        make_real_host: RealHostFactory) -> None:
    partials: list[str] = []
    async with make_real_host(tools=NO_TOOLS) as rig:
        result = await rig.turn("agent:main:stream", "Tell me about the sea.",
                                on_partial_reply=partials.append)

        assert result.terminal == "ok", result.error
        (exchange,) = rig.model.exchanges
        assert exchange.streamed
        deltas = [choice["delta"]["content"] for event in exchange.events()
                  for choice in event.get("choices") or ()
                  if (choice.get("delta") or {}).get("content")]
        assert len(deltas) > 1, "llama.cpp streamed the answer in one piece"
        # the caller saw the answer grow with every delta the server sent, in order
        assert len(partials) == len(deltas)
        assert partials == ["".join(deltas[:i + 1]) for i in range(len(deltas))]
        assert partials[-1] == result.text


async def test_the_model_calls_a_host_tool_and_gets_its_result(
        make_real_host: RealHostFactory) -> None:
    key = "agent:main:tools"
    async with make_real_host(tools=TOOLS_POLICY) as rig:
        await rig.seed_tool_history(key)
        result = await rig.turn(key, READ_REQUEST)

        assert result.terminal == "ok", result.error
        assert [(c.tool_name, not c.is_error) for c in result.tool_calls] == [("read", True)]
        first, second = rig.model.chat_requests()
        # the model saw only the tools the policy allows, and the seeded history
        assert sorted(t["function"]["name"] for t in first.body["tools"]) == ["ls", "read"]
        assert first.body["parallel_tool_calls"] is False
        history = first.body["messages"]
        assert [m["role"] for m in history] == [
            "system", "user", "assistant", "tool", "assistant", "user"]
        assert history[1]["content"] == SEED_REQUEST
        assert history[2]["tool_calls"][0]["function"]["name"] == "ls"
        assert history[3]["content"].split() == sorted(WORKSPACE_FILES)  # the real ls ran
        assert history[4]["content"] == SEED_ANSWER
        # the model answered with a call; the host ran it and sent the result back
        (call,) = second.body["messages"][-2]["tool_calls"]
        assert call["function"]["name"] == "read"
        assert json.loads(call["function"]["arguments"])["path"] == "todo.txt"
        tool_message = second.body["messages"][-1]
        assert tool_message["role"] == "tool"
        assert tool_message["tool_call_id"] == call["id"]
        assert tool_message["content"].strip() == WORKSPACE_FILES["todo.txt"].strip()
        assert rig.model.exchanges[1].tool_call_names() == []  # it answered in words
        # the transcript keeps the call and its result, in order, after the seeded turn
        entries = await rig.host.history(key)
        calls = [block for entry in entries if entry.role == "assistant"
                 for block in entry.content["content"] if block.get("type") == "toolCall"]
        assert [c["name"] for c in calls] == ["ls", "read"]
        results = [entry for entry in entries if entry.role == "toolResult"]
        assert WORKSPACE_FILES["todo.txt"].strip() in (results[-1].text or "")
        assert entries[-1].role == "assistant" and entries[-1].text == result.text


async def test_a_prompt_over_the_context_window_is_a_context_overflow(
        real_host: RealRig) -> None:
    # 8192 tokens of context: a prompt well past it is refused by llama.cpp with its own
    # wording, which the host must still classify (compaction will act on it)
    result = await real_host.turn("agent:main:overflow", "word " * 9000)

    assert result.terminal == "failed"
    assert result.error_type == "context_overflow", result.error
    (exchange,) = real_host.model.exchanges
    assert exchange.status == 400
    error = json.loads(exchange.response)["error"]
    assert error["type"] == "exceed_context_size_error"
    assert error["n_ctx"] == 8192


async def test_the_real_host_gives_turns_the_models_context_window(real_host: RealRig) -> None:
    # what a compaction budget will start from: the route a turn resolves for the model
    route = resolve_route(real_host.host.config, parse_model_ref(real_host.model_ref), env={})
    assert route.model.context_window == CONTEXT_WINDOW == 8192
    assert route.model.max_tokens == 64
    assert route.model.base_url == real_host.model.base_url_openai


async def test_a_turn_over_the_responses_api(make_real_host: RealHostFactory,
                                             real_model: RealModelServer) -> None:
    # llama.cpp serves the Responses API too: the host's other OpenAI transport
    provider = {**real_model.provider_config(), "api": "openai-responses"}
    async with make_real_host(tools=NO_TOOLS,
                              models={"providers": {"local": provider}}) as rig:
        result = await rig.turn("agent:main:responses", "What is the capital of France?")

        assert result.terminal == "ok", result.error
        (request,) = rig.model.requests
        assert request.path == "/v1/responses"
        assert request.body["input"][-1]["content"][0]["text"] == "What is the capital of France?"
        entries = await rig.host.history("agent:main:responses")
        assert entries[-1].role == "assistant" and entries[-1].text == result.text
        assert result.text.strip()
