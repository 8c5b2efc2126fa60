"""The `Store` protocol over PostgreSQL (psycopg 3), for many processes and machines.

A small pool of autocommit async connections; every write is one transaction. `seq` is
allocated under a per-session transaction-scoped advisory lock (max(seq) + 1, so a
rewind continues where it cut, like the SQLite store). Plugin-state conditional writes
are single statements guarded by `WHERE generation = %s`. Search uses a generated
`tsvector` column ('simple' configuration, no stemming, like the SQLite tokenizer) with a
GIN index, ranking with ts_rank over the newest matches only. The synchronous
plugin-state methods use their own blocking connection. PostgreSQL text cannot hold NUL,
so an entry's `text` is stored (and read back) without NUL characters; JSON content keeps
them (as the `\u0000` escape). The server aborts a transaction of ours left idle for
`idle_in_transaction_timeout` (10 s): a client frozen mid-write must not hold its row
locks (and with them the takeover of a session writer lease) until it wakes.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, TypeVar

import psycopg
from psycopg import sql

from clawharness.errors import (
    ClawHarnessError,
    ConditionalWriteConflict,
    SessionNotFoundError,
    StoreError,
)
from clawharness.store import _postgres_budgets as budgets
from clawharness.store import _postgres_leases as leases
from clawharness.store import _postgres_sql as q
from clawharness.store import _postgres_subagents as subagents
from clawharness.store import _postgres_tool_outcomes as tool_outcomes
from clawharness.store import turn_records
from clawharness.store._postgres_state import PluginStateMethods
from clawharness.store._postgres_transcript import TranscriptMethods
from clawharness.store.leases import SessionLease
from clawharness.store.records import (
    SessionRecord,
    check_session_update,
    dump_json,
    stored_session_meta,
)

__all__ = ["SCHEMA_VERSION", "PostgresStore"]

#: the PostgreSQL store's schema version that `open()` migrates to (SQLite counts its own)
SCHEMA_VERSION = 8

_T = TypeVar("_T")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_MIGRATIONS: dict[int, tuple[str, ...]] = {1: q.SCHEMA_V1, 2: leases.MIGRATION_V2,
                                           3: turn_records.POSTGRES_MIGRATION_V3,
                                           4: tool_outcomes.MIGRATION_V4, 5: q.MIGRATION_V5,
                                           6: budgets.MIGRATION_V6,
                                           7: subagents.MIGRATION_V7,
                                           8: subagents.MIGRATION_V8}


def _redact(url: str) -> str:
    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)


def _session(row: Sequence[Any]) -> SessionRecord:
    return SessionRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6],
                         stored_session_meta(row[7]))


class PostgresStore(TranscriptMethods, PluginStateMethods, leases.SessionLeaseMethods,
                    tool_outcomes.ToolOutcomeMethods, budgets.BudgetLedgerMethods,
                    subagents.SubagentMethods):
    """The `Store` protocol over PostgreSQL (see the module docstring).

    `schema` puts every table in that schema (created if missing), via `search_path`.
    """

    def __init__(self, url: str, *, schema: str | None = None, pool_size: int = 4,
                 search_window: int = 2000, connect_timeout: float = 10.0,
                 idle_in_transaction_timeout: float = 10.0):
        if schema is not None and not _IDENT.fullmatch(schema):
            raise StoreError(f"PostgreSQL schema name {schema!r} is not a plain identifier")
        self.url = url
        self.schema = schema
        self.search_window = search_window
        #: the server aborts a transaction of ours left idle this long (a frozen client)
        self.idle_in_transaction_timeout = idle_in_transaction_timeout
        self._where = _redact(url) + (f" (schema {schema})" if schema else "")
        self._kwargs: dict[str, Any] = {"autocommit": True,
                                        "connect_timeout": max(1, int(connect_timeout))}
        if schema is not None:
            self._kwargs["options"] = f"-c search_path={schema}"
        self._size = pool_size
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._sem: asyncio.Semaphore | None = None
        self._open = False
        self._closed = False
        self._sync: psycopg.Connection[Any] | None = None
        self._sync_lock = threading.Lock()
        self._listener: leases.LeaseListener | None = None

    def _error(self, exc: BaseException, what: str) -> BaseException:
        if isinstance(exc, ClawHarnessError) or not isinstance(exc, psycopg.Error):
            return exc
        err = StoreError(f"{self._where}: {what} failed: {str(exc).strip()}")
        err.__cause__ = exc
        return err

    # lifecycle ---------------------------------------------------------------------
    async def open(self) -> None:
        """Connect, then create or migrate the schema under an advisory lock."""
        if self._open:
            return
        self._closed = False
        self._sem = asyncio.Semaphore(self._size)
        try:
            async with self._conn() as conn, conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (q.MIGRATE_LOCK,))
                if self.schema is not None:
                    await conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                        sql.Identifier(self.schema)))
                await conn.execute(q.VERSION_TABLE)
                cur = await conn.execute("SELECT version FROM schema_version")
                row = await cur.fetchone()
                version = 0 if row is None else int(row[0])
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"{self._where}: store schema version {version} is newer than this "
                        f"clawharness supports ({SCHEMA_VERSION}); upgrade clawharness")
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    for stmt in _MIGRATIONS[v]:
                        await conn.execute(stmt)
                    await conn.execute(q.SET_VERSION, (v,))
            self._sync = await asyncio.to_thread(psycopg.Connection.connect, self.url,
                                                 **self._kwargs)
        except BaseException as exc:
            await self._close_idle()
            raise self._error(exc, "open") from exc
        self._open = True

    async def _close_idle(self) -> None:
        idle, self._idle = self._idle, []
        for c in idle:
            await c.close()

    async def close(self) -> None:
        """Close every connection (those in use close when their call finishes)."""
        self._open = False
        self._closed = True
        await self._close_listener()
        await self._close_idle()
        with self._sync_lock:
            if self._sync is not None:
                self._sync.close()
                self._sync = None

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        conn = await psycopg.AsyncConnection.connect(self.url, **self._kwargs)
        # A client frozen inside a write (SIGSTOP, a paused VM) would otherwise hold its
        # row locks, and with them a session writer lease's takeover, until it wakes up.
        await conn.execute("SELECT set_config('idle_in_transaction_session_timeout', %s, false)",
                           (f"{int(self.idle_in_transaction_timeout * 1000)}",))
        return conn

    @asynccontextmanager
    async def _conn(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        if self._sem is None:
            raise StoreError(f"{self._where}: the store is not open")
        async with self._sem:
            conn = self._idle.pop() if self._idle else await self._connect()
            try:
                yield conn
            finally:
                healthy = (not conn.closed and not conn.broken
                           and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)
                if healthy and not self._closed:
                    self._idle.append(conn)
                else:
                    await conn.close()

    async def _run(self, what: str, fn: Callable[[psycopg.AsyncConnection[Any]], Any],
                   *, tx: bool = True, pipelined: bool = False) -> Any:
        """`fn` on a pooled connection, in a transaction unless `tx` is False.
        `pipelined`: in psycopg's pipeline mode, where a statement whose result `fn` does
        not read yet travels with the next (BEGIN with the first, COMMIT with the last),
        so a transaction of many statements costs a round trip per result it waits on."""
        if not self._open:
            raise StoreError(f"{self._where}: the store is not open")
        try:
            async with self._conn() as conn:
                if not tx:
                    return await fn(conn)
                if pipelined:
                    async with conn.pipeline(), conn.transaction():
                        return await fn(conn)
                async with conn.transaction():
                    return await fn(conn)
        except Exception as exc:
            raise self._error(exc, what) from exc

    async def _one(self, what: str, query: str, args: Sequence[Any]) -> Any:
        async def fn(conn: psycopg.AsyncConnection[Any]) -> Any:
            return await (await conn.execute(query, args)).fetchone()

        return await self._run(what, fn, tx=False)

    async def _all(self, what: str, query: str,
                   args: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
        async def fn(conn: psycopg.AsyncConnection[Any]) -> list[Any]:
            return await (await conn.execute(query, args)).fetchall()

        rows: list[Any] = await self._run(what, fn, tx=False)
        return rows

    # sessions ---------------------------------------------------------------------------
    async def create_session(self, record: SessionRecord) -> SessionRecord:
        """Insert a new session row; ConditionalWriteConflict if the key exists."""
        created = record.created_at or time.time()
        stored = replace(record, created_at=created, updated_at=record.updated_at or created)
        row = await self._one("create_session", q.INSERT_SESSION, (
            stored.key, stored.session_id, stored.agent_id, stored.model_ref,
            stored.agent_harness_id, stored.created_at, stored.updated_at,
            dump_json(stored.meta.to_stored(), f"meta of session {record.key!r}")))
        if row is None:
            raise ConditionalWriteConflict(f"session {record.key!r} already exists")
        return stored

    async def get_session(self, key: str) -> SessionRecord | None:
        """The session row under `key`, or None."""
        row = await self._one("get_session", q.SELECT_SESSION + " WHERE key = %s", (key,))
        return None if row is None else _session(row)

    async def list_sessions(
        self, *, agent_id: str | None = None, limit: int | None = None
    ) -> list[SessionRecord]:
        """Most recently updated first."""
        where = "" if agent_id is None else " WHERE agent_id = %s"
        args = (() if agent_id is None else (agent_id,)) + (limit,)
        rows = await self._all("list_sessions", f"{q.SELECT_SESSION}{where} "
                               "ORDER BY updated_at DESC, key LIMIT %s", args)
        return [_session(r) for r in rows]

    async def update_session(self, key: str, *, fence: SessionLease | None = None,
                             **fields: Any) -> SessionRecord:
        """Set some of session_id, model_ref, agent_harness_id, meta; bumps updated_at."""
        values = check_session_update(key, fields)
        sets = []
        for name in values:
            sets.append(f"{name} = %s::json" if name == "meta" else f"{name} = %s")
        if "meta" in values:
            values["meta"] = dump_json(values["meta"], f"meta of session {key!r}")
        query = (f"UPDATE sessions SET {''.join(s + ', ' for s in sets)}updated_at = %s "
                 f"WHERE key = %s RETURNING {q.SESSION_COLS}")
        args = (*values.values(), time.time(), key)
        if fence is None:
            row = await self._one("update_session", query, args)
        else:
            async def fn(conn: psycopg.AsyncConnection[Any]) -> Any:
                await leases.check_fence(conn, key, fence, "update_session")
                return await (await conn.execute(query, args)).fetchone()

            row = await self._run("update_session", fn)
        if row is None:
            raise SessionNotFoundError(f"no session {key!r}")
        return _session(row)

    async def delete_session(self, key: str, *, fence: SessionLease | None = None) -> bool:
        """Delete the row and every transcript entry under the key. False if absent."""
        async def fn(conn: psycopg.AsyncConnection[Any]) -> bool:
            await leases.check_fence(conn, key, fence, "delete_session")
            await conn.execute("DELETE FROM transcript_entries WHERE session_key = %s", (key,))
            await conn.execute("DELETE FROM turn_records WHERE session_key = %s", (key,))
            cur = await conn.execute("DELETE FROM sessions WHERE key = %s", (key,))
            return cur.rowcount > 0

        deleted: bool = await self._run("delete_session", fn)
        return deleted
