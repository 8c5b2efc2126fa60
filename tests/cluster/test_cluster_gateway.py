"""The gateway as a front of the cluster: OpenClaw's `chat.send` runs the turn on a
worker, and the chat's final event carries the worker's reply."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cluster_rig import ClusterRig

from clawharness.gateway.client import GatewayClient
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))
from gateway_support import TOKEN, next_event

pytestmark = pytest.mark.integration


async def test_chat_send_through_a_gateway_front_runs_on_a_worker(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": "^over the gateway$", "text": "answered by a worker"}]})
    rig.write_config(gateway={"port": 0, "auth": {"mode": "token", "token": TOKEN}})
    rig.start_worker("w1")
    env = rig.env()
    async with Host.from_config(rig.config_path, env=env) as front:
        server = GatewayServer(front, resolve_settings(front.config, env))
        async with server.running():
            client = await GatewayClient.connect(f"ws://127.0.0.1:{server.port}", token=TOKEN)
            async with client:
                events = client.events()
                ack = await client.request("chat.send", {
                    "sessionKey": "agent:main:gw", "message": "over the gateway",
                    "idempotencyKey": "gw-1"})
                assert ack["status"] == "started"
                final = await next_event(
                    events, lambda f: f["event"] == "chat"
                    and f["payload"]["state"] in ("final", "error"), timeout=60)
                assert final["payload"]["state"] == "final", final["payload"]
                assert final["payload"]["message"]["content"][0]["text"] == (
                    "answered by a worker")
        entries = await front.history("gw")
    assert [(e.role, e.text) for e in entries] == [
        ("user", "over the gateway"), ("assistant", "answered by a worker")]
    assert entries[0].metadata["runId"] == "gw-1"  # the gateway's run id, kept end to end
