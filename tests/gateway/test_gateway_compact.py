"""`sessions.compact` over the gateway, on the real `Host` with a scripted model: the
summary, its `sessions.changed` event, the next turn's prompt starting from it, and the
scopes and refusals (docs/gateway.md, docs/compaction.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gateway_support import TOKEN, next_event, real_host_gateway

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

SUMMARY = "The user told the password: swordfish."
SCRIPT = {"responses": [
    {"match": "Summarise the conversation", "repeat": True, "text": SUMMARY},
    {"match": ".", "repeat": True, "text": "noted " * 20},
]}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Host, ScriptedModelServer]]:
    async with real_host_gateway(tmp_path, SCRIPT) as rig:
        yield rig.url, rig.host, rig.model


async def test_sessions_compact_summarises_and_the_next_prompt_starts_there(
        served: tuple[str, Host, ScriptedModelServer]) -> None:
    url, host, model = served
    for text in ("the password is swordfish", "something else " * 10, "and more " * 10):
        assert (await host.run_turn("talk", text)).terminal == "ok"
    client = await GatewayClient.connect(url, token=TOKEN, scopes=["operator.write"])
    async with client:
        events = client.events()
        await client.request("sessions.subscribe", {})
        answer = await client.request("sessions.compact", {"key": "talk",
                                                           "focus": "the password"})
        assert answer["ok"] is True and answer["key"] == "agent:main:talk"
        assert answer["compacted"] is True and answer["summary"] == SUMMARY
        assert "Focus on: the password." in json.dumps(model.requests[-1].body)
        changed = await next_event(events, lambda f: f["event"] == "sessions.changed"
                                   and f["payload"]["reason"] == "compact", timeout=10)
        assert changed["payload"]["sessionKey"] == "agent:main:talk"
        with pytest.raises(GatewayRequestError) as err:
            await client.request("sessions.compact", {"key": "talk", "keep": 3})
        assert "unknown field(s) keep" in err.value.error["message"]
        with pytest.raises(GatewayRequestError) as err:
            await client.request("sessions.compact", {"key": "nobody"})
        assert err.value.error["details"]["code"] == "session_not_found"
    reader = await GatewayClient.connect(url, token=TOKEN, scopes=["operator.read"])
    async with reader:
        with pytest.raises(GatewayRequestError) as err:
            await reader.request("sessions.compact", {"key": "talk"})
        assert "missing scope" in err.value.error["message"]

    await host.run_turn("talk", "what was the password?")
    sent = json.dumps(model.requests[-1].body.get("input"))
    assert SUMMARY in sent and "the password is swordfish" not in sent
