"""Thinking levels end to end: what the provider request carried, as the scripted model
server recorded it (issue 33 §4), for each place a level can be set and each API."""

from __future__ import annotations

from typing import Any

from clawharness.testing import ScriptedModelServer

REPLIES = {"responses": [{"text": "ok"}] * 8}


def body(server: ScriptedModelServer) -> dict[str, Any]:
    sent: dict[str, Any] = server.requests[-1].to_json()["body"]
    return sent


async def test_message_over_session_over_agent_over_default(scripted_host: Any) -> None:
    host, server = await scripted_host(REPLIES, agents={
        "defaults": {"model": "scripted/m1", "thinkingDefault": "medium"},
        "entries": {"main": {"default": True}, "deep": {"thinkingDefault": "high"}}})
    await host.run_turn("agent:main:a", "hi")
    assert body(server)["reasoning"] == {"effort": "medium"}  # the default
    await host.run_turn("agent:deep:a", "hi")
    assert body(server)["reasoning"] == {"effort": "high"}  # the agent's
    await host.ensure_session("agent:deep:a", meta={"thinkingLevel": "low"})
    await host.run_turn("agent:deep:a", "hi")
    assert body(server)["reasoning"] == {"effort": "low"}  # the session's
    result = await host.run_turn("agent:deep:a", "hi", thinking="minimal")
    assert body(server)["reasoning"] == {"effort": "minimal"}  # this message's
    assert result.warnings == ()
    await host.run_turn("agent:deep:a", "hi")
    assert body(server)["reasoning"] == {"effort": "low"}  # the message's was for it only


async def test_no_level_anywhere_sends_none(scripted_host: Any) -> None:
    host, server = await scripted_host(REPLIES)
    await host.run_turn("plain", "hi")
    assert "reasoning" not in body(server)


async def test_each_api_carries_the_level_its_own_way(scripted_host: Any) -> None:
    # the fixture's server answers every API; the providers below all point at it
    host, server = await scripted_host(REPLIES)
    await host.close()
    providers = {
        "chat": {"baseUrl": server.base_url_openai, "api": "openai-completions",
                 "apiKey": "k", "models": [{"id": "gpt-5.1"}]},
        "claude": {"baseUrl": server.url, "api": "anthropic-messages", "apiKey": "k",
                   "models": [{"id": "claude-sonnet-4-5", "maxTokens": 4096}]},
        "ollama": {"baseUrl": server.base_url_openai, "api": "openai-completions",
                   "apiKey": "k", "models": [{"id": "qwen3:8b"}]},
        "old": {"baseUrl": server.base_url_openai, "api": "openai-responses", "apiKey": "k",
                "models": [{"id": "gpt-4o"}]},
    }
    host, server2 = await scripted_host(REPLIES, models={"providers": providers}, agents={
        "defaults": {"model": "chat/gpt-5.1", "thinkingDefault": "medium"}})
    del server2
    await host.run_turn("c", "hi")
    assert body(server)["reasoning_effort"] == "medium"
    await host.run_turn("a", "hi", model="claude/claude-sonnet-4-5")
    sent = body(server)
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 10240}
    assert sent["max_tokens"] > 10240  # room for the answer beside the budget
    await host.run_turn("a", "hi", model="claude/claude-sonnet-4-5", thinking="off")
    assert body(server)["thinking"] == {"type": "disabled"}
    result = await host.run_turn("o", "hi", model="ollama/qwen3:8b", thinking="high")
    assert body(server)["think"] is True
    assert any("on or off" in w for w in result.warnings)
    clamped = await host.run_turn("g", "hi", model="old/gpt-4o")
    assert "reasoning" not in body(server)
    assert any("medium is not available" in w and "using off" in w for w in clamped.warnings)
    x = await host.run_turn("c", "hi", thinking="xhigh")
    assert body(server)["reasoning_effort"] == "high"
    assert any("xhigh is not available" in w and "using high" in w for w in x.warnings)
