"""The PostgreSQL store's per-session writer leases (see `clawharness.store.leases`).

Times are the database server's clock (`statement_timestamp()`), so hosts on several
machines agree on expiry whatever their own clocks say. An acquisition is one upsert
that the row lock serializes; a write under a fence takes the lease row `FOR SHARE` in
its own transaction, so a takeover waits until that write committed (and then sees it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import psycopg

from clawharness.store._postgres_sql import SESSION_COLS
from clawharness.store.leases import (
    NO_TICKET,
    SessionLease,
    SessionLeaseBusy,
    SessionLeaseState,
    check_token,
    check_ttl,
    lease_lost,
    waiter_ttl,
)
from clawharness.store.records import SessionRecord, stored_session_meta

__all__ = ["CHANNEL", "MIGRATION_V2", "LeaseListener", "SessionLeaseMethods", "check_fence"]

log = logging.getLogger("clawharness.store.postgres")

Conn = psycopg.AsyncConnection[Any]

MIGRATION_V2: tuple[str, ...] = (
    """CREATE TABLE session_leases (
        session_key text COLLATE "C" PRIMARY KEY,
        fence bigint NOT NULL,
        token text,
        holder text,
        acquired_at double precision,
        expires_at double precision
    )""",
    """CREATE TABLE session_lease_waiters (
        ticket bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_key text COLLATE "C" NOT NULL,
        holder text NOT NULL,
        expires_at double precision NOT NULL
    )""",
    "CREATE INDEX session_lease_waiters_by_key ON session_lease_waiters (session_key, ticket)",
)

_NOW = "extract(epoch FROM statement_timestamp())::float8"
# The session's row comes back with the lease (`SessionLease.session_row`): the turn that
# takes the lease reads it next anyway, and this saves that round trip.
_ACQUIRE = f"""WITH clock AS (SELECT {_NOW} AS now), acquired AS (
INSERT INTO session_leases AS l (session_key, fence, token, holder, acquired_at, expires_at)
SELECT %(key)s, 1, %(token)s, %(holder)s, clock.now, clock.now + %(ttl)s FROM clock
WHERE NOT EXISTS (SELECT 1 FROM session_lease_waiters w
                  WHERE w.session_key = %(key)s AND w.expires_at > clock.now
                  AND w.ticket < %(ticket)s)
ON CONFLICT (session_key) DO UPDATE SET
    fence = l.fence + 1, token = excluded.token, holder = excluded.holder,
    acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
WHERE l.token IS NULL OR l.expires_at <= excluded.acquired_at
RETURNING l.fence, l.acquired_at, l.expires_at)
SELECT a.fence, a.acquired_at, a.expires_at, {", ".join(f"s.{c.strip()}" for c in SESSION_COLS.split(","))}
FROM acquired a LEFT JOIN sessions s ON s.key = %(key)s"""
_STATE = f"""WITH clock AS (SELECT {_NOW} AS now)
SELECT l.holder, coalesce(l.fence, 0), l.expires_at,
    coalesce(l.token IS NOT NULL AND l.expires_at > clock.now, false),
    (SELECT count(*) FROM session_lease_waiters w
     WHERE w.session_key = %(key)s AND w.expires_at > clock.now AND w.ticket < %(ticket)s)
