"""Exact-token leases on binding rows, shared by every native harness.

A lease is a random token and an expiry stored on the row itself (`lease_token`,
`lease_expires_at`), so it coordinates every process that opens the same store. Leases
serialise storage; they grant no execution authority: host authority still comes from
the caller's `assert_current`.

- `transact` applies one change to a row; while another owner's unexpired lease is on it
  the call is busy and retries every `retry_interval` until `wait`, then times out.
- `with_lease` takes a new token, renews it from a heartbeat while the token still matches,
  and on exit releases it by token only, so it can never release a successor's lease.
  Inside, the same task (and tasks it starts) re-enter without a second acquisition.
- An owner whose lease expired or was replaced is lost for good: every later use raises
  the same LostLeaseError.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar

from clawharness.sessions.bindings.errors import (
    AcquisitionRejectedError,
    LeaseTimeoutError,
    LostLeaseError,
)
from clawharness.sessions.bindings.namespace import Lease, PluginStateNamespace, Row

__all__ = [
    "CODEX_LEASE_TIMINGS",
    "LeaseOwner",
    "LeaseTimings",
    "NativeSessionBindingLeases",
    "PrepareLease",
]

log = logging.getLogger("clawharness.sessions.bindings")

_NO_OWNERS: Mapping[str, LeaseOwner] = MappingProxyType({})

T = TypeVar("T")
R = TypeVar("R")

#: `prepare_lease(current, lease)`: the record to store with the new lease, or None to refuse
PrepareLease = Callable[[T | None, Lease], T | None]
#: `apply(current, owned_token)`: `(result, next record or None for no write)`
Apply = Callable[[T | None, str | None], tuple[R, T | None]]


@dataclass(frozen=True, slots=True)
class LeaseTimings:
    """How long a lease lives, how long to wait for one, how often to renew and retry.

    `now` and `sleep` are injectable so tests can drive leases from a fake clock.
    """

    stale: float = 65.0
    wait: float = 70.0
    renew_interval: float = 65.0 / 3
    retry_interval: float = 1.0
    now: Callable[[], float] = time.time
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    @classmethod
    def from_stale(
        cls,
        stale: float,
        *,
        wait: float | None = None,
        retry_interval: float = 1.0,
        now: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> LeaseTimings:
        """Timings derived the Codex way: renew every stale/3, wait stale + 5 s."""
        return cls(stale=stale, wait=stale + 5.0 if wait is None else wait,
                   renew_interval=stale / 3, retry_interval=retry_interval, now=now, sleep=sleep)


#: the Codex harness's timings: guarded requests take up to 60 s, leases last 65 s
CODEX_LEASE_TIMINGS = LeaseTimings()


@dataclass(slots=True, eq=False)
class LeaseOwner:
    """The live state of one `with_lease` acquisition.

    `phase` is `held` while the lease may be used, `deleted` after a deletion commit
    removed the row (the heartbeat must not recreate it) and `closed` once the owner
    left `with_lease`. A recorded `failure` is raised by every later use.
    """

    key: str
    token: str
    expires_at: float = 0.0
    phase: Literal["held", "deleted", "closed"] = "held"
    failure: LostLeaseError | None = None
    assert_current: Callable[[], None] | None = None
    #: called by the heartbeat in phase `deleted` with the new expiry (deletion journals)
    on_renew_deleted: Callable[[float], Awaitable[None]] | None = None
    renewing: bool = False

    @property
    def closed(self) -> bool:
        """True once the owner left `with_lease`."""
        return self.phase == "closed"

    def ensure_usable(self) -> None:
        """Raise the owner's failure, or LostLeaseError once it is no longer held."""
        if self.failure is not None:
            raise self.failure
        if self.phase != "held":
            raise LostLeaseError(self.key, f"lease is {self.phase}")

    def fail(self, detail: str, cause: BaseException | None = None) -> LostLeaseError:
        """Mark the owner lost (once) and return its failure."""
        if self.failure is None:
            self.failure = LostLeaseError(self.key, detail, cause=cause)
        return self.failure


