"""Compaction against a real model (SmolLM2-135M on llama.cpp): a fact stated before the
compaction reaches the model inside the summarising request, and every later prompt
carries the summary the model wrote. Asserted on what the model was sent (recorded by the
front before llama.cpp) and what the host stored, never on the model's wording."""

from __future__ import annotations

import json
from typing import Any

import pytest
from real_rig import RealHostFactory

from clawharness.context import SUMMARY_ROLE

pytestmark = pytest.mark.real_model

NO_TOOLS = {"deny": ["*"]}
FACT = "My name is Zorblax and my locker code is 4417."
#: a budget small enough that a few turns overflow it (the server's window is larger)
WINDOW = 900


def _sent(body: dict[str, Any]) -> str:
    return json.dumps(body.get("messages"), ensure_ascii=False)


def _is_summary_request(body: dict[str, Any]) -> bool:
    return "Summarise the conversation" in _sent(body)


async def test_a_fact_before_compaction_reaches_the_model_through_the_summary(
        make_real_host: RealHostFactory) -> None:
    async with make_real_host(tools=NO_TOOLS) as rig:
        model = rig.host.config.models.providers["local"].models[0]
        model.context_window = WINDOW
        rig.host.config.agents.defaults.compaction.reserve_tokens_floor = 0
        rig.host.config.agents.defaults.compaction.reserve_tokens = 128
        key = "agent:main:long"
        result = await rig.turn(key, FACT)
        assert result.terminal == "ok", result.error
        filler = "Tell me one short fact about the sea. " * 6
        for n in range(12):
            result = await rig.turn(key, f"Question {n}: {filler}")
            assert result.terminal == "ok", result.error
            if any(_is_summary_request(r.body) for r in rig.model.chat_requests()):
                break
        bodies = [r.body for r in rig.model.chat_requests()]
        summarising = [b for b in bodies if _is_summary_request(b)]
        assert summarising, "the session never compacted"
        # the summarising call: the host's isolated completion, no tools, the fact in it
        first = summarising[0]
        assert "tools" not in first
        assert FACT in _sent(first)
        entries = await rig.host.history(key)
        (summary,) = [e for e in entries if e.role == SUMMARY_ROLE]
        assert summary.content["summary"].strip()
        # every prompt after it starts from the summary the model wrote, as the model got it
        after = bodies[bodies.index(first) + 1:]
        turn_prompts = [b for b in after if not _is_summary_request(b)]
        assert turn_prompts
        for body in turn_prompts:
            messages = body["messages"]
            assert messages[0]["role"] == "system"
            assert messages[1]["role"] == "user"
            assert summary.content["summary"] in str(messages[1]["content"])
            assert FACT not in _sent(body)  # the original turn is summarised, not resent
        # nothing stored was lost: the fact's turn is still in the transcript and in search
        assert entries[0].role == "user" and entries[0].text == FACT
        hits = await rig.host.search("Zorblax", session_key=key)
        assert any(h.seq == entries[0].seq for h in hits)

        # the session goes on past the compaction, within the window
        result = await rig.turn(key, "What is my locker code?")
        assert result.terminal == "ok", result.error
        last = rig.model.chat_requests()[-1].body
        assert summary.content["summary"] in _sent(last)
