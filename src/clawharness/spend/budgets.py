"""Which budgets a turn falls under, what it reserves, what it spent, and what to say.

Pure rules over `budgets` (config) and the ledger's records (`clawharness.store.budgets`);
the turn's reserve step (`clawharness.attempt.budget_step`) runs them against the store.

- `turn_budgets(config, ...)`: the budgets of one turn, each a ledger key, its limits in
  ledger units, its soft warning level and the config key that sets it:

      day:<YYYY-MM-DD>                  budgets.daily
      agent:<id>:day:<YYYY-MM-DD>       budgets.agents.<id>.daily, else budgets.perAgent.daily
      agent:<id>:total                  budgets.agents.<id>.total, else budgets.perAgent.total
      session:<session key>             budgets.perSession
      caller:<name>:day:<YYYY-MM-DD>    budgets.callers.<name>.daily, else budgets.perCaller.daily
      caller:<name>:total               budgets.callers.<name>.total, else budgets.perCaller.total

- `estimate(...)`: what a turn reserves: its prompt's size in tokens (about four
  characters a token) plus the model's most output, priced at the model's rates (0
  dollars when it is unpriced), one turn, and its time limit.
- `spent(...)`: what it used, in the same units, for the settlement.
- `refusal_error(...)`, `warnings(...)`: the words a user sees.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from clawharness.config import BudgetLimits, BudgetsConfig, BudgetWindows
from clawharness.errors import BudgetExceededError
from clawharness.spend.pricing import Rates
from clawharness.store import (
    Amount,
    BudgetClaim,
    BudgetLimit,
    BudgetRefusal,
    BudgetState,
    Measure,
)

__all__ = [
    "DEFAULT_OUTPUT_TOKENS",
    "POOL_SHARE",
    "TurnBudget",
    "estimate",
    "extension",
    "format_amount",
    "prompt_chars",
    "refusal_error",
    "session_budget",
    "spent",
    "turn_budget_parts",
    "turn_budgets",
    "warnings",
]

NANO: Final = 1_000_000_000
#: output tokens reserved per turn when neither the config nor the model says
DEFAULT_OUTPUT_TOKENS: Final = 4096
#: the allowances processes hold for one kind of budget (`TurnBudget.pool`) are at most
#: this share of its limits, together: they are counted as held on every budget of it
POOL_SHARE: Final = 16
#: characters per token, for the prompt's estimate
_CHARS_PER_TOKEN: Final = 4
_CONFIG_KEY: Final[dict[Measure, str]] = {"usd": "usd", "tokens": "tokens", "turns": "turns",
                                          "seconds": "wallClockSeconds"}


@dataclass(frozen=True, slots=True)
class TurnBudget:
    """One budget a turn falls under."""

    claim: BudgetClaim
    #: the config key of its limits (`budgets.daily`, `budgets.agents.main.total`, ...)
    path: str
    #: what a person calls it ("the daily budget", "agent main's daily budget")
    label: str
    #: the soft warning level, a share of each limit
    warn_at: float | None = None
    #: the pool of its kind of budget (`pool:<path>`), whose limits bound what every
    #: process together holds as allowances (a `POOL_SHARE`th of the budget's)
    pool: BudgetClaim | None = None


def _limit(limits: BudgetLimits) -> BudgetLimit:
    return BudgetLimit(
        nano_usd=None if limits.usd is None else round(limits.usd * NANO),
        tokens=limits.tokens, turns=limits.turns,
        ms=None if limits.wall_clock_seconds is None else round(limits.wall_clock_seconds * 1000))


def _share(value: int | None) -> int | None:
    return None if value is None else value // POOL_SHARE


@functools.lru_cache(maxsize=256)
def _pool(path: str, limit: BudgetLimit) -> BudgetClaim:
    """The pool of the budgets set at `path` (`TurnBudget.pool`)."""
    return BudgetClaim(f"pool:{path}", BudgetLimit(
        _share(limit.nano_usd), _share(limit.tokens), _share(limit.turns), _share(limit.ms)))


def _one(key: str, limits: BudgetLimits, path: str, label: str) -> TurnBudget:
    limit = _limit(limits)
    pool = _pool(path, limit)
    return TurnBudget(BudgetClaim(key, limit, pool.key), path, label, limits.warn_at, pool)


def _windows(out: list[TurnBudget], windows: BudgetWindows, key: str, path: str,
             label: str, day: str) -> None:
    if windows.daily is not None:
        out.append(_one(f"{key}:day:{day}", windows.daily, f"{path}.daily",
                        f"{label}'s daily budget"))
    if windows.total is not None:
        out.append(_one(f"{key}:total", windows.total, f"{path}.total",
                        f"{label}'s total budget"))


def turn_budgets(config: BudgetsConfig, *, agent_id: str, session_key: str, day: str,
                 caller: str | None = None,
                 ancestors: Sequence[str] = ()) -> tuple[TurnBudget, ...]:
    """The budgets a turn of `agent_id` in `session_key` on UTC `day` falls under (and
    of `caller`, the HTTP API caller that started it), broadest first. A sub-agent's
    turn also falls under the session budget of each of its `ancestors` (its parent
    session first), so a parent's budget bounds what its children spend."""
    before, after = turn_budget_parts(config, agent_id=agent_id, day=day, caller=caller)
    if config.per_session is None:
        return (*before, *after)
    sessions = [session_budget(config.per_session, session_key)]
    for ancestor in dict.fromkeys(ancestors):
        if ancestor != session_key:
            sessions.append(session_budget(config.per_session, ancestor, parent=True))
    return (*before, *sessions, *after)


