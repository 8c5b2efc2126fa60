"""`NativeTurn`: the record and the settling steps process-owning harnesses share."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from clawharness.harness.native_turn import NativeTurn
from clawharness.harness.types import AgentEvent
from clawharness.testing.attempt_builder import RecordingMirror, attempt_params


def test_a_settled_tool_call_is_observed_kept_mirrored_and_emitted(tmp_path: Path) -> None:
    mirror = RecordingMirror()
    observed: list[Mapping[str, Any]] = []
    events: list[AgentEvent] = []

    def observe(observation: Mapping[str, Any]) -> Mapping[str, Any]:
        observed.append(observation)
        return {"lastToolError": {"toolName": observation["toolName"]}}

    params = dataclasses.replace(attempt_params(workspace_dir=str(tmp_path), mirror=mirror),
                                 observe_tool_terminal=observe, on_agent_event=events.append)
    turn = NativeTurn(params)

    async def run() -> None:
        await turn.settle_tool_result(
            tool_call_id="t1", tool_name="exec", arguments={"command": "ls"}, text="denied",
            is_error=True, execution_started=False, refusal_reason="policy says no",
            details={"raw": 1}, key="k:t1")
        await turn.settle_tool_result(
            tool_call_id="t2", tool_name="read", arguments={}, text="ok", is_error=False,
            execution_started=True, refusal_reason=None, details={"raw": 2}, key="k:t2",
            details_in_message=False)

    asyncio.run(run())
    assert [o["failure"] for o in observed[:1]] == [{"error": "policy says no"}]
    assert observed[0]["result"]["details"] == {"raw": 1} and "failure" not in observed[1]
    assert turn.last_tool_error == {"toolName": "read"}
    assert turn.tool_metas == [{"toolName": "exec", "toolCallId": "t1", "isError": True},
                               {"toolName": "read", "toolCallId": "t2", "isError": False}]
    assert [m.get("details") for m in mirror.messages] == [{"raw": 1}, None]
    assert mirror.messages == turn.new_messages
    assert [(e.stream, e.data["toolCallId"]) for e in events] == [("tool", "t1"), ("tool", "t2")]


def test_wait_for_stop_says_whether_the_attempt_was_aborted_or_timed_out(tmp_path: Path) -> None:
    async def run() -> tuple[str | None, str | None]:
        params = attempt_params(workspace_dir=str(tmp_path))
        aborted = NativeTurn(params)
        waiting = asyncio.create_task(aborted.wait_for_stop())
        params.abort.set()
        await asyncio.wait_for(waiting, 5)
        loop = asyncio.get_running_loop()
        late = NativeTurn(dataclasses.replace(attempt_params(workspace_dir=str(tmp_path)),
                                              deadline=loop.time()))
        await asyncio.wait_for(late.wait_for_stop(), 5)
        return aborted.stop_kind, late.stop_kind

    assert asyncio.run(run()) == ("aborted", "timeout")
