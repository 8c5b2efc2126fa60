"""Rule 2 and scenarios 41-42: exact-token leases with expiry on the row."""

from __future__ import annotations

import asyncio
import contextvars
import time
from typing import Any

import pytest
from binding_clock import FakeClock

from clawharness.errors import AgentHarnessSessionSupersededError
from clawharness.sessions.bindings import (
    AcquisitionRejectedError,
    DictRecordCodec,
    Lease,
    LeaseTimeoutError,
    LeaseTimings,
    LostLeaseError,
    NativeSessionBindingLeases,
    PluginStateNamespace,
)
from clawharness.sessions.bindings.leases import CODEX_LEASE_TIMINGS
from clawharness.store.sqlite import SqliteStore

Record = dict[str, Any]


def make(store: SqliteStore, timings: LeaseTimings) -> NativeSessionBindingLeases[Record]:
    rows: PluginStateNamespace[Record] = PluginStateNamespace(store, "leases", DictRecordCodec())
    return NativeSessionBindingLeases(rows, timings)


def create_row(current: Record | None, _lease: Lease) -> Record | None:
    return current if current is not None else {"threadId": "t-1"}


def set_value(value: str) -> Any:
    def apply(current: Record | None, _token: str | None) -> tuple[str, Record | None]:
        return "written", {"threadId": value}
    return apply


class Holder:
    """Holds a lease in a background task until released."""

    def __init__(self, leases: NativeSessionBindingLeases[Record], key: str) -> None:
        self.leases = leases
        self.key = key
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.task: asyncio.Task[Any] | None = None
        self.error: BaseException | None = None

    async def _body(self) -> None:
        self.entered.set()
        await self.release.wait()

    async def start(self) -> None:
        async def run() -> None:
            try:
                await self.leases.with_lease(self.key, self._body, prepare_lease=create_row)
            except BaseException as exc:
                self.error = exc
                self.entered.set()

        self.task = asyncio.create_task(run())
        await asyncio.wait_for(self.entered.wait(), 5)

    async def stop(self) -> None:
        self.release.set()
        assert self.task is not None
        await asyncio.wait_for(self.task, 5)


def test_codex_default_timings() -> None:
    t = CODEX_LEASE_TIMINGS
    assert (t.stale, t.wait, t.retry_interval) == (65.0, 70.0, 1.0)
    assert t.renew_interval == pytest.approx(65.0 / 3)
    assert LeaseTimings.from_stale(30).wait == 35.0


async def test_scenario_41_busy_then_timeout_then_success_after_expiry(
        store: SqliteStore, clock: FakeClock) -> None:
    # A's lease outlives B's whole wait (as a renewing holder's would).
    leases = make(store, clock.timings(stale=100, wait=70, retry=1))
    a = Holder(leases, "k")
    await a.start()
    started = clock.now
    with pytest.raises(LeaseTimeoutError, match="timed out after 70s"):
        await leases.transact("k", set_value("by-b"))
    assert clock.now - started == pytest.approx(70)
    assert clock.slept.count(1) == 70  # it retried every retry interval
    row = await leases.state.get("k")
    assert row is not None and row.record == {"threadId": "t-1"}
    # A's lease expires (its heartbeat is off on this clock): B now succeeds.
    clock.advance(30)
    assert await leases.transact("k", set_value("by-b")) == "written"
    row = await leases.state.get("k")
    assert row is not None and row.record == {"threadId": "by-b"} and row.lease is None
    await a.stop()
    row = await leases.state.get("k")
    assert row is not None and row.record == {"threadId": "by-b"}  # A's release left B's write


async def test_scenario_42_replaced_token_is_lost_for_good(
        store: SqliteStore, clock: FakeClock) -> None:
    leases = make(store, clock.timings())
    seen: list[BaseException] = []

    async def body() -> None:
        row = await leases.state.get("k")
        assert row is not None
        # Someone replaces our token behind our back.
        await leases.state.update_raw_if_current("k", row.generation, row.raw,
                                                 lease=Lease("intruder", clock.now + 100))
        with pytest.raises(LostLeaseError) as first:
            await leases.transact("k", set_value("mine"))
        seen.append(first.value)
        with pytest.raises(LostLeaseError) as second:
            await leases.transact("k", set_value("mine-again"))
        seen.append(second.value)
        with pytest.raises(LostLeaseError):
            leases.capture_lease_assertion("k")
        with pytest.raises(LostLeaseError):
            await leases.with_lease("k", asyncio.sleep, prepare_lease=create_row)

    with pytest.raises(LostLeaseError) as outer:
        await leases.with_lease("k", body, prepare_lease=create_row)
    assert seen[0] is seen[1] is outer.value  # the same failure every time
    row = await leases.state.get("k")
    assert row is not None and row.lease == Lease("intruder", clock.now + 100)
    assert row.record == {"threadId": "t-1"}  # the lost owner wrote nothing


async def test_with_lease_is_reentrant_in_the_same_task(
        store: SqliteStore, clock: FakeClock) -> None:
    leases = make(store, clock.timings())
    tokens: list[str | None] = []

    async def inner() -> str:
        owner = leases.owner("k")
        tokens.append(owner.token if owner else None)
        return await leases.transact("k", set_value("inner"))

    async def outer() -> str:
        owner = leases.owner("k")
        tokens.append(owner.token if owner else None)
        return await leases.with_lease("k", inner, prepare_lease=create_row)

    assert await leases.with_lease("k", outer, prepare_lease=create_row) == "written"
    assert tokens[0] is not None and tokens[0] == tokens[1]
    row = await leases.state.get("k")
    assert row is not None and row.record == {"threadId": "inner"}
    assert row.lease is None  # released on exit
    assert not leases.has_lease("k")