def turn_budget_parts(config: BudgetsConfig, *, agent_id: str, day: str,
                      caller: str | None = None
                      ) -> tuple[tuple[TurnBudget, ...], tuple[TurnBudget, ...]]:
    """`turn_budgets` but for the session budgets: those before them (the day's, the
    agent's) and those after (the caller's). They are the same for every session of
    an agent and caller on a day: a host makes them once (`session_budget` makes the
    rest)."""
    before: list[TurnBudget] = []
    if config.daily is not None:
        before.append(_one(f"day:{day}", config.daily, "budgets.daily", "the daily budget"))
    own = config.agents.get(agent_id)
    if own is not None:
        _windows(before, own, f"agent:{agent_id}", f"budgets.agents.{agent_id}",
                 f"agent {agent_id}", day)
    elif config.per_agent is not None:
        _windows(before, config.per_agent, f"agent:{agent_id}", "budgets.perAgent",
                 f"agent {agent_id}", day)
    after: list[TurnBudget] = []
    if caller is not None:
        mine = config.callers.get(caller)
        if mine is not None:
            _windows(after, mine, f"caller:{caller}", f"budgets.callers.{caller}",
                     f"caller {caller}", day)
        elif config.per_caller is not None:
            _windows(after, config.per_caller, f"caller:{caller}", "budgets.perCaller",
                     f"caller {caller}", day)
    return tuple(before), tuple(after)


def session_budget(limits: BudgetLimits, session_key: str, *,
                   parent: bool = False) -> TurnBudget:
    """The budget of `session_key` (`budgets.perSession`: `limits`); `parent`: that
    of a sub-agent's parent session above the turn's own."""
    label = (f"session {session_key}'s budget (a sub-agent's parent)" if parent
             else f"session {session_key}'s budget")
    return _one(f"session:{session_key}", limits, "budgets.perSession", label)


