"""Session writer slots backed by the store's lease: several `SessionWriters`, each with
its own store object over one database, stand for several processes. Every test runs on
SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from clawharness.errors import SessionBusyError, SessionLeaseLostError
from clawharness.sessions.writers import SessionWriters, WriterTimings, next_poll_delay
from clawharness.store import NewEntry, SessionLeaseBusy, Store
from clawharness.store.postgres import PostgresStore
from clawharness.store.sqlite import SqliteStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

KEY = "agent:main:shared"
StoreFactory = Callable[[], Awaitable[Store]]


@pytest.fixture(params=["sqlite", "postgres"])
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreFactory]:
    if request.param == "postgres" and (reason := pg_unavailable()):
        pytest.skip(reason)
    schema = new_schema_name()
    opened: list[Store] = []

    async def factory() -> Store:
        store: Store = (SqliteStore(tmp_path / "s.db") if request.param == "sqlite"
                        else PostgresStore(PG_URL, schema=schema))
        await store.open()
        opened.append(store)
        return store

    try:
        yield factory
    finally:
        for store in opened:
            await store.close()
        if request.param == "postgres":
            drop_schema(schema)


async def writers(make_store: StoreFactory, name: str, **timings: float) -> SessionWriters:
    return SessionWriters(await make_store(), holder=name, timings=WriterTimings(**timings))


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


async def test_two_processes_never_hold_one_session_at_once(make_store: StoreFactory) -> None:
    procs = [await writers(make_store, f"p{n}") for n in range(3)]
    inside: list[str] = []
    peak = 0
    fences: list[int] = []

    async def turn(w: SessionWriters) -> None:
        nonlocal peak
        async with w.hold(KEY) as slot:
            inside.append(w.holder)
            peak = max(peak, len(inside))
            assert slot.lease is not None
            fences.append(slot.lease.fence)
            await asyncio.sleep(0)
            inside.remove(w.holder)

    await asyncio.gather(*(turn(w) for w in procs for _ in range(8)))
    assert peak == 1
    assert sorted(fences) == list(range(1, 25))


async def test_processes_take_a_contended_session_in_the_order_they_came(
        make_store: StoreFactory) -> None:
    a, b, c = [await writers(make_store, n) for n in "abc"]
    order: list[str] = []
    release = asyncio.Event()
    held = asyncio.Event()

    async def holder() -> None:
        async with a.hold(KEY):
            held.set()
            await release.wait()
        async with a.hold(KEY):  # a comes back at once, behind the queue
            order.append("a")

    async def waiter(w: SessionWriters) -> None:
        async with w.hold(KEY):
            order.append(w.holder)

    first = asyncio.create_task(holder())
    await held.wait()
    tasks = [asyncio.create_task(waiter(b))]
    store_b = b.store
    assert store_b is not None

    async def queued(n: int) -> bool:
        return (await store_b.session_lease_state(KEY)).waiters_ahead >= n

    deadline = time.monotonic() + 10
    while not await queued(1):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    tasks.append(asyncio.create_task(waiter(c)))
    while not await queued(2):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.005)
    release.set()
    await asyncio.gather(first, *tasks)
    assert order == ["b", "c", "a"]


async def test_a_waiter_that_gives_up_says_who_holds_the_session_and_leaves_the_queue(
        make_store: StoreFactory) -> None:
    a = await writers(make_store, "pid 1 on box-a")
    b = await writers(make_store, "pid 2 on box-b")
    async with a.hold(KEY, purpose="turn r1"):
        with pytest.raises(SessionBusyError) as info:
            async with b.hold(KEY, timeout=0.3):
                pass
        text = str(info.value)
        assert "pid 1 on box-a (turn r1) holds its writer lease" in text
        assert "gave up after 0.3s" in text and "sessions.writerWaitSeconds" in text
        store = a.store
        assert store is not None
        assert (await store.session_lease_state(KEY)).waiters_ahead == 0


async def test_on_busy_hears_once_who_held_the_session_and_the_wait_goes_on(
        make_store: StoreFactory) -> None:
    a = await writers(make_store, "pid 1 on box-a")
    b = await writers(make_store, "pid 2 on box-b")
    heard: list[tuple[bool, str | None]] = []

    async def on_busy(busy: SessionLeaseBusy) -> None:
        heard.append((busy.held, busy.holder))

    async with b.hold("agent:main:free", on_busy=on_busy):
        pass
    assert heard == []  # taken at once: nobody to hear of
    entered = asyncio.Event()
    async with a.hold(KEY, purpose="turn r1"):
        async def waiter() -> None:
            async with b.hold(KEY, on_busy=on_busy):
                entered.set()

        task = asyncio.create_task(waiter())
        await until(lambda: bool(heard))
        assert not entered.is_set()
    await asyncio.wait_for(task, 10)
    assert heard == [(True, "pid 1 on box-a (turn r1)")]


async def test_a_failing_on_busy_leaves_the_queue(make_store: StoreFactory) -> None:
    a = await writers(make_store, "a")
    b = await writers(make_store, "b")
    store = a.store
    assert store is not None

    async def on_busy(busy: SessionLeaseBusy) -> None:
        raise RuntimeError("offer failed")

    async with a.hold(KEY):
        with pytest.raises(RuntimeError, match="offer failed"):
            async with b.hold(KEY, on_busy=on_busy):
                pass
        assert (await store.session_lease_state(KEY)).waiters_ahead == 0


async def test_a_held_lease_is_renewed_while_its_holder_works(make_store: StoreFactory) -> None:
    a = await writers(make_store, "a", ttl=0.6)
    b = await writers(make_store, "b", ttl=0.6)
    async with a.hold(KEY) as slot:
        assert slot.lease is not None
        first = slot.lease.expires_at
        # outlive three lifetimes of the lease: only renewals keep it
        await until(lambda: slot.lease is not None and slot.lease.expires_at > first + 1.8)
        with pytest.raises(SessionBusyError):
            async with b.hold(KEY, timeout=0.05):
                pass
        assert slot.lost is None
    async with b.hold(KEY, timeout=5) as taken:
        assert taken.lease is not None and taken.lease.fence == 2


async def test_a_stalled_holder_is_replaced_after_expiry_and_its_writes_are_refused(
        make_store: StoreFactory) -> None:
    a = await writers(make_store, "a", ttl=0.4)
    b = await writers(make_store, "b", ttl=0.4)
    stalled = asyncio.Event()
    taken_over = asyncio.Event()
    late: list[BaseException] = []

    async def frozen_holder() -> None:
        async with a.hold(KEY) as slot:
            await a.close()  # renewals stop, as in a process paused by SIGSTOP
            stalled.set()
            await taken_over.wait()
            store = a.store
            assert store is not None
            try:
                await store.append_entries(KEY, "sid", [NewEntry("user", "late")],
                                           fence=slot.fence)
            except SessionLeaseLostError as exc:
                late.append(exc)

    task = asyncio.create_task(frozen_holder())
    await stalled.wait()
    async with b.hold(KEY, timeout=10) as slot:
        assert slot.lease is not None and slot.lease.fence == 2
        assert slot.waited > 0.1  # it waited for the expiry
        taken_over.set()
        await task  # a leaves, releasing by token only
        store = b.store
        assert store is not None
        assert (await store.session_lease_state(KEY)).holder == "b"
        await store.append_entries(KEY, "sid", [NewEntry("user", "b's")], fence=slot.fence)
    assert len(late) == 1 and "no longer current" in str(late[0])
    store = b.store
    assert store is not None
    assert [e.content for e in await store.read_entries("sid")] == ["b's"]


async def test_a_renewal_that_finds_the_lease_taken_marks_the_holder_lost(
        make_store: StoreFactory) -> None:
    a = await writers(make_store, "a", ttl=0.3)
    b_store = await make_store()
    async with a.hold(KEY) as slot:
        assert slot.lease is not None
        keeper = a._keeper
        assert keeper is not None
        keeper.cancel()  # stall renewals only, as a blocked event loop would
        await asyncio.gather(keeper, return_exceptions=True)
        deadline = time.monotonic() + 10
        while (await b_store.session_lease_state(KEY)).held:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        stolen = await b_store.acquire_session_lease(KEY, holder="b", ttl=30)
        assert getattr(stolen, "fence", None) == 2
        a._ensure_keeper()  # the loop runs again
        await until(lambda: slot.lost is not None)
        assert "taken over" in str(slot.lost)


async def test_a_cancelled_waiter_leaves_the_queue(make_store: StoreFactory) -> None:
    a = await writers(make_store, "a")
    b = await writers(make_store, "b")
    store = a.store
    assert store is not None
    async with a.hold(KEY):
        waiting = asyncio.create_task(b.hold(KEY).__aenter__())
        deadline = time.monotonic() + 10
        while (await store.session_lease_state(KEY)).waiters_ahead == 0:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.005)
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert (await store.session_lease_state(KEY)).waiters_ahead == 0


def test_polls_back_off_while_the_holder_keeps_the_session_and_restart_when_it_moves() -> None:
    t = WriterTimings(poll_min=0.0005, poll_max=0.05)
    delays = [next_poll_delay(0.0, False, 0, t)]
    for _ in range(12):
        delays.append(next_poll_delay(delays[-1], False, 0, t))
    assert delays[:4] == [0.0005, 0.001, 0.002, 0.004] and delays[-1] == 0.05
    assert next_poll_delay(0.05, True, 0, t) == 0.0005  # handed over: look again soon
    assert next_poll_delay(0.05, True, 3, t) == 0.002  # three turns ahead: less soon
    assert next_poll_delay(0.05, True, 500, t) == 0.05