FROM clock LEFT JOIN session_leases l ON l.session_key = %(key)s"""
_PURGE = f"DELETE FROM session_lease_waiters WHERE session_key = %s AND expires_at <= {_NOW}"
_REFRESH = (f"UPDATE session_lease_waiters SET expires_at = {_NOW} + %s WHERE ticket = %s "
            "RETURNING ticket")
_ENQUEUE = ("INSERT INTO session_lease_waiters (session_key, holder, expires_at) "
            f"VALUES (%s, %s, {_NOW} + %s) RETURNING ticket")
_RENEW = f"""UPDATE session_leases l SET expires_at = {_NOW} + %s
FROM unnest(%s::text[], %s::text[]) AS v(k, t)
WHERE l.session_key = v.k AND l.token = v.t
RETURNING l.session_key, l.token, l.expires_at"""
#: NOTIFY channel of lease changes; the payload is "<schema>:<session key>"
CHANNEL = "clawharness_session_leases"
_NOTIFY = f"SELECT pg_notify('{CHANNEL}', current_schema() || ':' || session_key) FROM changed"
_RELEASE = ("WITH changed AS (UPDATE session_leases SET token = NULL, holder = NULL, "
            "expires_at = NULL WHERE session_key = %s AND token = %s RETURNING session_key) "
            + _NOTIFY)
_LEAVE = ("WITH changed AS (DELETE FROM session_lease_waiters WHERE ticket = %s "
          "RETURNING session_key) " + _NOTIFY)
_TOKEN = "SELECT token, fence FROM session_leases WHERE session_key = %s"


async def _state(conn: Conn, key: str, ticket: int | None) -> SessionLeaseState:
    cur = await conn.execute(_STATE, {"key": key,
                                      "ticket": NO_TICKET if ticket is None else ticket})
    row = await cur.fetchone()
    assert row is not None
    return SessionLeaseState(key, row[0], int(row[1]), row[2], bool(row[3]), int(row[4]))


async def _acquire(conn: Conn, key: str, token: str, holder: str, ttl: float,
                   ticket: int | None) -> SessionLease | SessionLeaseBusy:
    cur = await conn.execute(_ACQUIRE, {"key": key, "token": token, "holder": holder,
                                        "ttl": ttl,
                                        "ticket": NO_TICKET if ticket is None else ticket})
    row = await cur.fetchone()
    if row is not None:
        if ticket is not None:
            await conn.execute("DELETE FROM session_lease_waiters WHERE ticket = %s", (ticket,))
        session = None if row[3] is None else SessionRecord(
            row[3], row[4], row[5], row[6], row[7], row[8], row[9], stored_session_meta(row[10]))
        return SessionLease(key, token, int(row[0]), holder, float(row[1]), float(row[2]),
                            (session,))
    await conn.execute(_PURGE, (key,))
    mine = None
    if ticket is not None:
        mine = await (await conn.execute(_REFRESH, (waiter_ttl(ttl), ticket))).fetchone()
    if mine is None:
        mine = await (await conn.execute(_ENQUEUE, (key, holder, waiter_ttl(ttl)))).fetchone()
    assert mine is not None
    state = await _state(conn, key, int(mine[0]))
    return SessionLeaseBusy(key, int(mine[0]), state.holder, state.fence, state.expires_at,
                            state.held, state.waiters_ahead)


async def check_fence(conn: Conn, session_key: str, fence: SessionLease | None,
                      what: str, *, lock: bool = True) -> None:
    """Raise unless `fence` is current; `lock` holds the row until the transaction ends."""
    await fence_verdict(await ask_fence(conn, session_key, fence, lock=lock),
                        session_key, fence, what)


async def ask_fence(conn: Conn, session_key: str, fence: SessionLease | None, *,
                    lock: bool = True) -> psycopg.AsyncCursor[Any] | None:
    """The first half of `check_fence`: the query, sent (or queued, in pipeline mode, so
    the statements after it travel in the same round trip); None without a fence."""
    if fence is None:
        return None
    return await conn.execute(_TOKEN + (" FOR SHARE" if lock else ""), (session_key,))


async def fence_verdict(cur: psycopg.AsyncCursor[Any] | None, session_key: str,
                        fence: SessionLease | None, what: str) -> None:
    """The second half of `check_fence`: raise unless the row `ask_fence` read is `fence`."""
    if cur is None or fence is None:
        return
    row = await cur.fetchone()
    error = lease_lost(fence, session_key, None if row is None else (row[0], row[1]), what)
    if error is not None:
        raise error


class _Watch:
    """One waiter's subscription; a signal before `wait` is kept for it."""

    def __init__(self, listener: LeaseListener, key: str) -> None:
        self._listener = listener
        self.key = key
        self._event = asyncio.Event()

    @property
    def notifies(self) -> bool:
        return self._listener.listening

    def signal(self) -> None:
        self._event.set()

    async def wait(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True

    def close(self) -> None:
        self._listener.forget(self)


class LeaseListener:
    """One LISTEN connection per store, started by the first watch, fanning the
    notifications of this schema out to the watches of their session key. While it is
    not listening (starting, or its connection broke) watches say `notifies` False and
    their waiters poll as on SQLite."""

    def __init__(self, connect: Callable[[], Awaitable[Conn]], where: str) -> None:
        self._connect = connect
        self._where = where
        self._watches: dict[str, set[_Watch]] = {}
        self._task: asyncio.Task[None] | None = None
        self.listening = False

    def watch(self, key: str) -> _Watch:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._listen(), name="clawharness-session-lease-listener")
        watch = _Watch(self, key)
        self._watches.setdefault(key, set()).add(watch)
        return watch

    def forget(self, watch: _Watch) -> None:
        watches = self._watches.get(watch.key)
        if watches is not None:
            watches.discard(watch)
            if not watches:
                del self._watches[watch.key]

    async def _listen(self) -> None:
        conn: Conn | None = None
        try:
            conn = await self._connect()
            row = await (await conn.execute("SELECT current_schema()")).fetchone()
            prefix = f"{row[0] if row else 'public'}:"
            await conn.execute(f"LISTEN {CHANNEL}")
            self.listening = True
            async for note in conn.notifies():
                if note.payload.startswith(prefix):
                    for watch in list(self._watches.get(note.payload[len(prefix):], ())):
                        watch.signal()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # waiters fall back to polling; the next watch retries
            log.warning("%s: session lease notifications stopped: %s", self._where, exc)
        finally:
            self.listening = False
            for watches in self._watches.values():
                for watch in watches:
                    watch.signal()  # poll now: a notification may have been lost
            if conn is not None:
                await conn.close()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


