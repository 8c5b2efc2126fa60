"""`mcp serve`'s message_send while a turn of the session runs (docs/steering.md): by
default it steers the running turn, whose reply both calls get; `queue_mode` picks
another mode, and an unknown one is the call's error."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp_rig import scripted_config

pytestmark = pytest.mark.integration

CLAWHARNESS = str(Path(sys.executable).with_name("clawharness"))


async def test_a_second_message_steers_the_running_turn(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    # the first answer (a read) comes slowly: the second message arrives during it
    script = {"responses": [
        {"match": "^start$", "delay_ms": 1500,
         "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"match": "French", "text": "Bonjour."}]}
    with scripted_config(tmp_path, script, {}) as config:
        params = StdioServerParameters(command=CLAWHARNESS, args=["mcp", "serve"],
                                       env={"CLAWHARNESS_CONFIG": str(config)})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            first = asyncio.create_task(s.call_tool(
                "message_send", {"message": "start", "session_key": "steer"}))
            second = asyncio.create_task(s.call_tool(
                "message_send", {"message": "answer in French", "session_key": "steer"}))
            one, two = await asyncio.wait_for(asyncio.gather(first, second), 60)
            assert one.structured_content is not None and two.structured_content is not None
            assert one.structured_content["text"] == "Bonjour."
            assert two.structured_content["text"] == "Bonjour."
            assert two.structured_content["queue"] == {"mode": "steer", "carried": "steered"}
            history = await s.call_tool("session_history", {"session_key": "steer"})
            assert history.structured_content is not None
            users = [e["text"] for e in history.structured_content["entries"]
                     if e["role"] == "user"]
            assert users == ["start", "answer in French"]
            refused = await s.call_tool("message_send", {
                "message": "hi", "session_key": "steer", "queue_mode": "later"})
            assert refused.is_error
            assert "unknown queue mode" in refused.content[0].text  # type: ignore[union-attr]
