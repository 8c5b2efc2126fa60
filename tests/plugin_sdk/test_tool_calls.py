"""`ToolCalls`: the one tool-call routine every harness runs its calls through (policy and
approval, execution, the observer, middleware, the record, the transcript, events)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clawharness.harness.tool_spec import ToolCallContext  # what the host hands a tool
from clawharness.plugin_sdk.agent_harness import (
    AgentEvent,
    AttemptParams,
    Message,
    ToolResult,
    ToolSpec,
)
from clawharness.plugin_sdk.agent_harness_tool_runtime import (
    ToolCallOutcome,
    ToolCallRequest,
    ToolCalls,
    text_result,
)
from clawharness.plugin_sdk.testing import StaticToolPolicy, attempt_params
from clawharness.records.tool_calls import ToolCallMeta


class Recorder:
    """What the host's side saw: observations, events, placed messages, barrier waits."""

    def __init__(self) -> None:
        self.observed: list[Mapping[str, Any]] = []
        self.events: list[AgentEvent] = []
        self.placed: list[Message] = []
        self.barriers = 0
        self.transformed: list[tuple[str, str, dict[str, Any], bool]] = []

    def observe(self, observation: Mapping[str, Any]) -> Mapping[str, Any]:
        self.observed.append(observation)
        failed = observation["outcome"] == "failure"
        return {"lastToolError": {"toolName": observation["toolName"]} if failed else None}

    async def place(self, message: Message, outcome: ToolCallOutcome) -> None:
        self.placed.append(message)

    async def barrier(self) -> None:
        self.barriers += 1

    async def transform(self, tool: str, call_id: str, args: dict[str, Any],
                        result: ToolResult, is_error: bool) -> ToolResult:
        self.transformed.append((tool, call_id, args, is_error))
        return {**result, "content": [{"type": "text", "text": "[redacted by middleware]"}]}


def echo_tool(runs: list[Mapping[str, Any]]) -> ToolSpec:
    async def execute(args: Mapping[str, Any], context: ToolCallContext) -> ToolResult:
        runs.append(args)
        return {"content": f"echo {args.get('text')}", "details": {"len": 4}}

    return ToolSpec("echo", "echoes", {"type": "object"}, execute)


def params_for(tmp_path: Path, recorder: Recorder, *, tools: tuple[ToolSpec, ...] = (),
               policy: StaticToolPolicy | None = None) -> AttemptParams:
    base = attempt_params(workspace_dir=str(tmp_path), tools=tools, policy=policy)
    return dataclasses.replace(base, observe_tool_terminal=recorder.observe,
                               on_agent_event=recorder.events.append,
                               mirror_barrier=recorder.barrier,
                               transform_tool_result=recorder.transform)


def test_a_host_tool_runs_is_observed_with_its_original_and_the_model_sees_middlewares(
        tmp_path: Path) -> None:
    recorder, runs = Recorder(), []
    params = params_for(tmp_path, recorder, tools=(echo_tool(runs),))
    calls = ToolCalls(params, placement=recorder.place)
    outcome = asyncio.run(calls.run_host_tool(ToolCallRequest("c1", "echo", {"text": "hi"})))
    assert runs == [{"text": "hi"}]
    # the observer saw the tool's own result (content made a list of blocks)
    assert recorder.observed[0]["result"]["content"] == [{"type": "text", "text": "echo hi"}]
    assert recorder.observed[0]["executionStarted"] is True
    # the model (outcome, transcript message) sees what middleware made of it
    assert recorder.transformed == [("echo", "c1", {"text": "hi"}, False)]
    assert outcome.text == "[redacted by middleware]" and not outcome.is_error
    assert recorder.placed[0]["content"] == outcome.content
    assert recorder.placed[0]["details"] == {"len": 4}
    assert recorder.barriers == 1  # `echo` is not known to be replay-safe: on record first
    assert calls.metas == [ToolCallMeta("echo", "c1", False)]
    assert [e.data["phase"] for e in recorder.events] == ["start", "result"]
    assert calls.settled == {"c1"} and calls.in_flight is None


