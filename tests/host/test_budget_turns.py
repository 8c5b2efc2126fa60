"""Turns under budgets: priced, reserved before dispatch, settled after, refused when a
budget has no room (naming it and how to raise it), extended by an approver."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from clawharness.attempt.budget_step import EXTEND_TOOL
from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.errors import BudgetExceededError
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest
from clawharness.host import Host
from clawharness.records.turn_result import turn_result_from_wire, turn_result_to_wire
from clawharness.store import Amount, SpendRecord
from clawharness.testing import ScriptedModelServer

#: every call: 1,000 tokens in, 500 out; at $1 / $2 per million, $0.002
ANSWER = {"responses": [
    {"match": ".*", "repeat": True, "text": "done",
     "usage": {"input_tokens": 1000, "output_tokens": 500}},
]}
PRICE = {"input": 1.0, "output": 2.0}


@pytest.fixture
def budget_host(scripted_host: Callable[..., Any]) -> Callable[..., Any]:
    """`await make(budgets=..., cost=...)` -> (host, server) on a priced scripted model."""

    async def make(*, budgets: dict[str, Any] | None = None,
                   cost: dict[str, float] | None = PRICE,
                   serving: bool = False) -> tuple[Host, ScriptedModelServer]:
        provider: dict[str, Any] = {"models": [{"id": "m1", "maxTokens": 1000}]}
        if cost is not None:
            provider["cost"] = cost
        result: tuple[Host, ScriptedModelServer] = await scripted_host(
            ANSWER, provider=provider, serving=serving, budgets=budgets or {})
        return result

    return make


async def spend_written(host: Host) -> None:
    """Wait for the spend rows (and turn records) written off the turns' path."""
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    await executor.runner.drain()


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


class Approver:
    """An approver that answers every question with `answer`, and keeps them."""

    def __init__(self, answer: ApprovalDecision | None) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        self.asked.append(request)
        return self.answer


async def test_every_turn_result_carries_its_cost_priced_from_the_config(
        budget_host: Any) -> None:
    host, _ = await budget_host()
    result = await host.run_turn("cost1", "hello")
    assert result.cost_usd == pytest.approx(0.002)
    wire = turn_result_to_wire(result)
    assert wire["costUsd"] == pytest.approx(0.002)
    assert turn_result_from_wire(wire).cost_usd == pytest.approx(0.002)
    # with no budget set the spend row is still written, off the turn's path
    await spend_written(host)
    (row,) = await host.store.summarize_spend(since=0, by="model")
    assert (row.group, row.turns, row.input_tokens, row.output_tokens) == (
        "scripted/m1", 1, 1000, 500)
    assert row.nano_usd == 2_000_000
    # and the inspector's record of the turn has it
    record = await host.store.get_turn_record(result.run_id)
    assert record is not None
    assert record["usage"]["cost"]["total"] == pytest.approx(0.002)


async def test_an_unpriced_model_costs_nothing_known(budget_host: Any) -> None:
    host, _ = await budget_host(cost=None)
    result = await host.run_turn("free1", "hello")
    assert result.cost_usd is None
    assert "costUsd" not in turn_result_to_wire(result)


async def test_a_spent_daily_budget_refuses_the_turn_before_the_model_is_asked(
        budget_host: Any) -> None:
    # each turn reserves about $0.002 (1,000 output tokens at $2/M plus the prompt) and
    # spends $0.002: the third does not fit in $0.005
    host, server = await budget_host(budgets={"daily": {"usd": 0.005}})
    for n in range(2):
        assert (await host.run_turn(f"d{n}", "hello")).terminal == "ok"
    asked = len(server.requests)
    with pytest.raises(BudgetExceededError) as caught:
        await host.run_turn("d2", "hello")
    error = caught.value
    assert error.code == "budget_exceeded"
    assert error.budget == f"day:{today()}"
    assert error.key_path == "budgets.daily.usd"
    assert "the daily budget" in str(error) and "$0.00 of $0.01" not in str(error)
    assert "raise budgets.daily.usd" in (error.hint or "")
    assert len(server.requests) == asked
    (state,) = await host.store.budget_states([f"day:{today()}"])
    assert state.spent.nano_usd == 4_000_000 and state.reserved == Amount()


