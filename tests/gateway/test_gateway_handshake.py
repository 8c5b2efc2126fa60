"""The handshake, and bad input before `connect`, answered as the original gateway does."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from gateway_support import TOKEN, FakeHost, Rig, running_gateway
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.gateway.protocol import MAX_PREAUTH_PAYLOAD_BYTES


def connect_params(**overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "minProtocol": 4, "maxProtocol": 4,
        "client": {"id": "cli", "version": "1.0.0", "platform": "linux", "mode": "cli"},
        "role": "operator", "scopes": ["operator.read"], "auth": {"token": TOKEN},
    }
    params.update(overrides)
    return params


async def open_raw(rig: Rig) -> tuple[ClientConnection, dict[str, Any]]:
    ws = await connect(rig.url, max_size=None)
    challenge = json.loads(await asyncio.wait_for(ws.recv(), 5))
    return ws, challenge


async def closed_with(ws: ClientConnection) -> tuple[int | None, str | None, list[dict[str, Any]]]:
    """Read until the server closes; the close code, reason and frames received."""
    frames: list[dict[str, Any]] = []
    async with asyncio.timeout(5):
        try:
            while True:
                frames.append(json.loads(await ws.recv()))
        except ConnectionClosed:
            pass
    return ws.close_code, ws.close_reason, frames


async def test_server_speaks_first_with_a_connect_challenge(rig: Rig) -> None:
    ws, challenge = await open_raw(rig)
    async with ws:
        assert challenge["type"] == "event"
        assert challenge["event"] == "connect.challenge"
        assert "seq" not in challenge
        payload = challenge["payload"]
        assert isinstance(payload["nonce"], str) and payload["nonce"]
        assert isinstance(payload["ts"], int) and payload["ts"] > 0


async def test_hello_ok_lists_the_methods_and_events_it_really_has(rig: Rig) -> None:
    client = await rig.client(scopes=["operator.read", "operator.write"])
    async with client:
        hello = client.hello
        assert hello["type"] == "hello-ok"
        assert hello["protocol"] == 4
        assert hello["server"]["connId"]
        methods = set(hello["features"]["methods"])
        assert {"health", "status", "agent", "chat.send", "chat.abort", "chat.history",
                "sessions.list", "sessions.describe", "sessions.subscribe", "sessions.reset",
                "sessions.delete", "agents.list", "commands.list", "plugin.approval.list",
                "plugin.approval.resolve", "question.list"} <= methods
        assert methods == set(rig.server.methods)
        assert {"agent", "chat", "tick", "sessions.changed"} <= set(hello["features"]["events"])
        assert hello["auth"] == {"method": "token", "role": "operator",
                                 "scopes": ["operator.read", "operator.write"]}
        assert hello["policy"]["tickIntervalMs"] == rig.server.settings.tick_interval_ms
        assert hello["snapshot"]["sessionDefaults"]["mainSessionKey"] == "agent:main:main"


async def test_wrong_token_is_refused_with_auth_token_mismatch_and_closed(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send(json.dumps({"type": "req", "id": "c1", "method": "connect",
                              "params": connect_params(auth={"token": "not-it"})}))
    code, reason, frames = await closed_with(ws)
    assert frames[0]["id"] == "c1" and frames[0]["ok"] is False
    error = frames[0]["error"]
    assert error["code"] == "INVALID_REQUEST"
    assert error["details"]["code"] == "AUTH_TOKEN_MISMATCH"
    assert "gateway token mismatch" in error["message"]
    assert code == 1008
    assert reason is not None and "token mismatch" in reason


async def test_missing_token_is_refused_with_auth_token_missing(rig: Rig) -> None:
    with pytest.raises(GatewayRequestError) as caught:
        await GatewayClient.connect(rig.url, token=None)
    assert caught.value.details["code"] == "AUTH_TOKEN_MISSING"


async def test_a_protocol_range_without_4_is_refused_with_protocol_mismatch(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send(json.dumps({"type": "req", "id": "c1", "method": "connect",
                              "params": connect_params(minProtocol=2, maxProtocol=3)}))
    code, reason, frames = await closed_with(ws)
    error = frames[0]["error"]
    assert error["message"] == "protocol mismatch"
    assert error["details"]["code"] == "PROTOCOL_MISMATCH"
    assert error["details"]["expectedProtocol"] == 4
    assert (code, reason) == (1002, "protocol mismatch")


async def test_oversized_frame_before_connect_closes_1009(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send("x" * (MAX_PREAUTH_PAYLOAD_BYTES + 1))
    code, reason, frames = await closed_with(ws)
    assert frames == []
    assert (code, reason) == (1009, "preauth payload too large")
    async with asyncio.timeout(5):
        await rig.server.hub.wait_for_count(0)


async def test_a_frame_of_exactly_64_kib_before_connect_is_not_too_large(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    body = json.dumps({"type": "req", "id": "c1", "method": "connect",
                       "params": connect_params(locale="")})
    padded = body[:-2] + " " * (MAX_PREAUTH_PAYLOAD_BYTES - len(body)) + body[-2:]
    assert len(padded.encode()) == MAX_PREAUTH_PAYLOAD_BYTES
    await ws.send(padded)
    reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
    assert reply["ok"] is True and reply["payload"]["type"] == "hello-ok"
    await ws.close()


async def test_malformed_json_before_connect_closes_without_an_answer(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send("{not json")
    code, _reason, frames = await closed_with(ws)
    assert frames == []
    assert code == 1000


async def test_a_request_before_connect_is_answered_then_closed(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send(json.dumps({"type": "req", "id": "h1", "method": "health"}))
    code, reason, frames = await closed_with(ws)
    assert frames == [{"type": "res", "id": "h1", "ok": False, "error": {
        "code": "INVALID_REQUEST", "message": "invalid handshake: first request must be connect"}}]
    assert (code, reason) == (1008, "invalid handshake: first request must be connect")


async def test_a_non_request_frame_before_connect_closes_1008(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send(json.dumps({"type": "event", "event": "hello"}))
    code, reason, frames = await closed_with(ws)
    assert frames == []
    assert (code, reason) == (1008, "invalid request frame")


async def test_connect_with_invalid_params_is_refused(rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    await ws.send(json.dumps({"type": "req", "id": "c1", "method": "connect",
                              "params": connect_params(bogus=True)}))
    code, _reason, frames = await closed_with(ws)
    assert frames[0]["error"]["code"] == "INVALID_REQUEST"
    assert frames[0]["error"]["message"].startswith("invalid connect params:")
    assert "bogus" in frames[0]["error"]["message"]
    assert code == 1008


async def test_a_silent_connection_is_closed_after_the_handshake_timeout(
        fake_host: FakeHost) -> None:
    async with running_gateway(fake_host, handshake_timeout_s=0.2) as rig:
        ws, _ = await open_raw(rig)
        code, _reason, frames = await closed_with(ws)
        assert frames == []
        assert code == 1000


async def test_after_connect_malformed_json_is_ignored_and_the_connection_lives_on(
        rig: Rig) -> None:
    client = await rig.client()
    async with client:
        await client.ws.send("{oops")
        await client.ws.send(json.dumps({"type": "req", "method": "health"}))
        health = await client.request("health")
        assert health["ok"] is True


async def test_after_connect_an_invalid_request_frame_gets_an_invalid_request_answer(
        rig: Rig) -> None:
    ws, _ = await open_raw(rig)
    async with ws:
        await ws.send(json.dumps({"type": "req", "id": "c1", "method": "connect",
                                  "params": connect_params()}))
        assert json.loads(await ws.recv())["ok"] is True
        await ws.send(json.dumps({"type": "req", "id": "x1", "method": ""}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert reply["id"] == "x1" and reply["ok"] is False
        assert reply["error"]["code"] == "INVALID_REQUEST"
        assert reply["error"]["message"].startswith("invalid request frame")


async def test_the_wrong_token_message_names_only_what_exists(rig: Rig) -> None:
    """The hint names the flag, key and variables `serve` really reads, for each kind of
    client; nothing of the original's device pairing or remote config."""
    for mode, client_id, expected in (
            ("cli", "cli", "an openclaw client takes it as --token or OPENCLAW_GATEWAY_TOKEN"),
            ("ui", "openclaw-control-ui", "sign in on the Control UI page"),
            ("backend", "gateway-client", "send the token clawharness serve runs with")):
        with pytest.raises(GatewayRequestError) as caught:
            await GatewayClient.connect(rig.url, token="not-it", client_id=client_id,
                                        mode=mode)
        message = caught.value.error["message"]
        assert expected in message, message
        for real in ("--token", "gateway.auth.token", "CLAWHARNESS_GATEWAY_TOKEN"):
            assert real in message, message
        for gone in ("pair the device", "gateway.remote.token", "Control UI settings",
                     "dashboard URL"):
            assert gone not in message, message
