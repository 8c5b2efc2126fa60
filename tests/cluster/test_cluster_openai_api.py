"""The gateway's OpenAI-compatible API as a front of the cluster: the real `openai` SDK
asks, a worker runs the turn, and the answer (whole, or streamed) comes back."""

from __future__ import annotations

import openai
import pytest
from cluster_rig import ClusterRig

from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host

pytestmark = pytest.mark.integration

TOKEN = "cluster-http-token"
ANSWER = "a worker answered this, in several parts"


async def test_chat_completions_run_on_a_worker_whole_and_streamed(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [{"match": ".", "text": ANSWER, "repeat": True}]})
    rig.write_config(gateway={"port": 0, "auth": {"mode": "token", "token": TOKEN},
                              "http": {"endpoints": {"chatCompletions": {"enabled": True}}}})
    rig.start_worker("w1")
    env = rig.env()
    async with Host.from_config(rig.config_path, env=env) as front:
        server = GatewayServer(front, resolve_settings(front.config, env))
        async with server.running():
            sdk = openai.AsyncOpenAI(base_url=f"http://127.0.0.1:{server.port}/v1",
                                     api_key=TOKEN, max_retries=0)
            raw = await sdk.chat.completions.with_raw_response.create(
                model="openclaw", user="ada", messages=[{"role": "user", "content": "hi"}])
            whole = raw.parse()
            stream = await sdk.chat.completions.create(
                model="openclaw", user="ada", stream=True,
                messages=[{"role": "user", "content": "again"}])
            chunks = [chunk async for chunk in stream]
        key = raw.headers["x-openclaw-session-key"]
        entries = await front.history(key)
    assert whole.choices[0].message.content == ANSWER
    assert whole.choices[0].finish_reason == "stop"
    parts = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    # the worker's partial replies, coalesced to the newest, as deltas of the whole
    assert "".join(parts) == ANSWER
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    # both turns are in the shared store, in one session, written by the worker
    assert [(e.role, e.text) for e in entries if e.role in ("user", "assistant")] == [
        ("user", "hi"), ("assistant", ANSWER), ("user", "again"), ("assistant", ANSWER)]
