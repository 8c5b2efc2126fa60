"""The pure parts of a turn's spend (`clawharness.attempt.budget_step` runs them).

- `turn_caller`: the HTTP API caller of the turn running in this context;
- `priced_usage`: a turn's usage with its cost (the runtime's, else the price table's);
- `Plan`: what the turns of one agent and caller on one day check, made once;
- `spend_record`: the spend row of a concluded turn;
- `extension_request`: the question an approver is asked to extend a budget;
- small helpers: a budget's state from its counters, a usage's tokens, whether a
  budgets config warns.

Nothing here reads the store or the clock: `SpendLedger` and `TurnSpend` (in
`budget_step`) do.
"""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from clawharness.harness import BUDGET_EXTEND_TOOL
from clawharness.harness.capabilities import ApprovalRequest
from clawharness.records.usage import Usage, UsageCost
from clawharness.spend import PriceTable, TurnBudget, format_amount, spent
from clawharness.store import (
    Amount,
    BudgetClaim,
    BudgetRefusal,
    BudgetState,
    Counters,
    LimitCheck,
    SpendRecord,
    limit_checks,
)

if TYPE_CHECKING:
    from clawharness.config import BudgetLimits
    from clawharness.records.turn_result import TurnResult

__all__ = ["EXTEND_TOOL", "Plan", "budget_state", "extension_request", "priced_usage",
           "provider_model", "set_turn_caller", "spend_record", "turn_caller",
           "usage_tokens", "warns_at"]

#: the name an extension question carries to an approver (as a tool call's would)
EXTEND_TOOL: Final = BUDGET_EXTEND_TOOL
#: the HTTP API caller of the turn running in this context (`turn_caller`)
_TURN_CALLER: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "clawharness_turn_caller", default=None)


def set_turn_caller(caller: str | None) -> None:
    """The turn starting in this context is `caller`'s (`SpendLedger.turn`): its tools
    (sessions_spawn) see it through `turn_caller`."""
    _TURN_CALLER.set(caller)


def turn_caller() -> str | None:
    """The HTTP API caller (`TurnOptions.caller`) of the turn whose task asks: a
    sub-agent it spawns counts on that caller's budgets too (`SubagentRecord.caller`)."""
    return _TURN_CALLER.get()


def priced_usage(prices: PriceTable, provider: str, model: str,
                 usage: Usage | None) -> Usage | None:
    """`usage` with its cost: as the runtime reported it, else priced from the config and
    the price table; unchanged when the model is unpriced."""
    if usage is None or usage.cost is not None:
        return usage
    cost = prices.cost(provider, model, usage)
    if cost is None:
        return usage
    return replace(usage, cost=UsageCost(total=cost.total, input=cost.input,
                                         output=cost.output, cache_read=cost.cache_read,
                                         cache_write=cost.cache_write))


def provider_model(ref: str | None) -> tuple[str, str]:
    """A turn's `provider/model` ref in two ("-" when no attempt ran)."""
    if not ref:
        return "-", "-"
    provider, _, model = ref.partition("/")
    return provider, model or "-"


def budget_state(key: str, row: Counters | None, pool: Counters | None) -> BudgetState:
    """A budget's state from its counters, its pool's allowances counted as held."""
    row = row or (0,) * 12
    held = Amount(*row[4:8])
    if pool is not None:
        held = held.plus(Amount(*pool[4:8]))
    return BudgetState(key, Amount(*row[0:4]), held, Amount(*row[8:12]))


def warns_at(value: object) -> bool:
    """Whether a `budgets` config (dumped) sets a `warnAt` anywhere."""
    if isinstance(value, dict):
        return value.get("warn_at") is not None or any(warns_at(v) for v in value.values())
    return False


def usage_tokens(usage: Usage | None) -> int:
    """What `usage` counts in tokens (input, output and the cache's), 0 for none."""
    if usage is None:
        return 0
    return ((usage.input or 0) + (usage.output or 0) + (usage.cache_read or 0)
            + (usage.cache_write or 0))


