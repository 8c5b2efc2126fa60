"""SQL of the SQLite store's per-session writer leases (see `clawharness.store.leases`).

Every function takes the connection it runs on: the writes run in the writer thread,
inside its batch transaction, so a check and the write it guards are atomic; the poll
is a read. Times are the process's clock (`time.time()`): every process that opens the
file runs on the same machine.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from clawharness.store.leases import (
    NO_TICKET,
    SessionLease,
    SessionLeaseBusy,
    SessionLeaseState,
    SleepingWatch,
    check_token,
    check_ttl,
    lease_lost,
    waiter_ttl,
)
from clawharness.store.records import SessionRecord

_T = TypeVar("_T")

#: v3: the writer lease of each session key, and the queue of processes waiting for one
MIGRATION_V3: tuple[str, ...] = (
    """CREATE TABLE session_leases (
        session_key TEXT PRIMARY KEY,
        fence INTEGER NOT NULL,
        token TEXT,
        holder TEXT,
        acquired_at REAL,
        expires_at REAL
    ) WITHOUT ROWID""",
    """CREATE TABLE session_lease_waiters (
        ticket INTEGER PRIMARY KEY AUTOINCREMENT,
        session_key TEXT NOT NULL,
        holder TEXT NOT NULL,
        expires_at REAL NOT NULL
    )""",
    "CREATE INDEX session_lease_waiters_by_key ON session_lease_waiters (session_key, ticket)",
)

# Free (released or expired) and nobody live queued ahead of the ticket: take it, with the
# next fence. A key without a lease row has no waiters (a caller queues only after its
# upsert met a row it could not take, and lease rows are never deleted), so the queue is
# checked on the update only: an upsert of VALUES costs about a quarter less than one of a SELECT.
# Parameters by number, not name (a tuple binds faster than a dict of names): ?1 key,
# ?2 token, ?3 holder, ?4 now, ?5 expires, ?6 ticket.
_ACQUIRE = """INSERT INTO session_leases
    (session_key, fence, token, holder, acquired_at, expires_at)
VALUES (?1, 1, ?2, ?3, ?4, ?5)
ON CONFLICT (session_key) DO UPDATE SET
    fence = fence + 1, token = excluded.token, holder = excluded.holder,
    acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
WHERE (token IS NULL OR expires_at <= ?4)
    AND NOT EXISTS (SELECT 1 FROM session_lease_waiters
                    WHERE session_key = ?1 AND expires_at > ?4 AND ticket < ?6)
RETURNING fence"""
_STATE = """SELECT l.holder, coalesce(l.fence, 0), l.expires_at,
    coalesce(l.token IS NOT NULL AND l.expires_at > :now, 0),
    (SELECT count(*) FROM session_lease_waiters
     WHERE session_key = :key AND expires_at > :now AND ticket < :ticket)
FROM (SELECT :key AS k) LEFT JOIN session_leases l ON l.session_key = k"""
_TOKEN = "SELECT token, fence FROM session_leases WHERE session_key = ?"


def acquire(conn: sqlite3.Connection, key: str, token: str, holder: str, now: float,
            ttl: float, ticket: int | None, waiter_ttl: float,
            read_session: Callable[[sqlite3.Connection, str], SessionRecord | None] | None = None,
            ) -> SessionLease | SessionLeaseBusy:
    """One acquisition attempt; on failure the caller is queued (or its row refreshed).
    `read_session`: read the session row too, in this transaction (`session_row`): the
    turn that takes the lease reads it next anyway, and a read inside the write
    transaction skips the locking an autocommit read pays."""
    row = conn.execute(_ACQUIRE, (key, token, holder, now, now + ttl,
                                  NO_TICKET if ticket is None else ticket)).fetchone()
    if row is not None:
        if ticket is not None:
            conn.execute("DELETE FROM session_lease_waiters WHERE ticket = ?", (ticket,))
        return SessionLease(key, token, int(row[0]), holder, now, now + ttl,
                            None if read_session is None else (read_session(conn, key),))
    # busy: forget waiters that died, then queue (or refresh) this one
    conn.execute("DELETE FROM session_lease_waiters WHERE session_key = ? AND expires_at <= ?",
                 (key, now))
    mine = None
    if ticket is not None:
        mine = conn.execute("UPDATE session_lease_waiters SET expires_at = ? WHERE ticket = ? "
                            "RETURNING ticket", (now + waiter_ttl, ticket)).fetchone()
    if mine is None:  # new, or our row expired meanwhile: back of the queue
        mine = conn.execute("INSERT INTO session_lease_waiters (session_key, holder, expires_at) "
                            "VALUES (?, ?, ?) RETURNING ticket",
                            (key, holder, now + waiter_ttl)).fetchone()
    state = read_state(conn, key, now, int(mine[0]))
    return SessionLeaseBusy(key, int(mine[0]), state.holder, state.fence, state.expires_at,
                            state.held, state.waiters_ahead)


def read_state(conn: sqlite3.Connection, key: str, now: float,
               ticket: int | None) -> SessionLeaseState:
    """The lease row and the live queue ahead of `ticket`."""
    row = conn.execute(_STATE, {"key": key, "now": now,
                                "ticket": NO_TICKET if ticket is None else ticket}).fetchone()
    return SessionLeaseState(key, row[0], int(row[1]), row[2], bool(row[3]), int(row[4]))


def renew(conn: sqlite3.Connection, leases: Sequence[SessionLease], now: float,
          ttl: float) -> list[SessionLease | None]:
    """Extend every lease whose row still carries its token."""
    out: list[SessionLease | None] = []
    sql = ("UPDATE session_leases SET expires_at = ? WHERE session_key = ? AND token = ? "
           "RETURNING expires_at")
    for lease in leases:
        row = conn.execute(sql, (now + ttl, lease.session_key, lease.token)).fetchone()
        out.append(None if row is None else replace(lease, expires_at=float(row[0]),
                                                    session_row=None))
    return out


def release(conn: sqlite3.Connection, lease: SessionLease) -> bool:
    """Clear the holder if the row still carries the lease's token (the fence stays)."""
    return conn.execute(
        "UPDATE session_leases SET token = NULL, holder = NULL, expires_at = NULL "
        "WHERE session_key = ? AND token = ?", (lease.session_key, lease.token)).rowcount > 0