def test_a_refused_host_tool_never_runs_and_fails_with_the_policys_reason(tmp_path: Path) -> None:
    recorder, runs = Recorder(), []
    params = params_for(tmp_path, recorder, tools=(echo_tool(runs),),
                        policy=StaticToolPolicy(deny={"echo": "echo is denied by test policy"}))
    calls = ToolCalls(params, placement=recorder.place)

    async def run() -> tuple[ToolCallOutcome, ToolCallOutcome, ToolCallOutcome]:
        refused = await calls.run_host_tool(ToolCallRequest("c1", "echo", {}))
        unknown = await calls.run_host_tool(ToolCallRequest("c2", "nope", {}))
        garbled = await ToolCalls(params_for(tmp_path, recorder, tools=(echo_tool(runs),)),
                                  placement=recorder.place).run_host_tool(
            ToolCallRequest("c3", "echo", {}), invalid_arguments="arguments are not JSON")
        return refused, unknown, garbled

    refused, unknown, garbled = asyncio.run(run())
    assert runs == [] and recorder.transformed == [] and recorder.barriers == 0
    assert refused.is_error and not refused.execution_started
    assert refused.error == "Tool 'echo' was not run: echo is denied by test policy"
    assert unknown.error is not None and unknown.error.startswith(
        "Tool 'nope' is not available in this session: ")
    assert garbled.error == "Tool 'echo' was not run: arguments are not JSON"
    assert [o["failure"]["error"] for o in recorder.observed] == [
        refused.error, unknown.error, garbled.error]
    assert calls.metas[0] == ToolCallMeta("echo", "c1", True, refused.error)
    assert calls.last_tool_error == {"toolName": "nope"}


def test_a_native_call_the_host_refused_settles_as_not_started_with_the_reason(
        tmp_path: Path) -> None:
    recorder = Recorder()
    params = params_for(tmp_path, recorder,
                        policy=StaticToolPolicy(deny={"exec": "exec is denied by test policy"}))
    calls = ToolCalls(params, placement=recorder.place)
    call = ToolCallRequest("n1", "exec", {"command": "rm -rf /"})

    async def run() -> ToolCallOutcome:
        permission = await calls.ask(call, cwd=str(tmp_path))
        assert not permission.allowed and not permission.cancelled
        assert permission.reason == "exec is denied by test policy"
        return await calls.settle_native(call, result=text_result("not run"), is_error=True)

    outcome = asyncio.run(run())
    assert not outcome.execution_started
    assert recorder.observed[0]["failure"] == {"error": "exec is denied by test policy"}
    assert recorder.transformed == []  # middleware is for host tools the model reads
    assert [e.data["phase"] for e in recorder.events] == ["permission", "result"]
    assert recorder.events[0].data["allowed"] is False


def test_asking_fails_closed_once_the_attempt_settled(tmp_path: Path) -> None:
    recorder = Recorder()
    params = params_for(tmp_path, recorder)
    params.host_capabilities.settle()
    permission = asyncio.run(ToolCalls(params).ask(ToolCallRequest("n1", "read", {})))
    assert not permission.allowed and not permission.cancelled
    assert permission.reason is not None and permission.reason.startswith(
        "tool policy unavailable: ")


def test_an_abort_while_a_person_decides_answers_cancelled(tmp_path: Path) -> None:
    asked = asyncio.Event()

    class NeverAnswers:
        async def decide(self, request: object) -> None:
            asked.set()
            await asyncio.Event().wait()

    async def run() -> bool:
        recorder = Recorder()
        base = attempt_params(workspace_dir=str(tmp_path), approvals=NeverAnswers(),
                              policy=StaticToolPolicy(ask={"exec": "exec wants approval"}))
        params = dataclasses.replace(base, on_agent_event=recorder.events.append)
        pending = asyncio.create_task(ToolCalls(params).ask(
            ToolCallRequest("n1", "exec", {"command": "make"})))
        await asyncio.wait_for(asked.wait(), 5)
        params.abort.set()
        permission = await asyncio.wait_for(pending, 5)
        return permission.cancelled and not permission.allowed

    assert asyncio.run(run())


