"""A message sent over the gateway while its session's turn runs steers that turn
(docs/steering.md): the real host, the built-in runtime, a scripted model; the turn is
held in its tool call by an approval."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from gateway_support import TOKEN, next_event, real_host_gateway, until_queued

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

SCRIPT = {"responses": [
    {"match": "run the build", "tool_calls": [
        {"name": "exec", "arguments": {"command": "echo built"}, "id": "call_1"}]},
    {"match": "in French", "text": "C'est construit."},
]}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, ScriptedModelServer, Host]]:
    async with real_host_gateway(tmp_path, SCRIPT, tools={"exec": {"ask": "always"}}) as rig:
        yield rig.url, rig.model, rig.host


def user_texts(body: dict[str, Any]) -> list[str]:
    return ["".join(b.get("text", "") for b in item["content"])
            for item in body["input"] if item.get("role") == "user"]


async def test_chat_send_while_a_turn_runs_steers_it(
        served: tuple[str, ScriptedModelServer, Host]) -> None:
    url, model, host = served
    key = "agent:main:main"
    client = await GatewayClient.connect(url, token=TOKEN, client_id="openclaw-tui", mode="ui",
                                         caps=["tool-events", "plugin-approvals"])
    async with client:
        events = client.events()
        await client.request("chat.send", {"sessionKey": key, "message": "run the build",
                                           "idempotencyKey": "t1"})
        asked = await next_event(events, lambda f: f["event"] == "plugin.approval.requested",
                                 timeout=20)
        ack = await client.request("chat.send", {"sessionKey": key, "message": "answer in French",
                                                 "idempotencyKey": "t2", "queueMode": "steer"})
        assert ack == {"runId": "t2", "status": "started"}
        await until_queued(host, key, 1)
        await client.request("plugin.approval.resolve",
                             {"id": asked["payload"]["id"], "decision": "allow-once"})
        final = await next_event(events, lambda f: f["event"] == "chat" and f["payload"].get(
            "runId") == "t1" and f["payload"]["state"] in ("final", "error"), timeout=20)
        assert final["payload"]["message"]["content"][0]["text"] == "C'est construit."
        steered = await client.request("agent.wait", {"runId": "t2", "timeoutMs": 10_000})
        assert steered["status"] == "ok"
        # the steered run ends without repeating the reply: it names the run that gave it
        ended = await next_event(events, lambda f: f["event"] == "chat" and f["payload"].get(
            "runId") == "t2" and f["payload"]["state"] == "final", timeout=10)
        assert ended["payload"]["carriedBy"] == "t1" and "message" not in ended["payload"]
        assert ended["payload"]["carried"] == "steered"
    calls = [r for r in model.requests if r.path.endswith("/responses")]
    assert len(calls) == 2
    assert user_texts(calls[1].body) == ["run the build", "answer in French"]
    texts = [e.text for e in await host.history(key) if e.role == "user"]
    assert texts == ["run the build", "answer in French"]


async def test_an_unknown_queue_mode_is_an_invalid_request(
        served: tuple[str, ScriptedModelServer, Host]) -> None:
    url, _model, _host = served
    client = await GatewayClient.connect(url, token=TOKEN)
    async with client:
        with pytest.raises(GatewayRequestError) as refused:
            await client.request("chat.send", {"sessionKey": "agent:main:main",
                                               "message": "hi", "idempotencyKey": "t3",
                                               "queueMode": "steer-backlog"})
    assert "unknown queue mode" in str(refused.value)