class Plan:
    """What every turn of one agent and caller on one UTC day checks, but for its own
    session's budget: the budgets' limits and pools, in the order of `turn_budgets`,
    made once (`SpendLedger._plan`). A turn adds its session's key (`keys`)."""

    __slots__ = ("after", "before", "checks", "limits_tokens", "limits_usd", "pool_keys",
                 "pool_of", "pools", "read_at", "read_measures", "session", "used_checks")

    def __init__(self, before: tuple[TurnBudget, ...], after: tuple[TurnBudget, ...],
                 session: BudgetLimits | None, sample: tuple[TurnBudget, ...]) -> None:
        #: the budgets before the session's and after it (`turn_budget_parts`); None:
        #: `sample` is every budget of the turn (a sub-agent's, whose parents count)
        self.before = before
        self.after = after
        #: `budgets.perSession` (None: no session budget)
        self.session = session
        #: each budget's limited measures and pool key, and the distinct pools (None: a budget
        #: without a pool, so no allowances)
        self.checks: tuple[LimitCheck, ...] = limit_checks([b.claim.limit for b in sample])
        self.pool_of = tuple(b.claim.pool for b in sample)
        pools = {b.pool.key: b.pool for b in sample if b.pool is not None}
        self.pools: tuple[BudgetClaim, ...] | None = (
            tuple(pools.values()) if all(b.pool is not None for b in sample) else None)
        self.pool_keys = tuple(pools)
        #: whether a budget limits dollars, tokens (what a running turn's spend is held to)
        self.limits_usd = any(b.claim.limit.nano_usd is not None for b in sample)
        self.limits_tokens = any(b.claim.limit.tokens is not None for b in sample)
        # what the allowance check reads (`Store.budget_used`): for each limited measure
        # of each budget, what the budget and its pool used in it; as positions among
        # the turn's keys and then the pools' (`TurnSpend._read_keys`)
        at: list[int] = []
        measures: list[int] = []
        used_checks: list[tuple[int, int, int, int]] = []
        for j, i, cap in self.checks:
            pool = self.pool_of[j]
            mine = len(at)
            at.append(j)
            measures.append(i)
            if pool is None:
                used_checks.append((i, cap, mine, -1))
                continue
            at.append(len(sample) + self.pool_keys.index(pool))
            measures.append(i)
            used_checks.append((i, cap, mine, mine + 1))
        self.read_at = tuple(at)
        self.read_measures = tuple(measures)
        #: (measure, limit, the budget's place in what is read, its pool's or -1)
        self.used_checks = tuple(used_checks)

    def fits(self, used: Sequence[int], asked: Amount, held: Amount) -> bool:
        """Whether `asked` fits every budget, given what they and their pools used
        (`Store.budget_used`, in `read_at` order) and what the turn holds of that
        already: `counters_refusal` without the words (a pool's row is never spent or
        granted: what it used is what it holds)."""
        want, mine = asked.fields, held.fields
        for i, cap, at, pool in self.used_checks:
            more = want[i]
            if more <= 0:
                continue
            total = used[at] - mine[i] + more
            if pool >= 0:
                total += used[pool]
            if total > cap:
                return False
        return True


def spend_record(turn: TurnResult, *, run_id: str, day: str, at: float, agent_id: str,
                 session_key: str, caller: str | None) -> SpendRecord:
    """The spend row of a concluded `turn` (`TurnSpend.settle`)."""
    usage = turn.usage or Usage()
    cost = turn.cost_usd
    provider, model = provider_model(turn.model)
    return SpendRecord(
        run_id=run_id, day=day, at=at, agent_id=agent_id,
        session_key=session_key, provider=provider, model=model,
        runtime=turn.runtime, terminal=turn.terminal,
        input_tokens=usage.input or 0, output_tokens=usage.output or 0,
        cache_read_tokens=usage.cache_read or 0, cache_write_tokens=usage.cache_write or 0,
        reasoning_tokens=usage.reasoning_tokens or 0,
        nano_usd=None if cost is None else spent(cost_usd=cost, tokens=0, ms=0).nano_usd,
        ms=round(turn.duration_ms), caller=caller)


def extension_request(refusal: BudgetRefusal, more: Amount, label: str, *, run_id: str,
                      session_key: str, cwd: str) -> ApprovalRequest:
    """What an approver is asked to extend the refused budget (`label`) by `more`."""
    by = format_amount(refusal.measure, more.get(refusal.measure))
    reason = (f"{label} ({refusal.key}) has no room for this turn "
              f"({format_amount(refusal.measure, refusal.spent)} of "
              f"{format_amount(refusal.measure, refusal.limit)} used): extend it by {by}?")
    return ApprovalRequest(
        run_id=run_id, session_key=session_key, tool_name=EXTEND_TOOL,
        arguments={"budget": refusal.key, "measure": refusal.measure, "by": by},
        reason=reason, cwd=cwd)
