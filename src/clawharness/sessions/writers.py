"""One writer per session, across every process that shares the store.

A turn (or a reset, delete, rewind) holds its session's writer slot for its whole run:

1. In this process, callers on one session queue in arrival order (an asyncio lock).
2. The first in line then takes the session's writer lease in the store
   (`Store.acquire_session_lease`). When another process holds it, this one joins the
   store's queue of waiters and polls until the lease is free and nobody queued before
   it is still waiting, so processes take turns in the order they came. Where the store
   notifies releases (PostgreSQL), the waiter sleeps until one comes instead.
3. While held, one renewal task per `SessionWriters` extends every held lease every
   third of its lifetime, in one store call. A lease whose renewal finds it taken over
   is marked lost; the store refuses every write made under it anyway.
4. On exit the lease is released (by token: a successor's lease is never touched).

A caller that cannot get the session within its wait gets `SessionBusyError` saying
who holds it, never a silent drop. Without a store (a bare `SessionWriters()`), only the
in-process queue applies.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from clawharness.errors import SessionBusyError, SessionLeaseLostError
from clawharness.observability.telemetry import current_telemetry
from clawharness.store import (
    SessionLease,
    SessionLeaseBusy,
    SessionLeaseState,
    SessionLeaseStore,
)
from clawharness.store.leases import waiter_ttl

__all__ = ["OnBusy", "SessionWriters", "WriterSlot", "WriterTimings", "describe_busy",
           "next_poll_delay"]

log = logging.getLogger("clawharness.sessions.writers")

#: told once what the first try for a store lease met, when another writer had it; the
#: caller then waits in the store's queue as any other (`SessionWriters.hold`)
OnBusy = Callable[[SessionLeaseBusy], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class WriterTimings:
    """How long to wait for a session, how long a lease lives, how fast waiters poll."""

    #: default bound on the wait for a session (`sessions.writerWaitSeconds`)
    wait: float = 300.0
    #: a lease's lifetime without renewal (`sessions.writerLeaseSeconds`); a holder that
    #: died is replaced this long after its last renewal
    ttl: float = 30.0
    #: a waiter polls `poll_min` after the session changed hands (later in the queue,
    #: a multiple of it), then backs off, doubling, up to `poll_max`
    poll_min: float = 0.0005
    poll_max: float = 0.05
    #: with a store that notifies releases (PostgreSQL), a waiter sleeps until one comes,
    #: polling only this often (for an expired holder, or a lost notification)
    notified_poll: float = 0.25

    @property
    def renew_interval(self) -> float:
        return self.ttl / 3


def next_poll_delay(previous: float, changed: bool, waiters_ahead: int,
                    timings: WriterTimings) -> float:
    """The pause before a waiter's next poll. A holder that has held the session for a
    while will likely hold it a while longer, so polls back off, doubling, while nothing
    changes; when the session changed hands (or the queue moved) they start again from
    `poll_min` times the waiter's place in the queue. Short turns hand over within
    about a millisecond; a long one costs a poll every `poll_max`, per waiter."""
    if changed or previous <= 0:
        return min(timings.poll_max, timings.poll_min * (1 + waiters_ahead))
    return min(timings.poll_max, previous * 2)


def describe_busy(key: str, seen: SessionLeaseBusy | SessionLeaseState, waited: float,
                  now: float) -> str:
    """The SessionBusyError message for a waiter that gave up."""
    if seen.held and seen.holder:
        left = "" if seen.expires_at is None else f", lease ends in {seen.expires_at - now:.0f}s"
        who = f"{seen.holder} holds its writer lease (fence {seen.fence}{left})"
    else:
        who = "its writer lease is free"
    queue = (f" and {seen.waiters_ahead} other waiter(s) are queued ahead of this one"
             if seen.waiters_ahead else "")
    return (f"session {key} is busy: {who}{queue}; gave up after {waited:g}s. Retry when "
            "the other turn has finished, or raise sessions.writerWaitSeconds to wait longer")


@dataclass(slots=True, eq=False)
class WriterSlot:
    """One caller's hold on a session: its store lease (None without a store) and what
    became of it. `waited` is the seconds spent queueing, in process and in the store."""

    key: str
    lease: SessionLease | None = None
    waited: float = 0.0
    lost: SessionLeaseLostError | None = None
    _closed: bool = field(default=False, repr=False)

    @property
    def fence(self) -> SessionLease | None:
        """What writes made under this slot pass as `fence=`."""
        return self.lease


def _default_holder() -> str:
    return f"pid {os.getpid()} on {socket.gethostname()}"


class SessionWriters:
    """FIFO per-key writer slots, backed by the store's per-session writer lease."""

    def __init__(self, store: SessionLeaseStore | None = None, *, timings: WriterTimings | None = None,
                 holder: str | None = None) -> None:
        self._store = store
        self.timings = timings or WriterTimings()
        self.holder = holder or _default_holder()
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[str, int] = {}
        self._held: set[WriterSlot] = set()
        self._keeper: asyncio.Task[None] | None = None

    def attach(self, store: SessionLeaseStore, timings: WriterTimings | None = None) -> None:
        """Back the slots with `store`'s leases (the host does this when it starts)."""
        self._store = store
        if timings is not None:
            self.timings = timings

    def holder_for(self, purpose: str) -> str:
        """The holder name this process's lease for `purpose` carries (what another
        process reads in `session_lease_state`)."""
        return f"{self.holder} ({purpose})" if purpose else self.holder

    @property
    def store(self) -> SessionLeaseStore | None:
        """The store whose leases back the slots (None: this process's queue only)."""
        return self._store

    def queue_depths(self) -> list[tuple[float, dict[str, str]]]:
        """(turns holding or waiting for the writer, {"session_key": key}) per busy key."""
        return [(float(n), {"session_key": key}) for key, n in list(self._waiters.items())]

    def busy(self, key: str) -> bool:
        lock = self._locks.get(key)
        return bool(lock and lock.locked())

    def hold(self, key: str, *, timeout: float | None = None, purpose: str = "",
             on_busy: OnBusy | None = None) -> _Hold:
        """Hold the session's writer slot (`async with`, giving the `WriterSlot`); waits
        in arrival order, at most `timeout` seconds (None: the configured wait) in this
        process and in the store together. `on_busy`: awaited once, before the wait in
        the store, when the first try for the store lease found it taken (a steered
        message offers itself to the holder's turn there: `attempt.steering`)."""
        return _Hold(self, key, timeout, purpose, on_busy)

    def _leave(self, key: str, lock: asyncio.Lock) -> None:
        """One holder or waiter of `key` less (its lock is forgotten with the last)."""
        waiters = self._waiters
        waiters[key] -= 1
        if waiters[key] == 0:
            del waiters[key]
            if not lock.locked():
                self._locks.pop(key, None)

    async def close(self) -> None:
        """Stop renewing (leases still held simply expire)."""
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.cancel()
            await asyncio.gather(keeper, return_exceptions=True)

    # the store lease ------------------------------------------------------------------

    async def _acquire_busy(self, store: SessionLeaseStore, key: str, holder: str,
                            busy: SessionLeaseBusy, wait: float, deadline: float,
                            on_busy: OnBusy | None = None) -> SessionLease:
        """The first try for the store lease met another writer (`busy`): wait for it in
        the store's queue. (The first try itself is made in `_Hold.__aenter__`, so an
        uncontended turn in flight is one coroutine layer fewer.)"""
        from clawharness.observability.spans import lease_wait_span

        with lease_wait_span(key, "store"):
            return await self._wait_in_store(store, key, holder, busy, wait, deadline,
                                             on_busy)

    async def _wait_in_store(self, store: SessionLeaseStore, key: str, holder: str,
                             busy: SessionLeaseBusy, wait: float,
                             deadline: float, on_busy: OnBusy | None = None) -> SessionLease:
        """Queue for the store lease another process holds, until it is ours."""
        loop = asyncio.get_running_loop()
        timings = self.timings
        attempt: SessionLease | SessionLeaseBusy = busy
        ticket: int | None = busy.ticket
        seen: SessionLeaseBusy | SessionLeaseState = busy
        refreshed = loop.time()
        delay = 0.0
        last = (seen.fence, seen.waiters_ahead)
        watch = store.watch_session_lease(key)
        try:
            if on_busy is not None:  # (in here: if it raises, our queue row goes)
                await on_busy(busy)
            while True:
                now_seen = (seen.fence, seen.waiters_ahead)
                delay = (timings.notified_poll if watch.notifies else next_poll_delay(
                    delay, now_seen != last, seen.waiters_ahead, timings))
                last = now_seen
                now = loop.time()
                if now >= deadline:
                    raise SessionBusyError(describe_busy(key, seen, wait, time.time()))
                woken = await watch.wait(min(delay, deadline - now))
                # at the front of the queue, a release is our cue: no need to look first
                at_front = woken and seen.waiters_ahead == 0
                if not at_front:
                    seen = await store.session_lease_state(key, ticket=ticket)
                # our queue row needs a refresh now and then, or it expires as if we died
                due = loop.time() - refreshed >= waiter_ttl(timings.ttl) / 3
                if at_front or seen.free or due:
                    attempt = await _acquire_once(store, key, holder, timings.ttl, ticket)
                    if isinstance(attempt, SessionLease):
                        ticket = None  # the store dropped our queue row with the acquisition
                        return attempt
                    ticket, seen, refreshed = attempt.ticket, attempt, loop.time()
        finally:
            watch.close()
            if ticket is not None:  # gave up, or cancelled: leave the queue for the others
                try:
                    await asyncio.shield(store.leave_session_lease_queue(key, ticket))
                except Exception as exc:  # its row expires on its own
                    log.warning("session %s: could not leave the writer queue: %s", key, exc)

    def _ensure_keeper(self) -> None:
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.get_running_loop().create_task(
                self._keep(), name="clawharness-session-lease-renewal")

    async def _keep(self) -> None:
        """Renew every held lease each `renew_interval`; stop when none is held."""
        timings = self.timings
        while self._held:
            await asyncio.sleep(timings.renew_interval)
            store = self._store
            slots = [s for s in self._held if s.lease is not None and s.lost is None]
            if store is None or not slots:
                continue
            try:
                renewed = await store.renew_session_leases(
                    [s.lease for s in slots if s.lease is not None], ttl=timings.ttl)
            except Exception as exc:  # try again next round; the leases may yet expire
                log.warning("could not renew %d session writer lease(s): %s", len(slots), exc)
                continue
            for slot, lease in zip(slots, renewed, strict=True):
                if slot._closed:
                    continue
                if lease is None:
                    assert slot.lease is not None
                    slot.lost = SessionLeaseLostError(
                        f"session {slot.key}: the writer lease (fence {slot.lease.fence}) "
                        "was taken over by another writer after it expired")
                    log.warning("%s", slot.lost)
                else:
                    slot.lease = lease
        self._keeper = None


