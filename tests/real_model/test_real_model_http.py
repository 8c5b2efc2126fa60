"""The gateway's OpenAI-compatible HTTP API answered by the real model, via the built-in
runtime: the official `openai` SDK talks to the gateway, the gateway runs a turn through
`Host`, the built-in runtime calls llama.cpp."""

from __future__ import annotations

import openai
import pytest
from real_rig import RealHostFactory

from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings

pytestmark = pytest.mark.real_model

TOKEN = "real-model-http-token"
GATEWAY = {"port": 0, "auth": {"mode": "token", "token": TOKEN},
           "http": {"endpoints": {"chatCompletions": {"enabled": True}}}}


async def test_chat_completions_over_http_run_a_real_turn(
        make_real_host: RealHostFactory) -> None:
    async with make_real_host(tools={"deny": ["*"]}, gateway=GATEWAY) as rig:
        gateway = GatewayServer(rig.host, resolve_settings(rig.host.config, {}))
        async with gateway.running():
            client = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{gateway.port}/v1",
                                        api_key=TOKEN, max_retries=0)
            async with client:
                stream = await client.chat.completions.create(
                    model="openclaw", user="sea-fan", stream=True,
                    messages=[{"role": "user", "content": "Tell me about the sea."}])
                pieces = [chunk.choices[0].delta.content async for chunk in stream
                          if chunk.choices and chunk.choices[0].delta.content]

        assert len(pieces) > 1
        # the model got the caller's message as the turn's prompt
        (request,) = rig.model.chat_requests()
        assert request.body["messages"][-1] == {"role": "user",
                                                "content": "Tell me about the sea."}
        # the caller got, piece by piece, exactly what the host stored as the answer
        entries = await rig.host.history("agent:main:openai-user:sea-fan")
        assert entries[-1].role == "assistant"
        assert "".join(pieces) == entries[-1].text