def leave_queue(conn: sqlite3.Connection, ticket: int) -> None:
    conn.execute("DELETE FROM session_lease_waiters WHERE ticket = ?", (ticket,))


def check_fence(conn: sqlite3.Connection, session_key: str, fence: SessionLease | None,
                what: str) -> None:
    """Raise unless `fence` is the session's current lease (nothing is written first)."""
    if fence is None:
        return
    row = conn.execute(_TOKEN, (session_key,)).fetchone()
    error = lease_lost(fence, session_key, None if row is None else (row[0], row[1]), what)
    if error is not None:
        raise error


class _Acquire:
    """An acquisition's write, `acquire` with the time it runs at (a callable object,
    not a closure over six variables: fewer objects alive while it waits)."""

    __slots__ = ("holder", "key", "store", "ticket", "token", "ttl")

    def __init__(self, store: SessionLeaseMethods, key: str, token: str, holder: str,
                 ttl: float, ticket: int | None) -> None:
        self.store = store
        self.key = key
        self.token = token
        self.holder = holder
        self.ttl = ttl
        self.ticket = ticket

    def __call__(self, conn: sqlite3.Connection) -> SessionLease | SessionLeaseBusy:
        ttl = self.ttl
        return acquire(conn, self.key, self.token, self.holder, time.time(), ttl,
                       self.ticket, waiter_ttl(ttl), self.store._session_row)


class SessionLeaseMethods:
    """The `Store` protocol's lease methods, for `SqliteStore`. Acquisition and release
    are one-row writes made inline while the writer thread idles (see `_write_small`);
    renewals go through the writer; the poll and the assertion are inline index reads."""

    if TYPE_CHECKING:
        def _write(self, fn: Callable[[sqlite3.Connection], _T], *,
                   group: Any = None, payload: Any = None) -> asyncio.Future[_T]: ...

        async def _read(self, fn: Callable[[sqlite3.Connection], _T], *,
                        inline: bool = False) -> _T: ...

        async def _write_small(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        def _write_inline(self, fn: Callable[[sqlite3.Connection], _T], *,
                          rows: int = 1) -> tuple[bool, Any]: ...
        def _write_deferred_inline(self, fn: Callable[[sqlite3.Connection], _T]
                                   ) -> tuple[bool, Any]: ...
        async def _write_deferred(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        def _session_row(self, conn: sqlite3.Connection, key: str) -> SessionRecord | None: ...

    async def acquire_session_lease(
        self, session_key: str, *, holder: str, ttl: float, ticket: int | None = None,
        token: str | None = None,
    ) -> SessionLease | SessionLeaseBusy:
        """Take the session's writer lease in one write, or queue as a waiter."""
        seconds = check_ttl(ttl)
        fn = _Acquire(self, session_key, check_token(token), holder, seconds, ticket)
        # (`_write_small`'s two steps here: one coroutine layer fewer while it waits)
        done, result = self._write_inline(fn)
        return result if done else await self._write(fn)

    async def session_lease_state(
        self, session_key: str, *, ticket: int | None = None,
    ) -> SessionLeaseState:
        """The lease and the queue ahead of `ticket` (an index read, inline)."""
        return await self._read(
            lambda c: read_state(c, session_key, time.time(), ticket), inline=True)

    async def renew_session_leases(
        self, leases: Sequence[SessionLease], *, ttl: float,
    ) -> list[SessionLease | None]:
        """Extend each lease still current to now + `ttl`; None for a lost one."""
        seconds = check_ttl(ttl)
        if not leases:
            return []
        return await self._write(lambda c: renew(c, leases, time.time(), seconds))

    async def release_session_lease(self, lease: SessionLease, *, wait: bool = True) -> bool:
        """Free the lease if it is still current. `wait=False`: committed with the next
        inline write this process makes, a few milliseconds later at most
        (`_write_deferred`): a turn's release goes with the next turn's lease."""
        if wait:
            return await self._write_small(lambda c: release(c, lease))
        fn: Callable[[sqlite3.Connection], bool] = lambda c: release(c, lease)  # noqa: E731
        done, result = self._write_deferred_inline(fn)  # (`_write_deferred`, inlined)
        return result if done else await self._write_deferred(fn)

    async def leave_session_lease_queue(self, session_key: str, ticket: int) -> None:
        """Drop a waiter's queue row."""
        await self._write(lambda c: leave_queue(c, ticket))

    async def assert_session_lease(self, lease: SessionLease) -> None:
        """SessionLeaseLostError unless `lease` is the session's current lease."""
        await self._read(lambda c: check_fence(c, lease.session_key, lease, "a write"),
                         inline=True)

    def watch_session_lease(self, session_key: str) -> SleepingWatch:
        """No notifications across processes here: waiters poll."""
        return SleepingWatch()