class _Hold(WriterSlot):
    """`SessionWriters.hold`'s context, and the `WriterSlot` it gives (one object, not
    two, per turn in flight): a class rather than an `asynccontextmanager` generator,
    which cost about as much again as the rest of a held slot's Python."""

    __slots__ = ("_lock", "_on_busy", "_purpose", "_store", "_timeout", "_writers")

    def __init__(self, writers: SessionWriters, key: str, timeout: float | None,
                 purpose: str, on_busy: OnBusy | None = None) -> None:
        WriterSlot.__init__(self, key)
        self._writers = writers
        self._timeout = timeout
        self._purpose = purpose
        self._on_busy = on_busy
        self._lock: asyncio.Lock | None = None
        #: the store the lease came from (released there, whatever `attach` did since)
        self._store: SessionLeaseStore | None = None

    async def __aenter__(self) -> WriterSlot:
        writers, key = self._writers, self.key
        wait = writers.timings.wait if self._timeout is None else self._timeout
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + wait
        lock = writers._locks.get(key)
        if lock is None:
            lock = writers._locks[key] = asyncio.Lock()
        waiters = writers._waiters
        waiters[key] = waiters.get(key, 0) + 1
        try:
            if lock.locked() or waiters[key] > 1:
                # the span helpers load when a writer first waits (a host that writes
                # nothing, like `sessions list`'s, never imports them or OpenTelemetry)
                from clawharness.observability.spans import lease_wait_span

                try:
                    with lease_wait_span(key, "process"):
                        await asyncio.wait_for(lock.acquire(), max(0.0, deadline - loop.time()))
                except TimeoutError:
                    raise SessionBusyError(
                        f"session {key} is busy with another turn in this process; gave up "
                        f"after {wait:g}s. Retry when it has finished, or raise "
                        "sessions.writerWaitSeconds to wait longer") from None
            else:
                await lock.acquire()  # free: no timer to arm
            try:
                slot = self
                store = writers._store
                if store is not None:
                    # the first try, as `_acquire_once` makes it (a lease won while
                    # cancelled is given back), without a coroutine of its own
                    holder = writers.holder_for(self._purpose)
                    token = os.urandom(16).hex()  # (secrets.token_hex's text, two calls fewer)
                    try:
                        attempt = await store.acquire_session_lease(
                            key, holder=holder, ttl=writers.timings.ttl, ticket=None,
                            token=token)
                    except asyncio.CancelledError:
                        _release_later(store, SessionLease(key, token, 0, holder, 0.0, 0.0))
                        raise
                    slot.lease = attempt if isinstance(attempt, SessionLease) else \
                        await writers._acquire_busy(store, key, holder, attempt, wait,
                                                    deadline, self._on_busy)
                slot.waited = loop.time() - started
                current_telemetry().lease_wait.record(slot.waited)
                if slot.lease is not None:
                    writers._held.add(slot)
                    writers._ensure_keeper()
            except BaseException:
                lock.release()
                raise
        except BaseException:
            writers._leave(key, lock)
            raise
        self._lock, self._store = lock, store
        return slot

    async def __aexit__(self, *exc: object) -> None:
        writers, slot, lock = self._writers, self, self._lock
        assert lock is not None, "not entered"
        try:
            try:
                slot._closed = True
                writers._held.discard(slot)
                store, lease = self._store, slot.lease
                if store is not None and lease is not None:
                    try:
                        # not waiting for it to be stored: the store may commit it with
                        # its next write
                        await store.release_session_lease(lease, wait=False)
                    except asyncio.CancelledError:  # finish it anyway, or the lease
                        _release_later(store, lease)  # waits out its expiry
                        raise
                    except Exception as exc:  # the lease then expires on its own
                        _release_failed(lease, exc)
            finally:
                lock.release()
        finally:
            writers._leave(self.key, lock)


