"""Thinking levels: resolution (message > session > agent > default) and what each
provider's request carries, clamped with a note where the model cannot take a level."""

from __future__ import annotations

import pytest

from clawharness.harness.types import ResolvedModel
from clawharness.models.thinking import (
    ResolvedThinking,
    ThinkingLevelError,
    apply_thinking,
    codex_effort,
    parse_thinking_level,
    plan_thinking,
    resolve_thinking,
)


def test_the_first_level_set_wins_from_message_to_default() -> None:
    assert resolve_thinking(message="high", session="low", agent="off",
                            default="medium") == ResolvedThinking("high", "message")
    assert resolve_thinking(session="low", agent="off") == ResolvedThinking("low", "session")
    assert resolve_thinking(agent="off", default="medium") == ResolvedThinking("off", "agent")
    assert resolve_thinking(default="medium") == ResolvedThinking("medium", "default")
    assert resolve_thinking() == ResolvedThinking(None, None)


def test_levels_and_their_aliases_parse_and_others_are_refused() -> None:
    assert [parse_thinking_level(x) for x in ("off", " Medium ", "x-high", "extra high",
                                              "max", "on", "none")] == [
        "off", "medium", "xhigh", "xhigh", "high", "low", "off"]
    with pytest.raises(ThinkingLevelError, match="off, minimal, low, medium, high, xhigh"):
        parse_thinking_level("big")



def test_openai_efforts_per_model_family() -> None:
    responses = plan_thinking(ResolvedThinking("high", "agent"), api="openai-responses",
                              provider="openai", model_id="gpt-5.2")
    assert responses.params == {"reasoning": {"effort": "high"}} and responses.note is None
    chat = plan_thinking(ResolvedThinking("low", "agent"), api="openai-completions",
                         provider="openai", model_id="gpt-5.1")
    assert chat.params == {"reasoning_effort": "low"}
    off = plan_thinking(ResolvedThinking("off", "agent"), api="openai-responses",
                        provider="openai", model_id="gpt-5.1")
    assert off.params == {"reasoning": {"effort": "none"}}
    clamped = plan_thinking(ResolvedThinking("xhigh", "message"), api="openai-responses",
                            provider="openai", model_id="gpt-5.1")
    assert (clamped.requested, clamped.level) == ("xhigh", "high")
    assert clamped.params == {"reasoning": {"effort": "high"}}
    assert clamped.note is not None and "using high" in clamped.note
    o3 = plan_thinking(ResolvedThinking("off", "agent"), api="openai-responses",
                       provider="openai", model_id="o3")
    assert o3.level == "low" and o3.note is not None
    old = plan_thinking(ResolvedThinking("high", "agent"), api="openai-completions",
                        provider="openai", model_id="gpt-4o")
    assert (old.level, dict(old.params)) == ("off", {}) and old.note is not None
    local = plan_thinking(ResolvedThinking("off", "agent"), api="openai-completions",
                          provider="local", model_id="qwen3")
    assert (local.level, dict(local.params), local.note) == ("off", {}, None)


def test_anthropic_budgets_leave_room_for_the_answer() -> None:
    medium = plan_thinking(ResolvedThinking("medium", "default"), api="anthropic-messages",
                           provider="anthropic", model_id="claude-sonnet-4-5",
                           max_tokens=8192)
    assert medium.params == {"thinking": {"type": "enabled", "budget_tokens": 10240}}
    assert medium.max_tokens == 10240 + 8192
    off = plan_thinking(ResolvedThinking("off", "default"), api="anthropic-messages",
                        provider="anthropic", model_id="claude-opus-4-1")
    assert off.params == {"thinking": {"type": "disabled"}}
    xhigh = plan_thinking(ResolvedThinking("xhigh", "default"), api="anthropic-messages",
                          provider="anthropic", model_id="claude-opus-4-1", max_tokens=64000)
    assert xhigh.level == "high" and xhigh.max_tokens is None and xhigh.note


def test_ollama_think_and_a_model_that_does_not_reason() -> None:
    oss = plan_thinking(ResolvedThinking("medium", "agent"), api="openai-completions",
                        provider="ollama", model_id="gpt-oss:20b")
    assert oss.params == {"extraBody": {"think": "medium"}}
    binary = plan_thinking(ResolvedThinking("high", "agent"), api="openai-completions",
                           provider="local", model_id="qwen3:8b",
                           base_url="http://127.0.0.1:11434/v1")
    assert binary.params == {"extraBody": {"think": True}} and binary.level == "low"
    assert binary.note is not None and "on or off" in binary.note
    flagged = plan_thinking(ResolvedThinking("high", "agent"), api="openai-responses",
                            provider="p", model_id="m", reasoning=False)
    assert (flagged.level, dict(flagged.params)) == ("off", {})


def test_apply_replaces_configured_reasoning_and_keeps_extra_body() -> None:
    model = ResolvedModel("ollama", "qwen3", params={"reasoning_effort": "low", "temperature": 0,
                                                     "extraBody": {"keep_alive": "5m"}})
    planned = plan_thinking(ResolvedThinking("off", "agent"), api="openai-completions",
                            provider="ollama", model_id="qwen3")
    applied = apply_thinking(model, planned)
    assert applied.params == {"temperature": 0,
                              "extraBody": {"keep_alive": "5m", "think": False}}
    assert apply_thinking(model, plan_thinking(ResolvedThinking(), api="x", provider="p",
                                               model_id="m")) is model
    assert [codex_effort(x) for x in ("off", "medium", "xhigh", None)] == [
        "minimal", "medium", "xhigh", None]
