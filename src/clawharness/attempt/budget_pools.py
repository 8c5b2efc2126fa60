"""A process's allowances from the budget pools: most turns reserve without a write.

Each kind of budget (`budgets.daily`, `budgets.perSession`, ...) has a pool in the ledger
(`pool:<config path>`, `TurnBudget.pool`). A process takes an allowance from it, a hold
like a turn's (its own hold id) of a few turns' estimates, and its turns then reserve
from the allowance in memory. What every process holds in a pool counts as held on every
budget of that kind (`first_refusal`), so a turn that reserves from an allowance checks
with one read that its budgets have room for all of it (their spent and held, and the
pools' allowances), and a turn that reserves on its own (the store's transaction, as
before) counts them too. Each turn's estimate is thus held in the ledger, in a hold or
in an allowance, before its check, and the last check of any turns that run at once
counted every one of them: spend passes a budget by no more than without allowances.

The price: while allowances are held, the last part of a budget (at most a
`POOL_SHARE`th of it, what processes hold together) refuses turns that would fit. An
allowance no turn used for `IDLE_SECONDS` is given back, and every one when the host
closes; a dead process's expire like its turns' holds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from clawharness._ids import new_id
from clawharness.store import Amount, BudgetClaim, BudgetGrant

if TYPE_CHECKING:
    from clawharness.spend import TurnBudget
    from clawharness.store import Store

__all__ = ["IDLE_SECONDS", "POOL_TURNS", "Allowances"]

log = logging.getLogger("clawharness.spend")

#: an allowance is taken for this many turns' estimates (else for the one turn)
POOL_TURNS: Final = 4
#: an allowance no turn used for this long is given back
IDLE_SECONDS: Final = 2.0


@dataclass(slots=True)
class _Allowance:
    pool: BudgetClaim
    #: its hold in the ledger (a fresh id for each allowance)
    holder: str
    #: what the ledger holds for it, and what running turns took of that
    held: Amount
    used: Amount
    running: int
    #: time.monotonic() before which its hold does not expire
    expires: float
    #: time.monotonic() when a turn last gave its part back
    last_used: float = 0.0

    def fits(self, amount: Amount) -> bool:
        """Room for `amount` in every measure the pool limits."""
        limit, used, held, more = self.pool.limit, self.used, self.held, amount
        return ((limit.nano_usd is None or used.nano_usd + more.nano_usd <= held.nano_usd)
                and (limit.tokens is None or used.tokens + more.tokens <= held.tokens)
                and (limit.turns is None or used.turns + more.turns <= held.turns)
                and (limit.ms is None or used.ms + more.ms <= held.ms))


def _could_hold(pool: BudgetClaim, amount: Amount) -> bool:
    """Whether the pool's limits leave room for `amount` at all (a budget whose share is
    smaller than one turn's estimate never has allowances)."""
    limit = pool.limit
    return ((limit.nano_usd is None or amount.nano_usd <= limit.nano_usd)
            and (limit.tokens is None or amount.tokens <= limit.tokens)
            and (limit.turns is None or amount.turns <= limit.turns)
            and (limit.ms is None or amount.ms <= limit.ms))


