"""Single turns on the real Codex app-server: text, shell, approvals, patches, host tools,
failures. Each checks the mirrored transcript, the terminal and the tool outcomes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from codex_rig import AskFor, MakeRig, Operator

from clawharness.harness.types import ToolCallContext, ToolSpec
from clawharness.records.tool_calls import ToolCallMeta

pytestmark = pytest.mark.integration


async def test_a_text_turn_streams_mirrors_and_completes(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "Hello from the scripted model."}]})
    attempt = rig.attempt("say hello")
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert result.agent_harness_id == "codex"
    assert result.transcript_mirrored is True
    assert result.session_id_used == attempt.params.session_id
    assert result.assistant_texts == ["Hello from the scripted model."]
    assert attempt.roles() == ["user", "assistant"]
    user, assistant = attempt.mirrored.values()
    assert user["content"] == [{"type": "text", "text": "say hello"}]
    assert assistant["content"] == [{"type": "text", "text": "Hello from the scripted model."}]
    thread_id = result.extra["codexThreadId"]
    assert all(key.startswith(f"{thread_id}:") for key in attempt.mirrored)
    assert attempt.partials and attempt.partials[-1] == "Hello from the scripted model."
    assert result.usage is not None and (result.usage.total or 0) > 0
    # the prompt reached the model as the last user message of the request
    last = rig.model_requests()[-1]["input"][-1]
    assert last["role"] == "user" and last["content"][0]["text"] == "say hello"


async def test_reasoning_is_reported_as_thinking_events(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"thinking": "First look, then answer.",
                                         "text": "Looked."}]})
    attempt = rig.attempt("look")
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    thoughts = [e.data["delta"] for e in attempt.events if e.stream == "thinking"]
    assert "".join(thoughts) == "First look, then answer."


async def test_a_shell_command_is_mirrored_as_a_tool_call_and_result(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"tool_calls": [{"name": "exec_command",
                         "arguments": {"cmd": "echo shell-says-hi; exit 3"}}]},
        {"text": "The command failed with code 3."}]},
        sandbox="danger-full-access", approval_policy="never")
    attempt = rig.attempt("run the command")
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert attempt.roles() == ["user", "assistant", "toolResult", "assistant"]
    (call,) = attempt.tool_calls()
    assert call["name"] == "exec" and "echo shell-says-hi" in call["arguments"]["command"]
    (tool_result,) = attempt.tool_results()
    assert tool_result["toolCallId"] == call["id"]
    assert "shell-says-hi" in tool_result["content"][0]["text"]
    assert tool_result["details"]["exitCode"] == 3
    assert tool_result["isError"] is True
    # one meta shape for every harness: a failed call's meta says why (as the built-in's)
    assert result.tool_metas == [ToolCallMeta("exec", call["id"], True, "exit code 3")]
    (observation,) = attempt.observations
    assert observation["outcome"] == "failure" and observation["executionStarted"] is True
    assert observation["nativeMutation"]["mutatingAction"] is True
    assert result.last_tool_error is not None
    assert result.last_tool_error["toolName"] == "exec"
    assert result.assistant_texts == ["The command failed with code 3."]


ESCALATED_TOUCH = {"tool_calls": [{"name": "exec_command", "arguments": {
    "cmd": "touch approved.txt", "sandbox_permissions": "require_escalated",
    "justification": "create a file"}}]}


async def test_an_approved_command_runs(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [ESCALATED_TOUCH, {"text": "created"}]},
                         sandbox="read-only")
    operator = Operator("allow-once")
    attempt = rig.attempt("touch it", policy=AskFor("exec"), approvals=operator)
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert (rig.workspace / "approved.txt").exists()
    (request,) = operator.requests
    assert request.tool_name == "exec" and "touch approved.txt" in request.arguments["command"]
    assert request.cwd == str(rig.workspace)
    (tool_result,) = attempt.tool_results()
    assert tool_result["isError"] is False and tool_result["details"]["exitCode"] == 0
    assert attempt.observations[0]["outcome"] == "success"
    assert result.last_tool_error is None


async def test_a_declined_command_does_not_run_and_the_turn_goes_on(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [ESCALATED_TOUCH, {"text": "could not create it"}]},
                         sandbox="read-only")
    attempt = rig.attempt("touch it", policy=AskFor("exec"), approvals=Operator("deny"))
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert not (rig.workspace / "approved.txt").exists()
    (tool_result,) = attempt.tool_results()
    assert tool_result["isError"] is True and tool_result["details"]["status"] == "declined"
    (observation,) = attempt.observations
    assert observation["executionStarted"] is False and observation["outcome"] == "failure"
    assert result.tool_metas[0].is_error is True
    assert result.assistant_texts == ["could not create it"]
    # the model was told the command was rejected
    assert "rejected" in json.dumps(rig.model_requests()[-1]["input"][-1])


PATCH = ("*** Begin Patch\n*** Add File: hello.txt\n+hello from a patch\n"
         "*** End Patch\n")


async def test_an_apply_patch_file_change_is_approved_mirrored_and_observed(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"tool_calls": [{"name": "apply_patch", "custom": True, "input": PATCH}]},
        {"text": "patched"}]}, sandbox="read-only")
    operator = Operator("allow-once")
    attempt = rig.attempt("write the note", policy=AskFor("apply_patch"), approvals=operator)
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert (rig.workspace / "hello.txt").read_text() == "hello from a patch\n"
    (request,) = operator.requests
    assert request.tool_name == "apply_patch"
    assert request.arguments["changes"] == [
        {"path": str(rig.workspace / "hello.txt"), "kind": "add"}]
    (call,) = attempt.tool_calls()
    assert call["name"] == "apply_patch"
    (tool_result,) = attempt.tool_results()
    (change,) = tool_result["details"]["changes"]
    assert change["kind"] == "add" and "hello from a patch" in change["diff"]
    (observation,) = attempt.observations
    assert observation["toolName"] == "apply_patch" and observation["outcome"] == "success"
    assert observation["nativeMutation"] == {
        "mutatingAction": True, "replaySafe": False,
        "actionFingerprint": f"tool=apply_patch|path={rig.workspace}/hello.txt".lower()}


async def test_a_host_tool_is_offered_as_a_dynamic_tool_and_executed(
        make_rig: MakeRig) -> None:
    calls: list[tuple[Mapping[str, Any], ToolCallContext]] = []

    async def lookup(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        calls.append((args, ctx))
        return {"content": [{"type": "text", "text": f"weather in {args['city']}: sunny"}]}

    tool = ToolSpec("weather", "Look up the weather", {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        lookup)
    rig = await make_rig({"responses": [
        {"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]},
        {"text": "It is sunny in Oslo."}]})
    operator = Operator("allow-once")
    attempt = rig.attempt("weather?", tools=[tool], policy=AskFor("weather"),
                          approvals=operator)
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert [r.tool_name for r in operator.requests] == ["weather"]
    ((args, ctx),) = calls
    assert args == {"city": "Oslo"} and ctx.session_key == "agent:main:s1"
    assert "weather" in [t.get("name") for t in rig.model_requests()[0]["tools"]]
    follow_up = rig.model_requests()[-1]["input"][-1]
    assert follow_up["type"] == "function_call_output"
    assert "sunny" in json.dumps(follow_up)
    (call,) = attempt.tool_calls()
    assert call["name"] == "weather" and call["arguments"] == {"city": "Oslo"}
    (tool_result,) = attempt.tool_results()
    assert tool_result["content"][0]["text"] == "weather in Oslo: sunny"
    assert result.tool_metas == [ToolCallMeta("weather", call["id"], False)]
    assert attempt.observations[0]["outcome"] == "success"
    assert "nativeMutation" not in attempt.observations[0]


async def test_tool_result_middleware_shapes_what_codex_feeds_back_to_the_model(
        make_rig: MakeRig) -> None:
    """A dynamic tool goes through the SDK's tool-call routine, middleware included: the
    observer sees the tool's own result, the model what middleware made of it."""

    async def lookup(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "token sk-live-123 for Oslo"}]}

    async def redact(tool: str, call_id: str, args: dict[str, Any], result: dict[str, Any],
                     is_error: bool) -> dict[str, Any]:
        text = result["content"][0]["text"].replace("sk-live-123", "[token]")
        return {**result, "content": [{"type": "text", "text": text}]}

    tool = ToolSpec("weather", "Look up the weather", {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        lookup)
    rig = await make_rig({"responses": [
        {"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]},
        {"text": "Done."}]})
    attempt = rig.attempt("weather?", tools=[tool])
    params = replace(attempt.params, transform_tool_result=redact)
    result = await rig.harness.run_attempt(params)

    assert result.terminal.kind == "ok"
    follow_up = json.dumps(rig.model_requests()[-1]["input"][-1])
    assert "[token]" in follow_up and "sk-live-123" not in follow_up
    assert "sk-live-123" in json.dumps(attempt.observations[0]["result"])


async def test_a_denied_host_tool_is_not_executed_and_the_model_is_told(
        make_rig: MakeRig) -> None:
    ran: list[str] = []

    async def dangerous(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        ran.append("ran")
        return {"content": "done"}

    tool = ToolSpec("wipe", "Wipe things", {"type": "object", "properties": {}}, dangerous)
    rig = await make_rig({"responses": [{"tool_calls": [{"name": "wipe", "arguments": {}}]},
                                        {"text": "I was not allowed."}]})
    attempt = rig.attempt("wipe", tools=[tool], policy=AskFor("wipe"), approvals=Operator("deny"))
    result = await rig.harness.run_attempt(attempt.params)

    assert result.terminal.kind == "ok"
    assert ran == []
    assert "was not run" in json.dumps(rig.model_requests()[-1]["input"][-1])
    assert attempt.observations[0]["executionStarted"] is False
    assert result.tool_metas[0].is_error is True


async def test_an_http_500_fails_the_turn_and_the_thread_stays_usable(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"error": {"status": 500, "message": "upstream exploded"}}, {"text": "recovered"}]})
    first = rig.attempt("first")
    failed = await rig.harness.run_attempt(first.params)
    assert failed.terminal.kind == "failed"
    assert failed.terminal.error  # Codex replaces 500 bodies with a generic message
    assert failed.assistant_texts == []
    assert first.roles() == ["user"]

    second = rig.attempt("second")
    ok = await rig.harness.run_attempt(second.params)
    assert ok.terminal.kind == "ok" and ok.assistant_texts == ["recovered"]
    assert ok.extra["codexThreadId"] == failed.extra["codexThreadId"]


async def test_a_cut_stream_fails_the_turn_with_the_transport_error(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"cut": True, "text": "partial answ"}]})
    attempt = rig.attempt("go")
    result = await rig.harness.run_attempt(attempt.params)
    assert result.terminal.kind == "failed"
    assert "stream disconnected" in (result.terminal.error or "")
    assert result.assistant_texts == []
