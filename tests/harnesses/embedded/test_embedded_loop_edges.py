"""The built-in runtime's edges, in process (scripted transport): abort and deadline during
a request or a tool, unknown tools, bad arguments, history repair, precheck failures."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from embedded_support import Recorder, make_params, text_of

from clawharness.harness.types import (
    ResolvedModel,
    SupportContext,
    ToolCallContext,
    ToolSpec,
)
from clawharness.harnesses.embedded import OpenClawHarness
from clawharness.harnesses.embedded.messages import MISSING_RESULT_TEXT, model_context
from clawharness.providers import ModelRequest, ModelTransport, StreamEvent
from clawharness.providers.scripted import ScriptedTransport


class SignallingTransport:
    """Wraps a transport and sets `started` when a request begins streaming."""

    def __init__(self, inner: ScriptedTransport) -> None:
        self.inner = inner
        self.api = inner.api
        self.started = asyncio.Event()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.started.set()
        async for event in self.inner.stream(request):
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


def harness_for(transport: ModelTransport) -> OpenClawHarness:
    return OpenClawHarness(transport_factory=lambda model, key: transport)


def blocking_tool(started: asyncio.Event) -> ToolSpec:
    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        started.set()
        await asyncio.Event().wait()  # until cancelled
        raise AssertionError("unreachable")

    return ToolSpec("wait_forever", "blocks", {"type": "object", "properties": {}}, execute)


def params_for(tmp_path: Path, recorder: Recorder, **kwargs: Any) -> Any:
    return make_params(tmp_path, api="scripted", url=None, recorder=recorder, **kwargs)


async def test_identity_and_support() -> None:
    harness = OpenClawHarness()
    assert harness.id == "openclaw"
    assert harness.label == "OpenClaw Default"
    assert harness.supports(SupportContext(provider="anything", model_id="x")).supported


async def test_abort_while_waiting_for_the_model(tmp_path: Path) -> None:
    transport = SignallingTransport(
        ScriptedTransport({"responses": [{"text": "late", "delay_ms": 60_000}]}))
    rec = Recorder()
    params = params_for(tmp_path, rec)
    task = asyncio.create_task(harness_for(transport).run_attempt(params))
    await asyncio.wait_for(transport.started.wait(), 5)
    params.abort.set()
    result = await asyncio.wait_for(task, 5)

    assert result.terminal.kind == "aborted"
    assert rec.roles() == ["user", "assistant"]
    assert rec.mirrored[1]["stopReason"] == "aborted"
    assert rec.mirrored[1]["content"] == []


async def test_abort_cancels_a_running_tool(tmp_path: Path) -> None:
    started = asyncio.Event()
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "wait_forever", "arguments": {}},
                        {"name": "wait_forever", "arguments": {}}]},
        {"text": "never"},
    ]})
    rec = Recorder()
    params = params_for(tmp_path, rec, tools=[blocking_tool(started)])
    task = asyncio.create_task(harness_for(transport).run_attempt(params))
    await asyncio.wait_for(started.wait(), 5)
    params.abort.set()
    result = await asyncio.wait_for(task, 5)

    assert result.terminal.kind == "aborted"
    assert rec.roles() == ["user", "assistant", "toolResult", "toolResult"]
    assert all(m["isError"] and "aborted" in text_of(m) for m in rec.mirrored[2:])
    # the first call had started, the second never did
    assert [o["executionStarted"] for o in rec.observations] == [True, False]
    assert len(transport.requests) == 1


async def test_deadline_during_the_model_is_a_timeout(tmp_path: Path) -> None:
    transport = ScriptedTransport({"responses": [{"text": "late", "delay_ms": 60_000}]})
    rec = Recorder()
    deadline = asyncio.get_running_loop().time() + 0.2
    params = params_for(tmp_path, rec, deadline=deadline)
    result = await asyncio.wait_for(harness_for(transport).run_attempt(params), 5)

    assert result.terminal.kind == "timeout"
    assert result.terminal.phase == "prompt"
    assert rec.mirrored[-1]["stopReason"] == "aborted"


async def test_deadline_during_a_tool_is_a_tool_timeout(tmp_path: Path) -> None:
    started = asyncio.Event()
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "wait_forever", "arguments": {}}]}]})
    rec = Recorder()
    deadline = asyncio.get_running_loop().time() + 0.3
    params = params_for(tmp_path, rec, tools=[blocking_tool(started)], deadline=deadline)
    result = await asyncio.wait_for(harness_for(transport).run_attempt(params), 5)

    assert started.is_set()
    assert result.terminal.kind == "timeout"
    assert result.terminal.phase == "tool_execution"
    assert rec.roles() == ["user", "assistant", "toolResult"]
    assert "timed out" in text_of(rec.mirrored[2])


async def test_abort_before_start_makes_no_request(tmp_path: Path) -> None:
    transport = ScriptedTransport({"responses": [{"text": "x"}]})
    rec = Recorder()
    params = params_for(tmp_path, rec)
    params.abort.set()
    result = await harness_for(transport).run_attempt(params)
    assert result.terminal.kind == "aborted"
    assert transport.requests == []
    assert rec.roles() == ["user"]


async def test_unknown_tool_gets_an_error_result(tmp_path: Path) -> None:
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "rm_rf", "arguments": {}}]}, {"text": "sorry"}]})
    rec = Recorder()
    result = await harness_for(transport).run_attempt(params_for(tmp_path, rec))
    assert result.terminal.kind == "ok"
    assert rec.mirrored[2]["isError"] is True
    assert "not available" in text_of(rec.mirrored[2])
    assert rec.observations[0]["executionStarted"] is False


async def test_tools_outside_params_tools_do_not_exist(tmp_path: Path) -> None:
    marker = tmp_path / "x"
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "write", "arguments": {"path": "x", "content": "1"}}]},
        {"text": "ok"}]})
    rec = Recorder()
    params = params_for(tmp_path, rec, tools=[])
    await harness_for(transport).run_attempt(params)
    assert not marker.exists()
    assert transport.requests[0].tools == ()


async def test_invalid_json_arguments_are_not_run(tmp_path: Path) -> None:
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "write", "arguments": "{not json"}]}, {"text": "ok"}]})
    rec = Recorder()
    result = await harness_for(transport).run_attempt(params_for(tmp_path, rec))
    assert result.terminal.kind == "ok"
    assert rec.mirrored[2]["isError"] is True
    assert "not valid JSON" in text_of(rec.mirrored[2])
    assert rec.observations[0]["executionStarted"] is False


async def test_last_tool_error_comes_from_the_observer(tmp_path: Path) -> None:
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "missing.txt"}}]},
        {"text": "no file"}]})
    rec = Recorder()
    rec.observe_answer = {"lastToolError": {"toolName": "read", "error": "file not found"}}
    result = await harness_for(transport).run_attempt(params_for(tmp_path, rec))
    assert result.last_tool_error == {"toolName": "read", "error": "file not found"}
    assert rec.observations[0]["failure"]["error"].startswith("file not found")


async def test_async_observer_and_callbacks_are_awaited(tmp_path: Path) -> None:
    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "ls", "arguments": {}}]}, {"text": "listed"}]})
    rec = Recorder()
    seen: list[str] = []

    async def observe(observation: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        seen.append(observation["toolName"])
        return {"lastToolError": None}

    async def partial(text: str) -> None:
        seen.append(text)

    params = params_for(tmp_path, rec)
    params = replace(params, observe_tool_terminal=observe, on_partial_reply=partial)
    result = await harness_for(transport).run_attempt(params)
    assert result.terminal.kind == "ok"
    assert seen[0] == "ls" and seen[-1] == "listed"
    assert result.last_tool_error is None


async def test_history_reaches_the_model_repaired(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "earlier"}]},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]},
        # no result for c1 was ever recorded
        {"role": "user", "content": [{"type": "text", "text": "then"}]},
        {"role": "assistant", "stopReason": "error", "content": [], "errorMessage": "boom"},
        {"role": "toolResult", "toolCallId": "ghost", "toolName": "x", "content": []},
    ]
    transport = ScriptedTransport({"responses": [{"text": "ok"}]})
    rec = Recorder()
    await harness_for(transport).run_attempt(params_for(tmp_path, rec, history=history))
    sent = list(transport.requests[0].messages)
    assert [m["role"] for m in sent] == ["user", "assistant", "toolResult", "user", "user",
                                         "assistant"]
    assert sent[2]["toolCallId"] == "c1" and text_of(sent[2]) == MISSING_RESULT_TEXT
    assert text_of(sent[4]) == "please help"
    # the snapshot holds only this attempt's messages
    assert [m["role"] for m in rec.mirrored] == ["user", "assistant"]


def test_model_context_keeps_well_paired_history_as_is() -> None:
    history = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "t"}]},
        {"role": "toolResult", "toolCallId": "a", "toolName": "t", "content": []},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]
    out = model_context(history)
    assert out == history
    assert out is not history
    assert all(a is b for a, b in zip(out, history, strict=True))


async def test_unknown_api_fails_precheck(tmp_path: Path) -> None:
    rec = Recorder()
    params = params_for(tmp_path, rec)
    params = replace(params, model=ResolvedModel("test", "m", api="carrier-pigeon"))
    result = await OpenClawHarness().run_attempt(params)
    assert result.terminal.kind == "failed"
    assert result.terminal.source == "precheck"
    assert "carrier-pigeon" in (result.terminal.error or "")
    assert rec.roles() == ["user"]


async def test_env_api_key_that_is_unset_fails_precheck_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clawharness.harness.types import PreparedAuth

    monkeypatch.delenv("CLAW_TEST_MISSING_KEY", raising=False)
    rec = Recorder()
    params = params_for(tmp_path, rec)
    params = replace(params, model=ResolvedModel("test", "m", api="openai-completions",
                                                 base_url="http://127.0.0.1:9/v1"),
                     auth=PreparedAuth(source="direct", api_key="${CLAW_TEST_MISSING_KEY}"))
    result = await OpenClawHarness().run_attempt(params)
    assert result.terminal.kind == "failed"
    assert "CLAW_TEST_MISSING_KEY" in (result.terminal.error or "")


async def test_a_tool_that_may_change_state_waits_for_the_transcript_barrier(
    tmp_path: Path,
) -> None:
    order: list[str] = []
    rec = Recorder()

    async def barrier() -> None:
        order.append(f"barrier after {len(rec.mirrored)} mirrored")

    def tool(name: str) -> ToolSpec:
        async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
            order.append(f"run {name}")
            return {"content": [{"type": "text", "text": "ok"}]}

        return ToolSpec(name, name, {"type": "object", "properties": {}}, execute)

    transport = ScriptedTransport({"responses": [
        {"tool_calls": [{"name": "read", "arguments": {}}, {"name": "write", "arguments": {}}]},
        {"text": "done"},
    ]})
    params = params_for(tmp_path, rec, tools=[tool("read"), tool("write")])
    params = replace(params, mirror_barrier=barrier)
    result = await harness_for(transport).run_attempt(params)

    assert result.terminal.kind == "ok"
    # read is replay-safe and runs at once; write waits until the call (and the read's
    # result) are on record
    assert order == ["run read", "barrier after 3 mirrored", "run write"]


async def test_an_aborted_attempt_leaves_its_callers_task_uncancelled(tmp_path: Path) -> None:
    transport = SignallingTransport(
        ScriptedTransport({"responses": [{"text": "late", "delay_ms": 60_000}]}))
    params = params_for(tmp_path, Recorder())

    async def caller() -> tuple[str, int]:
        result = await harness_for(transport).run_attempt(params)
        await asyncio.sleep(0)  # the caller goes on: no cancellation is left pending
        task = asyncio.current_task()
        assert task is not None
        return result.terminal.kind, task.cancelling()

    task = asyncio.create_task(caller())
    await asyncio.wait_for(transport.started.wait(), 5)
    params.abort.set()
    assert await asyncio.wait_for(task, 5) == ("aborted", 0)


async def test_cancelling_the_callers_task_is_not_an_abort(tmp_path: Path) -> None:
    transport = SignallingTransport(
        ScriptedTransport({"responses": [{"text": "late", "delay_ms": 60_000}]}))
    params = params_for(tmp_path, Recorder())
    task = asyncio.create_task(harness_for(transport).run_attempt(params))
    await asyncio.wait_for(transport.started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert not params.abort.is_set()


async def test_an_abort_set_as_the_attempt_ends_counts_and_cancels_nothing_after_it(
    tmp_path: Path,
) -> None:
    params: Any = None

    class AbortingAtTheAnswer(Recorder):
        async def mirror(self, messages: Any) -> None:
            await super().mirror(messages)
            if any(m["role"] == "assistant" for m in messages):
                params.abort.set()  # as the final answer is stored

    transport = ScriptedTransport({"responses": [{"text": "done"}]})
    params = params_for(tmp_path, AbortingAtTheAnswer())

    async def caller() -> str:
        result = await harness_for(transport).run_attempt(params)
        for _ in range(5):
            await asyncio.sleep(0)  # would raise CancelledError if the abort reached here
        return result.terminal.kind

    assert await asyncio.wait_for(caller(), 5) == "aborted"


async def test_an_abort_with_the_callers_cancellation_still_cancels_the_caller(
        tmp_path: Path) -> None:
    """The abort cancels the attempt's own task and takes that cancellation back; one the
    caller asked for at the same moment is not taken with it."""
    transport = SignallingTransport(
        ScriptedTransport({"responses": [{"text": "late", "delay_ms": 60_000}]}))
    params = params_for(tmp_path, Recorder())
    task = asyncio.create_task(harness_for(transport).run_attempt(params))
    await asyncio.wait_for(transport.started.wait(), 5)
    params.abort.set()
    await asyncio.sleep(0)  # the abort's watcher wakes: the attempt is cancelled by it
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)


def test_tool_schemas_are_made_once_per_tuple_of_tools() -> None:
    """An agent's tools come as one tuple turn after turn: its schemas are made once;
    other tools (another config's) get their own, and a list is never kept."""
    from clawharness.harness.tool_spec import ToolSpec
    from clawharness.harnesses.embedded.loop import _tool_surface

    async def run(args: Any, context: Any) -> Any:
        return {"content": []}

    read = ToolSpec("read", "Read a file.", {"type": "object"}, run)
    ask = ToolSpec("ask", "Ask the caller.", {"type": "object"}, run, executed_by_caller=True)
    tools = (read, ask)
    schemas, callers = _tool_surface(tools)
    assert [s.name for s in schemas] == ["read", "ask"] and callers == {"ask"}
    assert _tool_surface(tools)[0] is schemas
    changed = (replace(read, description="Read a file, changed."),)
    assert [s.description for s in _tool_surface(changed)[0]] == ["Read a file, changed."]
    listed = [read]
    assert _tool_surface(listed)[0] is not _tool_surface(listed)[0]
