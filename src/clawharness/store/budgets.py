"""The budget ledger's records and rules: counters per budget, holds per turn, spend rows.

A budget is a key (`day:2026-12-01`, `agent:main:total`, `session:agent:main:main`, ...,
made by `clawharness.spend.budgets`) with limits. The ledger keeps, per key, what was
spent, what running turns hold (reserved, not yet spent) and what an approver granted on
top of the limits; per turn, its holds (one per key, with an expiry); and one spend row
per finished turn (what `clawharness usage` sums).

All amounts are integers (`Amount`): nano-dollars, tokens, turns, milliseconds, so
concurrent additions are exact in both backends. A reservation is one transaction that
locks the turn's budget rows in key order (no deadlock between two turns that share
keys), reclaims holds whose expiry passed (a process that died holding them), checks
`spent + reserved + asked <= limit + granted` for every limited measure of every key,
and then holds the amount on all of them, or on none. Rules here are pure; the two
backends run them inside their transactions.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "MEASURES",
    "SPEND_COLUMNS",
    "Amount",
    "BudgetClaim",
    "BudgetGrant",
    "BudgetLimit",
    "BudgetRefusal",
    "BudgetState",
    "Counters",
    "LimitCheck",
    "Measure",
    "SpendGrouping",
    "SpendRecord",
    "SpendSummary",
    "counters_refusal",
    "first_refusal",
    "limit_checks",
    "limits_refusal",
    "state_of",
    "summary_of",
    "summary_sql",
    "used_sql",
]

Measure = Literal["usd", "tokens", "turns", "seconds"]
MEASURES: Final[tuple[Measure, ...]] = ("usd", "tokens", "turns", "seconds")
#: what `clawharness usage` groups spend by
SpendGrouping = Literal["day", "agent", "session", "model", "runtime", "caller"]


@dataclass(frozen=True, slots=True)
class Amount:
    """An amount in the ledger's integer units: nano-dollars, tokens, turns, ms."""

    nano_usd: int = 0
    tokens: int = 0
    turns: int = 0
    ms: int = 0

    def plus(self, other: Amount) -> Amount:
        return Amount(self.nano_usd + other.nano_usd, self.tokens + other.tokens,
                      self.turns + other.turns, self.ms + other.ms)

    def minus(self, other: Amount) -> Amount:
        return Amount(self.nano_usd - other.nano_usd, self.tokens - other.tokens,
                      self.turns - other.turns, self.ms - other.ms)

    def get(self, measure: Measure) -> int:
        return (self.nano_usd if measure == "usd" else self.tokens if measure == "tokens"
                else self.turns if measure == "turns" else self.ms)

    @property
    def fields(self) -> tuple[int, int, int, int]:
        return (self.nano_usd, self.tokens, self.turns, self.ms)


@dataclass(frozen=True, slots=True)
class BudgetLimit:
    """A budget's hard limits in ledger units (None: that measure is not limited)."""

    nano_usd: int | None = None
    tokens: int | None = None
    turns: int | None = None
    ms: int | None = None

    def get(self, measure: Measure) -> int | None:
        return (self.nano_usd if measure == "usd" else self.tokens if measure == "tokens"
                else self.turns if measure == "turns" else self.ms)


@dataclass(frozen=True, slots=True)
class BudgetClaim:
    """One budget a turn falls under: its key and limits. `pool`: the key of the
    allowances processes hold for every budget of its kind (see `first_refusal`)."""

    key: str
    limit: BudgetLimit
    pool: str | None = None


@dataclass(frozen=True, slots=True)
class BudgetState:
    """One budget's counters: spent, held by running turns, granted beyond the limits."""

    key: str
    spent: Amount = Amount()
    reserved: Amount = Amount()
    granted: Amount = Amount()


@dataclass(frozen=True, slots=True)
class BudgetRefusal:
    """A reservation that did not fit: the first budget and measure without room."""

    key: str
    measure: Measure
    limit: int
    spent: int
    reserved: int
    asked: int


@dataclass(frozen=True, slots=True)
class BudgetGrant:
    """A reservation held: every key's counters after it (for the soft warnings)."""

    states: tuple[BudgetState, ...]


#: a budget's counters as the ledger's rows hold them: spent, reserved, granted, each in
#: MEASURES order (what `budget_counters` answers; `counters_of` makes one of a state)
Counters = Sequence[int]
_NO_COUNTERS: Final = (0,) * 12


def counters_of(state: BudgetState) -> tuple[int, ...]:
    return (*state.spent.fields, *state.reserved.fields, *state.granted.fields)


def first_refusal(claims: Sequence[BudgetClaim], states: Mapping[str, BudgetState],
                  asked: Amount, *, held: Amount | None = None) -> BudgetRefusal | None:
    """The first claim and measure where `asked` does not fit, in claim order; None
    when it fits everywhere. A measure asked for 0 always fits (a turn that asks for
    no dollars is not refused by a dollar budget already spent).

    A claim's pool (`BudgetClaim.pool`, its state in `states`) holds the allowances
    processes took for every budget of its kind, from which their turns reserve
    without a write: all of it counts as held on each of those budgets. `held`: what
    the asking turn holds already (in `states`): it is part of what it asks."""
    return counters_refusal(claims, {key: counters_of(state) for key, state in states.items()},
                            asked, held=held)


def counters_refusal(claims: Sequence[BudgetClaim], counters: Mapping[str, Counters],
                     asked: Amount, *, held: Amount | None = None) -> BudgetRefusal | None:
    """`first_refusal` over the budgets' counters as the ledger's rows hold them (no
    object made per budget)."""
    return limits_refusal([c.key for c in claims], [c.pool for c in claims],
                          limit_checks([c.limit for c in claims]), counters, asked,
                          held or Amount())


