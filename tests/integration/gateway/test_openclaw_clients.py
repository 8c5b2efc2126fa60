"""OpenClaw's real clients (`openclaw agent`, `gateway call`, `status`, `tui`) against
`clawharness serve`, with a scripted model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openclaw_rig import TOKEN, GatewayProcess, gateway_process

from clawharness.gateway.client import GatewayClient

pytestmark = pytest.mark.integration

REPLY = "Hello from the scripted model."
SCRIPT = {"responses": [
    {"text": REPLY, "match": "hello", "repeat": True},
    {"tool_calls": [{"name": "exec", "arguments": {"command": "echo from-the-tool"},
                     "id": "call_1"}], "match": "use the tool"},
    {"text": "The tool said from-the-tool.", "match": "from-the-tool"},
    {"text": "Counted once.", "match": "count me"},
]}


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayProcess]:
    # the tool turn runs `echo` unasked: a fresh config would ask first (no one is there)
    unasked_exec = {"exec": {"security": "full", "ask": "off"}}
    with gateway_process(tmp_path_factory.mktemp("gateway"), SCRIPT,
                         tools=unasked_exec) as running:
        yield running


def test_openclaw_agent_prints_the_scripted_reply(gateway: GatewayProcess) -> None:
    done = gateway.cli("agent", "-m", "hello from openclaw agent")
    assert done.returncode == 0, done.stderr
    assert REPLY in done.stdout.splitlines()


def test_openclaw_agent_json_shows_the_final_result(gateway: GatewayProcess) -> None:
    done = gateway.cli("agent", "--agent", "main", "--json", "-m", "hello as json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "ok" and result["summary"] == "completed"
    assert result["result"]["payloads"][0]["text"] == REPLY


def test_gateway_call_health_succeeds(gateway: GatewayProcess) -> None:
    done = gateway.cli("gateway", "call", "health", "--url", gateway.url, "--token", TOKEN,
                       "--json")
    assert done.returncode == 0, done.stderr
    health = json.loads(done.stdout)
    assert health["ok"] is True and health["defaultAgentId"] == "main"


def test_status_json_reaches_the_gateway(gateway: GatewayProcess) -> None:
    done = gateway.cli("status", "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["gateway"]["reachable"] is True
    assert status["gateway"]["url"] == gateway.url
    assert status["gateway"]["error"] is None
    assert status["agents"]["defaultId"] == "main"


def test_a_wrong_token_fails_cleanly(gateway: GatewayProcess) -> None:
    done = gateway.cli("agent", "-m", "hello", OPENCLAW_GATEWAY_TOKEN="wrong-token")
    assert done.returncode != 0
    assert "gateway token mismatch" in done.stderr
    assert "Traceback" not in done.stderr and REPLY not in done.stdout
    call = gateway.cli("gateway", "call", "health", "--url", gateway.url, "--token", "nope")
    assert call.returncode != 0
    assert "unauthorized: gateway token mismatch" in call.stderr + call.stdout


def test_the_same_idempotency_key_twice_runs_one_turn(gateway: GatewayProcess) -> None:
    before = len(gateway.model.requests)
    params = json.dumps({"message": "count me", "idempotencyKey": "cli-same-key"})
    outputs = []
    for _ in range(2):  # two CLI processes: two connections
        done = gateway.cli("gateway", "call", "agent", "--params", params, "--expect-final",
                           "--json", "--timeout", "60000")
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0]["runId"] == "cli-same-key"
    assert outputs[0]["result"]["payloads"][0]["text"] == "Counted once."
    assert len(gateway.model.requests) == before + 1


def test_the_tui_shows_the_streamed_reply(gateway: GatewayProcess) -> None:
    screen = gateway.tui_until(
        ["--url", gateway.url, "--token", TOKEN, "--session", "tui", "--message",
         "hello from the tui"], expect=REPLY)
    assert "hello from the tui" in screen
    assert REPLY in screen
    assert "gateway connected" in screen


def test_a_tool_turn_through_chat_send_streams_tool_events(gateway: GatewayProcess) -> None:
    async def drive() -> list[dict[str, Any]]:
        client = await GatewayClient.connect(gateway.url, token=TOKEN, client_id="openclaw-tui",
                                             mode="ui", caps=["tool-events"])
        async with client:
            events = client.events()
            ack = await client.request("chat.send", {
                "sessionKey": "agent:main:tools", "message": "please use the tool",
                "idempotencyKey": "tool-turn"})
            assert ack["status"] == "started"
            frames = []
            async with asyncio.timeout(60):
                while True:
                    frame = await events.get()
                    frames.append(frame)
                    if frame["event"] == "chat" and frame["payload"]["state"] != "delta":
                        return frames

    frames = asyncio.run(drive())
    tools = [f["payload"]["data"] for f in frames
             if f["event"] == "agent" and f["payload"]["stream"] == "tool"]
    assert [(t["phase"], t["name"]) for t in tools] == [("start", "exec"), ("result", "exec")]
    final = frames[-1]["payload"]
    assert final["state"] == "final"
    assert final["message"]["content"][0]["text"] == "The tool said from-the-tool."
    history = gateway.cli("gateway", "call", "chat.history", "--url", gateway.url,
                          "--token", TOKEN, "--json", "--params",
                          json.dumps({"sessionKey": "agent:main:tools"}))
    assert history.returncode == 0, history.stderr
    roles = [m["role"] for m in json.loads(history.stdout)["messages"]]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


def test_serve_refuses_to_start_without_a_token(tmp_path: Path) -> None:
    import subprocess
    import sys

    config = tmp_path / "c.json"
    config.write_text(json.dumps({"gateway": {"auth": {"mode": "token"}}}))
    done = subprocess.run([sys.executable, "-m", "clawharness", "serve", "--config", str(config),
                           "--port", "0"], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin",
                               "CLAWHARNESS_STATE_DIR": str(tmp_path / "state")},
                          check=False)
    assert done.returncode == 1
    assert "no token is set" in done.stderr
