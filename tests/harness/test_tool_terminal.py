"""A settled tool call is reported one way by every harness (`harness/tool_terminal.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from clawharness.harness.tool_terminal import report_tool_terminal, tool_observation

PREVIOUS = {"toolName": "exec", "error": "earlier"}


def test_an_observation_names_the_call_and_carries_a_failure_only_on_an_error() -> None:
    ok = tool_observation(tool_call_id="c1", tool_name="read", arguments={"path": "a"},
                          execution_started=True, is_error=False,
                          result={"content": [], "isError": False}, failure_error="unused")
    assert ok == {"toolCallId": "c1", "toolName": "read", "arguments": {"path": "a"},
                  "executionStarted": True, "outcome": "success",
                  "result": {"content": [], "isError": False}}
    failed = tool_observation(tool_call_id="c2", tool_name="exec", arguments={},
                              execution_started=False, is_error=True, result={},
                              failure_error="denied by policy")
    assert failed["outcome"] == "failure"
    assert failed["failure"] == {"error": "denied by policy"}


def test_the_last_tool_error_is_what_the_host_answers() -> None:
    seen: list[Mapping[str, object]] = []

    def answering(answer: object):  # type: ignore[no-untyped-def]
        def observe(observation: Mapping[str, object]) -> object:
            seen.append(observation)
            return answer
        return observe

    async def async_observe(observation: Mapping[str, object]) -> object:
        seen.append(observation)
        return {"lastToolError": {"toolName": "read"}}

    async def run() -> None:
        observation = {"toolCallId": "c"}
        assert await report_tool_terminal(None, observation, PREVIOUS) is PREVIOUS
        assert await report_tool_terminal(answering(None), observation, PREVIOUS) is PREVIOUS
        assert await report_tool_terminal(answering({}), observation, PREVIOUS) is None
        assert await report_tool_terminal(
            answering({"lastToolError": {"toolName": "exec"}}), observation, None
        ) == {"toolName": "exec"}
        assert await report_tool_terminal(async_observe, observation,  # type: ignore[arg-type]
                                          None) == {"toolName": "read"}
        assert seen == [observation] * 4

    asyncio.run(run())