def test_the_deadline_passing_while_the_host_decides_cancels_the_decision(
        tmp_path: Path) -> None:
    asked, stopped = asyncio.Event(), asyncio.Event()

    class NeverAnswers:
        async def decide(self, request: object) -> None:
            asked.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                stopped.set()
                raise

    async def run() -> tuple[bool, bool, bool]:
        base = attempt_params(workspace_dir=str(tmp_path), approvals=NeverAnswers(),
                              policy=StaticToolPolicy(ask={"exec": "exec wants approval"}))
        params = dataclasses.replace(base, deadline=asyncio.get_running_loop().time() + 0.2)
        permission = await asyncio.wait_for(ToolCalls(params).ask(
            ToolCallRequest("n1", "exec", {"command": "make"})), 5)
        return asked.is_set(), stopped.is_set(), permission.cancelled and not permission.allowed

    assert asyncio.run(run()) == (True, True, True)


def test_a_call_cut_off_while_running_counts_as_started_with_the_arguments_that_ran(
        tmp_path: Path) -> None:
    recorder = Recorder()
    entered = asyncio.Event()

    async def slow(args: Mapping[str, Any], context: ToolCallContext) -> ToolResult:
        entered.set()
        await asyncio.Event().wait()
        return text_result("never")

    async def run() -> ToolCallOutcome:
        params = params_for(tmp_path, recorder,
                            tools=(ToolSpec("slow", "waits", {"type": "object"}, slow),))
        calls = ToolCalls(params, placement=recorder.place)
        call = ToolCallRequest("s1", "slow", {"n": 1})
        task = asyncio.create_task(calls.run_host_tool(call))
        await asyncio.wait_for(entered.wait(), 5)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        assert calls.in_flight == call
        return await calls.settle_unfinished(call, "Tool call aborted.")

    outcome = asyncio.run(run())
    assert outcome.execution_started and outcome.error == "Tool call aborted."
    assert recorder.observed[-1]["executionStarted"] is True
    assert recorder.placed[-1]["isError"] is True


def test_a_tripped_loop_guard_notes_it_on_the_result_and_refuses_what_comes_after(
        tmp_path: Path) -> None:
    from clawharness.harness import ToolLoopGuard, ToolLoopLimits

    recorder, runs = Recorder(), []
    guard = ToolLoopGuard(ToolLoopLimits(same_call_limit=2, no_progress_limit=50))
    params = dataclasses.replace(params_for(tmp_path, recorder, tools=(echo_tool(runs),)),
                                 transform_tool_result=None, tool_loops=guard)
    calls = ToolCalls(params, placement=recorder.place)

    async def scenario() -> None:
        await calls.run_host_tool(ToolCallRequest("c1", "echo", {"text": "hi"}))
        tripping = await calls.run_host_tool(ToolCallRequest("c2", "echo", {"text": "hi"}))
        assert guard.tripped is not None
        # the transcript says why the turn ends there
        assert tripping.content[-1]["text"] == guard.tripped.note
        assert recorder.placed[-1]["content"][-1]["text"] == guard.tripped.note
        # a host tool after it does not run; a native call is refused when asked
        after = await calls.run_host_tool(ToolCallRequest("c3", "echo", {"text": "other"}))
        assert after.is_error and "same arguments 2 times" in after.text
        permission = await calls.ask(ToolCallRequest("c4", "exec", {"command": "ls"}))
        assert not permission.allowed and permission.reason == guard.tripped.message

    asyncio.run(scenario())
    assert runs == [{"text": "hi"}, {"text": "hi"}]
