"""Compaction and pruning settings per agent (`agents.entries.<id>.compaction`,
`.contextPruning`): the agent's keys override `agents.defaults`' key by key, in its turns
and in `compact_session` (docs/compaction.md, "Per agent")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from clawharness.config import ClawConfig, agent_compaction, agent_context_pruning

SUMMARY = "SUMMARY-OF-EARLIER-TURNS"
SCRIPT: dict[str, Any] = {"responses": [
    {"match": "Summarise the conversation", "repeat": True, "text": SUMMARY},
    {"match": "turn", "repeat": True,
     "text": "Noted. " + "This reply is padded to look like a real answer. " * 3},
]}
TIGHT = {"enabled": True, "reserveTokens": 300, "reserveTokensFloor": 0,
         "keepRecentTokens": 600}


def _summaries(server: Any) -> int:
    return sum("Summarise the conversation" in json.dumps(r.body.get("input"))
               for r in server.requests)


def test_an_agents_keys_override_the_defaults_key_by_key() -> None:
    config = ClawConfig.model_validate({"agents": {
        "defaults": {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 500},
                     "contextPruning": {"keepLastAssistants": 5,
                                        "softTrim": {"maxChars": 900, "headChars": 100}}},
        "entries": {"ops": {"compaction": {"reserveTokens": 2000, "enabled": False},
                            "contextPruning": {"softTrim": {"maxChars": 800}}},
                    "plain": {}}}})
    ops = agent_compaction(config.agents, "ops")
    assert (ops.reserve_tokens, ops.enabled, ops.keep_recent_tokens) == (2000, False, 500)
    pruning = agent_context_pruning(config.agents, "ops")
    assert (pruning.soft_trim.max_chars, pruning.soft_trim.head_chars,
            pruning.keep_last_assistants) == (800, 100, 5)
    for agent in ("plain", "main"):  # no keys of its own, or no entry: the defaults
        assert agent_compaction(config.agents, agent) is config.agents.defaults.compaction
        assert agent_context_pruning(config.agents, agent) is \
            config.agents.defaults.context_pruning


def test_an_agents_bad_compaction_key_is_refused_with_its_path() -> None:
    with pytest.raises(ValidationError) as caught:
        ClawConfig.model_validate({"agents": {"entries": {"ops": {
            "compaction": {"reserveTokens": -1}}}}})
    [error] = caught.value.errors()
    assert error["loc"] == ("agents", "entries", "ops", "compaction", "reserveTokens")


async def test_only_the_agent_whose_entry_turns_compaction_on_compacts(
        scripted_host: Any) -> None:
    host, server = await scripted_host(SCRIPT, agents={
        "defaults": {"model": "scripted/m1", "compaction": {"enabled": False}},
        "entries": {"main": {"default": True}, "ops": {"compaction": TIGHT}}})
    model = host.config.models.providers["scripted"].models[0]
    model.context_window, model.max_tokens = 3_000, 200
    for n in range(40):
        result = await host.run_turn("agent:main:s", f"turn {n}: the word is w{n}x")
        assert result.terminal == "ok", result.error
    assert _summaries(server) == 0  # the defaults: compaction off
    for n in range(40):
        result = await host.run_turn("agent:ops:s", f"turn {n}: the word is w{n}x")
        assert result.terminal == "ok", result.error
    assert _summaries(server) > 0  # ops' own key turned it on
    last = json.dumps(server.requests[-1].body.get("input"))
    assert SUMMARY in last and "w0x" not in last


async def test_compact_session_summarises_with_the_agents_own_model(
        scripted_host: Any) -> None:
    host, server = await scripted_host(
        SCRIPT, provider={"models": [{"id": "m1"}, {"id": "summariser"}]},
        agents={"defaults": {"model": "scripted/m1"},
                "entries": {"main": {"default": True},
                            "ops": {"compaction": {"model": "scripted/summariser"}}}})
    for key in ("agent:main:s", "agent:ops:s"):
        for n in range(6):
            await host.run_turn(key, f"turn {n}: the code word is w{n}x")
    assert (await host.compact_session("agent:main:s")).compacted
    assert server.requests[-1].body["model"] == "m1"
    assert (await host.compact_session("agent:ops:s")).compacted
    assert server.requests[-1].body["model"] == "summariser"
