"""The turn's spend step: a native runtime is priced by the config alone (a subscription
CLI is not billed by the token), the built-in runtime by the config then the table."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from clawharness.attempt.budget_step import SpendLedger
from clawharness.config import ClawConfig
from clawharness.records.usage import Usage, UsageCost
from clawharness.store import open_store

USAGE = Usage(input=1_000_000, output=0)


async def ledger(tmp_path: Path, providers: dict[str, Any]) -> Any:
    config = ClawConfig.model_validate({"models": {"providers": providers}})
    store = open_store(str(tmp_path / "state.db"))
    await store.open()
    spend = SpendLedger(config, store).turn("r", "main", "agent:main:s", caller=None,
                                           approvals=None)
    return spend, store


def params(provider: str, model: str) -> Any:
    return cast(Any, SimpleNamespace(provider=provider, model_id=model))


async def test_a_native_runtime_is_not_priced_from_the_table(tmp_path: Path) -> None:
    spend, store = await ledger(tmp_path, {"anthropic": {"apiKey": "k"}})
    try:
        ref = params("anthropic", "claude-sonnet-4-5")
        built_in = spend.priced(USAGE, ref, builtin=True)
        assert built_in.cost is not None and built_in.cost.total > 0
        assert spend.priced(USAGE, ref, builtin=False).cost is None
        # a cost the runtime reported is kept as it is
        reported = Usage(input=10, output=1, cost=UsageCost(total=0.5))
        assert spend.priced(reported, ref, builtin=False).cost == UsageCost(total=0.5)
    finally:
        await store.close()


async def test_a_native_runtime_is_priced_by_the_config(tmp_path: Path) -> None:
    spend, store = await ledger(tmp_path, {"anthropic": {"apiKey": "k",
                                                         "cost": {"input": 3.0}}})
    try:
        usage = spend.priced(USAGE, params("anthropic", "claude-sonnet-4-5"), builtin=False)
        assert usage.cost is not None and abs(usage.cost.total - 3.0) < 1e-9
    finally:
        await store.close()


def test_the_allowance_checks_reading_of_used_measures_decides_as_the_full_counters() -> None:
    # the check on a turn's path reads spent + reserved - granted per limited measure
    # (Store.budget_used); it must decide as the full counters' refusal does
    import random

    from clawharness.attempt._spend_parts import Plan
    from clawharness.config import BudgetsConfig
    from clawharness.spend import turn_budgets
    from clawharness.store import Amount, limits_refusal

    config = BudgetsConfig.model_validate({
        "daily": {"usd": 5, "turns": 40}, "perAgent": {"total": {"tokens": 9_000}},
        "perSession": {"tokens": 5_000, "wallClockSeconds": 900}})
    budgets = turn_budgets(config, agent_id="main", session_key="agent:main:s", day="d")
    plan = Plan(budgets, (), None, budgets)
    keys = tuple(b.claim.key for b in budgets)
    read = (*keys, *plan.pool_keys)
    rng = random.Random(7)
    outcomes = set()
    for _ in range(3000):
        counters = {key: [rng.randrange(0, 6_000_000_000 if n % 4 == 0 else 6_000)
                          if n < 8 or rng.random() < 0.2 else 0 for n in range(12)]
                    for key in keys}
        for pool in plan.pool_keys:  # a pool only holds
            counters[pool] = [0] * 4 + [rng.randrange(0, 300) for _ in range(4)] + [0] * 4
        asked = Amount(rng.randrange(0, 10**9), rng.randrange(0, 3000), 1,
                       rng.randrange(0, 600_000))
        held = Amount(*(rng.randrange(0, v + 1) for v in asked.fields))
        used = [counters[read[at]][m] + counters[read[at]][4 + m] - counters[read[at]][8 + m]
                for at, m in zip(plan.read_at, plan.read_measures, strict=True)]
        fits = plan.fits(used, asked, held)
        assert fits == (limits_refusal(keys, plan.pool_of, plan.checks, counters, asked,
                                       held) is None)
        outcomes.add(fits)
    assert outcomes == {True, False}


async def test_a_settled_turns_part_of_an_allowance_stays_taken_until_the_store_commits(
        tmp_path: Path) -> None:
    # a turn that reserved from its process's allowance is settled behind it (SQLite
    # commits that with its next write): until a write the process waits on, its part
    # is not taken again, so other processes never miss both its hold and its spend
    from clawharness.attempt.budget_pools import Allowances
    from clawharness.store import Amount, BudgetClaim, BudgetLimit

    store = open_store(str(tmp_path / "state.db"))
    await store.open()
    writes: list[str] = []
    reserve, release = store.reserve_budget, store.release_budget

    async def reserved(run_id: str, claims: Any, amount: Amount, *, ttl: float) -> Any:
        writes.append(f"reserve {run_id.split(':')[0]}")
        return await reserve(run_id, claims, amount, ttl=ttl)

    async def released(run_id: str, keys: Any) -> None:
        writes.append(f"release {run_id.split(':')[-1]}")
        await release(run_id, keys)

    store.reserve_budget, store.release_budget = reserved, released  # type: ignore[method-assign]
    try:
        allowances = Allowances(store)
        pool = BudgetClaim("pool:budgets.daily", BudgetLimit(turns=100))
        turn = Amount(turns=1)
        assert await allowances.take([pool], turn, 60)  # an allowance of four turns
        assert writes == ["reserve allowance"] and allowances.held(pool.key).turns == 4
        allowances.settled([pool], turn)  # its settlement written behind it
        for _ in range(3):
            assert await allowances.take([pool], turn, 60)
        assert writes == ["reserve allowance"]  # the settled part is still taken
        assert await allowances.take([pool], turn, 60)
        # a write waited on committed the settlement first: its part was free again
        assert writes == ["reserve allowance", "release settled"]
        assert allowances.held(pool.key).turns == 4
        for _ in range(4):
            allowances.give_back([pool], turn)
        await allowances.close()
    finally:
        await store.close()
