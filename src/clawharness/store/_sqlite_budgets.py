"""The SQLite store's budget ledger (see `clawharness.store.budgets`).

Every write is one `BEGIN IMMEDIATE` transaction: SQLite's write lock serializes it
against every other writer of the file, in this process and any other, so the check and
the hold of a reservation cannot interleave with another's.
"""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

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

_T = TypeVar("_T")

#: v6: budget counters, the holds of running turns, one spend row per finished turn
MIGRATION_V6: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS budget_counters (
        budget_key TEXT PRIMARY KEY,
        spent_nano_usd INTEGER NOT NULL DEFAULT 0, spent_tokens INTEGER NOT NULL DEFAULT 0,
        spent_turns INTEGER NOT NULL DEFAULT 0, spent_ms INTEGER NOT NULL DEFAULT 0,
        reserved_nano_usd INTEGER NOT NULL DEFAULT 0,
        reserved_tokens INTEGER NOT NULL DEFAULT 0,
        reserved_turns INTEGER NOT NULL DEFAULT 0, reserved_ms INTEGER NOT NULL DEFAULT 0,
        granted_nano_usd INTEGER NOT NULL DEFAULT 0,
        granted_tokens INTEGER NOT NULL DEFAULT 0,
        granted_turns INTEGER NOT NULL DEFAULT 0, granted_ms INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS budget_holds (
        run_id TEXT NOT NULL,
        budget_key TEXT NOT NULL,
        nano_usd INTEGER NOT NULL, tokens INTEGER NOT NULL, turns INTEGER NOT NULL,
        ms INTEGER NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (run_id, budget_key)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS budget_holds_by_key ON budget_holds (budget_key, expires_at)",
    """CREATE TABLE IF NOT EXISTS spend (
        run_id TEXT PRIMARY KEY,
        day TEXT NOT NULL, at REAL NOT NULL,
        agent_id TEXT NOT NULL, session_key TEXT NOT NULL, caller TEXT,
        provider TEXT NOT NULL, model TEXT NOT NULL, runtime TEXT NOT NULL,
        terminal TEXT NOT NULL,
        input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        nano_usd INTEGER, ms INTEGER NOT NULL
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS spend_by_at ON spend (at)",
)
_STATE_COLS: Final = ("spent_nano_usd, spent_tokens, spent_turns, spent_ms, "
                      "reserved_nano_usd, reserved_tokens, reserved_turns, reserved_ms, "
                      "granted_nano_usd, granted_tokens, granted_turns, granted_ms")
_HOLD: Final = "nano_usd, tokens, turns, ms"
_SPEND_INSERT: Final = (f"INSERT OR IGNORE INTO spend ({SPEND_COLUMNS}) "
                        f"VALUES ({', '.join('?' * len(SPEND_COLUMNS.split(',')))})")


def _states(conn: sqlite3.Connection, keys: Sequence[str]) -> dict[str, BudgetState]:
    marks = ", ".join("?" * len(keys))
    rows = conn.execute(f"SELECT budget_key, {_STATE_COLS} FROM budget_counters "
                        f"WHERE budget_key IN ({marks})", tuple(keys)).fetchall()
    return {row[0]: state_of(row[0], row[1:]) for row in rows}


def _add_reserved(conn: sqlite3.Connection, key: str, amount: Amount, sign: int) -> None:
    conn.execute("UPDATE budget_counters SET reserved_nano_usd = reserved_nano_usd + ?, "
                 "reserved_tokens = reserved_tokens + ?, reserved_turns = reserved_turns + ?, "
                 "reserved_ms = reserved_ms + ? WHERE budget_key = ?",
                 (*(sign * v for v in amount.fields), key))


def _reclaim(conn: sqlite3.Connection, keys: Sequence[str], now: float) -> None:
    """Give back the holds on `keys` whose expiry passed (their process died)."""
    marks = ", ".join("?" * len(keys))
    expired = conn.execute(f"SELECT run_id, budget_key, {_HOLD} FROM budget_holds "
                           f"WHERE budget_key IN ({marks}) AND expires_at < ?",
                           (*keys, now)).fetchall()
    for run_id, key, *amount in expired:
        _add_reserved(conn, key, Amount(*amount), -1)
        conn.execute("DELETE FROM budget_holds WHERE run_id = ? AND budget_key = ?",
                     (run_id, key))


def _reserve(conn: sqlite3.Connection, run_id: str, claims: Sequence[BudgetClaim],
             amount: Amount, expires_at: float, now: float) -> BudgetGrant | BudgetRefusal:
    keys = [claim.key for claim in claims]
    pools = list({claim.pool for claim in claims if claim.pool is not None} - set(keys))
    conn.executemany("INSERT OR IGNORE INTO budget_counters (budget_key) VALUES (?)",
                     [(key,) for key in (*keys, *pools)])
    _reclaim(conn, (*keys, *pools), now)
    refusal = first_refusal(claims, _states(conn, (*keys, *pools)), amount)
    if refusal is not None:
        return refusal
    for key in keys:
        _add_reserved(conn, key, amount, 1)
        conn.execute(f"INSERT INTO budget_holds (run_id, budget_key, {_HOLD}, expires_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, budget_key) DO UPDATE "
                     "SET nano_usd = nano_usd + excluded.nano_usd, "
                     "tokens = tokens + excluded.tokens, turns = turns + excluded.turns, "
                     "ms = ms + excluded.ms, expires_at = excluded.expires_at",
                     (run_id, key, *amount.fields, expires_at))
    states = _states(conn, keys)
    return BudgetGrant(tuple(states[key] for key in keys))


def _settle(conn: sqlite3.Connection, record: SpendRecord, keys: Sequence[str],
            spent: Amount, holds: bool) -> bool:
    """Release the run's holds (`holds`: it may have some); unless the run was settled
    before, record its spend row and add `spent` to every key. True when this call
    counted it."""
    if holds:
        _release(conn, record.run_id)
    if conn.execute(_SPEND_INSERT, _spend_row(record)).rowcount == 0:
        return False  # a retried turn settled twice: counted once
    if keys:
        fields = spent.fields
        conn.execute(_spent_upsert(len(keys)),
                     [v for key in keys for v in (key, *fields)])
    return True


def _release(conn: sqlite3.Connection, run_id: str) -> None:
    """Give back every hold of the run."""
    held = conn.execute(f"DELETE FROM budget_holds WHERE run_id = ? RETURNING budget_key, {_HOLD}",
                        (run_id,)).fetchall()
    for key, *amount in held:
        _add_reserved(conn, key, Amount(*amount), -1)


def _spend_row(r: SpendRecord) -> tuple[Any, ...]:
    return (r.run_id, r.day, r.at, r.agent_id, r.session_key, r.caller, r.provider, r.model,
            r.runtime, r.terminal, r.input_tokens, r.output_tokens, r.cache_read_tokens,
            r.cache_write_tokens, r.reasoning_tokens, r.nano_usd, r.ms)


@functools.lru_cache(maxsize=32)
def _spent_upsert(n: int) -> str:
    """Add what a turn spent to `n` budgets' counters, in one statement."""
    rows = ", ".join(["(?, ?, ?, ?, ?)"] * n)
    return ("INSERT INTO budget_counters (budget_key, spent_nano_usd, spent_tokens, "
            f"spent_turns, spent_ms) VALUES {rows} ON CONFLICT (budget_key) "
            "DO UPDATE SET spent_nano_usd = spent_nano_usd + excluded.spent_nano_usd, "
            "spent_tokens = spent_tokens + excluded.spent_tokens, "
            "spent_turns = spent_turns + excluded.spent_turns, "
            "spent_ms = spent_ms + excluded.spent_ms")


@functools.lru_cache(maxsize=32)
def _counters_query(n: int) -> str:
    """The read of `n` budgets' counters (`budget_counters`)."""
    return (f"SELECT budget_key, {_STATE_COLS} FROM budget_counters "
            f"WHERE budget_key IN ({', '.join('?' * n)})")


class BudgetLedgerMethods:
    """The `Store` protocol's budget ledger methods, for `SqliteStore`."""

    #: a settlement made with `wait=False` is committed with the store's next write
    #: (`_write_deferred`), after it returns: a turn's part of its process's allowances
    #: stays taken until then (`SpendLedger.settles_behind`)
    SETTLES_BEHIND: Final = True

    if TYPE_CHECKING:
        async def _write_small(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        async def _write_deferred(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        def _write_deferred_inline(self, fn: Callable[[sqlite3.Connection], _T]
                                   ) -> tuple[bool, Any]: ...
        async def _read(self, fn: Callable[[sqlite3.Connection], _T], *,
                        inline: bool = False) -> _T: ...

    async def reserve_budget(self, run_id: str, claims: Sequence[BudgetClaim], amount: Amount,
                             *, ttl: float) -> BudgetGrant | BudgetRefusal:
        if not claims:
            return BudgetGrant(())

        def fn(conn: sqlite3.Connection) -> BudgetGrant | BudgetRefusal:
            now = time.time()
            return _reserve(conn, run_id, claims, amount, now + ttl, now)

        return await self._write_small(fn)

    async def settle_budget(self, record: SpendRecord, keys: Sequence[str],
                            spent: Amount, *, holds: bool = True, wait: bool = True) -> bool:
        """See the protocol; `wait=False`: `_write_deferred`."""
        def fn(conn: sqlite3.Connection) -> bool:
            return _settle(conn, record, keys, spent, holds)

        if wait:
            return await self._write_small(fn)
        done, result = self._write_deferred_inline(fn)  # (`_write_deferred`, inlined)
        return cast(bool, result) if done else await self._write_deferred(fn)

    def settle_budget_now(self, record: SpendRecord, keys: Sequence[str], spent: Amount,
                          *, holds: bool = True) -> bool:
        """`settle_budget(..., wait=False)` made at once, without awaiting, when it can
        be (on the event loop while the writer thread idles: in the transaction left
        open on the loop's connection, `_write_deferred_inline`); False when it was not
        made (then call `settle_budget`). A spend row written behind its turn so needs no
        task of its own (`SpendLedger.write_later`)."""
        done, _ = self._write_deferred_inline(
            lambda conn: _settle(conn, record, keys, spent, holds))
        return done

    async def release_budget(self, run_id: str, keys: Sequence[str]) -> None:
        await self._write_small(lambda conn: _release(conn, run_id))

    async def grant_budget(self, key: str, amount: Amount) -> BudgetState:
        def fn(conn: sqlite3.Connection) -> BudgetState:
            conn.execute("INSERT OR IGNORE INTO budget_counters (budget_key) VALUES (?)",
                         (key,))
            conn.execute("UPDATE budget_counters SET granted_nano_usd = granted_nano_usd + ?, "
                         "granted_tokens = granted_tokens + ?, granted_turns = granted_turns + ?,"
                         " granted_ms = granted_ms + ? WHERE budget_key = ?",
                         (*amount.fields, key))
            return _states(conn, [key])[key]

        return await self._write_small(fn)

    async def budget_states(self, keys: Sequence[str]) -> list[BudgetState]:
        if not keys:
            return []

        def fn(conn: sqlite3.Connection) -> list[BudgetState]:
            found = _states(conn, keys)
            return [found.get(key) or BudgetState(key) for key in keys]

        return await self._read(fn, inline=True)

    async def budget_counters(self, keys: Sequence[str]) -> dict[str, Counters]:
        if not keys:
            return {}
        query = _counters_query(len(keys))

        def fn(conn: sqlite3.Connection) -> dict[str, Counters]:
            return {row[0]: row[1:] for row in conn.execute(query, tuple(keys))}

        return await self._read(fn, inline=True)

    async def budget_used(self, keys: Sequence[str], measures: tuple[int, ...]) -> list[int]:
        if not keys:
            return []
        query = used_sql(measures, "?")

        def fn(conn: sqlite3.Connection) -> list[int]:
            row = conn.execute(query, keys).fetchone()
            return list(row)

        return await self._read(fn, inline=True)

    async def summarize_spend(self, *, since: float, by: SpendGrouping,
                              session_key: str | None = None) -> list[SpendSummary]:
        query = summary_sql(by, "?", one_session=session_key is not None)
        params = summary_params(since, session_key)

        def fn(conn: sqlite3.Connection) -> list[SpendSummary]:
            return [summary_of(row) for row in conn.execute(query, params)]

        return await self._read(fn)