async def test_prepare_lease_returning_none_rejects_acquisition(
        store: SqliteStore, clock: FakeClock) -> None:
    leases = make(store, clock.timings())
    ran = False

    async def body() -> None:
        nonlocal ran
        ran = True

    with pytest.raises(AcquisitionRejectedError, match="refused"):
        await leases.with_lease("k", body, prepare_lease=lambda current, lease: None)
    with pytest.raises(AcquisitionRejectedError):  # the default refuses a missing row
        await leases.with_lease("k", body)
    assert not ran
    assert await leases.state.get("k") is None


async def test_assert_current_is_checked_before_acquisition_and_after_run(
        store: SqliteStore, clock: FakeClock) -> None:
    leases = make(store, clock.timings())
    live = [True]

    def assert_current() -> None:
        if not live[0]:
            raise AgentHarnessSessionSupersededError("host retired")

    async def body() -> None:
        live[0] = False

    with pytest.raises(AgentHarnessSessionSupersededError):
        await leases.with_lease("k", body, prepare_lease=create_row,
                                assert_current=assert_current)
    row = await leases.state.get("k")
    assert row is not None and row.lease is None  # released even so
    with pytest.raises(AgentHarnessSessionSupersededError):
        await leases.with_lease("k", body, prepare_lease=create_row,
                                assert_current=assert_current)


async def test_release_never_releases_a_successors_lease(
        store: SqliteStore, clock: FakeClock) -> None:
    leases = make(store, clock.timings(stale=10))

    async def body() -> None:
        clock.advance(11)  # our lease expires while we work
        row = await leases.state.get("k")
        assert row is not None
        await leases.state.update_raw_if_current("k", row.generation, row.raw,
                                                 lease=Lease("successor", clock.now + 10))

    await leases.with_lease("k", body, prepare_lease=create_row)
    row = await leases.state.get("k")
    assert row is not None and row.lease == Lease("successor", clock.now + 10)


async def test_heartbeat_keeps_a_long_holder_alive(store: SqliteStore) -> None:
    leases = make(store, LeaseTimings(stale=0.6, wait=0.35, renew_interval=0.1,
                                      retry_interval=0.02))
    expiries: list[float] = []

    async def body() -> None:
        deadline = time.monotonic() + 5
        while len(set(expiries)) < 8 and time.monotonic() < deadline:
            row = await leases.state.get("k")
            assert row is not None and row.lease is not None
            expiries.append(row.lease.expires_at)
            await asyncio.sleep(0.05)
        # Longer than one stale period has passed, and nobody else can take the row.
        with pytest.raises(LeaseTimeoutError):
            # A task started with an empty context has no lease: another owner.
            await asyncio.create_task(_outsider(leases), context=contextvars.Context())
        leases.capture_lease_assertion("k")()

    await leases.with_lease("k", body, prepare_lease=create_row)
    assert len(set(expiries)) >= 8 and expiries == sorted(expiries)


async def _outsider(leases: NativeSessionBindingLeases[Record]) -> None:
    await leases.transact("k", set_value("outsider"))


async def test_a_failed_renewal_marks_the_owner_lost(store: SqliteStore) -> None:
    leases = make(store, LeaseTimings(stale=5, wait=5, renew_interval=0.05,
                                      retry_interval=0.01))

    async def body() -> None:
        row = await leases.state.get("k")
        assert row is not None
        await leases.state.update_raw_if_current("k", row.generation, row.raw,
                                                 lease=Lease("other", time.time() + 5))
        owner = leases.owner("k")
        assert owner is not None
        deadline = time.monotonic() + 5
        while owner.failure is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert owner.failure is not None

    with pytest.raises(LostLeaseError, match="renewal"):
        await leases.with_lease("k", body, prepare_lease=create_row)


async def test_lease_assertion_rejects_expired_replaced_and_closed(
        store: SqliteStore, clock: FakeClock) -> None:
    leases = make(store, clock.timings(stale=10))
    captured: list[Any] = []

    async def body() -> None:
        check = leases.capture_lease_assertion("k")
        check()
        captured.append(check)

    await leases.with_lease("k", body, prepare_lease=create_row)
    with pytest.raises(LostLeaseError, match="closed"):
        captured[0]()  # retained after the owner closed: no authority

    async def expires() -> None:
        check = leases.capture_lease_assertion("k")
        clock.advance(11)
        with pytest.raises(LostLeaseError):
            check()
        with pytest.raises(LostLeaseError):
            check()  # and stays lost

    with pytest.raises(LostLeaseError):
        await leases.with_lease("k", expires, prepare_lease=create_row)

    async def replaced() -> None:
        check = leases.capture_lease_assertion("k")
        row = await leases.state.get("k")
        assert row is not None
        await leases.state.update_raw_if_current("k", row.generation, row.raw,
                                                 lease=Lease("other", clock.now + 10))
        with pytest.raises(LostLeaseError):
            check()

    clock.advance(20)
    with pytest.raises(LostLeaseError):
        await leases.with_lease("k", replaced, prepare_lease=create_row)
    with pytest.raises(LostLeaseError, match="no lease is held"):
        leases.capture_lease_assertion("k")
