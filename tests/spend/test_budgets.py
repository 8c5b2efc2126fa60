"""The budget rules: which budgets a turn falls under, its estimate, the words."""

from __future__ import annotations

import json

from clawharness.config import BudgetLimits, BudgetsConfig
from clawharness.config.spend import ModelCost
from clawharness.spend.budgets import (
    estimate,
    extension,
    format_amount,
    prompt_chars,
    refusal_error,
    spent,
    turn_budgets,
    warnings,
)
from clawharness.spend.pricing import Rates
from clawharness.store.budgets import Amount, BudgetRefusal, BudgetState


def config(**raw: object) -> BudgetsConfig:
    return BudgetsConfig.model_validate(raw)


def test_a_turn_falls_under_the_day_its_agent_its_session_and_its_caller() -> None:
    budgets = turn_budgets(config(
        daily={"usd": 5}, perAgent={"daily": {"turns": 10}, "total": {"tokens": 100}},
        agents={"ops": {"daily": {"usd": 1}}}, perSession={"turns": 3},
        perCaller={"daily": {"usd": 2}}),
        agent_id="main", session_key="agent:main:s", day="2026-12-01", caller="ci")
    assert [(b.claim.key, b.path) for b in budgets] == [
        ("day:2026-12-01", "budgets.daily"),
        ("agent:main:day:2026-12-01", "budgets.perAgent.daily"),
        ("agent:main:total", "budgets.perAgent.total"),
        ("session:agent:main:s", "budgets.perSession"),
        ("caller:ci:day:2026-12-01", "budgets.perCaller.daily"),
    ]
    assert budgets[0].claim.limit.nano_usd == 5_000_000_000
    # an agent's own entry replaces perAgent
    (own,) = turn_budgets(config(perAgent={"daily": {"turns": 10}},
                                 agents={"ops": {"daily": {"usd": 1}}}),
                          agent_id="ops", session_key="agent:ops:s", day="d")
    assert (own.claim.key, own.path) == ("agent:ops:day:d", "budgets.agents.ops.daily")


def test_the_estimate_is_the_prompt_and_the_most_output_priced_at_the_models_rates() -> None:
    rates = Rates.flat(ModelCost(input=1.0, output=2.0))
    amount = estimate(rates, prompt_chars=4000, output_tokens=1000, seconds=30)
    assert amount.tokens == 2000 and amount.turns == 1 and amount.ms == 30_000
    # 1,000 in at $1/M and 1,000 out at $2/M: $0.003, rounded up
    assert 3_000_000 <= amount.nano_usd <= 3_000_010
    assert estimate(None, prompt_chars=4000, output_tokens=1000, seconds=1).nano_usd == 0
    call = {"type": "toolCall", "name": "read", "arguments": {"path": "a"}}
    message = {"role": "assistant", "content": [{"type": "text", "text": "cde"}, call]}
    assert prompt_chars(["ab", message, {"role": "user", "content": "fg"}]) == (
        2 + 3 + len(json.dumps(call)) + 2)
    assert prompt_chars("system") == 6
    assert spent(cost_usd=0.002, tokens=1500, ms=12.2) == Amount(2_000_000, 1500, 1, 13)


def test_a_refusal_names_the_budget_what_ran_out_and_the_key_that_raises_it() -> None:
    budgets = turn_budgets(config(agents={"main": {"total": {"usd": 1}}}),
                           agent_id="main", session_key="agent:main:s", day="d")
    error = refusal_error(budgets, BudgetRefusal("agent:main:total", "usd", 1_000_000_000,
                                                 990_000_000, 5_000_000, 20_000_000))
    assert error.key_path == "budgets.agents.main.total.usd"
    assert str(error) == ("agent main's total budget (agent:main:total) has no room for "
                          "this turn: $0.99 of $1.00 used, $0.005 held by running turns, and "
                          "the turn needs up to $0.02; the turn was not started (raise "
                          "budgets.agents.main.total.usd to let it run)")
    assert "raise budgets.agents.main.total.usd" in (error.hint or "")
    assert "next UTC day" not in (error.hint or "")


def test_an_extension_is_whole_steps_of_extend_by_that_cover_the_turn() -> None:
    refusal = BudgetRefusal("day:d", "usd", 1_000, 900, 50, 300)
    assert extension(BudgetLimits(usd=1e-7), refusal) == Amount(nano_usd=300)
    assert extension(BudgetLimits(turns=2), refusal) is None
    assert extension(None, refusal) is None


def test_warnings_past_the_soft_level_count_running_turns() -> None:
    budgets = turn_budgets(config(daily={"turns": 10, "warnAt": 0.8}), agent_id="main",
                           session_key="s", day="d")
    state = BudgetState("day:d", spent=Amount(turns=6), reserved=Amount(turns=2))
    (warning,) = warnings(budgets, [state])
    assert warning.startswith("the daily budget is 80% used (8 turns of 10 turns")
    assert warnings(budgets, [BudgetState("day:d", spent=Amount(turns=7))]) == ()
    assert format_amount("seconds", 90_000) == "90 s"
    # a tenth under 100 s, so a refusal's figures add up ("3.4 s of 5 s used, needs 2 s")
    assert format_amount("seconds", 3_415) == "3.4 s"
    assert format_amount("seconds", 3_000) == "3 s"
    assert format_amount("seconds", 120_400) == "120 s"