async def _release(store: SessionLeaseStore, lease: SessionLease) -> None:
    try:
        # not waiting for it to be stored: the store may commit it with its next write
        await store.release_session_lease(lease, wait=False)
    except Exception as exc:  # the lease then expires on its own
        _release_failed(lease, exc)


def _release_failed(lease: SessionLease, exc: Exception) -> None:
    log.warning("session %s: could not release the writer lease (fence %d): %s",
                lease.session_key, lease.fence, exc)


async def _acquire_once(store: SessionLeaseStore, key: str, holder: str, ttl: float,
                        ticket: int | None) -> SessionLease | SessionLeaseBusy:
    """One acquisition under a token of our own, so that a lease won while the caller
    was cancelled can still be given back (a release needs only the key and token).
    (A turn's first try is made the same way in `_Hold.__aenter__`.)"""
    token = os.urandom(16).hex()  # (secrets.token_hex's text, two calls fewer)
    try:
        return await store.acquire_session_lease(key, holder=holder, ttl=ttl, ticket=ticket,
                                                 token=token)
    except asyncio.CancelledError:
        _release_later(store, SessionLease(key, token, 0, holder, 0.0, 0.0))
        raise


def _release_later(store: SessionLeaseStore, lease: SessionLease) -> None:
    task = asyncio.ensure_future(_release(store, lease))
    _orphans.add(task)
    task.add_done_callback(_orphans.discard)


#: releases finishing after their caller was cancelled (kept referenced until done)
_orphans: set[asyncio.Task[None]] = set()
