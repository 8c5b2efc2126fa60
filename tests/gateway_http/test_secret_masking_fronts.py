"""A provider error that echoes a credential is masked in what the gateway's fronts send:
the WebSocket `agent` answer and `chat` error event, and the HTTP API's error (issue 31)."""

from __future__ import annotations

import json

import httpx
from http_support import TOKEN, ServeFactory

from clawharness.gateway.client import GatewayClient

LEAKED = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
ECHO = {"error": {"status": 401, "type": "invalid_request_error",
                  "message": f"Incorrect API key provided: {LEAKED}"}}


async def test_the_fronts_show_a_provider_error_masked(serve: ServeFactory) -> None:
    async with serve({"responses": [ECHO, ECHO, ECHO]}) as served:
        async with await GatewayClient.connect(served.ws, token=TOKEN) as client:
            events = client.events()
            final = await client.request("agent", {"sessionKey": "agent:main:x",
                                                   "message": "hi", "idempotencyKey": "k1"},
                                         expect_final=True)
            await client.request("chat.send", {"sessionKey": "agent:main:y", "message": "hi",
                                               "idempotencyKey": "k2"})
            frames = []
            while not (frames and frames[-1].get("event") == "chat"
                       and frames[-1]["payload"].get("state") in ("final", "error")):
                frames.append(await events.get())
        async with httpx.AsyncClient() as http:
            answer = await http.post(f"{served.v1}/chat/completions", json={
                "model": "openclaw", "messages": [{"role": "user", "content": "hi"}]},
                headers={"authorization": f"Bearer {TOKEN}"})
    shown = {"agent answer": json.dumps(final), "chat events": json.dumps(frames),
             "http error": answer.text}
    assert answer.status_code >= 400
    for place, text in shown.items():
        assert "Incorrect API key provided: sk-pro" in text, (place, text[:500])
        assert LEAKED not in text, place
