"""Rule 4 and scenarios 43-44: transactional deletion, context reset and reset."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from _host import FailingDeletes, host, new_session
from binding_clock import FakeClock

from clawharness.errors import AgentHarnessSessionSupersededError, StoreError
from clawharness.sessions.bindings import (
    BindingOperationParams,
    Commit,
    DeletionChangedError,
    DictRecordCodec,
    Lease,
    LeaseTimings,
    LostLeaseError,
    MutationBlockedError,
    NativeSessionBindingLifecycle,
    Rollback,
    RollbackChangedError,
    create_native_session_binding_lifecycle,
)
from clawharness.store import NewEntry
from clawharness.store.sqlite import SqliteStore

KEY = "session:main:agent:main:chat"
BINDING = {"threadId": "thread-1", "cwd": "/repo"}


async def put(lifecycle: NativeSessionBindingLifecycle[Any], value: Any = None) -> None:
    await lifecycle.state.register_if_absent(KEY, value or BINDING)


def params(**kw: Any) -> BindingOperationParams:
    fields: dict[str, Any] = {"key": KEY, "session_key": "agent:main:chat",
                              "session_id": "s-1", **kw}
    return BindingOperationParams(**fields)


async def test_scenario_43_commit_fail_rollback_restores_with_fresh_lease(
        lifecycle: NativeSessionBindingLifecycle[Any], clock: FakeClock) -> None:
    await put(lifecycle)
    seen: dict[str, Any] = {}

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> str:
        seen["stored"] = stored
        owner = lifecycle.leases.owner(KEY)
        assert owner is not None
        commit()
        seen["after_commit"] = lifecycle.state.get_sync(KEY)
        clock.advance(10)
        rollback()  # the host transaction failed
        seen["after_rollback"] = lifecycle.state.get_sync(KEY)
        seen["token"] = owner.token
        return "host failed"

    assert await lifecycle.with_deletion(params(), run) == "host failed"
    assert seen["stored"] == BINDING
    assert seen["after_commit"] is None
    restored = seen["after_rollback"]
    assert restored is not None and restored.record == BINDING
    assert restored.lease == Lease(seen["token"], clock.now + 65)  # a fresh lease
    final = await lifecycle.state.get(KEY)
    assert final is not None and final.record == BINDING and final.lease is None
    assert await lifecycle.journal.rows.list_rows() == []


async def test_scenario_43_rollback_without_commit_is_a_noop(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await put(lifecycle)
    before = await lifecycle.state.get(KEY)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        rollback()
        rollback()

    await lifecycle.with_deletion(params(), run)
    after = await lifecycle.state.get(KEY)
    assert before is not None and after is not None and after.record == before.record


async def test_scenario_43_commit_after_concurrent_modification_is_refused(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await put(lifecycle)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        row = await lifecycle.state.get(KEY)
        assert row is not None
        # Same lease, different value: somebody wrote behind the deletion's back.
        await lifecycle.state.update_if_current(KEY, row.generation, {"threadId": "other"},
                                                lease=row.lease)
        with pytest.raises(DeletionChangedError, match="changed since the snapshot"):
            commit()

    await lifecycle.with_deletion(params(), run)
    row = await lifecycle.state.get(KEY)
    assert row is not None and row.record == {"threadId": "other"}
    assert await lifecycle.journal.rows.list_rows() == []


async def test_scenario_44_absent_row_that_appears_before_commit(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        assert stored is None
        await put(lifecycle)
        with pytest.raises(DeletionChangedError, match="appeared before commit"):
            commit()
        rollback()  # nothing to undo

    await lifecycle.with_deletion(params(), run)

    async def quiet(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()

    await lifecycle.state.delete_if(KEY, 1)
    await lifecycle.with_deletion(params(), quiet)  # still absent: commit passes


async def test_commit_is_idempotent_and_the_heartbeat_cannot_recreate_the_row(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await put(lifecycle)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()
        commit()
        owner = lifecycle.leases.owner(KEY)
        assert owner is not None and owner.phase == "deleted"
        assert await lifecycle.leases.renew(owner) is True
        assert lifecycle.state.get_sync(KEY) is None

    await lifecycle.with_deletion(params(), run)
    assert await lifecycle.state.get(KEY) is None
    assert await lifecycle.journal.rows.list_rows() == []


async def test_callbacks_need_an_active_operation_and_current_host(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await put(lifecycle)
    live = [True]
    kept: list[tuple[Commit, Rollback]] = []

    def assert_current() -> None:
        if not live[0]:
            raise AgentHarnessSessionSupersededError("harness lifetime ended")

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        kept.append((commit, rollback))
        live[0] = False
        with pytest.raises(AgentHarnessSessionSupersededError):
            commit()
        live[0] = True

    await lifecycle.with_deletion(params(assert_current=assert_current), run)
    commit, rollback = kept[0]
    with pytest.raises((DeletionChangedError, LostLeaseError)):
        commit()  # retained after the operation closed: no authority
    with pytest.raises((DeletionChangedError, LostLeaseError)):
        rollback()
    assert await lifecycle.state.get(KEY) is not None


async def test_commit_refuses_an_expired_lease(
        lifecycle: NativeSessionBindingLifecycle[Any], clock: FakeClock) -> None:
    await put(lifecycle)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        clock.advance(66)
        with pytest.raises(DeletionChangedError, match="expired or was replaced"):
            commit()

    await lifecycle.with_deletion(params(), run)
    assert await lifecycle.state.get(KEY) is not None


async def test_rollback_fails_when_the_key_was_taken(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await put(lifecycle)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()
        await lifecycle.state.register_if_absent(KEY, {"threadId": "intruder"})
        with pytest.raises(RollbackChangedError, match="could not be restored"):
            rollback()

    await lifecycle.with_deletion(params(), run)
    row = await lifecycle.state.get(KEY)
    assert row is not None and row.record == {"threadId": "intruder"}


async def test_assert_record_current_refuses_another_generation(
        store: SqliteStore, clock: FakeClock) -> None:
    def assert_record_current(record: Any, p: BindingOperationParams) -> None:
        if record.get("sessionId") not in (p.session_id, p.previous_session_id):
            raise AgentHarnessSessionSupersededError("binding belongs to another generation")

    lifecycle = create_native_session_binding_lifecycle(
        store, "b", codec=DictRecordCodec(), timings=clock.timings(),
        assert_record_current=assert_record_current)
    await lifecycle.state.register_if_absent(KEY, {"threadId": "t", "sessionId": "s-0"})
    ran = False

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        nonlocal ran
        ran = True

    with pytest.raises(AgentHarnessSessionSupersededError):
        await lifecycle.with_deletion(params(), run)
    assert not ran
    # The recorded predecessor (not yet transferred after compaction) may be retired.
    await lifecycle.with_context_reset(params(previous_session_id="s-0"), run)
    assert ran


async def test_deletion_is_blocked_while_an_exclusive_operation_is_pending(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    gate = asyncio.Event()

    async def archive() -> None:
        await gate.wait()

    task = asyncio.create_task(lifecycle.with_exclusive_mutation_fence(archive))
    await asyncio.sleep(0)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()

    with pytest.raises(MutationBlockedError):
        await lifecycle.with_deletion(params(), run)
    gate.set()
    await task


async def test_host_deletion_removes_binding_and_session_together(
        store: SqliteStore, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await new_session(store)
    await put(lifecycle)
    assert await host(store, lifecycle).delete("agent:main:chat") is True
    assert await store.get_session("agent:main:chat") is None
    assert await lifecycle.state.get(KEY) is None
    assert await lifecycle.journal.rows.list_rows() == []


async def test_host_transaction_failing_after_commit_restores_the_binding(
        store: SqliteStore, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await new_session(store)
    await put(lifecycle)
    before = await lifecycle.state.get(KEY)
    with pytest.raises(StoreError, match="disk full"):
        await host(FailingDeletes(store), lifecycle).delete("agent:main:chat")
    assert await store.get_session("agent:main:chat") is not None
    after = await lifecycle.state.get(KEY)
    assert before is not None and after is not None
    assert after.record == BINDING
    assert after.generation == 2  # re-registered at 1 with a fresh lease, then released
    assert after.lease is None  # the fresh rollback lease was released on exit
    assert await lifecycle.journal.rows.list_rows() == []


async def test_host_rewind_invalidates_the_binding_and_keeps_history(
        store: SqliteStore, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    record = await new_session(store)
    await store.append_entries(record.key, record.session_id,
                               [NewEntry(role="user", content=f"m{i}") for i in range(3)])
    await put(lifecycle)
    assert await host(store, lifecycle).rewind(record.key, to_seq=1) == 2
    assert await lifecycle.state.get(KEY) is None
    assert await store.count_entries(record.session_id) == 1
    assert await store.get_session(record.key) is not None

    await put(lifecycle)
    with pytest.raises(StoreError):
        await host(FailingDeletes(store), lifecycle).rewind(record.key, to_seq=0)
    row = await lifecycle.state.get(KEY)
    assert row is not None and row.record == BINDING  # restored: the cut failed


async def test_host_reset_clears_the_binding_in_place(
        store: SqliteStore, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    record = await new_session(store)
    await put(lifecycle)
    updated = await host(store, lifecycle).reset(record.key)
    assert updated.session_id != record.session_id
    assert await lifecycle.state.get(KEY) is None
    # A later turn binds afresh for the same key.
    await put(lifecycle, {"threadId": "thread-2"})
    assert await lifecycle.read(KEY) == {"threadId": "thread-2"}
    assert await lifecycle.reset(params(key="session:main:none")) is False


async def test_after_commit_runs_once_the_deletion_stood(
        store: SqliteStore, clock: FakeClock) -> None:
    lifecycle = create_native_session_binding_lifecycle(store, "b", codec=DictRecordCodec(),
                                                        timings=clock.timings())
    cleaned: list[Any] = []

    async def cleanup(record: Any) -> None:
        assert await lifecycle.state.get(KEY) is None
        cleaned.append(record)

    async def committing(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()

    async def rolling_back(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()
        rollback()

    await put(lifecycle)
    await lifecycle.with_deletion(params(), rolling_back, after_commit=cleanup)
    assert cleaned == []
    await lifecycle.with_deletion(params(), committing, after_commit=cleanup)
    assert cleaned == [BINDING]


async def test_a_run_error_after_commit_leaves_the_outcome_to_recovery(
        store: SqliteStore, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await new_session(store)
    await put(lifecycle)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()
        raise RuntimeError("host crashed mid-transaction")

    with pytest.raises(RuntimeError):
        await lifecycle.with_deletion(params(), run)
    assert await lifecycle.state.get(KEY) is None  # never restored on an unknown outcome
    journal = await lifecycle.journal.rows.list_rows()
    assert [r.key for r in journal] == [KEY] and journal[0].lease is None
    report = await lifecycle.recover()
    assert [(r.key, r.outcome) for r in report] == [(KEY, "restored")]  # session still there
    row = await lifecycle.state.get(KEY)
    assert row is not None and row.record == BINDING
    assert await lifecycle.journal.rows.list_rows() == []

    with pytest.raises(RuntimeError):
        await lifecycle.with_deletion(params(), run)
    await store.delete_session("agent:main:chat")
    report = await lifecycle.recover()
    assert [(r.key, r.outcome) for r in report] == [(KEY, "kept-deleted")]
    assert await lifecycle.state.get(KEY) is None


async def test_recovery_leaves_a_live_deletion_alone(
        store: SqliteStore, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    await new_session(store)
    await put(lifecycle)

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()
        report = await lifecycle.recover()  # e.g. another process starting up
        assert [r.outcome for r in report] == ["owner-alive"]
        assert lifecycle.state.get_sync(KEY) is None
        await store.delete_session("agent:main:chat")

    await lifecycle.with_deletion(params(), run)
    assert await lifecycle.state.get(KEY) is None
    assert await lifecycle.recover() == []


async def test_the_heartbeat_keeps_a_slow_deletions_journal_alive(store: SqliteStore) -> None:
    lifecycle = create_native_session_binding_lifecycle(
        store, "slow", codec=DictRecordCodec(),
        timings=LeaseTimings(stale=0.6, wait=1.0, renew_interval=0.1, retry_interval=0.02))
    await new_session(store)
    await lifecycle.state.register_if_absent(KEY, BINDING)
    renewed: list[float] = []

    async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
        commit()
        first = (await lifecycle.journal.rows.get(KEY))
        assert first is not None and first.lease is not None
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(renewed) < 8:
            row = await lifecycle.journal.rows.get(KEY)
            assert row is not None and row.lease is not None
            if row.lease.expires_at > first.lease.expires_at \
                    and row.lease.expires_at not in renewed:
                renewed.append(row.lease.expires_at)
            await asyncio.sleep(0.05)
        # Well past one stale period: another process's recovery must still keep out.
        assert [r.outcome for r in await lifecycle.recover()] == ["owner-alive"]
        await store.delete_session("agent:main:chat")

    await lifecycle.with_deletion(params(), run)
    assert len(renewed) >= 8
    assert await lifecycle.state.get(KEY) is None
    assert await lifecycle.journal.rows.list_rows() == []
