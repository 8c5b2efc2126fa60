"""An HTTP turn is a normal turn: tool policy asks for approval, and an operator connected
over the WebSocket protocol answers it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import openai
import pytest
from http_support import TOKEN, ServeFactory

from clawharness.gateway.client import GatewayRequestError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))
from gateway_support import next_event

SCRIPT = {"responses": [
    {"tool_calls": [{"name": "exec", "arguments": {"command": "echo via-http"},
                     "id": "call_h"}]},
    {"text": "Approved over the socket."},
]}


async def test_an_http_turn_asks_a_websocket_operator_and_its_answer_decides(
        serve: ServeFactory) -> None:
    tools = {"exec": {"security": "full", "ask": "always"}}
    async with serve(SCRIPT, tools=tools) as served:
        operator = await served.approver()
        async with operator:
            events = operator.events()
            sdk = openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN, max_retries=0)
            answer = asyncio.create_task(sdk.chat.completions.create(
                model="openclaw", user="approver",
                messages=[{"role": "user", "content": "run it"}]))
            asked = await next_event(events, lambda f: f["event"] == "plugin.approval.requested",
                                     timeout=20)
            assert asked["payload"]["request"]["toolName"] == "exec"
            await operator.request("plugin.approval.resolve",
                                   {"id": asked["payload"]["id"], "decision": "allow-once"})
            reply = await asyncio.wait_for(answer, 30)
        assert reply.choices[0].message.content == "Approved over the socket."
        history = await served.host.history("agent:main:openai-user:approver")
        assert any(e.role == "toolResult" and "via-http" in (e.text or "") for e in history)


async def test_an_http_turn_past_its_budget_asks_a_websocket_operator_to_extend_it(
        serve: ServeFactory) -> None:
    # one turn a day, budgets.extendBy: the second asks the operator "extend it by ...?"
    script = {"responses": [{"match": ".*", "repeat": True, "text": "ran"}]}
    budgets = {"daily": {"turns": 1}, "extendBy": {"turns": 2}}
    async with serve(script, budgets=budgets) as served:
        sdk = openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN, max_retries=0)
        first = await sdk.chat.completions.create(
            model="openclaw", user="u", messages=[{"role": "user", "content": "one"}])
        assert first.choices[0].message.content == "ran"
        operator = await served.approver()
        async with operator:
            events = operator.events()
            answer = asyncio.create_task(sdk.chat.completions.create(
                model="openclaw", user="u", messages=[{"role": "user", "content": "two"}]))
            asked = await next_event(events, lambda f: f["event"] == "plugin.approval.requested",
                                     timeout=20)
            request = asked["payload"]["request"]
            assert request["toolName"] == "budget.extend"
            assert request["title"] == "Extend a budget?"
            assert "extend it by 2 turns?" in str(request)
            # a yes or no for this turn: "always" would extend it at every later turn unasked
            assert request["allowedDecisions"] == ["allow-once", "deny"]
            with pytest.raises(GatewayRequestError) as caught:
                await operator.request("plugin.approval.resolve",
                                       {"id": asked["payload"]["id"], "decision": "allow-always"})
            assert caught.value.error["message"] == (
                "allow-always is unavailable for this plugin approval")
            await operator.request("plugin.approval.resolve",
                                   {"id": asked["payload"]["id"], "decision": "allow-once"})
            reply = await asyncio.wait_for(answer, 30)
        assert reply.choices[0].message.content == "ran"
