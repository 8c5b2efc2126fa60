"""The `claude-cli` harness against the real Claude Code CLI (pinned in .cache/claude),
pointed at the scripted Anthropic server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

import pytest
from claude_cli_rig import requires_claude
from cli_support import Recorder, processes_matching, wait_until

from clawharness.config.schema import ToolsConfig
from clawharness.testing import ScriptedModelServer
from clawharness.tools.approvals import ScriptedApprovalGate

pytestmark = [pytest.mark.integration, requires_claude]
UNASKED_EXEC = ToolsConfig.model_validate({"exec": {"security": "full", "ask": "off"}})


def _server(responses: list[dict[str, object]]) -> ScriptedModelServer:
    return ScriptedModelServer({"responses": responses})


def _last_request_text(server: ScriptedModelServer) -> str:
    bodies = [r.body for r in server.requests if r.path.startswith("/v1/messages")
              and not r.path.endswith("count_tokens")]
    return json.dumps(bodies[-1]) if bodies else ""


async def test_text_turn_streams_partials_mirrors_and_binds_the_session(rig_factory) -> None:
    async with _server([{"text": "hello from the scripted model"}]) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        rec = Recorder()
        result = await rig.run(harness, rig.params("say hello", rec))
        assert result.terminal.kind == "ok", result.terminal
        assert result.assistant_texts == ["hello from the scripted model"]
        assert rec.partials and rec.partials[-1] == "hello from the scripted model"
        assert len(rec.partials) > 1  # streamed in pieces, not once at the end
        assert rec.roles() == ["user", "assistant"]
        assert all(m.get("__meta", {}).get("idempotencyKey") for m in rec.mirrored)
        binding = await harness.binding("main", "agent:main:main")
        assert binding is not None
        assert binding["nativeSessionId"] == result.extra["nativeSessionId"]
        assert "say hello" in _last_request_text(server)


async def test_tool_allowed_by_approval_runs_and_is_reported(rig_factory) -> None:
    async with _server([
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch allowed.txt",
                                                        "description": "create a file"}}]},
        {"text": "created it"},
    ]) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        gate = ScriptedApprovalGate(["allow-once"])
        rec = Recorder()
        params = rig.params("make a file", rec, approvals=gate,
                            tools=ToolsConfig.model_validate({"exec": {"ask": "always"}}))
        result = await rig.run(harness, params)
        assert result.terminal.kind == "ok", result.terminal
        assert (rig.workspace / "allowed.txt").exists()
        assert [r.tool_name for r in gate.requests] == ["exec"]
        assert gate.requests[0].arguments["command"] == "touch allowed.txt"
        [seen] = rec.observations
        assert seen["toolName"] == "exec" and seen["executionStarted"] is True
        assert seen["outcome"] == "success"
        assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
        assert rec.mirrored[1]["content"][0]["type"] == "toolCall"
        assert result.assistant_texts == ["created it"]


async def test_tool_denied_by_policy_never_runs_and_the_model_hears_why(rig_factory) -> None:
    async with _server([
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch denied.txt",
                                                        "description": "create a file"}}]},
        {"text": "could not"},
    ]) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        rec = Recorder()
        params = rig.params("make a file", rec, tools=ToolsConfig(deny=["exec"]))
        result = await rig.run(harness, params)
        assert result.terminal.kind == "ok", result.terminal
        assert not (rig.workspace / "denied.txt").exists()
        [seen] = rec.observations
        assert seen["executionStarted"] is False and seen["outcome"] == "failure"
        assert "denied" in seen["failure"]["error"]
        tool_result = next(m for m in rec.mirrored if m["role"] == "toolResult")
        assert tool_result["isError"] is True
        assert "deny list" in _last_request_text(server)


async def test_resume_from_a_new_process_keeps_the_native_history(rig_factory) -> None:
    async with _server([
        {"text": "first answer", "match": "remember the word pelican"},
        {"text": "second answer", "match": "what was the word"},
    ]) as server:
        rig = rig_factory(server.url)
        first = rig.harness()
        rec = Recorder()
        one = await rig.run(first, rig.params("remember the word pelican", rec))
        assert one.terminal.kind == "ok", one.terminal
        await first.dispose()
        assert first.live_pids() == []
        second = rig.harness()  # a fresh harness: no live process, only the stored binding
        rec2 = Recorder()
        two = await rig.run(second, rig.params("what was the word", rec2))
        assert two.terminal.kind == "ok", two.terminal
        assert two.extra["nativeSessionId"] == one.extra["nativeSessionId"]
        history = _last_request_text(server)
        assert "remember the word pelican" in history and "first answer" in history


async def test_cancel_mid_tool_interrupts_and_leaves_no_stray_process(rig_factory) -> None:
    marker = "clawharness-cancel-marker-4711"
    async with _server([
        {"tool_calls": [{"name": "Bash", "arguments": {
            "command": f"touch started.txt && sleep 47.31 && echo {marker}",
            "description": "slow"}}]},
        {"text": "never reached"},
    ]) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        abort = asyncio.Event()
        rec = Recorder()
        # the Bash tool runs unasked here: a fresh config asks first (and no one is there)
        params = rig.params("run the slow thing", rec, abort=abort, tools=UNASKED_EXEC)

        async def abort_once_started() -> None:
            assert await wait_until(lambda: (rig.workspace / "started.txt").exists(), 30)
            assert await wait_until(lambda: bool(processes_matching("sleep 47.31")), 10)
            abort.set()

        trigger = asyncio.create_task(abort_once_started())
        result = await rig.run(harness, params)
        await trigger
        assert result.terminal.kind == "aborted"
        assert await wait_until(lambda: not processes_matching("sleep 47.31"), 5)
        assert not processes_matching(marker)
        [seen] = rec.observations
        assert seen["executionStarted"] is True and seen["outcome"] == "failure"
        # the harness stays usable: a later turn runs on the same binding
        rec2 = Recorder()
        later = await rig.run(harness, rig.params("are you there", rec2))
        assert later.terminal.kind == "ok", later.terminal


async def test_model_error_fails_the_attempt_with_the_api_message(rig_factory) -> None:
    async with _server([{"error": {"status": 400, "message": "scripted bad request",
                                   "type": "invalid_request_error"}}]) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        rec = Recorder()
        result = await rig.run(harness, rig.params("this will fail", rec))
        assert result.terminal.kind == "failed"
        assert result.terminal.error is not None and "scripted bad request" in result.terminal.error
        assert result.assistant_texts == []
        errors = [m for m in rec.mirrored if m["role"] == "assistant"]
        assert errors and errors[-1]["stopReason"] == "error"


async def test_each_turn_costs_what_claude_code_reports_for_it(rig_factory) -> None:
    # Claude Code prices its calls itself ($3 / $15 per million on claude-sonnet-4-5) and
    # reports its process's running total; each turn is charged its own part
    answer = {"text": "ok", "usage": {"input_tokens": 1000, "output_tokens": 500}}
    async with _server([answer, answer]) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        first = await rig.run(harness, rig.params("one", Recorder(), api_key="sk-ant-test"))
        second = await rig.run(harness, rig.params("two", Recorder(), api_key="sk-ant-test"))
        assert first.terminal.kind == second.terminal.kind == "ok"
        assert len(harness.live_pids()) == 1
        for result in (first, second):
            assert result.usage is not None and result.usage.cost is not None
            assert result.usage.cost.total == pytest.approx(0.0105)
