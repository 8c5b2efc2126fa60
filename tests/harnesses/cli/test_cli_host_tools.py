"""The host tools a CLI runtime lacks (`sessions_spawn`, ...), offered to `claude-cli` as
an in-process MCP server over its control channel (`plugin_sdk._cli_backend.host_mcp`),
against the fake Claude Code CLI: what is offered, the policy, the turn's scope."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from cli_support import Recorder, make_params

from clawharness.config.schema import ToolsConfig
from clawharness.harness.tool_spec import ToolCallContext, ToolResult, ToolSpec
from clawharness.harnesses.cli.claude import claude_cli_harness
from clawharness.plugin_sdk._cli_backend.host_mcp import HostToolServer, host_tools_for
from clawharness.plugin_sdk._tool_calls import ToolCallOutcome, ToolCallRequest, text_result
from clawharness.plugin_sdk.agent_harness_cli import CliBackendHarness
from clawharness.records.tool_calls import ToolCallMeta

FAKE = Path(__file__).resolve().parent / "fake_claude.py"
TIMEOUT = 20.0


class Tools:
    """Host tools that count their runs: `echo`, `ping`, and `read` (Claude has its own)."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, dict[str, Any]]] = []

    def spec(self, name: str) -> ToolSpec:
        async def execute(args: Mapping[str, Any], _ctx: ToolCallContext) -> ToolResult:
            self.runs.append((name, dict(args)))
            return text_result(f"{name}: {args.get('say', '')}")
        return ToolSpec(name, f"the {name} tool", {"type": "object", "properties": {
            "say": {"type": "string"}}}, execute)

    def all(self) -> list[ToolSpec]:
        return [self.spec("echo"), self.spec("ping"), self.spec("read")]


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.log = tmp / "fake.log"
        self.harness: CliBackendHarness = claude_cli_harness(
            state_dir=self.state / "plugin",
            config={"command": [sys.executable, str(FAKE)],
                    "env": {"FAKE_CLAUDE_LOG": str(self.log)}})
        self.tools = Tools()

    async def run(self, prompt: str, rec: Recorder | None = None, *,
                  tools: list[ToolSpec] | None = None, policy: ToolsConfig | None = None
                  ) -> Any:
        params = make_params(self.workspace, self.state, prompt=prompt,
                             recorder=rec or Recorder(), tools=policy)
        params = dataclasses.replace(params, tools=self.tools.all() if tools is None else tools)
        return await asyncio.wait_for(self.harness.run_attempt(params), TIMEOUT)

    def argvs(self) -> list[list[str]]:
        return [json.loads(line)["argv"] for line in self.log.read_text().splitlines()]


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    made = Rig(tmp_path)
    yield made
    await made.harness.dispose()


def report(result: Any) -> dict[str, Any]:
    assert result.terminal.kind == "ok", result.terminal.error
    return dict(json.loads(result.assistant_texts[-1]))


async def test_the_tools_the_runtime_lacks_are_offered_and_run_by_the_host(rig: Rig) -> None:
    rec = Recorder()
    result = await rig.run('host echo {"say": "hi"}', rec)
    assert report(result) == {"listed": ["echo", "ping"], "isError": False, "text": "echo: hi"}
    assert rig.tools.runs == [("echo", {"say": "hi"})]
    [argv] = rig.argvs()
    at = argv.index("--mcp-config")
    assert json.loads(argv[at + 1]) == {"mcpServers": {"clawharness": {
        "type": "sdk", "name": "clawharness"}}}
    # recorded once, under the host's name, by the host (Claude's own report is skipped)
    assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
    assert rec.mirrored[1]["content"][0]["name"] == "echo"
    assert rec.mirrored[2]["toolCallId"] == "toolu_1"
    assert result.tool_metas == [ToolCallMeta("echo", "toolu_1", False)]
    [seen] = rec.observations
    assert seen["toolName"] == "echo" and seen["executionStarted"] is True
    starts = [e.data for e in rec.events if e.stream == "tool" and e.data["phase"] == "start"]
    assert [(e["name"], e["toolCallId"]) for e in starts] == [("echo", "toolu_1")]


async def test_a_denied_host_tool_is_not_offered_and_refused_when_called(rig: Rig) -> None:
    result = await rig.run('host echo {"say": "hi"}', policy=ToolsConfig(deny=["echo"]))
    seen = report(result)
    assert seen["listed"] == ["ping"] and seen["isError"] is True
    assert "not available" in seen["text"]
    assert rig.tools.runs == []


async def test_a_turn_with_no_host_tools_to_offer_has_no_server(rig: Rig) -> None:
    result = await rig.run('host echo {"say": "hi"}', tools=[rig.tools.spec("read")])
    seen = report(result)
    assert seen["listed"] == [] and "no MCP server" in str(seen["error"])
    assert "--mcp-config" not in rig.argvs()[0]
    assert rig.tools.runs == []


async def test_a_call_another_turn_asked_for_is_refused(rig: Rig) -> None:
    assert report(await rig.run('host echo {"say": "one"}'))["isError"] is False
    # the same process, the next turn: a tools/call naming the first turn's tool use
    seen = report(await rig.run('stale echo {"say": "two"}'))
    assert seen["isError"] is True and "not one of this turn's" in seen["text"]
    assert rig.tools.runs == [("echo", {"say": "one"})]
    assert len(rig.argvs()) == 1


async def test_another_set_of_host_tools_starts_another_process(rig: Rig) -> None:
    await rig.run('host echo {"say": "one"}')
    seen = report(await rig.run('host echo {"say": "two"}', policy=ToolsConfig(deny=["ping"])))
    assert seen["listed"] == ["echo"]
    assert len(rig.argvs()) == 2


# --- the server itself -----------------------------------------------------------------------


async def test_the_server_answers_mcp_and_refuses_everything_once_closed() -> None:
    tools = Tools()
    turn_calls = {"toolu_1"}
    ran: list[ToolCallRequest] = []

    async def run(call: ToolCallRequest) -> ToolCallOutcome:
        ran.append(call)
        return ToolCallOutcome(call.call_id, call.name, call.arguments,
                               text_result("done"), False, True)

    offered = host_tools_for(tools.all(), ("read", "exec"))
    assert [t.name for t in offered] == ["echo", "ping"]
    server = HostToolServer("clawharness", offered, run, is_turn_call=turn_calls.__contains__)
    init = await server.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"protocolVersion": "2025-03-26"}})
    assert init is not None and init["result"]["protocolVersion"] == "2025-03-26"
    assert await server.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    listed = await server.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert listed is not None
    assert [t["name"] for t in listed["result"]["tools"]] == ["echo", "ping"]
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"say": "x"}, "_meta": {"claudecode/toolUseId": "toolu_1"}}}
    answer = await server.handle(call)
    assert answer is not None and answer["result"] == {
        "content": [{"type": "text", "text": "done"}], "isError": False}
    assert [(c.call_id, c.name) for c in ran] == [("toolu_1", "echo")]
    read = await server.handle({**call, "params": {"name": "read", "arguments": {}}})
    assert read is not None and read["result"]["isError"] is True
    unknown = await server.handle({"jsonrpc": "2.0", "id": 4, "method": "resources/list"})
    assert unknown is not None and unknown["error"]["code"] == -32601

    server.close()
    after = await server.handle(call)
    assert after is not None and "ended" in after["error"]["message"]
    assert len(ran) == 1