class Allowances:
    """This process's allowances, one per pool (`SpendLedger.allowances`)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._by_pool: dict[str, _Allowance] = {}
        self._prefix = f"allowance:{new_id()}"
        self._count = 0
        self._tasks: set[asyncio.Task[None]] = set()
        #: pools that refused an allowance, until when they are not asked again
        self._refused: dict[str, float] = {}
        #: the sweep that gives idle allowances back (one at a time, while any is held)
        self._sweep: asyncio.TimerHandle | None = None

    def held(self, pool: str) -> Amount:
        """What this process's allowance of `pool` holds (nothing when it has none)."""
        found = self._by_pool.get(pool)
        return Amount() if found is None else found.held

    async def take(self, budgets: Sequence[TurnBudget], amount: Amount,
                   ttl: float) -> tuple[str, ...] | None:
        """Take `amount` from the allowance of each pool of `budgets` (taking or growing
        one where it has no room, or its hold would expire within `ttl`: a write); the
        pools taken from, or None when one has no room (nothing taken)."""
        if any(b.pool is None for b in budgets):
            return None
        # one allowance per pool: budgets of one kind (a sub-agent's sessions) share it
        pools = {b.pool.key: b.pool for b in budgets if b.pool is not None}
        now = time.monotonic()
        for pool in pools.values():
            if not _could_hold(pool, amount) or self._refused.get(pool.key, 0.0) > now:
                return None  # a budget too small for allowances, or its pool is full
        for pool in pools.values():
            found = self._by_pool.get(pool.key)
            short = (found is None or not found.fits(amount)
                     or found.expires < time.monotonic() + ttl)
            if short and not await self._grow(pool, amount, ttl):
                return None
        # taken together, after every wait: another turn may have taken in between
        taking = [self._by_pool.get(key) for key in pools]
        if not all(a is not None and a.fits(amount) for a in taking):
            return None
        for allowance in taking:
            assert allowance is not None
            allowance.used = allowance.used.plus(amount)
            allowance.running += 1
        return tuple(pools)

    def give_back(self, pools: Sequence[str], amount: Amount) -> None:
        """A turn that took `amount` from `pools` ended: its part is free again."""
        for key in pools:
            allowance = self._by_pool.get(key)
            if allowance is None:
                continue
            allowance.used = allowance.used.minus(amount)
            allowance.running -= 1
            allowance.last_used = time.monotonic()
        if self._sweep is None:
            self._sweep = asyncio.get_running_loop().call_later(IDLE_SECONDS, self._idle)

    async def renew(self, pools: Sequence[str], ttl: float) -> None:
        """Keep the allowances of `pools` for at least `ttl` more seconds (a long turn)."""
        for key in pools:
            allowance = self._by_pool.get(key)
            if allowance is not None and allowance.expires < time.monotonic() + ttl:
                await self._hold(allowance, Amount(), ttl)

    async def _grow(self, pool: BudgetClaim, amount: Amount, ttl: float) -> bool:
        allowance = self._by_pool.get(pool.key)
        if allowance is None:
            self._count += 1
            allowance = self._by_pool[pool.key] = _Allowance(
                pool, f"{self._prefix}:{self._count}", Amount(), Amount(), 0, 0.0)
        short = Amount(*(max(0, u + a - h) for u, a, h in zip(
            allowance.used.fields, amount.fields, allowance.held.fields, strict=True)))
        if short == Amount():
            return await self._hold(allowance, Amount(), ttl)  # renewed, nothing added
        more = Amount(*(max(s, POOL_TURNS * a) for s, a in zip(
            short.fields, amount.fields, strict=True)))
        if (await self._hold(allowance, more, ttl)
                or await self._hold(allowance, short, ttl)):
            return True
        # the pool is full (other processes' allowances): not asked again for a while
        self._refused[pool.key] = time.monotonic() + IDLE_SECONDS
        return False

    async def _hold(self, allowance: _Allowance, more: Amount, ttl: float) -> bool:
        """Add `more` to the allowance's hold and renew it for twice `ttl`."""
        outcome = await self._store.reserve_budget(allowance.holder, [allowance.pool], more,
                                                   ttl=2 * ttl)
        if not isinstance(outcome, BudgetGrant):
            return False
        allowance.held = allowance.held.plus(more)
        allowance.expires = time.monotonic() + 2 * ttl
        return True

    def _idle(self) -> None:
        """Give back the allowances no turn used for `IDLE_SECONDS`; look again later
        while any is held."""
        self._sweep = None
        now = time.monotonic()
        idle = [a for a in self._by_pool.values()
                if a.running <= 0 and now - a.last_used >= IDLE_SECONDS]
        if idle:
            task = asyncio.ensure_future(self._give_back_all(self._forget(idle)))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if self._by_pool:
            self._sweep = asyncio.get_running_loop().call_later(IDLE_SECONDS, self._idle)

    def _forget(self, allowances: Sequence[_Allowance]) -> Sequence[_Allowance]:
        """No turn takes from these any more (a new allowance is taken instead)."""
        for allowance in allowances:
            if self._by_pool.get(allowance.pool.key) is allowance:
                del self._by_pool[allowance.pool.key]
        return allowances

    async def _give_back_all(self, allowances: Sequence[_Allowance]) -> None:
        for allowance in allowances:
            try:
                await self._store.release_budget(allowance.holder, [allowance.pool.key])
            except Exception as exc:  # it expires
                log.warning("a budget allowance could not be given back (it expires): %s",
                            exc)

    async def close(self) -> None:
        """Give back every allowance no turn is using (the host closes)."""
        idle = [a for a in self._by_pool.values() if a.running <= 0]
        if idle:
            await self._give_back_all(self._forget(idle))
        if not self._by_pool and self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
