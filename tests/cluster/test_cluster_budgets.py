"""A two-worker cluster runs concurrent turns against one daily budget on PostgreSQL:
the workers reserve and settle in the shared ledger, a refused turn comes back to the
front as `budget_exceeded`, the budget is never passed, nothing is lost."""

from __future__ import annotations

import asyncio
import math
import time

import pytest
from cluster_rig import ClusterRig, Gate

from clawharness.attempt.turn import TurnOptions
from clawharness.harness.capabilities import ApprovalDecision
from clawharness.host import Host
from clawharness.store import Amount

pytestmark = pytest.mark.integration

#: each turn: 10 tokens in at $1/M, 500 out at $2/M (the model's most): $0.00101
SCRIPT = {"responses": [{"match": ".*", "repeat": True, "text": "ok",
                         "usage": {"input_tokens": 10, "output_tokens": 500}}]}
LIMIT_USD = 0.01
TURNS = 24


async def test_two_workers_hold_one_daily_budget(make_rig) -> None:
    rig: ClusterRig = make_rig(SCRIPT)
    rig.write_config(
        models={"providers": {"scripted": {
            "baseUrl": rig.model_base_url, "api": "openai-completions", "apiKey": "k",
            "cost": {"input": 1.0, "output": 2.0},
            "models": [{"id": "m", "maxTokens": 500}]}}},
        budgets={"daily": {"usd": LIMIT_USD}})
    rig.start_worker("w1")
    rig.start_worker("w2")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        results = await asyncio.gather(*(front.run_turn(f"s{n}", "hello")
                                         for n in range(TURNS)))
        day = time.strftime("%Y-%m-%d", time.gmtime())
        (state,) = await front.budget_states([f"day:{day}"])
        (row,) = await front.usage(by="day")
    ran = [r for r in results if r.terminal == "ok"]
    refused = [r for r in results if r.error_type == "budget_exceeded"]
    workers = sorted({r.cluster.worker for r in ran if r.cluster and r.cluster.worker})
    # the figures, for the report (`pytest -rP` shows them)
    print(f"cluster contention: {TURNS} turns on workers {workers}: {len(ran)} ran, "
          f"{len(refused)} refused; spent ${state.spent.nano_usd / 1e9:.6f} of "
          f"${LIMIT_USD}; ledger turns {state.spent.turns}, spend rows {row.turns}, "
          f"left reserved {state.reserved}")
    assert len(ran) + len(refused) == TURNS and refused
    assert "raise budgets.daily.usd" in (refused[0].error or "")
    # the workers ran them (placement is Temporal's: usually both, not always)
    assert {r.cluster.worker for r in ran if r.cluster} <= {"w1", "w2"}
    assert all(r.cluster is not None and r.cluster.worker for r in ran)
    assert state.spent.nano_usd <= round(LIMIT_USD * 1e9)
    assert state.reserved == Amount()
    assert state.spent.turns == row.turns == len(ran)
    assert row.nano_usd == state.spent.nano_usd == sum(
        math.ceil((r.cost_usd or 0) * 1e9) for r in ran)


@pytest.mark.parametrize(("decision", "runs"), [("allow-once", True), ("deny", False)])
async def test_a_worker_asks_the_fronts_approver_to_extend_a_spent_budget(
        make_rig, decision: ApprovalDecision, runs: bool) -> None:
    rig: ClusterRig = make_rig(SCRIPT)
    rig.write_config(budgets={"daily": {"turns": 1}, "extendBy": {"turns": 2}})
    rig.start_worker("w1")
    gate = Gate(decision)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        first = await front.run_turn("s", "one")
        second = await front.run_turn("s", "two", TurnOptions(approvals=gate))
    assert first.terminal == "ok", first.error
    [asked] = gate.asked  # the relay carried the worker's question to the front's approver
    assert asked.tool_name == "budget.extend" and "extend it by 2 turns?" in asked.reason
    if runs:
        assert second.terminal == "ok", second.error
    else:
        assert second.error_type == "budget_exceeded"
