"""The `agent` request's final answer carries the turn's cost in its usage (the
transcript's spelling, `cost.total`), which the Control UI shows per turn."""

from __future__ import annotations

from clawharness.gateway.runs import outcome_of
from clawharness.records.turn_result import TurnResult
from clawharness.records.usage import Usage, UsageCost
from clawharness.runs import RunHandle, RunResult


def turn(usage: Usage) -> TurnResult:
    return TurnResult(session_key="agent:main:s", session_id="sid", run_id="r1",
                      runtime="openclaw", selected_reason="auto", terminal="ok", text="hi",
                      usage=usage)


async def test_a_priced_turns_final_answer_carries_its_cost() -> None:
    run = RunHandle(run_id="r1", kind="agent", session_key="agent:main:s", agent_id="main",
                    origin=None, accepted_at_ms=0)
    priced = Usage(input=10, output=5, total=15, cost=UsageCost(total=0.25))
    meta = outcome_of(run, RunResult("r1", result=turn(priced))).payload[
        "result"]["meta"]["agentMeta"]
    assert meta["usage"] == {"input": 10, "output": 5, "totalTokens": 15,
                             "cost": {"total": 0.25}}
    unpriced = outcome_of(run, RunResult("r1", result=turn(Usage(input=1, output=1))))
    assert "cost" not in unpriced.payload["result"]["meta"]["agentMeta"]["usage"]
