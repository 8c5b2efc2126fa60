"""The `acp` harness against real ACP agents: claude-code-acp on the scripted Anthropic
server, and the ACP Python SDK's own example agent (from its sdist)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from acp_rig import AcpRig, requires_claude_acp, sdist_example_agent
from cli_support import Recorder, processes_matching, wait_until

from clawharness.config.schema import ToolsConfig
from clawharness.testing import ScriptedModelServer

pytestmark = pytest.mark.integration
UNASKED_EXEC = ToolsConfig.model_validate({"exec": {"security": "full", "ask": "off"}})


@pytest.fixture
async def rigs(tmp_path: Path) -> AsyncIterator[object]:
    made: list[AcpRig] = []

    def make(url: str | None) -> AcpRig:
        rig = AcpRig(tmp_path, url)
        made.append(rig)
        return rig

    yield make
    for rig in made:
        await rig.close()


def _requests_text(server: ScriptedModelServer) -> str:
    return json.dumps([r.body for r in server.requests if r.path == "/v1/messages"])


@requires_claude_acp
async def test_acp_text_turn_streams_and_binds_the_session(rigs) -> None:
    async with ScriptedModelServer({"responses": [{"text": "hi from acp"}]}) as server:
        rig = rigs(server.url)
        harness = rig.harness({"claude": rig.claude_agent()})
        rec = Recorder()
        result = await rig.run(harness, rig.params("say hi", rec))
        assert result.terminal.kind == "ok", result.terminal
        assert result.assistant_texts == ["hi from acp"]
        assert rec.partials[-1] == "hi from acp" and len(rec.partials) > 1
        assert rec.roles() == ["user", "assistant"]
        binding = await harness.binding("main", "agent:main:main")
        assert binding is not None and binding["nativeSessionId"] == result.extra["nativeSessionId"]


@requires_claude_acp
async def test_acp_tool_allowed_writes_through_fs_in_the_workspace(rigs, tmp_path) -> None:
    target = tmp_path / "workspace" / "note.txt"
    async with ScriptedModelServer({"responses": [
        {"tool_calls": [{"name": "mcp__acp__Write",
                         "arguments": {"file_path": str(target), "content": "written via fs"}}]},
        {"text": "saved"},
    ]}) as server:
        rig = rigs(server.url)
        harness = rig.harness({"claude": rig.claude_agent()})
        rec = Recorder()
        result = await rig.run(harness, rig.params("save a note", rec))
        assert result.terminal.kind == "ok", result.terminal
        assert target.read_text() == "written via fs"
        [seen] = rec.observations
        assert seen["executionStarted"] is True and seen["outcome"] == "success"
        assert seen["arguments"]["file_path"] == str(target)
        assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
        assert result.assistant_texts == ["saved"]


@requires_claude_acp
async def test_acp_tool_denied_by_policy_is_rejected_by_option_kind(rigs) -> None:
    async with ScriptedModelServer({"responses": [
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch nope.txt",
                                                        "description": "make a file"}}]},
        {"text": "it was refused"},
    ]}) as server:
        rig = rigs(server.url)
        harness = rig.harness({"claude": rig.claude_agent()})
        rec = Recorder()
        params = rig.params("make a file", rec, tools=ToolsConfig(deny=["exec"]))
        result = await rig.run(harness, params)
        assert result.terminal.kind == "ok", result.terminal
        assert not (rig.workspace / "nope.txt").exists()
        [seen] = rec.observations
        assert seen["toolName"] == "exec"
        assert seen["executionStarted"] is False and seen["outcome"] == "failure"
        assert "deny list" in seen["failure"]["error"]
        assert next(m for m in rec.mirrored if m["role"] == "toolResult")["isError"] is True


@requires_claude_acp
async def test_acp_resume_loads_the_session_without_mirroring_history_twice(rigs) -> None:
    async with ScriptedModelServer({"responses": [
        {"text": "noted the otter", "match": "remember otter"},
        {"text": "it was otter", "match": "which animal"},
    ]}) as server:
        rig = rigs(server.url)
        first = rig.harness({"claude": rig.claude_agent()})
        one = await rig.run(first, rig.params("remember otter", Recorder()))
        assert one.terminal.kind == "ok", one.terminal
        await first.dispose()
        second = rig.harness({"claude": rig.claude_agent()})
        rec = Recorder()
        two = await rig.run(second, rig.params("which animal", rec))
        assert two.terminal.kind == "ok", two.terminal
        assert two.extra["nativeSessionId"] == one.extra["nativeSessionId"]
        assert rec.roles() == ["user", "assistant"]  # the replayed history is not mirrored
        assert [m["content"][0]["text"] for m in rec.mirrored] == ["which animal",
                                                                   "it was otter"]
        assert "remember otter" in _requests_text(server).split("which animal")[0]


@requires_claude_acp
async def test_acp_cancel_mid_tool_stops_the_prompt_and_its_processes(rigs) -> None:
    async with ScriptedModelServer({"responses": [
        {"tool_calls": [{"name": "Bash", "arguments": {
            "command": "touch started.txt && sleep 48.73", "description": "slow"}}]},
        {"text": "never"},
    ]}) as server:
        rig = rigs(server.url)
        harness = rig.harness({"claude": rig.claude_agent()})
        abort = asyncio.Event()
        rec = Recorder()
        # the Bash tool runs unasked here: a fresh config asks first (and no one is there)
        params = rig.params("run the slow thing", rec, abort=abort, tools=UNASKED_EXEC)

        async def abort_once_started() -> None:
            assert await wait_until(lambda: bool(processes_matching("sleep 48.73")), 40)
            abort.set()

        trigger = asyncio.create_task(abort_once_started())
        result = await rig.run(harness, params)
        await trigger
        assert result.terminal.kind == "aborted"
        assert await wait_until(lambda: not processes_matching("sleep 48.73"), 5)
        [seen] = rec.observations
        assert seen["outcome"] == "failure"


@requires_claude_acp
async def test_acp_model_error_fails_the_attempt(rigs) -> None:
    async with ScriptedModelServer({"responses": [
        {"error": {"status": 400, "message": "scripted acp failure",
                   "type": "invalid_request_error"}}]}) as server:
        rig = rigs(server.url)
        harness = rig.harness({"claude": rig.claude_agent()})
        result = await rig.run(harness, rig.params("fail please", Recorder()))
        assert result.terminal.kind == "failed"
        assert result.terminal.error is not None
        assert "scripted acp failure" in result.terminal.error


async def test_acp_sdk_example_agent_smoke(rigs) -> None:
    example = sdist_example_agent()
    if example is None:
        pytest.skip("could not download the agent-client-protocol sdist")
    rig = rigs(None)
    harness = rig.harness({"example": {"command": [sys.executable, str(example)]}})
    rec = Recorder()
    result = await rig.run(harness, rig.params("ping the example", rec, agent="example"))
    assert result.terminal.kind == "ok", result.terminal
    assert "".join(result.assistant_texts) == "Client sent:ping the example"
    assert rec.roles() == ["user", "assistant"]