class SessionLeaseMethods:
    """The `Store` protocol's lease methods, for `PostgresStore`."""

    _listener: LeaseListener | None

    if TYPE_CHECKING:
        _where: str

        async def _run(self, what: str, fn: Callable[[Conn], Awaitable[Any]], *,
                       tx: bool = True, pipelined: bool = False) -> Any: ...

        async def _connect(self) -> Conn: ...

    def watch_session_lease(self, session_key: str) -> _Watch:
        """Subscribe to releases of the key's lease (LISTEN/NOTIFY)."""
        if self._listener is None:
            self._listener = LeaseListener(self._connect, self._where)
        return self._listener.watch(session_key)

    async def _close_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            await listener.close()

    async def acquire_session_lease(
        self, session_key: str, *, holder: str, ttl: float, ticket: int | None = None,
        token: str | None = None,
    ) -> SessionLease | SessionLeaseBusy:
        """Take the session's writer lease in one upsert, or queue as a waiter."""
        seconds = check_ttl(ttl)
        token = check_token(token)
        result: SessionLease | SessionLeaseBusy = await self._run(
            "acquire_session_lease",
            lambda c: _acquire(c, session_key, token, holder, seconds, ticket))
        return result

    async def session_lease_state(
        self, session_key: str, *, ticket: int | None = None,
    ) -> SessionLeaseState:
        """The lease and the queue ahead of `ticket`."""
        state: SessionLeaseState = await self._run(
            "session_lease_state", lambda c: _state(c, session_key, ticket), tx=False)
        return state

    async def renew_session_leases(
        self, leases: Sequence[SessionLease], *, ttl: float,
    ) -> list[SessionLease | None]:
        """Extend each lease still current to now + `ttl` (one statement); None if lost."""
        seconds = check_ttl(ttl)
        if not leases:
            return []

        async def fn(conn: Conn) -> list[Any]:
            cur = await conn.execute(_RENEW, (seconds, [x.session_key for x in leases],
                                              [x.token for x in leases]))
            return await cur.fetchall()

        rows = await self._run("renew_session_leases", fn, tx=False)
        renewed = {(r[0], r[1]): float(r[2]) for r in rows}
        out: list[SessionLease | None] = []
        for lease in leases:
            expires = renewed.get((lease.session_key, lease.token))
            out.append(None if expires is None
                       else replace(lease, expires_at=expires, session_row=None))
        return out

    async def release_session_lease(self, lease: SessionLease, *, wait: bool = True) -> bool:
        """Free the lease if it is still current (stored before it returns, `wait` or
        not: one statement in autocommit)."""
        async def fn(conn: Conn) -> bool:
            cur = await conn.execute(_RELEASE, (lease.session_key, lease.token))
            return await cur.fetchone() is not None

        released: bool = await self._run("release_session_lease", fn, tx=False)
        return released

    async def leave_session_lease_queue(self, session_key: str, ticket: int) -> None:
        """Drop a waiter's queue row."""
        async def fn(conn: Conn) -> None:
            await conn.execute(_LEAVE, (ticket,))

        await self._run("leave_session_lease_queue", fn, tx=False)

    async def assert_session_lease(self, lease: SessionLease) -> None:
        """SessionLeaseLostError unless `lease` is the session's current lease."""
        await self._run("assert_session_lease", lambda c: check_fence(
            c, lease.session_key, lease, "a write", lock=False), tx=False)