async def test_an_unpriced_runtime_is_held_by_its_turn_budget(budget_host: Any) -> None:
    host, _ = await budget_host(cost=None, budgets={"perSession": {"turns": 2}})
    await host.run_turn("s1", "one")
    await host.run_turn("s1", "two")
    with pytest.raises(BudgetExceededError) as caught:
        await host.run_turn("s1", "three")
    assert caught.value.key_path == "budgets.perSession.turns"
    assert "session agent:main:s1" in str(caught.value)
    # another session has its own
    assert (await host.run_turn("s2", "one")).terminal == "ok"


async def test_an_approver_extends_a_budget_and_the_turn_runs(budget_host: Any) -> None:
    host, _ = await budget_host(budgets={"daily": {"turns": 1}, "extendBy": {"turns": 5}})
    await host.run_turn("e1", "one")
    no = Approver("deny")
    with pytest.raises(BudgetExceededError):
        await host.run_turn("e1", "two", approvals=no)
    assert [r.tool_name for r in no.asked] == [EXTEND_TOOL]
    assert "extend it by 5 turns?" in no.asked[0].reason
    yes = Approver("allow-once")
    assert (await host.run_turn("e1", "two", approvals=yes)).terminal == "ok"
    (state,) = await host.store.budget_states([f"day:{today()}"])
    assert state.granted.turns == 5 and state.spent.turns == 2
    # the grant holds for the next turns: nobody is asked again
    again = Approver("deny")
    assert (await host.run_turn("e1", "three", approvals=again)).terminal == "ok"
    assert again.asked == []


async def test_a_budget_past_its_warning_level_warns_on_the_result(budget_host: Any) -> None:
    host, _ = await budget_host(budgets={"perAgent": {"daily": {"turns": 4, "warnAt": 0.5}}})
    first = await host.run_turn("w1", "one")
    assert first.warnings == ()
    second = await host.run_turn("w1", "two")
    assert any("agent main's daily budget is 50% used" in w for w in second.warnings)


async def test_a_caller_has_its_own_budget(budget_host: Any) -> None:
    host, _ = await budget_host(budgets={"perCaller": {"total": {"turns": 1}},
                                         "callers": {"ci": {"total": {"turns": 3}}}})
    await host.run_turn("c1", "one", caller="alice")
    with pytest.raises(BudgetExceededError) as caught:
        await host.run_turn("c1", "two", caller="alice")
    assert caught.value.key_path == "budgets.perCaller.total.turns"
    for n in range(3):
        await host.run_turn("c2", f"{n}", caller="ci")
    # a turn without a caller falls under no caller's budget
    assert (await host.run_turn("c3", "one")).terminal == "ok"
    await spend_written(host)
    groups = {row.group: row.turns for row in
              await host.store.summarize_spend(since=0, by="caller")}
    assert groups == {"alice": 1, "ci": 3, "-": 1}


async def test_the_cost_is_counted_in_the_metrics(budget_host: Any) -> None:
    host, _ = await budget_host(serving=True)
    await host.run_turn("m1", "one")
    await host.run_turn("m2", "two")
    text = host.metrics_text().decode()
    (line,) = [x for x in text.splitlines() if x.startswith("clawharness_cost_usd_total{")]
    assert 'model="scripted/m1"' in line and 'runtime="openclaw"' in line
    assert float(line.rsplit(" ", 1)[1]) == pytest.approx(0.004)


#: a tool call, then the answer: the turn asks the model twice
def _tool_turn(first_input_tokens: int) -> dict[str, Any]:
    return {"responses": [
        {"tool_calls": [{"name": "read", "id": "c1", "arguments": {"path": "a.txt"}}],
         "usage": {"input_tokens": first_input_tokens, "output_tokens": 500}},
        {"text": "done", "usage": {"input_tokens": 1000, "output_tokens": 500}},
    ]}


async def _tool_host(scripted_host: Callable[..., Any], tmp_path: Any,
                     first_input_tokens: int, usd: float) -> tuple[Host, ScriptedModelServer]:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "a.txt").write_text("hello\n")
    provider = {"models": [{"id": "m1", "maxTokens": 1000}], "cost": PRICE}
    made: tuple[Host, ScriptedModelServer] = await scripted_host(
        _tool_turn(first_input_tokens), provider=provider, budgets={"daily": {"usd": usd}})
    return made


