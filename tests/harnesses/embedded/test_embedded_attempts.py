"""The built-in runtime end to end, over real HTTP against the scripted model server,
once per model API (OpenAI Responses, Chat Completions, Anthropic Messages)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from embedded_support import APIS, Recorder, base_url, make_params, text_of

from clawharness.config.schema import ToolsConfig
from clawharness.harnesses.embedded import OpenClawHarness
from clawharness.providers import STREAM_CUT_MESSAGE
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.testing import ScriptedModelServer
from clawharness.tools.approvals import ScriptedApprovalGate

pytestmark = pytest.mark.parametrize("api", APIS)


async def run(
    tmp_path: Path, api: str, script: dict[str, Any], **kwargs: Any
) -> tuple[Any, Recorder, ScriptedModelServer]:
    recorder = kwargs.pop("recorder", None) or Recorder()
    async with ScriptedModelServer(script) as server:
        params = make_params(tmp_path, api=api, url=base_url(server, api), recorder=recorder,
                             **kwargs)
        result = await OpenClawHarness().run_attempt(params)
    return result, recorder, server


async def test_text_turn_streams_and_mirrors_user_then_assistant(
    tmp_path: Path, api: str
) -> None:
    result, rec, _ = await run(tmp_path, api, {"responses": [{"text": "Hello there, friend"}]})

    assert result.terminal.kind == "ok"
    assert result.agent_harness_id == "openclaw"
    assert result.session_id_used == "session-1"
    assert result.transcript_mirrored is True
    assert rec.roles() == ["user", "assistant"]
    assert text_of(rec.mirrored[0]) == "please help"
    final = rec.mirrored[1]
    assert text_of(final) == "Hello there, friend"
    assert final["stopReason"] == "stop"
    assert final["usage"]["totalTokens"] == final["usage"]["input"] + final["usage"]["output"] > 0
    assert result.messages_snapshot == rec.mirrored
    assert result.assistant_texts == ["Hello there, friend"]
    assert result.last_assistant == final
    # partial replies are cumulative and end with the full text
    assert len(rec.partials) > 1
    assert rec.partials[-1] == "Hello there, friend"
    assert all(rec.partials[-1].startswith(p) for p in rec.partials)
    lifecycle = rec.streams("lifecycle")
    assert [e["phase"] for e in lifecycle] == ["start", "end"]
    assert lifecycle[-1]["terminal"] == "ok"
    assert rec.streams("assistant")[-1]["text"] == "Hello there, friend"
    assert rec.streams("usage")
    assert result.usage is not None and (result.usage.output or 0) > 0


async def test_tool_call_then_answer(tmp_path: Path, api: str) -> None:
    (tmp_path / "notes.txt").write_text("the secret is 42\n")
    script = {"responses": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "It says 42.", "match": "secret is 42"},
    ]}
    result, rec, server = await run(tmp_path, api, script)

    assert result.terminal.kind == "ok"
    assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
    call = rec.mirrored[1]["content"][0]
    assert call["type"] == "toolCall" and call["name"] == "read"
    assert call["arguments"] == {"path": "notes.txt"}
    assert rec.mirrored[1]["stopReason"] == "toolUse"
    tool_result = rec.mirrored[2]
    assert tool_result["toolCallId"] == call["id"]
    assert tool_result["isError"] is False
    assert "the secret is 42" in text_of(tool_result)
    assert text_of(rec.mirrored[3]) == "It says 42."
    assert result.tool_metas == [ToolCallMeta("read", call["id"], False)]
    assert [o["outcome"] for o in rec.observations] == ["success"]
    assert rec.observations[0]["executionStarted"] is True
    assert rec.observations[0]["arguments"] == {"path": "notes.txt"}
    tool_events = rec.streams("tool")
    assert [(e["phase"], e["name"]) for e in tool_events] == [("start", "read"),
                                                               ("result", "read")]
    # the second request carried the tool result back to the model
    assert len([r for r in server.requests if r.method == "POST"]) == 2


async def test_two_tool_calls_in_one_turn(tmp_path: Path, api: str) -> None:
    script = {"responses": [
        {"tool_calls": [
            {"name": "write", "arguments": {"path": "a.txt", "content": "A"}},
            {"name": "write", "arguments": {"path": "b/b.txt", "content": "B"}},
        ]},
        {"text": "wrote both"},
    ]}
    result, rec, _ = await run(tmp_path, api, script)

    assert result.terminal.kind == "ok"
    assert rec.roles() == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    ids = [b["id"] for b in rec.mirrored[1]["content"] if b["type"] == "toolCall"]
    assert [m["toolCallId"] for m in rec.mirrored[2:4]] == ids
    assert (tmp_path / "a.txt").read_text() == "A"
    assert (tmp_path / "b" / "b.txt").read_text() == "B"
    assert [m.is_error for m in result.tool_metas] == [False, False]


async def test_denied_tool_never_runs_and_model_sees_error(tmp_path: Path, api: str) -> None:
    marker = tmp_path / "ran.txt"
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": f"touch {marker}"}}]},
        {"text": "ok, not allowed"},
    ]}
    config = ToolsConfig.model_validate({"deny": ["group:runtime"]})
    result, rec, _ = await run(tmp_path, api, script, tools_config=config)

    assert result.terminal.kind == "ok"
    assert not marker.exists()
    tool_result = rec.mirrored[2]
    assert tool_result["role"] == "toolResult" and tool_result["isError"] is True
    assert "deny" in text_of(tool_result)
    assert rec.observations[0]["executionStarted"] is False
    assert rec.observations[0]["outcome"] == "failure"
    assert result.tool_metas[0].is_error is True


async def test_refused_approval_never_runs(tmp_path: Path, api: str) -> None:
    marker = tmp_path / "ran.txt"
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": f"touch {marker}"}}]},
        {"text": "understood"},
    ]}
    config = ToolsConfig.model_validate(
        {"exec": {"security": "allowlist", "ask": "on-miss", "allowlist": ["/nowhere/*"]}})
    gate = ScriptedApprovalGate(["deny"])
    result, rec, _ = await run(tmp_path, api, script, tools_config=config, approvals=gate)

    assert result.terminal.kind == "ok"
    assert not marker.exists()
    assert len(gate.requests) == 1
    assert gate.requests[0].tool_name == "exec"
    assert gate.requests[0].tool_call_id == rec.mirrored[1]["content"][0]["id"]
    assert "refused" in text_of(rec.mirrored[2])
    assert rec.mirrored[2]["isError"] is True
    assert rec.observations[0]["executionStarted"] is False


async def test_approved_call_runs(tmp_path: Path, api: str) -> None:
    marker = tmp_path / "ran.txt"
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": f"touch {marker}"}}]},
        {"text": "done"},
    ]}
    config = ToolsConfig.model_validate({"exec": {"ask": "always"}})
    gate = ScriptedApprovalGate(["allow-once"])
    result, rec, _ = await run(tmp_path, api, script, tools_config=config, approvals=gate)

    assert result.terminal.kind == "ok"
    assert marker.exists()
    assert rec.mirrored[2]["isError"] is False


async def test_model_error_fails_the_attempt(tmp_path: Path, api: str) -> None:
    script = {"responses": [{"error": {"status": 429, "message": "slow down please"}}]}
    result, rec, _ = await run(tmp_path, api, script)

    assert result.terminal.kind == "failed"
    assert result.terminal.source == "prompt"
    assert "429" in (result.terminal.error or "")
    assert "slow down please" in (result.terminal.error or "")
    assert rec.roles() == ["user", "assistant"]
    assert rec.mirrored[1]["stopReason"] == "error"
    assert rec.mirrored[1]["errorMessage"] == result.terminal.error
    assert result.assistant_texts == []


async def test_stream_cut_fails_with_partial_text(tmp_path: Path, api: str) -> None:
    script = {"responses": [{"cut": True, "text": "abcdefghijkl"}]}
    result, rec, _ = await run(tmp_path, api, script)

    assert result.terminal.kind == "failed"
    assert STREAM_CUT_MESSAGE in (result.terminal.error or "")
    assert rec.roles() == ["user", "assistant"]
    errored = rec.mirrored[1]
    assert errored["stopReason"] == "error"
    assert "abcdefghijkl".startswith(text_of(errored))
    assert text_of(errored)


async def test_abort_mid_stream_stops_at_once(tmp_path: Path, api: str) -> None:
    abort = asyncio.Event()
    recorder = Recorder()

    def partial(text: str) -> None:
        recorder.partials.append(text)
        abort.set()

    recorder.partial = partial  # type: ignore[method-assign]
    script = {"responses": [
        {"text": "one two three four five six"},
        {"text": "never asked for"},
    ]}
    result, rec, server = await run(tmp_path, api, script, recorder=recorder, abort=abort)

    assert result.terminal.kind == "aborted"
    assert result.terminal.source == "external"
    assert len(rec.partials) == 1
    assert rec.roles() == ["user", "assistant"]
    aborted = rec.mirrored[1]
    assert aborted["stopReason"] == "aborted"
    assert text_of(aborted) == rec.partials[0]
    assert len([r for r in server.requests if r.method == "POST"]) == 1
    assert rec.streams("lifecycle")[-1]["terminal"] == "aborted"


async def test_max_steps_bounds_the_loop(tmp_path: Path, api: str) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "ls", "arguments": {}}], "match": ".*", "repeat": True},
    ]}
    result, rec, server = await run(tmp_path, api, script, max_steps=3)

    assert result.terminal.kind == "aborted"
    assert result.terminal.source == "runtime"
    assert "max steps (3)" in (result.terminal.error or "")
    assert len([r for r in server.requests if r.method == "POST"]) == 3
    assert rec.roles() == ["user"] + ["assistant", "toolResult"] * 3
    # the third turn's call was not run, but it still has a result
    last = rec.mirrored[-1]
    assert last["isError"] is True and "limit of 3 model steps" in text_of(last)
    assert rec.observations[-1]["executionStarted"] is False
    assert [o["executionStarted"] for o in rec.observations] == [True, True, False]


async def test_a_listener_gets_only_the_streams_it_reads(tmp_path: Path, api: str) -> None:
    """`agent_event_streams`: the events of other streams are not sent (nor built); the
    reply still streams to `on_partial_reply`, and the transcript is the same."""
    (tmp_path / "notes.txt").write_text("the secret is 42\n")
    script = {"responses": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "It says 42, as the notes say.", "match": "secret is 42"},
    ]}
    rec = Recorder()
    async with ScriptedModelServer(script) as server:
        params = replace(make_params(tmp_path, api=api, url=base_url(server, api),
                                     recorder=rec),
                         agent_event_streams=frozenset({"tool", "usage"}))
        result = await OpenClawHarness().run_attempt(params)
    assert result.terminal.kind == "ok"
    assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
    assert {e.stream for e in rec.events} == {"tool", "usage"}
    assert [e["phase"] for e in rec.streams("tool")] == ["start", "result"]
    assert len(rec.streams("usage")) == 2
    assert rec.partials and rec.partials[-1] == "It says 42, as the notes say."
