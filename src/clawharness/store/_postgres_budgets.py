"""The PostgreSQL store's budget ledger (see `clawharness.store.budgets`).

A reservation is one transaction: it makes the turn's counter rows if missing, locks
them `FOR UPDATE` in key order (two turns sharing budgets always lock in the same
order, so they queue instead of deadlocking), reclaims expired holds, checks and holds.
Any number of processes and cluster workers reserve against the same rows this way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import psycopg

from clawharness.store.budgets import (
    SPEND_COLUMNS,
    Amount,
    BudgetClaim,
    BudgetGrant,
    BudgetRefusal,
    BudgetState,
    Counters,
    SpendGrouping,
    SpendRecord,
    SpendSummary,
    first_refusal,
    state_of,
    summary_of,
    summary_params,
    summary_sql,
    used_sql,
)

__all__ = ["MIGRATION_V6", "BudgetLedgerMethods"]

Conn = psycopg.AsyncConnection[Any]

#: v6: budget counters, the holds of running turns, one spend row per finished turn
MIGRATION_V6: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS budget_counters (
        budget_key text COLLATE "C" PRIMARY KEY,
        spent_nano_usd bigint NOT NULL DEFAULT 0, spent_tokens bigint NOT NULL DEFAULT 0,
        spent_turns bigint NOT NULL DEFAULT 0, spent_ms bigint NOT NULL DEFAULT 0,
        reserved_nano_usd bigint NOT NULL DEFAULT 0, reserved_tokens bigint NOT NULL DEFAULT 0,
        reserved_turns bigint NOT NULL DEFAULT 0, reserved_ms bigint NOT NULL DEFAULT 0,
        granted_nano_usd bigint NOT NULL DEFAULT 0, granted_tokens bigint NOT NULL DEFAULT 0,
        granted_turns bigint NOT NULL DEFAULT 0, granted_ms bigint NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS budget_holds (
        run_id text COLLATE "C" NOT NULL,
        budget_key text COLLATE "C" NOT NULL,
        nano_usd bigint NOT NULL, tokens bigint NOT NULL, turns bigint NOT NULL,
        ms bigint NOT NULL,
        expires_at double precision NOT NULL,
        PRIMARY KEY (run_id, budget_key)
    )""",
    "CREATE INDEX IF NOT EXISTS budget_holds_by_key ON budget_holds (budget_key, expires_at)",
    """CREATE TABLE IF NOT EXISTS spend (
        run_id text COLLATE "C" PRIMARY KEY,
        day text NOT NULL, at double precision NOT NULL,
        agent_id text NOT NULL, session_key text NOT NULL, caller text,
        provider text NOT NULL, model text NOT NULL, runtime text NOT NULL,
        terminal text NOT NULL,
        input_tokens bigint NOT NULL, output_tokens bigint NOT NULL,
        cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL,
        reasoning_tokens bigint NOT NULL,
        nano_usd bigint, ms bigint NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS spend_by_at ON spend (at)",
)
_NOW: Final = "extract(epoch FROM clock_timestamp())::float8"
_STATE_COLS: Final = ("spent_nano_usd, spent_tokens, spent_turns, spent_ms, "
                      "reserved_nano_usd, reserved_tokens, reserved_turns, reserved_ms, "
                      "granted_nano_usd, granted_tokens, granted_turns, granted_ms")
_ENSURE: Final = ("INSERT INTO budget_counters (budget_key) SELECT unnest(%s::text[]) "
                  "ON CONFLICT (budget_key) DO NOTHING")
_LOCK: Final = (f"SELECT budget_key, {_STATE_COLS} FROM budget_counters "
                "WHERE budget_key = ANY(%s) ORDER BY budget_key FOR UPDATE")
_RECLAIM: Final = (
    "WITH gone AS (DELETE FROM budget_holds WHERE budget_key = ANY(%s) "
    f"AND expires_at < {_NOW} RETURNING budget_key, nano_usd, tokens, turns, ms), "
    "sums AS (SELECT budget_key, sum(nano_usd) AS u, sum(tokens) AS t, sum(turns) AS n, "
    "sum(ms) AS m FROM gone GROUP BY budget_key) "
    "UPDATE budget_counters c SET reserved_nano_usd = c.reserved_nano_usd - s.u, "
    "reserved_tokens = c.reserved_tokens - s.t, reserved_turns = c.reserved_turns - s.n, "
    "reserved_ms = c.reserved_ms - s.m FROM sums s WHERE c.budget_key = s.budget_key")
_HOLD: Final = (
    "UPDATE budget_counters SET reserved_nano_usd = reserved_nano_usd + %s, "
    "reserved_tokens = reserved_tokens + %s, reserved_turns = reserved_turns + %s, "
    "reserved_ms = reserved_ms + %s WHERE budget_key = ANY(%s)")
_HOLD_ROWS: Final = (
    "INSERT INTO budget_holds (run_id, budget_key, nano_usd, tokens, turns, ms, expires_at) "
    f"SELECT %s, k, %s, %s, %s, %s, {_NOW} + %s FROM unnest(%s::text[]) AS k "
    "ON CONFLICT (run_id, budget_key) DO UPDATE SET "
    "nano_usd = budget_holds.nano_usd + EXCLUDED.nano_usd, "
    "tokens = budget_holds.tokens + EXCLUDED.tokens, "
    "turns = budget_holds.turns + EXCLUDED.turns, ms = budget_holds.ms + EXCLUDED.ms, "
    "expires_at = EXCLUDED.expires_at")
_RELEASE: Final = (
    "WITH gone AS (DELETE FROM budget_holds WHERE run_id = %s "
    "RETURNING budget_key, nano_usd, tokens, turns, ms) "
    "UPDATE budget_counters c SET reserved_nano_usd = c.reserved_nano_usd - g.nano_usd, "
    "reserved_tokens = c.reserved_tokens - g.tokens, reserved_turns = c.reserved_turns - g.turns,"
    " reserved_ms = c.reserved_ms - g.ms FROM gone g WHERE c.budget_key = g.budget_key")
_SPENT: Final = (
    "UPDATE budget_counters SET spent_nano_usd = spent_nano_usd + %s, "
    "spent_tokens = spent_tokens + %s, spent_turns = spent_turns + %s, "
    "spent_ms = spent_ms + %s WHERE budget_key = ANY(%s)")
_GRANT: Final = (
    "UPDATE budget_counters SET granted_nano_usd = granted_nano_usd + %s, "
    "granted_tokens = granted_tokens + %s, granted_turns = granted_turns + %s, "
    f"granted_ms = granted_ms + %s WHERE budget_key = %s RETURNING {_STATE_COLS}")
_SPEND_INSERT: Final = (f"INSERT INTO spend ({SPEND_COLUMNS}) VALUES "
                        f"({', '.join(['%s'] * 17)}) ON CONFLICT (run_id) DO NOTHING "
                        "RETURNING true")


async def _locked_states(conn: Conn, keys: list[str]) -> dict[str, BudgetState]:
    await conn.execute(_ENSURE, (keys,))
    await conn.execute(_LOCK, (keys,))  # the rows are ours until commit
    await conn.execute(_RECLAIM, (keys,))
    rows = await (await conn.execute(
        f"SELECT budget_key, {_STATE_COLS} FROM budget_counters WHERE budget_key = ANY(%s)",
        (keys,))).fetchall()
    return {row[0]: state_of(row[0], row[1:]) for row in rows}


class BudgetLedgerMethods:
    """The `Store` protocol's budget ledger methods, for `PostgresStore`."""

    #: a settlement is committed before it returns, `wait=False` or not: a turn's part
    #: of its process's allowances is free again at once (`SpendLedger.settles_behind`)
    SETTLES_BEHIND: Final = False

    if TYPE_CHECKING:
        async def _run(self, what: str, fn: Callable[[Conn], Awaitable[Any]], *,
                       tx: bool = True, pipelined: bool = False) -> Any: ...
        async def _all(self, what: str, query: str, args: Sequence[Any]) -> list[Any]: ...

    async def reserve_budget(self, run_id: str, claims: Sequence[BudgetClaim], amount: Amount,
                             *, ttl: float) -> BudgetGrant | BudgetRefusal:
        if not claims:
            return BudgetGrant(())
        keys = sorted({claim.key for claim in claims})
        # the claims' pools are locked (in key order) and read with them
        locked = sorted({*keys, *(c.pool for c in claims if c.pool is not None)})

        async def fn(conn: Conn) -> BudgetGrant | BudgetRefusal:
            states = await _locked_states(conn, locked)
            refusal = first_refusal(claims, states, amount)
            if refusal is not None:
                return refusal
            await conn.execute(_HOLD, (*amount.fields, keys))
            await conn.execute(_HOLD_ROWS, (run_id, *amount.fields, ttl, keys))
            return BudgetGrant(tuple(
                BudgetState(c.key, states[c.key].spent, states[c.key].reserved.plus(amount),
                            states[c.key].granted) for c in claims))

        result: BudgetGrant | BudgetRefusal = await self._run("reserve a budget", fn)
        return result

    async def settle_budget(self, record: SpendRecord, keys: Sequence[str],
                            spent: Amount, *, holds: bool = True, wait: bool = True) -> bool:
        """See the protocol (committed before it returns, `wait` or not)."""
        ordered = sorted(set(keys))
        row = (record.run_id, record.day, record.at, record.agent_id, record.session_key,
               record.caller, record.provider, record.model, record.runtime, record.terminal,
               record.input_tokens, record.output_tokens, record.cache_read_tokens,
               record.cache_write_tokens, record.reasoning_tokens, record.nano_usd, record.ms)

        async def fn(conn: Conn) -> bool:
            if ordered:
                await conn.execute(_ENSURE, (ordered,))
                await conn.execute(_LOCK, (ordered,))
            if holds:
                await conn.execute(_RELEASE, (record.run_id,))
            inserted = await (await conn.execute(_SPEND_INSERT, row)).fetchone()
            if inserted is None:
                return False  # a retried turn settled twice: counted once
            if ordered:
                await conn.execute(_SPENT, (*spent.fields, ordered))
            return True

        counted: bool = await self._run("settle a budget", fn)
        return counted

    async def release_budget(self, run_id: str, keys: Sequence[str]) -> None:
        ordered = sorted(set(keys))

        async def fn(conn: Conn) -> None:
            if ordered:  # the counters locked in key order, as a reservation locks them
                await conn.execute(_ENSURE, (ordered,))
                await conn.execute(_LOCK, (ordered,))
            await conn.execute(_RELEASE, (run_id,))

        await self._run("release a budget", fn)

    async def grant_budget(self, key: str, amount: Amount) -> BudgetState:
        async def fn(conn: Conn) -> BudgetState:
            await conn.execute(_ENSURE, ([key],))
            row = await (await conn.execute(_GRANT, (*amount.fields, key))).fetchone()
            assert row is not None
            return state_of(key, row)

        state: BudgetState = await self._run("grant a budget", fn)
        return state

    async def budget_states(self, keys: Sequence[str]) -> list[BudgetState]:
        if not keys:
            return []
        rows = await self._all("read budgets", f"SELECT budget_key, {_STATE_COLS} FROM "
                               "budget_counters WHERE budget_key = ANY(%s)", (list(keys),))
        found = {row[0]: state_of(row[0], row[1:]) for row in rows}
        return [found.get(key) or BudgetState(key) for key in keys]

    async def budget_counters(self, keys: Sequence[str]) -> dict[str, Counters]:
        if not keys:
            return {}
        rows = await self._all("read budgets", f"SELECT budget_key, {_STATE_COLS} FROM "
                               "budget_counters WHERE budget_key = ANY(%s)", (list(keys),))
        return {row[0]: tuple(int(v) for v in row[1:]) for row in rows}

    async def budget_used(self, keys: Sequence[str], measures: tuple[int, ...]) -> list[int]:
        if not keys:
            return []
        (row,) = await self._all("read budgets", used_sql(measures, "%s"), list(keys))
        return [int(value) for value in row]

    async def summarize_spend(self, *, since: float, by: SpendGrouping,
                              session_key: str | None = None) -> list[SpendSummary]:
        query = summary_sql(by, "%s", one_session=session_key is not None)
        rows = await self._all("summarize spend", query, summary_params(since, session_key))
        return [summary_of(row) for row in rows]
