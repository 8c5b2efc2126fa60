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

A turn that reserved from an allowance is settled behind it (its spend row and counters
committed with the store's next write): its part of the allowance is not taken again
before a write the process waits on has committed that (`Allowances.settled`), so at
every moment its estimate is held in the ledger or its spend counted there.

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
from typing import TYPE_CHECKING, Final

from clawharness._ids import new_id
from clawharness.store import Amount, BudgetClaim, BudgetGrant

if TYPE_CHECKING:
    from clawharness.store import Store

__all__ = ["IDLE_SECONDS", "POOL_TURNS", "Allowances"]

log = logging.getLogger("clawharness.spend")

#: an allowance is taken for this many turns' estimates (else for the one turn)
POOL_TURNS: Final = 4
#: an allowance no turn used for this long is given back
IDLE_SECONDS: Final = 2.0


class _Allowance:
    """One pool's allowance. Its amounts are kept as plain integers in the ledger's
    measures (nano-dollars, tokens, turns, ms): every turn adds to and takes from them."""

    __slots__ = ("expires", "held", "holder", "last_used", "limit", "pending", "pool",
                 "running", "used")

    def __init__(self, pool: BudgetClaim, holder: str) -> None:
        self.pool = pool
        #: the pool's limits (None: a measure it does not limit)
        self.limit = (pool.limit.nano_usd, pool.limit.tokens, pool.limit.turns,
                      pool.limit.ms)
        #: its hold in the ledger (a fresh id for each allowance)
        self.holder = holder
        #: what the ledger holds for it, and what running turns took of that
        self.held = [0, 0, 0, 0]
        self.used = [0, 0, 0, 0]
        #: the part of `used` of turns that ended but whose settlements the store may not
        #: have committed yet (`Allowances.settled`)
        self.pending = [0, 0, 0, 0]
        self.running = 0
        #: time.monotonic() before which its hold does not expire
        self.expires = 0.0
        #: time.monotonic() when a turn last gave its part back
        self.last_used = 0.0

    def fits(self, amount: tuple[int, int, int, int]) -> bool:
        """Room for `amount` in every measure the pool limits."""
        limit, used, held = self.limit, self.used, self.held
        return ((limit[0] is None or used[0] + amount[0] <= held[0])
                and (limit[1] is None or used[1] + amount[1] <= held[1])
                and (limit[2] is None or used[2] + amount[2] <= held[2])
                and (limit[3] is None or used[3] + amount[3] <= held[3]))


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
        #: whether an allowance has a part `settled` keeps taken (`_commit_settled`)
        self._pending = False

    def held(self, pool: str) -> Amount:
        """What this process's allowance of `pool` holds (nothing when it has none)."""
        found = self._by_pool.get(pool)
        return Amount() if found is None else Amount(*found.held)

    async def take(self, pools: Sequence[BudgetClaim], amount: Amount,
                   ttl: float) -> bool:
        """Take `amount` from the allowance of each of `pools` (distinct: budgets of one
        kind, a sub-agent's sessions, share one), taking or growing one where it has no
        room, or its hold would expire within `ttl` (a write); False when one has no
        room (nothing taken)."""
        want = amount.fields
        short = self._short(pools, amount, ttl)
        if short is None:
            return False  # a budget too small for allowances, or its pool is full
        if short and self._pending and await self._commit_settled():
            # the parts of ended turns are free again: most often, enough
            short = self._short(pools, amount, ttl)
            if short is None:
                return False
        by_pool = self._by_pool
        if short:
            for pool in pools:
                found = by_pool.get(pool.key)
                if (found is None or not found.fits(want)
                        or found.expires < time.monotonic() + ttl) and not await self._grow(
                            pool, amount, ttl):
                    return False
            # taken together, after every wait: another turn may have taken in between
            for pool in pools:
                found = by_pool.get(pool.key)
                if found is None or not found.fits(want):
                    return False
        a, b, c, d = want
        for pool in pools:
            used = by_pool[pool.key].used
            used[0] += a
            used[1] += b
            used[2] += c
            used[3] += d
            by_pool[pool.key].running += 1
        return True

    def _short(self, pools: Sequence[BudgetClaim], amount: Amount, ttl: float) -> bool | None:
        """Whether an allowance of `pools` needs a write before `amount` is taken from
        them (none yet, no room, or its hold expires within `ttl`); None when one of
        them may not have an allowance now."""
        want = amount.fields
        now = time.monotonic()
        by_pool, refused = self._by_pool, self._refused
        short = False
        for pool in pools:
            found = by_pool.get(pool.key)
            if found is not None and found.expires >= now + ttl and found.fits(want):
                continue
            if not _could_hold(pool, amount) or refused.get(pool.key, 0.0) > now:
                return None
            short = True
        return short

    def settled(self, pools: Sequence[BudgetClaim], amount: Amount) -> None:
        """A turn that took `amount` from `pools` ended, and its settlement (its spend
        counted) was written behind it (`settle_budget(wait=False)`): the store commits
        it with its next write. Until then other processes do not see that spend, so its
        part stays taken (and counted in the ledger, in the allowance's hold): no other
        turn reuses it before the store's next write this process waits on, which
        commits the settlement (`_commit_settled`, made when an allowance runs short)."""
        now = time.monotonic()
        a, b, c, d = amount.fields
        for pool in pools:
            allowance = self._by_pool.get(pool.key)
            if allowance is None:
                continue
            pending = allowance.pending
            pending[0] += a
            pending[1] += b
            pending[2] += c
            pending[3] += d
            allowance.running -= 1
            allowance.last_used = now
        self._pending = True
        if self._sweep is None:
            self._sweep = asyncio.get_running_loop().call_later(IDLE_SECONDS, self._idle)

    async def _commit_settled(self) -> bool:
        """Free the parts `settled` kept taken: a write waited on (a release of nothing)
        has the store commit every settlement written behind its turn before it (True),
        False when it failed (the parts stay taken)."""
        parts = [(a, tuple(a.pending)) for a in self._by_pool.values() if any(a.pending)]
        self._pending = False
        try:
            await self._store.release_budget(f"{self._prefix}:settled", ())
        except Exception as exc:
            log.warning("the budget settlements could not be committed: %s", exc)
            self._pending = True
            return False
        for allowance, part in parts:
            used, pending = allowance.used, allowance.pending
            for i, value in enumerate(part):
                used[i] -= value
                pending[i] -= value
        self._pending = any(any(a.pending) for a in self._by_pool.values())
        return True

    def give_back(self, pools: Sequence[BudgetClaim], amount: Amount) -> None:
        """A turn that took `amount` from `pools` ended: its part is free again."""
        now = time.monotonic()
        a, b, c, d = amount.fields
        for pool in pools:
            allowance = self._by_pool.get(pool.key)
            if allowance is None:
                continue
            used = allowance.used
            used[0] -= a
            used[1] -= b
            used[2] -= c
            used[3] -= d
            allowance.running -= 1
            allowance.last_used = now
        if self._sweep is None:
            self._sweep = asyncio.get_running_loop().call_later(IDLE_SECONDS, self._idle)

    async def renew(self, pools: Sequence[BudgetClaim], ttl: float) -> None:
        """Keep the allowances of `pools` for at least `ttl` more seconds (a long turn)."""
        for pool in pools:
            allowance = self._by_pool.get(pool.key)
            if allowance is not None and allowance.expires < time.monotonic() + ttl:
                await self._hold(allowance, Amount(), ttl)

    async def _grow(self, pool: BudgetClaim, amount: Amount, ttl: float) -> bool:
        allowance = self._by_pool.get(pool.key)
        if allowance is None:
            self._count += 1
            allowance = self._by_pool[pool.key] = _Allowance(
                pool, f"{self._prefix}:{self._count}")
        short = Amount(*(max(0, u + a - h) for u, a, h in zip(
            allowance.used, amount.fields, allowance.held, strict=True)))
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
        held = allowance.held
        for i, value in enumerate(more.fields):
            held[i] += value
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
