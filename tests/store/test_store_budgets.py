"""The budget ledger, on SQLite and PostgreSQL: reserve, settle, reclaim, grant, sum."""

from __future__ import annotations

import asyncio
import time

import pytest
from store_test_support import StoreFactory

from clawharness.store import (
    Amount,
    BudgetClaim,
    BudgetGrant,
    BudgetLimit,
    BudgetRefusal,
    SpendRecord,
    Store,
)

DAY = BudgetClaim("day:2026-12-01", BudgetLimit(nano_usd=1_000, turns=10))
AGENT = BudgetClaim("agent:main:total", BudgetLimit(tokens=500))


def spend(run_id: str, *, agent: str = "main", model: str = "m", nano_usd: int | None = 100,
          tokens: int = 10, at: float | None = None) -> SpendRecord:
    return SpendRecord(run_id=run_id, day="2026-12-01", at=time.time() if at is None else at,
                       agent_id=agent, session_key=f"agent:{agent}:s", provider="p", model=model,
                       runtime="openclaw", terminal="ok", input_tokens=tokens, output_tokens=1,
                       nano_usd=nano_usd, ms=5)


async def test_a_reservation_holds_on_every_budget_or_on_none(store: Store) -> None:
    grant = await store.reserve_budget("r1", [DAY, AGENT], Amount(600, 100, 1, 0), ttl=60)
    assert isinstance(grant, BudgetGrant)
    assert [s.reserved for s in grant.states] == [Amount(600, 100, 1, 0)] * 2
    # the day has 400 nano-dollars left: the second turn is refused, naming the budget
    refusal = await store.reserve_budget("r2", [AGENT, DAY], Amount(600, 100, 1, 0), ttl=60)
    assert isinstance(refusal, BudgetRefusal)
    assert (refusal.key, refusal.measure, refusal.limit, refusal.reserved, refusal.asked) == (
        DAY.key, "usd", 1_000, 600, 600)
    # ...and held nothing anywhere, the agent's budget included
    agent_state, day_state = await store.budget_states([AGENT.key, DAY.key])
    assert agent_state.reserved == Amount(600, 100, 1, 0)
    assert day_state.reserved == Amount(600, 100, 1, 0)


async def test_settling_moves_the_hold_to_spent_once(store: Store) -> None:
    await store.reserve_budget("r1", [DAY], Amount(600, 0, 1, 0), ttl=60)
    assert await store.settle_budget(spend("r1"), [DAY.key], Amount(250, 10, 1, 5)) is True
    # a retried turn settling again counts nothing twice
    assert await store.settle_budget(spend("r1"), [DAY.key], Amount(250, 10, 1, 5)) is False
    (state,) = await store.budget_states([DAY.key])
    assert state.spent == Amount(250, 10, 1, 5) and state.reserved == Amount()
    grant = await store.reserve_budget("r2", [DAY], Amount(750, 0, 1, 0), ttl=60)
    assert isinstance(grant, BudgetGrant)
    refusal = await store.reserve_budget("r3", [DAY], Amount(1, 0, 1, 0), ttl=60)
    assert isinstance(refusal, BudgetRefusal) and refusal.spent == 250


async def test_a_measure_asked_for_nothing_is_never_refused(store: Store) -> None:
    await store.reserve_budget("r1", [DAY], Amount(1_000, 0, 1, 0), ttl=60)
    # an unpriced model asks no dollars: the spent dollar budget does not stop it
    assert isinstance(await store.reserve_budget("r2", [DAY], Amount(0, 0, 1, 0), ttl=60),
                      BudgetGrant)


async def test_the_holds_of_a_dead_process_are_reclaimed_after_they_expire(
        store: Store) -> None:
    await store.reserve_budget("dead", [DAY], Amount(900, 0, 1, 0), ttl=0.05)
    assert isinstance(await store.reserve_budget("r2", [DAY], Amount(200, 0, 1, 0), ttl=60),
                      BudgetRefusal)
    deadline = time.monotonic() + 10
    while True:  # the hold's expiry passes on the store's clock
        result = await store.reserve_budget("r2", [DAY], Amount(200, 0, 1, 0), ttl=60)
        if isinstance(result, BudgetGrant) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.02)
    assert isinstance(result, BudgetGrant)
    (state,) = await store.budget_states([DAY.key])
    assert state.reserved == Amount(200, 0, 1, 0)
    # the dead turn's late settle still counts what it spent, and frees nothing twice
    assert await store.settle_budget(spend("dead"), [DAY.key], Amount(300, 0, 1, 0))
    (state,) = await store.budget_states([DAY.key])
    assert state.reserved == Amount(200, 0, 1, 0) and state.spent == Amount(300, 0, 1, 0)


