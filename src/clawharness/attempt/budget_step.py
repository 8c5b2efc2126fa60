"""A turn's spend: its budgets reserved before dispatch, its cost, its settlement after.

The rules are `clawharness.spend.budgets` (which budgets, what to reserve, the words);
this runs them against the store's ledger (`BudgetLedgerStore`) for one turn:

- `reserve(params)`, once, just before the first attempt is dispatched: the estimate
  from the prompt's size and the model's most output is held on every budget the turn
  falls under, or the turn is not started (`BudgetExceededError`, naming the budget and
  the config key that raises it). An approver (`TurnOptions.approvals`: the chat's
  user, the gateway's operators, the cluster's relay) is asked first to extend the
  budget by `budgets.extendBy` ("extend by $2.00?"); a yes is a grant in the ledger.
- `settle(turn, ...)`: the turn's usage priced (a runtime's reported cost wins, else the
  config and the price table), put on its result, and stored as its spend row with the
  holds released and the real amount counted, in one transaction. With no budget set the
  spend row is written off the turn's path (what `clawharness usage` sums); a turn that
  reserved from its process's allowances has its row and counters written as that row
  is, for the store to commit with its next write (`TurnSpend._settle_behind`).
- `release()`: a turn that raised gives its holds back and counts nothing (no spend
  row), so a cluster's retry of the same run is counted when it settles.

Every runtime's turn passes here (the built-in loop, Codex, Claude Code, ACP agents):
native usage enters the same ledger. Runtimes without prices spend no dollars and are
held by token, turn and time budgets.

The pure parts (pricing, the turn's caller, the budgets' plan, the spend row, the
extension's question) live in `clawharness.attempt._spend_parts`; the names other
modules use are re-exported here.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from clawharness.attempt._spend_parts import (
    EXTEND_TOOL,
    Plan,
    budget_state,
    extension_request,
    priced_usage,
    set_turn_caller,
    spend_record,
    turn_caller,
    usage_tokens,
    warns_at,
)
from clawharness.attempt.budget_pools import Allowances
from clawharness.errors import BudgetExceededError
from clawharness.harness import AttemptTerminal
from clawharness.harness.capabilities import ApprovalGate
from clawharness.records.usage import Usage
from clawharness.spend import (
    DEFAULT_OUTPUT_TOKENS,
    NANO,
    PriceTable,
    Rates,
    TurnBudget,
    estimate,
    extension,
    prompt_chars,
    refusal_error,
    session_budget,
    spent,
    turn_budget_parts,
    turn_budgets,
    warnings,
)
from clawharness.store import (
    Amount,
    BudgetClaim,
    BudgetGrant,
    BudgetRefusal,
    BudgetState,
    SpendRecord,
    limits_refusal,
)

if TYPE_CHECKING:
    from clawharness.config import BudgetsConfig
    from clawharness.config.schema import ClawConfig
    from clawharness.harness import AttemptParams, Message, SpendCheck
    from clawharness.records.turn_result import TurnResult
    from clawharness.store import Store

__all__ = ["EXTEND_TOOL", "SpendLedger", "TurnSpend", "priced_usage", "turn_caller"]

log = logging.getLogger("clawharness.spend")

#: a hold outlives the turn's own time limit by this much before it may be reclaimed
_TTL_GRACE_SECONDS: Final = 60.0
#: how many plans of budgets are kept (the rules are pure: recomputed when dropped)
_PLANS_KEPT: Final = 1024


class _NextCall:
    """`SpendCheck` of one attempt: `TurnSpend.before_model_call` in its workspace."""

    __slots__ = ("_cwd", "_spend")

    def __init__(self, spend: TurnSpend, cwd: str) -> None:
        self._spend = spend
        self._cwd = cwd

    async def before_model_call(self, spent: Usage,
                                context: Sequence[Message]) -> AttemptTerminal | None:
        return await self._spend.before_model_call(spent, context, self._cwd)


class SpendLedger:
    """The host's side of spend: prices, and the turns' budgets against the store."""

    def __init__(self, config: ClawConfig, store: Store) -> None:
        self._config = config
        self._store = store
        self.prices = PriceTable.from_config(config)
        #: a native runtime's prices: the config's alone (a subscription CLI is not billed
        #: by the token, so the price table would charge it what nobody pays)
        self.config_prices = PriceTable.from_config(config, use_catalog=False)
        self._writes: set[asyncio.Task[None]] = set()
        #: this process's allowances: most turns reserve from them without a write
        self.allowances = Allowances(store)
        #: whether the store commits a settlement made with `wait=False` after it returns
        #: (SQLite: with its next write), not before (PostgreSQL)
        self.settles_behind: bool = getattr(store, "SETTLES_BEHIND", True)
        #: a spend row written behind its turn, at once when the store can without
        #: awaiting (SQLite's `settle_budget_now`), else in a task (`write_later`)
        self._settle_now: Callable[..., bool] | None = getattr(store, "settle_budget_now",
                                                               None)
        #: whether any budget has a soft warning level (`warnAt`)
        self.warns = warns_at(config.budgets.model_dump())
        #: the plans of each (agent, day, caller) seen lately (`Plan`), and the keys
        #: of each one's turns' budgets but for the session's
        self._plans: dict[tuple[str, str, str | None], tuple[Plan, tuple[str, ...],
                                                             tuple[str, ...]]] = {}
        #: the UTC day of the latest turn: its number since the epoch, and its text
        self._day_number = -1
        self._day = ""

    def turn(self, run_id: str, agent_id: str, session_key: str, *, caller: str | None,
             approvals: ApprovalGate | None, ancestors: tuple[str, ...] = ()) -> TurnSpend:
        now = time.time()
        day = self._day_of(now)
        set_turn_caller(caller)  # the turn's tools (sessions_spawn) see it
        config = self._config.budgets
        if not config.configured:
            return TurnSpend(self, run_id, agent_id, session_key, caller, approvals, now, day,
                             None, ancestors, ())
        if ancestors:
            # a sub-agent's turn: its parents' session budgets too (rare: made each time)
            budgets = turn_budgets(config, agent_id=agent_id, session_key=session_key,
                                   day=day, caller=caller, ancestors=ancestors)
            plan = Plan(budgets, (), None, budgets)
            keys = tuple(b.claim.key for b in budgets)
        else:
            plan, before, after = self._plan(config, agent_id, day, caller)
            keys = ((*before, f"session:{session_key}", *after) if plan.session is not None
                    else (*before, *after))
        return TurnSpend(self, run_id, agent_id, session_key, caller, approvals, now, day,
                         plan, ancestors, keys)

    def _day_of(self, now: float) -> str:
        """The UTC day of `now`, `YYYY-MM-DD` (made once a day, not once a turn)."""
        number = int(now // 86400)
        if number != self._day_number:
            self._day_number = number
            self._day = time.strftime("%Y-%m-%d", time.gmtime(now))
        return self._day

    def _plan(self, config: BudgetsConfig, agent_id: str, day: str, caller: str | None
              ) -> tuple[Plan, tuple[str, ...], tuple[str, ...]]:
        key = (agent_id, day, caller)
        found = self._plans.get(key)
        if found is None:
            if len(self._plans) >= _PLANS_KEPT:
                self._plans.clear()
            before, after = turn_budget_parts(config, agent_id=agent_id, day=day,
                                              caller=caller)
            session = config.per_session
            sample = ((*before, session_budget(session, "-"), *after) if session is not None
                      else (*before, *after))
            found = self._plans[key] = (
                Plan(before, after, session, sample), tuple(b.claim.key for b in before),
                tuple(b.claim.key for b in after))
        return found

    def write_later(self, record: SpendRecord, *, holds: bool = False) -> None:
        now = self._settle_now
        if now is not None:  # (SQLite, mostly: into the transaction it left open)
            try:
                if now(record, (), Amount(), holds=holds):
                    return
            except Exception as exc:  # the ledger must never fail a turn
                log.warning("run %s: its spend could not be stored: %s", record.run_id, exc)
                return
        task = asyncio.ensure_future(self._write(record, holds))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, record: SpendRecord, holds: bool) -> None:
        try:
            # behind the turn: the store may commit it with its next write
            await self._store.settle_budget(record, (), Amount(), holds=holds, wait=False)
        except Exception as exc:  # the ledger must never fail a turn
            log.warning("run %s: its spend could not be stored: %s", record.run_id, exc)

    async def drain(self) -> None:
        """Finish the spend rows written off the turns' path, and give back the
        allowances no turn is using (the host closes, or a test waits)."""
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)
        await self.allowances.close()


class TurnSpend:
    """One turn's reservation and settlement (`SpendLedger.turn`)."""

    def __init__(self, ledger: SpendLedger, run_id: str, agent_id: str, session_key: str,
                 caller: str | None, approvals: ApprovalGate | None, started_at: float,
                 day: str, plan: Plan | None, ancestors: tuple[str, ...],
                 keys: tuple[str, ...]) -> None:
        self._ledger = ledger
        self.run_id = run_id
        self._agent_id = agent_id
        self._session_key = session_key
        self._caller = caller
        self._approvals = approvals
        self._started_at = started_at
        self._day = day
        self._plan = plan
        self._ancestors = ancestors
        self._budgets: tuple[TurnBudget, ...] | None = None if plan is not None else ()
        #: what the turn holds (None: nothing reserved yet, or no budget applies)
        self.held: Amount | None = None
        #: a reservation was asked for: a cancelled turn may hold one it never heard of
        self._asked = False
        self._warnings: tuple[str, ...] = ()
        # set by `reserve`: what the next model call's estimate needs
        self._rates: Rates | None = None
        self._output = DEFAULT_OUTPUT_TOKENS
        self._system_chars = 0
        self._ttl = 0.0
        self._held_at = 0.0
        #: the pools the turn reserved from (its process's allowances), else ()
        self._pools: tuple[BudgetClaim, ...] = ()
        #: the ledger keys of its budgets, and what its checks read (with their pools)
        self._keys = keys
        self._read_keys = keys if plan is None else (*keys, *plan.pool_keys)

    @property
    def budgets(self) -> tuple[TurnBudget, ...]:
        """The budgets the turn falls under (made when first asked for: a turn that
        reserves from its process's allowances needs only their keys and limits)."""
        found = self._budgets
        if found is None:
            plan = self._plan
            assert plan is not None
            found = (*plan.before, session_budget(plan.session, self._session_key),
                     *plan.after) if plan.session is not None else (*plan.before, *plan.after)
            self._budgets = found
        return found

    def _prices(self, builtin: bool) -> PriceTable:
        return self._ledger.prices if builtin else self._ledger.config_prices

    def priced(self, usage: Usage | None, params: AttemptParams, *,
               builtin: bool) -> Usage | None:
        """`usage` with its cost (`priced_usage`) on the attempt's model: the config's
        prices, then the price table for the built-in runtime; a native runtime (Codex,
        Claude Code, an ACP agent) by the config alone, or as it reported its cost."""
        return priced_usage(self._prices(builtin), params.provider, params.model_id, usage)

    async def reserve(self, params: AttemptParams, *, deadline: float | None,
                      builtin: bool = True) -> None:
        """Hold the turn's estimate on every budget it falls under (once per turn), or
        raise `BudgetExceededError`. `deadline`: the turn's, on the loop's clock."""
        if not self._keys or self.held is not None:
            return
        config = self._ledger._config.budgets.reservation
        self._output = config.output_tokens or params.model.max_tokens or DEFAULT_OUTPUT_TOKENS
        limit = config.seconds if deadline is None else max(
            0.0, deadline - asyncio.get_running_loop().time())
        self._system_chars = prompt_chars(params.system_prompt)
        chars = self._system_chars + prompt_chars(params.history) + len(params.prompt)
        self._rates = self._prices(builtin).rates(params.provider, params.model_id)
        amount = estimate(self._rates, prompt_chars=chars, output_tokens=self._output,
                          seconds=limit)
        self._ttl = max(config.ttl_seconds, limit + _TTL_GRACE_SECONDS)
        if await self._from_allowances(amount):
            return
        self._asked = True
        states = await self._hold(amount, params.workspace_dir)
        self.held = amount
        self._held_at = time.monotonic()
        self._warnings = warnings(self.budgets, states)

    async def _from_allowances(self, amount: Amount) -> bool:
        """Reserve `amount` from this process's allowances (no write), if every budget
        has room for it beside what is spent, held, and allowed to every process."""
        plan = self._plan
        if plan is None or plan.pools is None:
            return False  # a budget without a pool: no allowances
        pools = plan.pools
        allowances = self._ledger.allowances
        if not await allowances.take(pools, amount, self._ttl):
            return False
        store = self._ledger._store
        warns = self._ledger.warns
        try:
            if warns:  # the warnings say how much of each budget is used: all counters
                counters = await store.budget_counters(self._read_keys)
                fits = limits_refusal(self._keys, plan.pool_of, plan.checks, counters,
                                      amount, amount) is None
            else:  # only what each limited measure used
                read = self._read_keys
                fits = plan.fits(await store.budget_used(
                    [read[at] for at in plan.read_at], plan.read_measures), amount, amount)
        except BaseException:
            allowances.give_back(pools, amount)
            raise
        # the pools' holds include this turn's amount: the check asks for it once
        if not fits:
            allowances.give_back(pools, amount)
            return False  # the turn reserves on its own (and is refused there)
        self.held = amount
        self._pools = pools
        self._held_at = time.monotonic()
        if warns:
            self._warnings = warnings(self.budgets, [
                budget_state(b.claim.key, counters.get(b.claim.key),
                       counters.get(b.claim.pool) if b.claim.pool else None)
                for b in self.budgets])
        return True

    async def _hold(self, amount: Amount, cwd: str) -> tuple[BudgetState, ...]:
        """Hold `amount` for the turn (asking an approver to extend a budget that has no
        room), or raise `BudgetExceededError`; the budgets' states after."""
        claims = [b.claim for b in self.budgets]
        store = self._ledger._store
        asked: set[str] = set()
        while True:
            outcome = await store.reserve_budget(self.run_id, claims, amount, ttl=self._ttl)
            if isinstance(outcome, BudgetGrant):
                return outcome.states
            more = extension(self._ledger._config.budgets.extend_by, outcome)
            if (more is None or outcome.key in asked
                    or not await self._extended(outcome, more, cwd)):
                raise refusal_error(self.budgets, outcome)
            asked.add(outcome.key)
            await store.grant_budget(outcome.key, more)

    def check(self, cwd: str) -> SpendCheck | None:
        """The check a built-in attempt in workspace `cwd` runs before each model call
        after its first (`AttemptParams.spend_check`); None when no budget applies."""
        return _NextCall(self, cwd) if self._keys else None

    async def before_model_call(self, used: Usage, context: Sequence[Message],
                                cwd: str) -> AttemptTerminal | None:
        """Whether the running turn's next model call has room. A turn still within
        what it holds (what it spent so far, priced, is no more than its reservation)
        goes on: nobody else can spend that. One that spent past it is checked against
        the ledger (one read): what it spent plus the call's estimate (its context and
        the model's most output), beside what the budgets spent and other turns and
        processes hold. A budget without room for it, spent by the turn or by others,
        ends the turn before the call (the terminal names it and how to raise it),
        unless an approver extends it. Its holds are renewed once half their lifetime
        passed."""
        held, plan = self.held, self._plan
        if held is None or plan is None:
            return None
        rates = self._rates
        tokens = usage_tokens(used)
        nano = 0 if rates is None else math.ceil(rates.total(used) * NANO)
        renew = time.monotonic() - self._held_at > self._ttl / 2
        within = ((not plan.limits_usd or nano <= held.nano_usd)
                  and (not plan.limits_tokens or tokens <= held.tokens))
        if within and not renew:
            return None
        nxt = estimate(rates, prompt_chars=self._system_chars + prompt_chars(context),
                       output_tokens=self._output, seconds=0)
        need = Amount(nano + nxt.nano_usd, tokens + nxt.tokens)
        claims = [b.claim for b in self.budgets]
        store = self._ledger._store
        try:
            if renew:
                # a long turn: its holds renewed for another lifetime (nothing added)
                if self._pools:
                    await self._ledger.allowances.renew(self._pools, self._ttl)
                else:
                    await store.reserve_budget(self.run_id, claims, Amount(), ttl=self._ttl)
                self._held_at = time.monotonic()
                if within:
                    return None
            asked: set[str] = set()
            while True:
                counters = await store.budget_counters(self._read_keys)
                # the turn's own hold is part of what it needs
                refusal = limits_refusal(self._keys, plan.pool_of, plan.checks, counters,
                                         need, held)
                if refusal is None:
                    return None
                more = extension(self._ledger._config.budgets.extend_by, refusal)
                if (more is None or refusal.key in asked
                        or not await self._extended(refusal, more, cwd)):
                    raise refusal_error(self.budgets, refusal, running=True)
                asked.add(refusal.key)
                await store.grant_budget(refusal.key, more)
        except BudgetExceededError as exc:
            return AttemptTerminal("aborted", source="budget", error=str(exc), details={
                "type": exc.code, "budget": exc.budget, "measure": exc.measure,
                "key": exc.key_path, "hint": exc.hint})

    async def _extended(self, refusal: BudgetRefusal, more: Amount, cwd: str) -> bool:
        """Whether an approver extends the refused budget by `more`."""
        if self._approvals is None:
            return False
        label = next((b.label for b in self.budgets if b.claim.key == refusal.key),
                     refusal.key)
        try:
            decision = await self._approvals.decide(extension_request(
                refusal, more, label, run_id=self.run_id, session_key=self._session_key,
                cwd=cwd))
        except Exception as exc:  # an approver that fails is a no
            log.warning("run %s: the budget extension could not be asked: %s",
                        self.run_id, exc)
            return False
        return decision in ("allow-once", "allow-always")

    def _record(self, turn: TurnResult) -> SpendRecord:
        return spend_record(turn, run_id=self.run_id, day=self._day, at=self._started_at,
                            agent_id=self._agent_id, session_key=self._session_key,
                            caller=self._caller)

    async def settle(self, turn: TurnResult) -> TurnResult:
        """The turn's result with its cost and budget warnings; its spend counted."""
        usage = turn.usage  # priced when the turn concluded (`priced`)
        if self._warnings:
            turn = replace(turn, warnings=(*turn.warnings, *self._warnings))
        record = self._record(turn)
        if self.held is None:
            self._ledger.write_later(record, holds=self._asked)
            return turn
        amount = spent(cost_usd=turn.cost_usd, tokens=usage_tokens(usage), ms=turn.duration_ms)
        if self._pools:
            await self._settle_behind(record, amount)
            return turn
        try:
            # a turn that reserved from its process's allowance holds nothing in its name
            await self._ledger._store.settle_budget(record, self._keys, amount,
                                                    holds=self._asked)
        finally:
            self._give_back()
        self._asked = False
        return turn

    async def _settle_behind(self, record: SpendRecord, amount: Amount) -> None:
        """Settle a turn that reserved from its process's allowances (it holds nothing in
        its name) as its spend row is written without budgets: behind the turn, for the
        store to commit with its next write (no transaction of its own). Its part of the
        allowances stays taken until that commit is known where the store commits it
        later (`Allowances.settled`), so other processes never miss both its hold and
        its spend."""
        try:
            await self._ledger._store.settle_budget(record, self._keys, amount,
                                                    holds=False, wait=False)
        except BaseException:
            self._give_back()
            raise
        held = self.held
        if held is not None and self._ledger.settles_behind:
            self._ledger.allowances.settled(self._pools, held)
            self._pools = ()
            self.held = None
        else:
            self._give_back()

    def _give_back(self) -> None:
        """The turn's part of its process's allowances is free again (once)."""
        if self._pools and self.held is not None:
            self._ledger.allowances.give_back(self._pools, self.held)
        self._pools = ()
        self.held = None

    async def release(self) -> None:
        """A turn that raised after its reservation (cancelled, a store failure): its
        holds go back and nothing is counted, so a retry of the run (a cluster worker's)
        is counted when it settles."""
        if self.held is None and not self._asked:
            return
        self._give_back()
        if not self._asked:
            return  # it reserved from its process's allowances: nothing was written
        self._asked = False
        try:
            await self._ledger._store.release_budget(
                self.run_id, self._keys)
        except Exception as exc:
            log.warning("run %s: its budget holds could not be released (they expire): %s",
                        self.run_id, exc)