async def test_a_running_turn_that_spends_its_budget_stops_at_its_next_model_call(
        scripted_host: Callable[..., Any], tmp_path: Any) -> None:
    # the first call spends $0.021 (20,000 tokens in, 500 out) of the day's $0.02: the
    # turn started (its estimate fitted) and is stopped before it asks the model again
    host, server = await _tool_host(scripted_host, tmp_path, 20_000, 0.02)
    result = await host.run_turn("run1", "go")
    assert result.error_type == "budget_exceeded"
    assert result.terminal == "aborted"
    assert f"the daily budget (day:{today()}) has no room" in (result.error or "")
    assert "stopped before that call" in (result.error or "")
    # its own spend is in what it needs, not in the ledger's "used": the message says so
    assert "used by other turns" in (result.error or "")
    assert "for what it spent so far and its next model call" in (result.error or "")
    details = result.error_details or {}
    assert details["budget"] == f"day:{today()}" and details["measure"] == "usd"
    assert "raise budgets.daily.usd" in str(details["hint"])
    assert len(server.requests) == 1
    # what it spent is counted, its hold given back
    (state,) = await host.store.budget_states([f"day:{today()}"])
    assert state.spent.nano_usd == 21_000_000 and state.reserved == Amount()


async def test_a_running_turn_stops_when_other_turns_spent_its_budget(
        scripted_host: Callable[..., Any], tmp_path: Any) -> None:
    # the first call spends $0.006 (5,000 tokens in, 500 out), past the turn's
    # reservation (about $0.002): before its second, the turn looks at the ledger
    host, server = await _tool_host(scripted_host, tmp_path, 5000, 0.05)
    day = f"day:{today()}"

    async def others_spend(event: Any) -> None:
        # while the turn's tool runs, another turn settles $0.049 on the same day
        if event.stream == "tool" and not others:
            others.append(await host.store.settle_budget(SpendRecord(
                "other", today(), time.time(), "main", "agent:main:other", "scripted", "m1",
                "openclaw", "ok", nano_usd=49_000_000), [day], Amount(49_000_000, 0, 1, 0)))

    others: list[bool] = []
    result = await host.run_turn("run2", "go", on_agent_event=others_spend)
    assert others == [True]
    assert result.error_type == "budget_exceeded"
    assert "$0.049 of $0.05 used" in (result.error or "")
    assert len(server.requests) == 1


async def test_a_running_turn_within_its_reservation_goes_on_without_a_read(
        scripted_host: Callable[..., Any], tmp_path: Any) -> None:
    # the first call spends $0.002, less than the turn reserved: others spending the rest
    # of the day's budget does not stop it (nobody can spend what it holds), and its
    # second call is not preceded by a read of the ledger
    host, server = await _tool_host(scripted_host, tmp_path, 1000, 0.05)
    day = f"day:{today()}"
    reads: list[object] = []
    counters = host.store.budget_counters

    async def counted(keys: Any) -> Any:
        reads.append(keys)
        return await counters(keys)

    async def others_spend(event: Any) -> None:
        if event.stream == "tool" and "spent" not in reads:
            reads.append("spent")
            await host.store.settle_budget(SpendRecord(
                "other", today(), time.time(), "main", "agent:main:other", "scripted", "m1",
                "openclaw", "ok", nano_usd=49_000_000), [day], Amount(49_000_000, 0, 1, 0))

    host.store.budget_counters = counted  # type: ignore[method-assign]
    result = await host.run_turn("run3", "go", on_agent_event=others_spend)
    assert result.terminal == "ok" and len(server.requests) == 2
    assert reads[-1] == "spent"  # (a read may precede: its reservation's, at the start)