async def test_an_approvers_grant_makes_room(store: Store) -> None:
    await store.reserve_budget("r1", [DAY], Amount(1_000, 0, 1, 0), ttl=60)
    assert isinstance(await store.reserve_budget("r2", [DAY], Amount(500, 0, 1, 0), ttl=60),
                      BudgetRefusal)
    state = await store.grant_budget(DAY.key, Amount(nano_usd=500))
    assert state.granted == Amount(nano_usd=500)
    assert isinstance(await store.reserve_budget("r2", [DAY], Amount(500, 0, 1, 0), ttl=60),
                      BudgetGrant)


async def test_concurrent_reservations_never_oversubscribe(make_store: StoreFactory) -> None:
    stores = [await make_store() for _ in range(3)]
    claim = BudgetClaim("day:x", BudgetLimit(nano_usd=10_000))

    async def one(i: int) -> bool:
        result = await stores[i % 3].reserve_budget(f"c{i}", [claim], Amount(1_000, 0, 1, 0),
                                                    ttl=60)
        return isinstance(result, BudgetGrant)

    granted = await asyncio.gather(*(one(i) for i in range(40)))
    assert sum(granted) == 10
    (state,) = await stores[0].budget_states([claim.key])
    assert state.reserved == Amount(10_000, 0, 10, 0)


async def test_spend_is_summed_by_group_with_unpriced_turns_counted(store: Store) -> None:
    old = time.time() - 86_400 * 10
    await store.settle_budget(spend("a", agent="main", model="m1", nano_usd=100), [], Amount())
    await store.settle_budget(spend("b", agent="main", model="m2", nano_usd=None), [], Amount())
    await store.settle_budget(spend("c", agent="ops", model="m1", nano_usd=50), [], Amount())
    await store.settle_budget(spend("d", agent="ops", model="m1", at=old), [], Amount())
    by_agent = {s.group: s for s in await store.summarize_spend(since=time.time() - 3600,
                                                                by="agent")}
    assert set(by_agent) == {"main", "ops"}
    assert (by_agent["main"].turns, by_agent["main"].nano_usd,
            by_agent["main"].unpriced_turns) == (2, 100, 1)
    assert by_agent["ops"].input_tokens == 10
    by_model = {s.group: s.nano_usd for s in await store.summarize_spend(
        since=time.time() - 3600, by="model")}
    assert by_model == {"p/m1": 150, "p/m2": None}
    everything = await store.summarize_spend(since=0, by="day")
    assert [(s.group, s.turns) for s in everything] == [("2026-12-01", 4)]


async def test_one_sessions_spend_is_summed_alone(store: Store) -> None:
    await store.settle_budget(spend("a", agent="main", nano_usd=100), [], Amount())
    await store.settle_budget(spend("b", agent="main", nano_usd=None), [], Amount())
    await store.settle_budget(spend("c", agent="ops", nano_usd=50), [], Amount())
    (mine,) = await store.summarize_spend(since=0, by="session", session_key="agent:main:s")
    assert (mine.group, mine.turns, mine.nano_usd, mine.unpriced_turns) == (
        "agent:main:s", 2, 100, 1)
    (theirs,) = await store.summarize_spend(since=0, by="day", session_key="agent:ops:s")
    assert (theirs.turns, theirs.nano_usd) == (1, 50)
    assert await store.summarize_spend(since=0, by="session", session_key="agent:x:s") == []
    assert await store.summarize_spend(since=time.time() + 60, by="session",
                                       session_key="agent:main:s") == []


@pytest.mark.parametrize("by", ["session", "runtime", "caller"])
async def test_every_grouping_answers(store: Store, by: str) -> None:
    await store.settle_budget(spend("a"), [], Amount())
    (summary,) = await store.summarize_spend(since=0, by=by)  # type: ignore[arg-type]
    assert summary.turns == 1


