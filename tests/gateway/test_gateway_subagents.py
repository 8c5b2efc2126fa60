"""`sessions.children` and `sessions.kill` over the gateway, on the real `Host` with a
scripted model: a running child listed for a client, killed by it, and its parent told
(docs/gateway.md, docs/portable-sessions.md "Sub-agents")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gateway_support import TOKEN, real_host_gateway

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.host import Host

SCRIPT = {"responses": [
    {"match": "^start a slow helper", "tool_calls": [{"name": "sessions_spawn", "arguments": {
        "task": "slow: take your time", "label": "slow"}}]},
    {"match": '"status": "accepted"', "text": "started"},
    {"match": "^slow: take your time", "delay_ms": 30_000, "text": "finally"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "heard"},
]}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Host]]:
    async with real_host_gateway(tmp_path, SCRIPT) as rig:
        yield rig.url, rig.host


async def test_a_client_lists_a_running_child_and_kills_it(served: tuple[str, Host]) -> None:
    url, host = served
    assert (await host.run_turn("boss", "start a slow helper")).text == "started"
    client = await GatewayClient.connect(url, token=TOKEN, scopes=["operator.write"])
    async with client:
        listed = await client.request("sessions.children", {"key": "boss"})
        [child] = listed["children"]
        assert (child["status"], child["label"], child["parentSessionKey"]) == (
            "running", "slow", "agent:main:boss")
        everyone = await client.request("sessions.children", {})
        assert [c["childSessionKey"] for c in everyone["children"]] == [
            child["childSessionKey"]]

        killed = await client.request("sessions.kill", {"key": child["childSessionKey"]})
        assert [k["status"] for k in killed["killed"]] == ["killed"]
        final = await host.subagents.wait(child["childSessionKey"], timeout=30)
        assert (final.status, final.error) == ("killed", "killed over the gateway")
        again = await client.request("sessions.kill", {"key": child["childSessionKey"]})
        assert again["killed"] == []
        with pytest.raises(GatewayRequestError) as refused:
            await client.request("sessions.kill", {"key": "agent:main:nobody"})
        assert refused.value.details["code"] == "subagent_error"