class NativeSessionBindingLeases(Generic[T]):
    """Exact-token leases over one plugin-state namespace."""

    def __init__(
        self,
        state: PluginStateNamespace[T],
        timings: LeaseTimings = CODEX_LEASE_TIMINGS,
        *,
        on_release_failure: Callable[[str, BaseException], None] | None = None,
    ) -> None:
        self.state = state
        self.timings = timings
        self._on_release_failure = on_release_failure
        self._owners: ContextVar[Mapping[str, LeaseOwner]] = ContextVar(
            f"binding-leases-{state.namespace}-{id(self)}", default=_NO_OWNERS)

    # ownership in this async context ---------------------------------------------------
    def owner(self, key: str) -> LeaseOwner | None:
        """The lease owner of `key` in the current async context, if any."""
        return self._owners.get().get(key)

    def has_lease(self, key: str) -> bool:
        """True inside `with_lease(key, ...)` in this async context."""
        return key in self._owners.get()

    # transact --------------------------------------------------------------------------
    async def transact(
        self,
        key: str,
        apply: Apply[T, R],
        *,
        assert_current: Callable[[], None] | None = None,
    ) -> R:
        """Apply one change to the row under `key`, honouring leases.

        Inside our own `with_lease(key)` the change requires our live lease (else the owner
        is lost for good). Outside, another owner's unexpired lease makes the row busy: we
        retry every `retry_interval` and give up with LeaseTimeoutError after `wait`.
        """
        return await self._transact(key, apply, assert_current=assert_current)

    async def _transact(
        self,
        key: str,
        apply: Apply[T, R],
        *,
        assert_current: Callable[[], None] | None,
        acquire_token: str | None = None,
    ) -> R:
        timings = self.timings
        started = timings.now()
        deadline = started + timings.wait
        while True:
            owner = None if acquire_token is not None else self.owner(key)
            if owner is not None:
                owner.ensure_usable()
            if assert_current is not None:
                assert_current()
            if owner is not None and owner.assert_current is not None:
                owner.assert_current()
            row = await self.state.get(key)
            if owner is not None:
                # A phase change may have happened while we awaited the read.
                owner.ensure_usable()
            now = timings.now()
            if owner is not None and not _holds(row, owner.token, now):
                raise owner.fail("the row no longer carries our unexpired token")
            if owner is None and row is not None and row.lease is not None \
                    and row.lease.live(now):
                if now >= deadline:
                    raise LeaseTimeoutError(key, now - started)
                await timings.sleep(timings.retry_interval)
                continue
            lease: Lease | None
            if acquire_token is not None:
                lease = Lease(acquire_token, now + timings.stale)
            elif owner is not None and row is not None:
                lease = row.lease
            else:
                # No owner: whatever lease is left on the row has expired; drop it.
                lease = None
            result, next_record = apply(row.record if row else None,
                                        acquire_token or (owner.token if owner else None))
            if next_record is None:
                return result
            if row is None:
                written = await self.state.register_if_absent(key, next_record, lease=lease)
            else:
                written = await self.state.update_if_current(
                    key, row.generation, next_record, lease=lease)
            if written is not None:
                return result
            # Another writer changed the row between our read and write: decide again.
            if timings.now() >= deadline:
                raise LeaseTimeoutError(key, timings.now() - started)

    # with_lease ------------------------------------------------------------------------
    async def with_lease(
        self,
        key: str,
        run: Callable[[], Awaitable[R]],
        *,
        prepare_lease: PrepareLease[T] | None = None,
        assert_current: Callable[[], None] | None = None,
        check_after_run: bool = True,
    ) -> R:
        """Run `run` while holding the exact-token lease on `key`.

        `prepare_lease(current, lease)` returns the record to store with the new lease
        (the default keeps an existing record and refuses a missing one); None refuses
        the acquisition with AcquisitionRejectedError. After `run`, host authority and the
        lease are checked again unless `check_after_run` is False (a host transaction
        that settled inside `run` is not undone by a later loss of authority).
        """
        if assert_current is not None:
            assert_current()
        owners = self._owners.get()
        existing = owners.get(key)
        if existing is not None:
            existing.ensure_usable()
            result = await run()
            if check_after_run:
                if assert_current is not None:
                    assert_current()
                existing.ensure_usable()
            return result

        prepare: PrepareLease[T] = prepare_lease or _keep_existing
        token = uuid.uuid4().hex
        owner = LeaseOwner(key=key, token=token, assert_current=assert_current)

        def acquire(current: T | None, _token: str | None) -> tuple[bool, T | None]:
            lease = Lease(token, self.timings.now() + self.timings.stale)
            prepared = prepare(current, lease)
            if prepared is not None:
                owner.expires_at = lease.expires_at
            return prepared is not None, prepared

        heartbeat: asyncio.Task[None] | None = None
        try:
            acquired = await self._transact(key, acquire, assert_current=assert_current,
                                            acquire_token=token)
            if assert_current is not None:
                assert_current()
            if not acquired:
                raise AcquisitionRejectedError(key)
            context_token = self._owners.set({**owners, key: owner})
            try:
                heartbeat = asyncio.get_running_loop().create_task(self._heartbeat(owner))
                result = await run()
            finally:
                self._owners.reset(context_token)
            if check_after_run:
                if assert_current is not None:
                    assert_current()
                if owner.failure is not None:
                    raise owner.failure
            return result
        finally:
            owner.phase = "closed"
            if heartbeat is not None:
                await _stop_heartbeat(heartbeat, owner)
            await self._release(owner)

    async def _heartbeat(self, owner: LeaseOwner) -> None:
        while owner.phase != "closed" and owner.failure is None:
            await self.timings.sleep(self.timings.renew_interval)
            if owner.closed:
                return
            owner.renewing = True
            try:
                await self.renew(owner)
            finally:
                owner.renewing = False

    async def renew(self, owner: LeaseOwner) -> bool:
        """Extend `owner`'s lease if the row still carries its unexpired token.

        A failed renewal marks the owner lost. In phase `deleted` the row is gone on
        purpose: nothing is recreated, and `on_renew_deleted` keeps any journal alive.
        """
        if owner.failure is not None or owner.phase == "closed":
            return False
        timings = self.timings
        if owner.phase == "deleted":
            expires_at = timings.now() + timings.stale
            if owner.on_renew_deleted is not None:
                try:
                    await owner.on_renew_deleted(expires_at)
                except Exception as exc:  # the journal then expires; recovery decides
                    log.warning("could not renew deletion journal of %s: %s", owner.key, exc)
            return True
        try:
            if owner.assert_current is not None:
                owner.assert_current()
            while True:
                row = await self.state.get(owner.key)
                if owner.phase != "held":
                    return owner.phase == "deleted"
                now = timings.now()
                if not _holds(row, owner.token, now):
                    owner.fail("renewal found the lease expired or replaced")
                    return False
                assert row is not None
                lease = Lease(owner.token, now + timings.stale)
                written = await self.state.update_raw_if_current(
                    owner.key, row.generation, row.raw, lease=lease)
                if written is not None:
                    owner.expires_at = lease.expires_at
                    return True
                # Our own transact (or a commit) moved the row on; look again.
        except Exception as exc:
            owner.fail("renewal failed", exc)
            return False

    async def _release(self, owner: LeaseOwner) -> None:
        # Token-only: the lease goes only if the row still carries our token, so a
        # successor that took over after our expiry keeps its lease.
        try:
            for _ in range(5):
                row = await self.state.get(owner.key)
                if row is None or row.lease is None or row.lease.token != owner.token:
                    return
                released = await self.state.update_raw_if_current(
                    owner.key, row.generation, row.raw, lease=None)
                if released is not None:
                    return
        except Exception as exc:  # a crashed or unauthorised owner's lease simply expires
            log.warning("failed to release native binding lease on %s: %s", owner.key, exc)
            if self._on_release_failure is not None:
                self._on_release_failure(owner.key, exc)

    # assertions ------------------------------------------------------------------------
    def capture_lease_assertion(self, key: str) -> Callable[[], None]:
        """A synchronous check of our live, unexpired, exact-token lease on `key`.

        Call it inside `with_lease(key)`; the returned callable keeps checking that exact
        owner (through the sync view of the store) before native requests or transcript
        writes, and rejects an expired, replaced or closed lease even while the harness
        lives. A failed check marks the owner lost.
        """
        owner = self.owner(key)
        state = self.state
        timings = self.timings

        def assert_lease() -> None:
            if owner is None:
                raise LostLeaseError(key, "no lease is held here")
            owner.ensure_usable()
            row = state.get_sync(key)
            if not _holds(row, owner.token, timings.now()):
                raise owner.fail("the row no longer carries our unexpired token")

        assert_lease()
        return assert_lease


def _holds(row: Row[Any] | None, token: str, now: float) -> bool:
    return (row is not None and row.lease is not None and row.lease.token == token
            and row.lease.live(now))


def _keep_existing(current: T | None, _lease: Lease) -> T | None:
    return current


async def _stop_heartbeat(task: asyncio.Task[None], owner: LeaseOwner) -> None:
    # Let an in-flight renewal finish (it sees phase `closed`); cancel an idle sleep.
    if not owner.renewing:
        task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieved so it is never reported as unhandled
