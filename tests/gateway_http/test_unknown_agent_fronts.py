"""A session key naming an agent the config does not define is refused by every front of
the gateway's port (issue 31): the WebSocket `agent` and `chat.send` methods and the
OpenAI-compatible HTTP API, before any model request."""

from __future__ import annotations

import httpx
import pytest
from http_support import TOKEN, ServeFactory

from clawharness.gateway.client import GatewayClient, GatewayRequestError

HELLO = {"responses": [{"text": "must never run"}]}
AUTH = {"authorization": f"Bearer {TOKEN}"}


async def test_websocket_turns_on_a_ghost_agent_are_refused(serve: ServeFactory) -> None:
    async with serve(HELLO) as served:
        async with await GatewayClient.connect(served.ws, token=TOKEN) as client:
            for method, params in (
                    ("agent", {"sessionKey": "agent:ghost:x", "message": "hi",
                               "idempotencyKey": "a1"}),
                    ("chat.send", {"sessionKey": "agent:ghost:x", "message": "hi",
                                   "idempotencyKey": "a2"}),
                    ("agent", {"agentId": "ghost", "message": "hi", "idempotencyKey": "a3"})):
                with pytest.raises(GatewayRequestError) as caught:
                    await client.request(method, params, expect_final=method == "agent")
                assert caught.value.code == "INVALID_REQUEST"
                assert 'unknown agent id "ghost"' in str(caught.value)
                assert caught.value.details == {"code": "UNKNOWN_AGENT_ID", "agentId": "ghost"}
            # a configured agent still runs
            ok = await client.request("agent", {"sessionKey": "agent:helper:x",
                                                "message": "hi", "idempotencyKey": "a4"},
                                      expect_final=True)
            assert ok["status"] == "ok"
        assert len(served.model.requests) == 1
        assert [s.key for s in await served.host.list_sessions()] == ["agent:helper:x"]


async def test_http_turns_on_a_ghost_agent_are_refused(serve: ServeFactory) -> None:
    async with serve(HELLO) as served, httpx.AsyncClient() as http:
        for path, body in (("chat/completions", {"model": "openclaw",
                                                 "messages": [{"role": "user", "content": "x"}]}),
                           ("responses", {"model": "openclaw", "input": "x"})):
            refused = await http.post(f"{served.v1}/{path}", json=body, headers={
                **AUTH, "x-openclaw-session-key": "agent:ghost:x"})
            assert refused.status_code == 404, refused.text
            assert refused.json()["error"]["code"] == "agent_not_found"
            assert "ghost" in refused.json()["error"]["message"]
        assert served.model.requests == []
        assert await served.host.list_sessions() == []
