"""The turn inspector's record: each turn stores what it did, with the turn, in the store."""

from __future__ import annotations

from typing import Any

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest
from clawharness.host import Host

TOOL_TURN = {"responses": [
    {"tool_calls": [{"name": "exec", "arguments": {"command": "echo inspected"},
                     "id": "call_1"}]},
    {"text": "It printed inspected."},
]}


class Approve:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        self.asked.append(request)
        return "allow-once"


async def stored_record(host: Host, run_id: str) -> dict[str, Any]:
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    await executor.runner.drain()  # the record is written off the turn's path
    record = await host.store.get_turn_record(run_id)
    assert record is not None, "no turn record was stored"
    return record


async def test_a_tool_turn_records_selection_timeline_tools_approvals_and_lease(
        scripted_host: Any) -> None:
    from clawharness.attempt.turn import TurnOptions

    host, _ = await scripted_host(TOOL_TURN, tools={"exec": {"security": "full",
                                                             "ask": "always"}})
    gate = Approve()
    result = await host.run_turn("agent:main:inspect", "run it",
                                 TurnOptions(approvals=gate))
    assert result.terminal == "ok" and gate.asked
    record = await stored_record(host, result.run_id)
    assert record["session_key"] == "agent:main:inspect"
    assert record["session_id"] == result.session_id
    assert record["terminal"] == "ok" and record["runtime"] == result.runtime
    [selection] = record["selections"]
    assert selection["model"] == "scripted/m1"
    assert selection["selected_harness_id"] == result.runtime
    assert selection["selected_reason"] == result.selected_reason
    assert selection["runtime_source"]
    [tool] = record["tool_calls"]
    assert tool["name"] == "exec" and tool["outcome"] == "ok"
    assert tool["arguments"] == {"command": "echo inspected"}
    assert tool["duration_ms"] is not None and tool["duration_ms"] >= 0
    [approval] = record["approvals"]
    assert (approval["tool"], approval["decision"]) == ("exec", "allow-once")
    kinds = [e["kind"] for e in record["timeline"]]
    assert kinds[0] == "attempt.start" and kinds[-1] == "attempt.end"
    assert kinds.index("approval.asked") < kinds.index("approval.answered")
    assert kinds.index("tool.start") < kinds.index("tool.end")
    assert kinds.count("model.response") == 2
    assert all(e["at_ms"] >= 0 for e in record["timeline"])
    lease = record["lease"]
    assert lease is not None and lease["fence"] >= 1 and lease["holder"]
    assert record["delivery"]["payloads"] == 1 and record["delivery"]["silent"] is False
    assert record["finalization"] == "not-needed"
    listed = await host.store.list_turn_records("agent:main:inspect")
    assert [r["run_id"] for r in listed] == [result.run_id]


async def test_a_denied_tool_call_records_its_error_outcome(scripted_host: Any) -> None:
    host, _ = await scripted_host(TOOL_TURN, tools={"exec": {"security": "deny"}})
    result = await host.run_turn("agent:main:denied", "run it")
    record = await stored_record(host, result.run_id)
    [tool] = record["tool_calls"]
    assert tool["outcome"] == "error"
