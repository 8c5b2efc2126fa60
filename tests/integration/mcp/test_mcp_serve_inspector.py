"""`clawharness mcp serve` driven by the real MCP Inspector CLI: tools listed, a message
sent, its reply returned (and on record in the session)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_rig import INSPECTOR, needs_inspector, scripted_config

from clawharness.host import Host

pytestmark = pytest.mark.integration

CLAWHARNESS = str(Path(sys.executable).with_name("clawharness"))


def _inspect(config: Path, *args: str) -> Any:
    done = subprocess.run(
        [str(INSPECTOR), "--cli", "-e", f"CLAWHARNESS_CONFIG={config}", *args,
         "--", CLAWHARNESS, "mcp", "serve"],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@needs_inspector
def test_the_inspector_lists_the_tools_and_a_sent_message_gets_its_reply(
        tmp_path: Path) -> None:
    script = {"responses": [{"match": "hello", "text": "hi from clawharness"}]}
    with scripted_config(tmp_path, script, {}) as config:
        listed = _inspect(config, "--method", "tools/list")
        assert {t["name"] for t in listed["tools"]} == {
            "sessions_list", "session_history", "message_send"}
        sent = _inspect(config, "--method", "tools/call", "--tool-name", "message_send",
                        "--tool-arg", "message=hello there", "session_key=inspector")
        assert sent["isError"] is False
        assert sent["structuredContent"] == {"sessionKey": "agent:main:inspector",
                                             "text": "hi from clawharness",
                                             "terminal": "ok", "runtime": "openclaw"}

        async def history() -> list[tuple[str, str | None]]:
            async with Host.from_config(config) as host:
                return [(e.role, e.text) for e in await host.history("inspector")]

        assert asyncio.run(history()) == [("user", "hello there"),
                                          ("assistant", "hi from clawharness")]


async def test_the_served_tools_answer_an_sdk_client(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    script = {"responses": [{"match": "hello", "text": "hello back"}]}
    with scripted_config(tmp_path, script, {}) as config:
        params = StdioServerParameters(command=CLAWHARNESS, args=["mcp", "serve"],
                                       env={"CLAWHARNESS_CONFIG": str(config)})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            sent = await s.call_tool("message_send", {"message": "hello", "session_key": "sdk"})
            assert sent.structured_content is not None
            assert sent.structured_content["text"] == "hello back"
            listed = await s.call_tool("sessions_list", {})
            assert listed.structured_content is not None
            keys = [r["sessionKey"] for r in listed.structured_content["sessions"]]
            assert keys == ["agent:main:sdk"]
            read_back = await s.call_tool("session_history", {"session_key": "sdk"})
            assert read_back.structured_content is not None
            assert [e["text"] for e in read_back.structured_content["entries"]] == [
                "hello", "hello back"]
            missing = await s.call_tool("session_history", {"session_key": "nope"})
            assert missing.is_error
            assert "no session agent:main:nope" in missing.content[0].text  # type: ignore[union-attr]


async def test_a_message_to_a_ghost_agent_is_refused_with_its_code(tmp_path: Path) -> None:
    # issue 31: `agent:ghost:x` ran under agents.defaults and escaped main's deny list
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    script = {"responses": [{"text": "must never run"}]}
    extra = {"agents": {"defaults": {"model": "local/m", "workspace": str(tmp_path / "ws")},
                        "entries": {"main": {"tools": {"deny": ["exec"]}}}}}
    with scripted_config(tmp_path, script, extra) as config:
        params = StdioServerParameters(command=CLAWHARNESS, args=["mcp", "serve"],
                                       env={"CLAWHARNESS_CONFIG": str(config)})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            sent = await s.call_tool("message_send", {"message": "hello",
                                                      "session_key": "agent:ghost:x"})
            assert sent.is_error
            text = sent.content[0].text  # type: ignore[union-attr]
            assert "unknown_agent: unknown agent id 'ghost'" in text, text
            listed = await s.call_tool("sessions_list", {})
            assert listed.structured_content == {"sessions": []}
