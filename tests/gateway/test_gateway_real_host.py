"""The gateway over the real `Host` and built-in runtime, with a scripted model (in-process)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from gateway_support import TOKEN, next_event, real_host_gateway

from clawharness.gateway.client import GatewayClient
from clawharness.testing import ScriptedModelServer

TOOL_SCRIPT = {"responses": [
    {"tool_calls": [{"name": "exec", "arguments": {"command": "echo approved-run"},
                     "id": "call_1"}]},
    {"text": "The command ran."},
]}


@contextlib.asynccontextmanager
async def serve(tmp_path: Path, script_items: dict[str, Any],
                ) -> AsyncIterator[tuple[str, ScriptedModelServer]]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(script_items))
    async with real_host_gateway(tmp_path, script, tools={"exec": {"ask": "always"}}) as rig:
        yield rig.url, rig.model


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, ScriptedModelServer]]:
    async with serve(tmp_path, TOOL_SCRIPT) as running:
        yield running


async def test_a_tool_turn_through_chat_send_streams_tool_events_and_asks_approval(
        served: tuple[str, ScriptedModelServer]) -> None:
    url, model = served
    tui = await GatewayClient.connect(url, token=TOKEN, client_id="openclaw-tui", mode="ui",
                                      caps=["tool-events", "plugin-approvals"])
    plain = await GatewayClient.connect(url, token=TOKEN, scopes=["operator.read"])
    async with tui, plain:
        events = tui.events()
        plain_events = plain.events()
        await plain.request("sessions.subscribe", {})
        ack = await tui.request("chat.send", {"sessionKey": "agent:main:main",
                                              "message": "run the build", "idempotencyKey": "t1"})
        assert ack == {"runId": "t1", "status": "started"}
        frames: list[dict[str, Any]] = []
        while True:
            frame = await next_event(events, lambda f: True, timeout=20)
            frames.append(frame)
            if frame["event"] == "plugin.approval.requested":
                assert frame["payload"]["request"]["toolName"] == "exec"
                await tui.request("plugin.approval.resolve",
                                  {"id": frame["payload"]["id"], "decision": "allow-once"})
            if frame["event"] == "chat" and frame["payload"]["state"] in ("final", "error"):
                break
        tools = [f["payload"]["data"] for f in frames
                 if f["event"] == "agent" and f["payload"]["stream"] == "tool"]
        assert [(t["phase"], t["name"]) for t in tools] == [("start", "exec"), ("result", "exec")]
        assert tools[0]["args"] == {"command": "echo approved-run"}
        assert tools[1]["isError"] is False
        final = frames[-1]["payload"]
        assert final["state"] == "final"
        assert final["message"]["content"][0]["text"] == "The command ran."
        seen_by_plain: list[dict[str, Any]] = []
        while not (seen_by_plain and seen_by_plain[-1]["event"] == "chat"
                   and seen_by_plain[-1]["payload"]["state"] == "final"):
            seen_by_plain.append(await next_event(plain_events, lambda f: True, timeout=5))
        plain_streams = {f["payload"].get("stream") for f in seen_by_plain
                         if f["event"] == "agent"}
        assert "assistant" in plain_streams
        assert "tool" not in plain_streams
        assert not any(f["event"].startswith("plugin.approval") for f in seen_by_plain)
        history = await tui.request("chat.history", {"sessionKey": "agent:main:main"})
        roles = [m["role"] for m in history["messages"]]
        assert roles == ["user", "assistant", "toolResult", "assistant"]
        assert history["messages"][2]["content"][0]["text"].strip() == "approved-run"
    assert len(model.requests) == 2



async def test_a_thinking_level_on_agent_reaches_the_provider_request(tmp_path: Path) -> None:
    async with serve(tmp_path, {"responses": [{"text": "ok"}]}) as (url, model), \
            await GatewayClient.connect(url, token=TOKEN) as client:
        done = await client.request("agent", {"sessionKey": "agent:main:think", "message": "hi",
                                              "idempotencyKey": "k1", "thinking": "extra high"},
                                    expect_final=True)
        assert done["status"] == "ok"
        assert model.requests[-1].to_json()["body"]["reasoning"] == {"effort": "high"}
        with pytest.raises(Exception, match="invalid thinking"):
            await client.request("agent", {"sessionKey": "agent:main:think", "message": "hi",
                                           "idempotencyKey": "k2", "thinking": "big"})


async def test_sessions_patch_sets_the_sessions_thinking_level(tmp_path: Path) -> None:
    async with serve(tmp_path, {"responses": [{"text": "ok", "repeat": True,
                                               "match": "[\\s\\S]"}]}) as (url, model), \
            await GatewayClient.connect(url, token=TOKEN) as client:
        key = "agent:main:patched"
        patched = await client.request("sessions.patch", {"key": key, "thinkingLevel": "low"})
        assert patched["entry"]["thinkingLevel"] == "low"
        await client.request("agent", {"sessionKey": key, "message": "hi",
                                       "idempotencyKey": "p1"}, expect_final=True)
        assert model.requests[-1].to_json()["body"]["reasoning"] == {"effort": "low"}
        cleared = await client.request("sessions.patch", {"key": key, "thinkingLevel": None})
        assert "thinkingLevel" not in cleared["entry"]
        await client.request("agent", {"sessionKey": key, "message": "hi",
                                       "idempotencyKey": "p2"}, expect_final=True)
        assert "reasoning" not in model.requests[-1].to_json()["body"]
        with pytest.raises(Exception, match="invalid thinking"):
            await client.request("sessions.patch", {"key": key, "thinkingLevel": "lots"})