async def test_a_version_5_sqlite_file_gains_the_ledger(tmp_path: object) -> None:
    import sqlite3
    from pathlib import Path

    from clawharness.store.sqlite import SCHEMA_VERSION, SqliteStore

    path = Path(str(tmp_path)) / "old.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    with sqlite3.connect(path) as conn:  # back to v5: no ledger
        conn.execute("DROP TABLE budget_counters")
        conn.execute("DROP TABLE budget_holds")
        conn.execute("DROP TABLE spend")
        conn.execute("PRAGMA user_version = 5")
    store = SqliteStore(path)
    await store.open()
    try:
        assert isinstance(await store.reserve_budget("r", [DAY], Amount(1, 0, 1, 0), ttl=9),
                          BudgetGrant)
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_a_release_gives_the_holds_back_and_leaves_the_run_to_be_counted(
        store: Store) -> None:
    await store.reserve_budget("r1", [DAY, AGENT], Amount(600, 100, 1, 0), ttl=60)
    await store.release_budget("r1", [DAY.key, AGENT.key])
    day_state, agent_state = await store.budget_states([DAY.key, AGENT.key])
    assert day_state.reserved == agent_state.reserved == Amount()
    assert day_state.spent == Amount()
    # the run's retry (a cluster worker's) reserves and settles as if new
    await store.reserve_budget("r1", [DAY], Amount(600, 0, 1, 0), ttl=60)
    assert await store.settle_budget(spend("r1"), [DAY.key], Amount(250, 10, 1, 5)) is True
    (state,) = await store.budget_states([DAY.key])
    assert state.spent == Amount(250, 10, 1, 5) and state.reserved == Amount()


async def test_a_reservation_counts_what_processes_hold_in_its_budgets_pool(
        store: Store) -> None:
    # two processes' allowances in the daily budgets' pool: 300 of the 1,000
    pool = BudgetClaim("pool:budgets.daily", BudgetLimit(nano_usd=400))
    day = BudgetClaim("day:2026-12-01", BudgetLimit(nano_usd=1_000), pool=pool.key)
    assert isinstance(await store.reserve_budget("allowance:a", [pool], Amount(200), ttl=60),
                      BudgetGrant)
    assert isinstance(await store.reserve_budget("allowance:b", [pool], Amount(100), ttl=60),
                      BudgetGrant)
    # and what one process holds is bounded by the pool's own limit
    assert isinstance(await store.reserve_budget("allowance:c", [pool], Amount(101), ttl=60),
                      BudgetRefusal)
    await store.settle_budget(spend("r0", nano_usd=500), [day.key], Amount(500))
    refusal = await store.reserve_budget("r1", [day], Amount(201, 0, 1, 0), ttl=60)
    assert isinstance(refusal, BudgetRefusal)
    assert (refusal.key, refusal.spent, refusal.reserved, refusal.asked) == (
        day.key, 500, 300, 201)
    assert isinstance(await store.reserve_budget("r1", [day], Amount(200, 0, 1, 0), ttl=60),
                      BudgetGrant)
    # an allowance given back makes its room again
    await store.release_budget("allowance:a", [pool.key])
    assert isinstance(await store.reserve_budget("r2", [day], Amount(200, 0, 1, 0), ttl=60),
                      BudgetGrant)
    (day_state, pool_state) = await store.budget_states([day.key, pool.key])
    assert day_state.reserved.nano_usd == 400 and pool_state.reserved.nano_usd == 100


async def test_what_a_budget_used_is_read_per_measure_net_of_grants(store: Store) -> None:
    await store.reserve_budget("r1", [DAY, AGENT], Amount(600, 100, 1, 7), ttl=60)
    await store.settle_budget(spend("r0"), [DAY.key], Amount(250, 10, 1, 5), holds=False)
    await store.grant_budget(DAY.key, Amount(50, 0, 2, 0))
    # spent + reserved - granted, in the measure asked for each key; 0 for an unused key
    assert await store.budget_used(
        [DAY.key, DAY.key, DAY.key, AGENT.key, "day:never", AGENT.key],
        (0, 1, 2, 1, 0, 3)) == [800, 110, 0, 100, 0, 7]
    assert await store.budget_used([], ()) == []
