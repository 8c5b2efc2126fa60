"""An HTTP request for a session whose turn is running steers it, or does what its
`x-openclaw-queue-mode` header says (docs/steering.md)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import openai
import pytest
from http_support import TOKEN, ServeFactory

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gateway"))
from gateway_support import next_event, until_queued

SCRIPT = {"responses": [
    {"match": "run it", "tool_calls": [
        {"name": "exec", "arguments": {"command": "echo via-http"}, "id": "call_h"}]},
    {"match": "in French", "text": "Fait."},
    {"match": "^later$", "text": "later answer"},
]}
KEY = "agent:main:openai-user:steerer"


@pytest.mark.parametrize(("mode", "steered"), [(None, True), ("followup", False)])
async def test_a_second_request_steers_the_running_turn_unless_it_asks_otherwise(
        serve: ServeFactory, mode: str | None, steered: bool) -> None:
    tools = {"exec": {"security": "full", "ask": "always"}}
    async with serve(SCRIPT, tools=tools) as served:
        operator = await served.approver()
        async with operator:
            events = operator.events()
            sdk = openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN, max_retries=0)
            first = asyncio.create_task(sdk.chat.completions.create(
                model="openclaw", user="steerer", messages=[{"role": "user", "content": "run it"}]))
            asked = await next_event(events, lambda f: f["event"] == "plugin.approval.requested",
                                     timeout=20)
            text = "answer in French" if steered else "later"
            headers = {} if mode is None else {"x-openclaw-queue-mode": mode}
            second = asyncio.create_task(sdk.chat.completions.create(
                model="openclaw", user="steerer", messages=[{"role": "user", "content": text}],
                extra_headers=headers))
            await until_queued(served.host, KEY, 1)
            await operator.request("plugin.approval.resolve",
                                   {"id": asked["payload"]["id"], "decision": "allow-once"})
            one, two = await asyncio.wait_for(asyncio.gather(first, second), 30)
        users = [e.text for e in await served.host.history(KEY) if e.role == "user"]
        if steered:
            assert one.choices[0].message.content == "Fait."
            assert two.choices[0].message.content == "Fait."
            assert users == ["run it", "answer in French"]
        else:
            assert two.choices[0].message.content == "later answer"
            assert users == ["run it", "later"]


async def test_an_unknown_queue_mode_header_is_a_400(serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        sdk = openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN, max_retries=0)
        with pytest.raises(openai.BadRequestError) as refused:
            await sdk.chat.completions.create(
                model="openclaw", messages=[{"role": "user", "content": "hi"}],
                extra_headers={"x-openclaw-queue-mode": "sometime"})
    assert "x-openclaw-queue-mode" in str(refused.value)
