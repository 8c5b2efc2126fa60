"""`sessions.children` and `sessions.kill` over the gateway, on the real `Host` with a
scripted model: a running child listed for a client, killed by it, and its parent told
(docs/gateway.md, docs/portable-sessions.md "Sub-agents")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gateway_support import TOKEN

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

SCRIPT = {"responses": [
    {"match": "^start a slow helper", "tool_calls": [{"name": "sessions_spawn", "arguments": {
        "task": "slow: take your time", "label": "slow"}}]},
    {"match": '"status": "accepted"', "text": "started"},
    {"match": "^slow: take your time", "delay_ms": 30_000, "text": "finally"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "heard"},
]}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Host]]:
    async with ScriptedModelServer(SCRIPT) as model:
        config = {
            "models": {"providers": {"scripted": {
                "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": "x",
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "scripted/m"}},
            "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN}},
        }
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(path, env=env) as host:
            server = GatewayServer(host, resolve_settings(host.config, env))
            async with server.running():
                yield f"ws://127.0.0.1:{server.port}", host


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