#: one limited measure of one of a turn's budgets, as its check reads it: the budget's
#: index among the turn's, the measure's in MEASURES, and the limit
LimitCheck = tuple[int, int, int]


def limit_checks(limits: Sequence[BudgetLimit]) -> tuple[LimitCheck, ...]:
    """The limited measures of budgets whose limits are `limits` (`limits_refusal`)."""
    return tuple((j, i, cap) for j, limit in enumerate(limits)
                 for i, cap in enumerate((limit.nano_usd, limit.tokens, limit.turns,
                                          limit.ms)) if cap is not None)


def limits_refusal(keys: Sequence[str], pools: Sequence[str | None],
                   checks: Sequence[LimitCheck], counters: Mapping[str, Counters],
                   asked: Amount, held: Amount) -> BudgetRefusal | None:
    """`counters_refusal` of the budgets `keys` (each one's pool in `pools`, their
    limits as `limit_checks` made them): what a turn checks on its path, with nothing
    made but the refusal."""
    want_of = asked.fields
    held_of = held.fields
    for j, i, cap in checks:
        want = want_of[i]
        if want <= 0:
            continue
        key = keys[j]
        row = counters.get(key) or _NO_COUNTERS
        room = cap + row[8 + i]
        spent, reserved = row[i], row[4 + i] - held_of[i]
        pool_key = pools[j]
        if pool_key is not None:
            pool = counters.get(pool_key)
            if pool is not None:
                reserved += pool[4 + i]
        if spent + reserved + want > room:
            return BudgetRefusal(key, MEASURES[i], room, spent, reserved, want)
    return None


@dataclass(frozen=True, slots=True)
class SpendRecord:
    """One finished turn's spend (`clawharness usage`): who, what, how much."""

    run_id: str
    #: UTC day the turn started, `YYYY-MM-DD`
    day: str
    at: float
    agent_id: str
    session_key: str
    provider: str
    model: str
    runtime: str
    terminal: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    #: None: the model is unpriced
    nano_usd: int | None = None
    ms: int = 0
    #: the HTTP API caller, when one started the turn
    caller: str | None = None

    @property
    def tokens(self) -> int:
        return (self.input_tokens + self.output_tokens + self.cache_read_tokens
                + self.cache_write_tokens)


@dataclass(frozen=True, slots=True)
class SpendSummary:
    """Spend summed over one group (a day, an agent, a model, ...)."""

    group: str
    turns: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    #: None when no turn of the group was priced
    nano_usd: int | None
    #: turns of the group whose model was unpriced
    unpriced_turns: int
    ms: int


# --- what both backends' SQL shares -------------------------------------------------

_GROUP_COLUMN: Final[dict[str, str]] = {
    "day": "day", "agent": "agent_id", "session": "session_key",
    "model": "provider || '/' || model", "runtime": "runtime",
    "caller": "coalesce(caller, '-')",
}


def state_of(key: str, row: Sequence[Any]) -> BudgetState:
    return BudgetState(key, Amount(*row[0:4]), Amount(*row[4:8]), Amount(*row[8:12]))


SPEND_COLUMNS: Final = ("run_id, day, at, agent_id, session_key, caller, provider, model, "
                        "runtime, terminal, input_tokens, output_tokens, cache_read_tokens, "
                        "cache_write_tokens, reasoning_tokens, nano_usd, ms")


_UNITS: Final = ("nano_usd", "tokens", "turns", "ms")


@functools.lru_cache(maxsize=64)
def used_sql(measures: tuple[int, ...], mark: str) -> str:
    """`budget_used`'s query in both backends (`mark`: the placeholder): one row whose
    i-th value is what the i-th key's budget used in `measures[i]` (a MEASURES index),
    spent + reserved - granted, 0 for a key never used. Only the columns a turn's check
    needs are read, and as one row: each row a query yields is a step of its own (in
    SQLite, with the GIL given up and taken back around it), a turn's check reads on
    its path."""
    return "SELECT " + ", ".join(
        f"coalesce((SELECT spent_{_UNITS[m]} + reserved_{_UNITS[m]} - granted_{_UNITS[m]} "
        f"FROM budget_counters WHERE budget_key = {mark}), 0)" for m in measures)


def summary_sql(by: SpendGrouping, mark: str, *, one_session: bool = False) -> str:
    """The spend summary query of both backends (`mark`: the placeholder): its
    parameters are `since`, then with `one_session` the session key."""
    column = _GROUP_COLUMN[by]
    session = f" AND session_key = {mark}" if one_session else ""
    return (f"SELECT {column} AS grp, count(*), sum(input_tokens), sum(output_tokens), "
            "sum(cache_read_tokens), sum(cache_write_tokens), sum(reasoning_tokens), "
            "sum(nano_usd), sum(CASE WHEN nano_usd IS NULL THEN 1 ELSE 0 END), sum(ms) "
            f"FROM spend WHERE at >= {mark}{session} GROUP BY grp ORDER BY grp")


def summary_params(since: float, session_key: str | None) -> tuple[float] | tuple[float, str]:
    """The parameters of `summary_sql(..., one_session=session_key is not None)`."""
    return (since,) if session_key is None else (since, session_key)


def summary_of(row: Sequence[Any]) -> SpendSummary:
    counts = [int(v or 0) for v in row[2:7]]
    return SpendSummary(str(row[0]), int(row[1]), counts[0], counts[1], counts[2], counts[3],
                        counts[4], None if row[7] is None else int(row[7]), int(row[8] or 0),
                        int(row[9] or 0))


