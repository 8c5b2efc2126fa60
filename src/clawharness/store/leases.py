"""Per-session writer leases: the records the store hands out, and their rules.

One row per session key (`session_leases`) carries the current holder, a random `token`,
a `fence` that increases by one on every acquisition of that key (never reused, kept
across release, delete and re-creation) and an expiry on the store's clock (the
process's clock on SQLite, the database server's on PostgreSQL, so hosts on several
machines agree). A lease is taken over only when it was released or has expired.

Writes made under a lease carry it (`fence=`); the store checks, inside the write's own
transaction, that the row still carries that token, and refuses the write with
`SessionLeaseLostError` otherwise. A lease that expired but was not taken over is still
current: nobody else can have written, and its holder may renew it.

A waiter learns of a release by polling (`session_lease_state`) or, where the store can
(PostgreSQL: LISTEN/NOTIFY), by a notification through `watch_session_lease`.

Waiting is fair across processes: a caller that finds the session busy joins a queue
(`session_lease_waiters`, one row per waiting process, with an expiry of its own) and
gets a ticket; while a live waiter with a smaller ticket exists, nobody else acquires a
free lease. A waiter that dies stops blocking the queue when its row expires.
"""

from __future__ import annotations

import asyncio
import math
import secrets
from dataclasses import dataclass, field
from typing import Final, Protocol

from clawharness.errors import SessionLeaseLostError, StoreError
from clawharness.store.records import SessionRecord

__all__ = [
    "NO_TICKET",
    "STEERING_NAMESPACE",
    "WAITER_TTL_MAX",
    "SessionLease",
    "SessionLeaseBusy",
    "SessionLeaseState",
    "SessionLeaseWatch",
    "SleepingWatch",
    "check_token",
    "check_ttl",
    "lease_lost",
    "waiter_ttl",
]

#: compared with waiters' tickets when the caller holds none: every live waiter is ahead
NO_TICKET = 2**62
#: the plugin-state namespace of the steering inbox (`clawharness.sessions.steering_inbox`):
#: a session's offers are its rows keyed `<session key>\x1f...`, read at every
#: tool boundary of every turn; mostly there are none anywhere, which a store may note
#: (SQLite: `SqliteStore.state_list`)
STEERING_NAMESPACE: Final = "clawharness.steering"
#: a waiting process's queue row expires after at most this many seconds without a
#: refresh, so a waiter that died holds the queue up no longer than that
WAITER_TTL_MAX = 10.0


@dataclass(frozen=True, slots=True)
class SessionLease:
    """A held writer lease on one session key; pass it as `fence=` to writes under it."""

    session_key: str
    token: str
    fence: int
    holder: str
    acquired_at: float
    expires_at: float
    #: the session's row as the acquisition's own transaction read it, as a 1-tuple (its
    #: item None: the key had no row), so the turn that took the lease need not read it
    #: again; None when the store did not read it (or the lease was renewed since)
    session_row: tuple[SessionRecord | None] | None = field(
        default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class SessionLeaseBusy:
    """An acquisition that did not succeed: the caller now waits as `ticket`.

    `holder`/`fence`/`expires_at` describe the current (or last) lease; `held` says
    whether it is live right now; `waiters_ahead` counts live waiters before `ticket`.
    """

    session_key: str
    ticket: int
    holder: str | None
    fence: int
    expires_at: float | None
    held: bool
    waiters_ahead: int

    @property
    def free(self) -> bool:
        """True when, as this attempt saw it, a new attempt by this waiter could succeed."""
        return not self.held and self.waiters_ahead == 0


@dataclass(frozen=True, slots=True)
class SessionLeaseState:
    """A read of the lease row and the queue, for a waiter deciding when to try again."""

    session_key: str
    holder: str | None
    fence: int
    expires_at: float | None
    held: bool
    waiters_ahead: int

    @property
    def free(self) -> bool:
        """True when an acquisition by this waiter would succeed now."""
        return not self.held and self.waiters_ahead == 0


class SessionLeaseWatch(Protocol):
    """A waiter's subscription to one session key's lease changes (releases, waiters
    leaving). `notifies` is False for stores that cannot tell: `wait` then just waits."""

    @property
    def notifies(self) -> bool: ...

    async def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds; True when a change was signalled meanwhile (or
        since the last wait)."""

    def close(self) -> None: ...


class SleepingWatch:
    """The watch of a store without notifications."""

    notifies = False

    async def wait(self, timeout: float) -> bool:
        await asyncio.sleep(timeout)
        return False

    def close(self) -> None:
        pass


def check_ttl(ttl: float, what: str = "lease ttl") -> float:
    """A positive, finite number of seconds, or StoreError."""
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl) \
            or ttl <= 0:
        raise StoreError(f"session writer {what} must be a positive number of seconds, "
                         f"got {ttl!r}")
    return float(ttl)


def check_token(token: str | None) -> str:
    """A caller's lease token (at least 16 characters: it must not be guessable by
    another writer), or a fresh random one."""
    if token is None:
        return secrets.token_hex(16)
    if not isinstance(token, str) or len(token) < 16:
        raise StoreError("a session writer lease token must be a string of at least 16 "
                         "characters (use secrets.token_hex(16))")
    return token


def waiter_ttl(ttl: float) -> float:
    """How long a waiter's queue row lives without a refresh."""
    return min(ttl, WAITER_TTL_MAX)


def lease_lost(lease: SessionLease, session_key: str, current: tuple[str | None, int] | None,
               what: str) -> SessionLeaseLostError | StoreError | None:
    """The error for a write under `lease` when the row carries `current` (token, fence),
    or None when the write may go ahead."""
    if lease.session_key != session_key:
        return StoreError(f"{what} on session {session_key!r} carried the writer lease of "
                          f"another session ({lease.session_key!r})")
    if current is not None and current[0] == lease.token:
        return None
    if current is not None and current[1] > lease.fence:
        why = (f"it expired and another writer took the session over (fence {current[1]})")
    elif current is None:
        why = "the session has no writer lease at all"
    else:
        why = "it was released"
    return SessionLeaseLostError(
        f"{what} on session {session_key!r} refused: its writer lease (fence {lease.fence}, "
        f"holder {lease.holder}) is no longer current ({why}); nothing was written. "
        f"Run the turn again: it will see the other writer's transcript")
