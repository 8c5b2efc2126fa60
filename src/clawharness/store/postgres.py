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
import json
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
from clawharness.store.leases import SessionLease, lease_lost
from clawharness.store.records import (
    AppendOutcome,
    NewEntry,
    PluginStateRecord,
    SearchHit,
    SessionRecord,
    TranscriptEntry,
    check_session_update,
    dump_json,
    stored_session_meta,
)
from clawharness.store.search_query import parse_search_query
from clawharness.store.turn_records import StoredTurnRecord

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


def _entry(row: Sequence[Any]) -> TranscriptEntry:
    return TranscriptEntry(row[0], row[1], row[2], row[3], row[4], row[5] or {}, row[6], row[7],
                           row[8])


def _refused(fence: SessionLease, session_key: str,
             current: tuple[str | None, int] | None) -> ClawHarnessError:
    """Why an append under `fence` wrote nothing, the lease row holding `current`."""
    error = lease_lost(fence, session_key, current, "append")
    assert error is not None, "the append was refused under a lease still current"
    return error


def _state(row: Sequence[Any] | None) -> PluginStateRecord | None:
    return None if row is None else PluginStateRecord(*row)


class PostgresStore(leases.SessionLeaseMethods, tool_outcomes.ToolOutcomeMethods,
                    budgets.BudgetLedgerMethods, subagents.SubagentMethods):
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

    async def create_session_with_entries(
        self, record: SessionRecord, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> tuple[SessionRecord, list[AppendOutcome] | Exception]:
        """The two calls, one after the other: each is one statement here already (a
        transaction around both would cost two round trips more)."""
        stored = await self.create_session(record)
        try:
            return stored, await self.append_entries(record.key, stored.session_id, entries,
                                                     fence=fence)
        except Exception as exc:  # the row is made
            return stored, exc

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

    # transcript -------------------------------------------------------------------------
    async def append_entries(
        self, session_key: str, session_id: str, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> list[AppendOutcome]:
        """Append atomically, in order, `seq` increasing per physical session."""
        if not entries:
            return []
        prepared = [
            (e, dump_json(e.content, f"content of entry {i}"),
             "{}" if not e.metadata else dump_json(e.metadata, f"metadata of entry {i}"),
             None if e.text is None else e.text.replace("\x00", ""))
            for i, e in enumerate(entries)
        ]
        if fence is not None and fence.session_key != session_key:
            raise _refused(fence, session_key, None)
        now = time.time()
        args = (session_key, session_id, fence is not None,
                None if fence is None else fence.token, [e.role for e, *_ in prepared],
                [c for _, c, _, _ in prepared], [m for _, _, m, _ in prepared],
                [e.idempotency_key for e, *_ in prepared], [t for *_, t in prepared], now)
        # one statement (the fence, the seq lock, the idempotency look-ups, the rows, the
        # session's touch: `clawharness_append_entries`), so one round trip, no BEGIN
        rows = await self._all("append_entries", q.APPEND_ENTRIES, args)
        if rows and rows[0][0] == 0:  # the writer lease is not this caller's
            assert fence is not None
            lease = rows[0]
            raise _refused(fence, session_key, (lease[10], int(lease[11])) if lease[9] else None)
        out: list[AppendOutcome] = []
        for ordinal, appended, seq, role, content, meta, key, text, created, *_ in rows:
            e = entries[ordinal - 1]
            if appended:
                out.append(AppendOutcome(TranscriptEntry(
                    session_key, session_id, seq, e.role, e.content, dict(e.metadata or {}),
                    e.idempotency_key, e.text, created), True))
            else:
                out.append(AppendOutcome(TranscriptEntry(
                    session_key, session_id, seq, role, content, meta or {}, key, text,
                    created), False))
        return out

    async def read_entries(
        self, session_id: str, *, last: int | None = None, after_seq: int | None = None
    ) -> list[TranscriptEntry]:
        """Entries in seq order; `last` keeps only the newest N."""
        after = -1 if after_seq is None else after_seq
        if last is not None:
            if last <= 0:
                return []
            rows = await self._all("read_entries", q.READ_LAST, (session_id, after, last))
            return [_entry(r) for r in reversed(rows)]
        return [_entry(r) for r in await self._all("read_entries", q.READ_ALL, (session_id, after))]

    # turn records ---------------------------------------------------------------------
    async def put_turn_records(self, records: Sequence[StoredTurnRecord]) -> None:
        """Store (or replace) the inspector's records of some turns, in one transaction."""
        rows = [(r.run_id, r.session_key, r.session_id, r.created_at,
                 turn_records.encode(r)) for r in records]
        if not rows:
            return

        async def fn(conn: psycopg.AsyncConnection[Any]) -> None:
            async with conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO turn_records (run_id, session_key, session_id, created_at, "
                    "record) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (run_id) DO UPDATE SET "
                    "session_key = EXCLUDED.session_key, session_id = EXCLUDED.session_id, "
                    "created_at = EXCLUDED.created_at, record = EXCLUDED.record", rows)

        await self._run("put_turn_records", fn, pipelined=True)

    async def get_turn_record(self, run_id: str) -> dict[str, Any] | None:
        """One turn's record by its run id; None when absent."""
        row = await self._one("get_turn_record",
                              "SELECT record FROM turn_records WHERE run_id = %s", (run_id,))
        return None if row is None else dict(json.loads(row[0]))

    async def list_turn_records(self, session_key: str, *,
                                limit: int = 50) -> list[dict[str, Any]]:
        """The newest records of a session key, newest first."""
        rows = await self._all("list_turn_records",
                               "SELECT record FROM turn_records WHERE session_key = %s "
                               "ORDER BY created_at DESC LIMIT %s",
                               (session_key, max(1, limit)))
        return [dict(json.loads(r[0])) for r in rows]

    async def count_entries(self, session_id: str) -> int:
        """How many entries `session_id` holds."""
        row = await self._one("count_entries", "SELECT count(*) FROM transcript_entries "
                              "WHERE session_id = %s", (session_id,))
        return int(row[0])

    async def truncate_entries(self, session_id: str, *, after_seq: int,
                               fence: SessionLease | None = None) -> int:
        """Delete entries with seq > after_seq (a rewind). Returns how many went."""
        async def fn(conn: psycopg.AsyncConnection[Any]) -> int:
            if fence is not None:
                await leases.check_fence(conn, fence.session_key, fence, "truncate_entries")
            await conn.execute(q.SEQ_LOCK, (q.SEQ_LOCK_SPACE, session_id))
            cur = await conn.execute("DELETE FROM transcript_entries WHERE session_id = %s "
                                     "AND seq > %s", (session_id, after_seq))
            return cur.rowcount

        count: int = await self._run("truncate_entries", fn)
        return count

    async def search(
        self, query: str, *, session_key: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Full-text search over entry text, best first (newest first among equals)."""
        terms = parse_search_query(query)
        if not terms or limit <= 0:
            return []
        tsq = q.tsquery(terms)
        where = "" if session_key is None else " AND e.session_key = %(key)s"
        rows = await self._all("search", q.SEARCH.format(where=where), {
            "q": tsq, "key": session_key, "window": max(self.search_window, limit),
            "limit": limit})
        return [SearchHit(r[0], r[1], r[2], r[3], r[4] or "", float(r[5])) for r in rows]

    # plugin state -------------------------------------------------------------------------
    async def state_get(self, namespace: str, key: str) -> PluginStateRecord | None:
        """One plugin-state row, or None."""
        return _state(await self._one("state_get", q.STATE_GET, (namespace, key)))

    async def state_list(self, namespace: str, *, prefix: str = "") -> list[PluginStateRecord]:
        """Rows of `namespace` whose key starts with `prefix`, in key order."""
        rows = await self._all("state_list", q.STATE_LIST, (namespace, prefix))
        return [PluginStateRecord(*r) for r in rows]

    async def state_insert_if_absent(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Insert at generation 1; None when the key already exists."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(await self._one("state_insert_if_absent", q.STATE_INSERT,
                                      (namespace, key, raw, lease_token, lease_expires_at)))

    async def state_update_if(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Write when the stored generation equals `expected_generation`; None otherwise."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(await self._one("state_update_if", q.STATE_UPDATE, (
            raw, lease_token, lease_expires_at, namespace, key, expected_generation)))

    async def state_delete_if(self, namespace: str, key: str, expected_generation: int) -> bool:
        """Delete when the stored generation equals `expected_generation`."""
        row = await self._one("state_delete_if", q.STATE_DELETE,
                              (namespace, key, expected_generation))
        return row is not None

    # the same rows, synchronously -----------------------------------------------------------
    def _sync_one(self, what: str, query: str, args: Sequence[Any]) -> Any:
        with self._sync_lock:
            if self._sync is None:
                raise StoreError(f"{self._where}: the store is not open")
            try:
                return self._sync.execute(query, args).fetchone()
            except psycopg.Error as exc:
                raise self._error(exc, what) from exc

    def state_get_sync(self, namespace: str, key: str) -> PluginStateRecord | None:
        """`state_get`, blocking."""
        return _state(self._sync_one("state_get_sync", q.STATE_GET, (namespace, key)))

    def state_insert_if_absent_sync(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """`state_insert_if_absent`, blocking."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(self._sync_one("state_insert_if_absent_sync", q.STATE_INSERT,
                                     (namespace, key, raw, lease_token, lease_expires_at)))

    def state_update_if_sync(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """`state_update_if`, blocking."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(self._sync_one("state_update_if_sync", q.STATE_UPDATE, (
            raw, lease_token, lease_expires_at, namespace, key, expected_generation)))

    def state_delete_if_sync(self, namespace: str, key: str, expected_generation: int) -> bool:
        """`state_delete_if`, blocking."""
        return self._sync_one("state_delete_if_sync", q.STATE_DELETE,
                              (namespace, key, expected_generation)) is not None