def prompt_chars(value: object) -> int:
    """About how many characters a prompt's parts hold (a system prompt, history
    messages, the user's message): what the estimate counts tokens by. Text is counted
    as is; anything else (a tool call's arguments) as its JSON."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list | tuple):
        return sum(_message_chars(item) for item in value)
    return _message_chars(value)


def _message_chars(message: object) -> int:
    if isinstance(message, str):
        return len(message)
    if not isinstance(message, Mapping):
        return 0
    content = message.get("content")
    if isinstance(content, str):
        return len(content)
    if not isinstance(content, list):
        return _json_chars(message)
    total = 0
    for block in content:
        text = block.get("text") if isinstance(block, Mapping) else None
        total += len(text) if isinstance(text, str) else _json_chars(block)
    return total


def _json_chars(value: object) -> int:
    try:
        return len(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return 0


def estimate(rates: Rates | None, *, prompt_chars: int, output_tokens: int,
             seconds: float) -> Amount:
    """What a turn reserves: its prompt and most output in tokens and (when priced)
    nano-dollars rounded up, one turn, and `seconds` of wall-clock."""
    input_tokens = -(-prompt_chars // _CHARS_PER_TOKEN)
    nano = 0 if rates is None else math.ceil(
        rates.estimate(input_tokens, output_tokens) * NANO)
    return Amount(nano, input_tokens + output_tokens, 1, math.ceil(seconds * 1000))


def spent(*, cost_usd: float | None, tokens: int, ms: float) -> Amount:
    """What a finished turn used: its cost (0 when unpriced), tokens, one turn, time."""
    nano = 0 if cost_usd is None else math.ceil(cost_usd * NANO)
    return Amount(nano, tokens, 1, math.ceil(ms))


def format_amount(measure: Measure, value: int) -> str:
    """A ledger amount as a person reads it: $1.23, 12,000 tokens, 5 turns, 90 s, 3.4 s
    (a tenth under 100 s: "3 s of 5 s used" would hide why 2 s more does not fit)."""
    if measure == "usd":
        usd = value / NANO
        return f"${usd:,.2f}" if usd >= 1 or usd == 0 else f"${usd:.4g}"
    if measure == "tokens":
        return f"{value:,} tokens"
    if measure == "turns":
        return f"{value:,} turn{'s' if value != 1 else ''}"
    if value % 1000 == 0 or value >= 100_000:
        return f"{value / 1000:,.0f} s"
    return f"{value / 1000:.1f} s"


def _budget(budgets: Sequence[TurnBudget], key: str) -> TurnBudget:
    for budget in budgets:
        if budget.claim.key == key:
            return budget
    raise KeyError(key)


def refusal_error(budgets: Sequence[TurnBudget], refusal: BudgetRefusal, *,
                  running: bool = False) -> BudgetExceededError:
    """The error of a turn that was not started (`running`: of a running turn stopped
    before its next model call): the budget, what ran out, and how to raise it."""
    budget = _budget(budgets, refusal.key)
    measure = refusal.measure
    key_path = f"{budget.path}.{_CONFIG_KEY[measure]}"
    used = format_amount(measure, refusal.spent)
    held = (f", {format_amount(measure, refusal.reserved)} held by running turns"
            if refusal.reserved else "")
    asked = format_amount(measure, refusal.asked)
    # a running turn's own spend is not in the ledger yet: what it asks for is what it
    # spent so far and its next call, which the message says (else "$0.00 used" reads
    # as if nothing had been spent)
    needs = (f"needs up to {asked} for what it spent so far and its next model call; the "
             "turn was stopped before that call" if running
             else f"needs up to {asked}; the turn was not started")
    others = " by other turns" if running else ""
    message = (f"{budget.label} ({budget.claim.key}) has no room for this turn: "
               f"{used} of {format_amount(measure, refusal.limit)} used{others}{held}, and "
               f"the turn {needs} (raise {key_path} to let it run)")
    wait = " or wait for the next UTC day" if ":day:" in budget.claim.key or (
        budget.claim.key.startswith("day:")) else ""
    hint = (f"raise {key_path} in the config{wait}; an approver can extend it "
            "(budgets.extendBy), see docs/budgets.md")
    return BudgetExceededError(message, budget=refusal.key, measure=measure,
                               key_path=key_path, hint=hint)


def extension(extend_by: BudgetLimits | None, refusal: BudgetRefusal) -> Amount | None:
    """What an approver is asked to add to the refused budget (`budgets.extendBy`, in the
    measure that ran out, at least what the turn needs); None when nothing is set."""
    if extend_by is None:
        return None
    per = _limit(extend_by).get(refusal.measure)
    if per is None or per <= 0:
        return None
    need = refusal.spent + refusal.reserved + refusal.asked - refusal.limit
    steps = max(1, -(-need // per))
    amount = per * steps
    measure = refusal.measure
    return Amount(nano_usd=amount if measure == "usd" else 0,
                  tokens=amount if measure == "tokens" else 0,
                  turns=amount if measure == "turns" else 0,
                  ms=amount if measure == "seconds" else 0)


def warnings(budgets: Sequence[TurnBudget], states: Sequence[BudgetState]) -> tuple[str, ...]:
    """The soft warnings of a reservation: each budget past its `warnAt` share."""
    by_key = {state.key: state for state in states}
    out: list[str] = []
    for budget in budgets:
        state = by_key.get(budget.claim.key)
        if budget.warn_at is None or state is None:
            continue
        for measure in ("usd", "tokens", "turns", "seconds"):
            limit = budget.claim.limit.get(measure)
            if limit is None or limit <= 0:
                continue
            room = limit + state.granted.get(measure)
            used = state.spent.get(measure) + state.reserved.get(measure)
            if used >= budget.warn_at * room:
                out.append(f"{budget.label} is {min(100, round(100 * used / room))}% used "
                           f"({format_amount(measure, used)} of "
                           f"{format_amount(measure, room)}, counting running turns)")
                break
    return tuple(out)
