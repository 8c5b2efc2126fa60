"""`sessions.fork` over the gateway, on the real `Host` with a scripted model: a fork
made from a client, its `sessions.changed` event, its next turn sending the copied
messages, and refusals that say why (docs/gateway.md)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gateway_support import TOKEN, next_event, real_host_gateway

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

SCRIPT = {"responses": [
    {"match": "the password is swordfish", "text": "noted"},
    {"match": "something else", "text": "fine"},
    {"match": "what was the password", "text": "swordfish"},
]}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Host, ScriptedModelServer]]:
    async with real_host_gateway(tmp_path, SCRIPT) as rig:
        yield rig.url, rig.host, rig.model


async def test_sessions_fork_makes_a_session_from_a_prefix(
        served: tuple[str, Host, ScriptedModelServer]) -> None:
    url, host, model = served
    for text in ("the password is swordfish", "something else"):
        assert (await host.run_turn("talk", text)).terminal == "ok"
    client = await GatewayClient.connect(url, token=TOKEN, scopes=["operator.write"])
    async with client:
        events = client.events()
        await client.request("sessions.subscribe", {})
        answer = await client.request("sessions.fork", {"key": "talk", "at": 1,
                                                        "newKey": "talk-branch"})
        assert answer["key"] == "agent:main:talk-branch"
        assert answer["entry"]["key"] == "agent:main:talk-branch"
        assert answer["fork"]["copied"] == 2
        assert answer["fork"]["from"]["sessionKey"] == "agent:main:talk"
        changed = await next_event(events, lambda f: f["event"] == "sessions.changed"
                                   and f["payload"]["reason"] == "fork", timeout=10)
        assert changed["payload"]["sessionKey"] == "agent:main:talk-branch"
        assert changed["payload"]["forkedFrom"] == "agent:main:talk"

        with pytest.raises(GatewayRequestError) as err:
            await client.request("sessions.fork", {"key": "talk", "at": "9"})
        assert "has 2 turn(s); there is no turn 9" in str(err.value.error["message"])
        assert err.value.error["details"]["code"] == "session_fork"
        with pytest.raises(GatewayRequestError) as err:
            await client.request("sessions.fork", {"key": "talk", "as": "x"})
        assert "unknown field(s) as" in err.value.error["message"]
    reader = await GatewayClient.connect(url, token=TOKEN, scopes=["operator.read"])
    async with reader:
        with pytest.raises(GatewayRequestError) as err:
            await reader.request("sessions.fork", {"key": "talk"})
        assert "missing scope" in err.value.error["message"]

    sent = len(model.requests)
    turn = await host.run_turn("talk-branch", "what was the password?")
    assert turn.text == "swordfish"
    request = json.dumps(model.requests[sent].body)
    assert "the password is swordfish" in request and "something else" not in request