def reservations_of(store: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The run ids of the store's reservation writes from now on, as they are made."""
    reserved: list[str] = []
    reserve = store.reserve_budget

    async def counted(run_id: str, claims: Any, amount: Amount, *, ttl: float) -> Any:
        reserved.append(run_id)
        return await reserve(run_id, claims, amount, ttl=ttl)

    monkeypatch.setattr(store, "reserve_budget", counted)
    return reserved


async def test_turns_reserve_from_their_process_allowance_without_a_write(
        budget_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawharness.attempt import budget_pools

    host, _ = await budget_host(budgets={"daily": {"usd": 10},
                                         "perSession": {"tokens": 10_000_000}})
    store = host.store
    reserved = reservations_of(store, monkeypatch)
    for n in range(6):
        assert (await host.run_turn(f"a{n}", "hello")).terminal == "ok"
    # the first turn took an allowance of each kind of budget; the others wrote nothing
    assert len(reserved) == 2 and all(r.startswith("allowance:") for r in reserved)
    day, pool = f"day:{today()}", "pool:budgets.daily"
    day_state, pool_state = await store.budget_states([day, pool])
    assert day_state.spent.turns == 6 and day_state.spent.nano_usd == 12_000_000
    assert day_state.reserved == Amount()
    # the process holds about four turns' estimates, counted against every daily budget
    assert 4 * 2_000_000 < pool_state.reserved.nano_usd < 4 * 3_000_000
    # an allowance no turn uses is given back after a while
    monkeypatch.setattr(budget_pools, "IDLE_SECONDS", 0.01)
    await host.run_turn("a6", "hello")
    for _ in range(500):
        (pool_state,) = await store.budget_states([pool])
        if pool_state.reserved == Amount():
            break
        await asyncio.sleep(0.01)
    assert pool_state.reserved == Amount()


async def test_a_closing_host_gives_its_allowances_back(budget_host: Any) -> None:
    host, _ = await budget_host(budgets={"daily": {"usd": 10}})
    assert (await host.run_turn("c1", "hello")).terminal == "ok"
    (pool,) = await host.store.budget_states(["pool:budgets.daily"])
    assert pool.reserved.nano_usd > 0
    await spend_written(host)  # what closing the host does
    (pool,) = await host.store.budget_states(["pool:budgets.daily"])
    assert pool.reserved == Amount()


async def test_a_sub_agents_turns_reserve_from_the_allowance_on_their_parents_budget(
        budget_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = await budget_host(budgets={"perSession": {"usd": 1}})
    store = host.store
    reserved = reservations_of(store, monkeypatch)
    parent = "agent:main:parent"
    for n in range(3):  # a child's turns count on their own session and their parent's
        result = await host.run_turn(f"child{n}", "hello", budget_sessions=(parent,))
        assert result.terminal == "ok"
    assert len(reserved) == 1 and reserved[0].startswith("allowance:")
    (state,) = await store.budget_states([f"session:{parent}"])
    assert state.spent.nano_usd == 6_000_000 and state.reserved == Amount()


async def test_a_budget_too_small_for_allowances_reserves_each_turn_in_one_write(
        budget_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # a sixteenth of $0.01 is less than one turn's estimate: no allowance is asked for
    host, _ = await budget_host(budgets={"daily": {"usd": 0.01}})
    reserved: list[str] = []
    reserve = host.store.reserve_budget

    async def counted(run_id: str, claims: Any, amount: Amount, *, ttl: float) -> Any:
        reserved.append(run_id)
        return await reserve(run_id, claims, amount, ttl=ttl)

    monkeypatch.setattr(host.store, "reserve_budget", counted)
    for n in range(2):
        result = await host.run_turn(f"small{n}", "hello")
        assert result.terminal == "ok"
        assert reserved[-1] == result.run_id
    assert len(reserved) == 2


class _Clock:
    """`time` as budget_step sees it, with its monotonic clock moved on at will (the
    event loop's own clock is left alone)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead


async def test_a_long_turn_renews_its_holds_before_its_next_model_call(
        scripted_host: Callable[..., Any], tmp_path: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from clawharness.attempt import budget_step

    # a budget too small for allowances: the turn holds its estimate on its own
    host, server = await _tool_host(scripted_host, tmp_path, 1000, 0.02)
    clock = _Clock()
    monkeypatch.setattr(budget_step, "time", clock)
    reserved = reservations_of(host.store, monkeypatch)

    async def long_tool(event: Any) -> None:
        if event.stream == "tool" and not clock.ahead:
            clock.ahead = 10 * 86_400.0  # the tool ran past half the hold's lifetime

    result = await host.run_turn("long1", "go", on_agent_event=long_tool)
    assert result.terminal == "ok" and len(server.requests) == 2
    # the reservation, then its renewal (nothing added) before the second call
    assert len(reserved) == 2 and reserved[0] == reserved[1]
    (state,) = await host.store.budget_states([f"day:{today()}"])
    assert state.reserved == Amount() and state.spent.turns == 1


async def test_a_short_turn_does_not_renew_its_holds(
        scripted_host: Callable[..., Any], tmp_path: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    host, server = await _tool_host(scripted_host, tmp_path, 1000, 0.02)
    reserved = reservations_of(host.store, monkeypatch)
    result = await host.run_turn("short1", "go")
    assert result.terminal == "ok" and len(server.requests) == 2
    assert len(reserved) == 1
