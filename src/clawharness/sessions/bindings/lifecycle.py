"""The shared native binding lifecycle: leases, fences and transactional deletion.

`create_native_session_binding_lifecycle(store, namespace, codec=...)` gives a native
harness everything it needs to own its bindings the same way the Codex harness does:
exact-token leases (`with_lease`, `transact`, `capture_lease_assertion`), mutation fences,
and three host-driven operations:

- `with_deletion(params, run)`: the session key is being removed. `run(stored, commit,
  rollback)` receives the binding (or None); the host calls the synchronous `commit()` at
  its session-row deletion boundary and `rollback()` if its transaction fails.
- `with_context_reset(params, run)`: the same contract for a same-key rewind or branch
  switch; the binding is invalidated, the session key and history stay.
- `reset(params)`: an in-place reset; the binding is cleared at once.

Host authority travels as `params.assert_current`; `assert_record_current(record,
params)` lets the backend refuse a record of another generation. Crash consistency of a
deletion comes from the journal (see `journal.py` and docs/native-bindings.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from clawharness.sessions.bindings.errors import (
    DeletionChangedError,
    LostLeaseError,
    RollbackChangedError,
)
from clawharness.sessions.bindings.fences import MutationFence
from clawharness.sessions.bindings.journal import (
    DeletionJournal,
    JournalEntry,
    RecoveredDeletion,
)
from clawharness.sessions.bindings.leases import (
    CODEX_LEASE_TIMINGS,
    Apply,
    LeaseOwner,
    LeaseTimings,
    NativeSessionBindingLeases,
    PrepareLease,
)
from clawharness.sessions.bindings.namespace import (
    MAX_VALUE_BYTES,
    Lease,
    PluginStateNamespace,
    RecordCodec,
    Row,
    canonical_json,
)
from clawharness.store import Store

__all__ = [
    "BindingOperationParams",
    "Commit",
    "NativeSessionBindingLifecycle",
    "RemovalRun",
    "Rollback",
    "create_native_session_binding_lifecycle",
]

T = TypeVar("T")
R = TypeVar("R")

Commit = Callable[[], None]
Rollback = Callable[[], None]
#: `run(stored, commit, rollback)` of `with_deletion` / `with_context_reset`
RemovalRun = Callable[[T | None, Commit, Rollback], Awaitable[R]]


def _always_current() -> None:
    return None


@dataclass(frozen=True, slots=True)
class BindingOperationParams:
    """One host-driven operation on the binding under `key`.

    `assert_current` carries host authority and is rechecked after every wait and right
    before each mutation. The session fields let a crashed deletion be reconciled with
    the host's session row; `previous_session_id` names the recorded predecessor.
    """

    key: str
    assert_current: Callable[[], None] = _always_current
    session_key: str | None = None
    session_id: str | None = None
    previous_session_id: str | None = None
    reason: str = "deleted"
    prepare_lease: Callable[[Any, Lease], Any] | None = None


class NativeSessionBindingLifecycle(Generic[T]):
    """Leases, fences and transactional deletion over one binding namespace."""

    def __init__(
        self,
        store: Store,
        state: PluginStateNamespace[T],
        *,
        timings: LeaseTimings = CODEX_LEASE_TIMINGS,
        assert_record_current: Callable[[T, BindingOperationParams], None] | None = None,
        exclusive_operation: str = "an exclusive native operation",
        on_release_failure: Callable[[str, BaseException], None] | None = None,
    ) -> None:
        self.store = store
        self.state = state
        self.timings = timings
        self.leases: NativeSessionBindingLeases[T] = NativeSessionBindingLeases(
            state, timings, on_release_failure=on_release_failure)
        self.fence = MutationFence(operation=exclusive_operation)
        self.journal = DeletionJournal(store, state.namespace,
                                       max_value_bytes=state.max_value_bytes)
        self._assert_record_current = assert_record_current

    # delegation ----------------------------------------------------------------------
    async def transact(self, key: str, apply: Apply[T, R], *,
                       assert_current: Callable[[], None] | None = None) -> R:
        """See `NativeSessionBindingLeases.transact`."""
        return await self.leases.transact(key, apply, assert_current=assert_current)

    async def with_lease(self, key: str, run: Callable[[], Awaitable[R]], *,
                         prepare_lease: PrepareLease[T] | None = None,
                         assert_current: Callable[[], None] | None = None) -> R:
        """See `NativeSessionBindingLeases.with_lease`."""
        return await self.leases.with_lease(key, run, prepare_lease=prepare_lease,
                                            assert_current=assert_current)

    def has_lease(self, key: str) -> bool:
        """True inside `with_lease(key)` in this async context."""
        return self.leases.has_lease(key)

    def capture_lease_assertion(self, key: str) -> Callable[[], None]:
        """See `NativeSessionBindingLeases.capture_lease_assertion`."""
        return self.leases.capture_lease_assertion(key)

    async def with_mutation(self, run: Callable[[], Awaitable[R]]) -> R:
        """Run one binding mutation (refused while an exclusive operation is pending)."""
        return await self.fence.with_mutation(run)

    async def with_exclusive_mutation_fence(self, run: Callable[[], Awaitable[R]]) -> R:
        """Drain running mutations, then run `run` exclusively (e.g. a native archive)."""
        return await self.fence.with_exclusive_mutation_fence(run)

    async def read(self, key: str) -> T | None:
        """The binding record under `key`, or None."""
        row = await self.state.get(key)
        return row.record if row else None

    async def records(self, *, prefix: str = "") -> list[tuple[str, T]]:
        """Every binding record (row key, record) whose key starts with `prefix`: to find
        which host session a native session is bound to."""
        return [(row.key, row.record) for row in await self.state.list_rows(prefix=prefix)]

    # host-driven operations ------------------------------------------------------------
    async def with_deletion(
        self, params: BindingOperationParams, run: RemovalRun[T, R], *,
        after_commit: Callable[[T], Awaitable[None]] | None = None,
    ) -> R:
        """Remove the binding transactionally with the host's session deletion.

        `after_commit(record)` runs after `run` when the deletion stood: the place for
        asynchronous native cleanup, which must not hold the host's transaction.
        """
        return await self._with_removal("deletion", params, run, after_commit)

    async def with_context_reset(
        self, params: BindingOperationParams, run: RemovalRun[T, R], *,
        after_commit: Callable[[T], Awaitable[None]] | None = None,
    ) -> R:
        """Invalidate the binding transactionally with a same-key rewind or branch switch."""
        return await self._with_removal("context-reset", params, run, after_commit)

    async def reset(self, params: BindingOperationParams) -> bool:
        """Clear the binding for an in-place session reset; True if one was cleared."""

        async def clear() -> bool:
            params.assert_current()
            if self.state.get_sync(params.key) is None:
                return False

            async def under_lease() -> bool:
                owner = self._owner(params.key)
                row = self.state.get_sync(params.key)
                params.assert_current()
                if row is None:
                    return False
                _require_ours(row, owner, self.timings.now())
                if not self.state.delete_if_sync(params.key, row.generation):
                    raise DeletionChangedError(params.key)
                owner.phase = "deleted"
                return True

            return await self.leases.with_lease(
                params.key, under_lease, prepare_lease=params.prepare_lease,
                assert_current=params.assert_current)

        return await self.fence.with_mutation(clear)

    async def drop_gone_binding(self, key: str, names_gone: Callable[[T], bool],
                                cleared: Callable[[T], T]) -> bool:
        """Forget a binding whose native session the runtime reported gone.

        The row is replaced by `cleared(record)` only while `names_gone(record)` still
        holds, so a binding another turn wrote meanwhile is kept. Inside the turn's own
        `with_lease(key)` the lease stays on the row (the turn still owns it and writes
        the fresh session's binding later); a lost lease raises LostLeaseError. True when
        the stale binding was dropped.
        """

        def apply(current: T | None, _token: str | None) -> tuple[bool, T | None]:
            if current is None or not names_gone(current):
                return False, None
            return True, cleared(current)

        async def drop() -> bool:
            return await self.leases.transact(key, apply)

        return await self.fence.with_mutation(drop)

    async def recover(self) -> list[RecoveredDeletion]:
        """Settle deletions whose process died mid-transaction (run this on start-up)."""
        return await self.journal.recover(self.state, self.timings.now())

    # internals -------------------------------------------------------------------------
    def _owner(self, key: str) -> LeaseOwner:
        owner = self.leases.owner(key)
        if owner is None:  # only reachable by misuse: we are always inside with_lease
            raise LostLeaseError(key, "no lease is held here")
        return owner

    async def _with_removal(
        self, kind: Literal["deletion", "context-reset"], params: BindingOperationParams,
        run: RemovalRun[T, R], after_commit: Callable[[T], Awaitable[None]] | None,
    ) -> R:
        key = params.key

        async def absent() -> R:
            active = True

            def commit() -> None:
                params.assert_current()
                if not active:
                    raise DeletionChangedError(key, "the operation is no longer active")
                if self.state.get_sync(key) is not None:
                    raise DeletionChangedError(key, "a binding appeared before commit")

            def rollback() -> None:
                return None

            try:
                return await run(None, commit, rollback)
            finally:
                active = False

        async def present() -> R:
            owner = self._owner(key)
            row = self.state.get_sync(key)
            if row is None:
                raise DeletionChangedError(key, "the binding vanished before the snapshot")
            if self._assert_record_current is not None:
                self._assert_record_current(row.record, params)
            operation = _Removal(self, kind, params, owner, row)
            try:
                result = await run(row.record, operation.commit, operation.rollback)
            except BaseException:
                operation.active = False
                if operation.deleted is not None:
                    # Whether the host committed is unknown here: let recovery decide.
                    await self.journal.expire(key, owner.token)
                raise
            operation.active = False
            if operation.deleted is not None:
                await self.journal.discard(key, owner.token)
                if after_commit is not None:
                    await after_commit(operation.deleted.record)
            return result

        async def body() -> R:
            params.assert_current()
            if self.state.get_sync(key) is None:
                return await absent()
            # The host's transaction settles inside `run`; authority lost afterwards must
            # neither undo nor mask its outcome.
            return await self.leases.with_lease(
                key, present, prepare_lease=params.prepare_lease,
                assert_current=params.assert_current, check_after_run=False)

        return await self.fence.with_mutation(body)


class _Removal(Generic[T]):
    """The commit/rollback pair of one present-row removal."""

    def __init__(self, lifecycle: NativeSessionBindingLifecycle[T],
                 kind: Literal["deletion", "context-reset"],
                 params: BindingOperationParams, owner: LeaseOwner, snapshot: Row[T]) -> None:
        self.lifecycle = lifecycle
        self.kind = kind
        self.params = params
        self.owner = owner
        self.snapshot = snapshot
        self.snapshot_json = canonical_json(snapshot.raw)
        self.active = True
        self.deleted: Row[T] | None = None

    def _assert_active(self) -> None:
        self.params.assert_current()
        if not self.active:
            raise DeletionChangedError(self.params.key, "the operation is no longer active")
        if self.owner.failure is not None:
            raise self.owner.failure
        if self.owner.phase == "closed":
            raise LostLeaseError(self.params.key, "lease is closed")

    def commit(self) -> None:
        """Delete the row if it still carries our live token and the snapshot's value."""
        self._assert_active()
        if self.deleted is not None:
            return
        lifecycle, key, owner = self.lifecycle, self.params.key, self.owner
        now = lifecycle.timings.now()
        row = lifecycle.state.get_sync(key)
        if row is None:
            raise DeletionChangedError(key, "the binding is already gone")
        if row.lease is None or row.lease.token != owner.token or not row.lease.live(now):
            raise DeletionChangedError(key, "our lease on the binding expired or was replaced")
        if canonical_json(row.raw) != self.snapshot_json:
            raise DeletionChangedError(key, "the binding value changed since the snapshot")
        entry = JournalEntry(self.kind, row.raw, self.params.session_key,
                             self.params.session_id)
        journal_lease = Lease(owner.token, max(row.lease.expires_at, now))
        if not lifecycle.journal.record_sync(key, entry, journal_lease, now):
            raise DeletionChangedError(key, "another deletion of this binding is in flight")
        if not lifecycle.state.delete_if_sync(key, row.generation):
            lifecycle.journal.discard_sync(key, owner.token)
            raise DeletionChangedError(key, "the binding changed while it was being deleted")
        self.deleted = row
        # The heartbeat must not recreate the row; it keeps the journal alive instead.
        owner.phase = "deleted"

        async def renew_journal(expires_at: float) -> None:
            await lifecycle.journal.renew(key, owner.token, expires_at)

        owner.on_renew_deleted = renew_journal

    def rollback(self) -> None:
        """Put a committed deletion back, with a fresh lease; no-op without a commit."""
        self._assert_active()
        deleted = self.deleted
        if deleted is None:
            return
        lifecycle, key, owner = self.lifecycle, self.params.key, self.owner
        lease = Lease(owner.token, lifecycle.timings.now() + lifecycle.timings.stale)
        restored = lifecycle.state.register_raw_if_absent_sync(key, deleted.raw, lease=lease)
        lifecycle.journal.discard_sync(key, owner.token)
        if restored is None:
            raise RollbackChangedError(key)
        self.deleted = None
        owner.expires_at = lease.expires_at
        owner.on_renew_deleted = None
        owner.phase = "held"


def _require_ours(row: Row[Any], owner: LeaseOwner, now: float) -> None:
    if row.lease is None or row.lease.token != owner.token or not row.lease.live(now):
        raise DeletionChangedError(row.key, "our lease on the binding expired or was replaced")


def create_native_session_binding_lifecycle(
    store: Store,
    namespace: str,
    *,
    codec: RecordCodec[T],
    timings: LeaseTimings = CODEX_LEASE_TIMINGS,
    assert_record_current: Callable[[T, BindingOperationParams], None] | None = None,
    max_value_bytes: int = MAX_VALUE_BYTES,
    exclusive_operation: str = "an exclusive native operation",
    on_release_failure: Callable[[str, BaseException], None] | None = None,
) -> NativeSessionBindingLifecycle[T]:
    """The binding lifecycle of one harness over `namespace` of `store`."""
    state: PluginStateNamespace[T] = PluginStateNamespace(
        store, namespace, codec, max_value_bytes=max_value_bytes)
    return NativeSessionBindingLifecycle(
        store, state, timings=timings, assert_record_current=assert_record_current,
        exclusive_operation=exclusive_operation, on_release_failure=on_release_failure)
