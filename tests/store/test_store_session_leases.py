"""The Store contract for per-session writer leases: every test runs on SQLite and
PostgreSQL, with two store objects over one database standing for two processes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from clawharness.errors import SessionLeaseLostError, StoreError
from clawharness.store import NewEntry, SessionLease, SessionLeaseBusy, SessionRecord, Store

StoreFactory = Callable[[], Awaitable[Store]]
KEY = "agent:main:shared"


def msg(text: str) -> NewEntry:
    return NewEntry(role="user", content={"role": "user", "content": text}, text=text)


async def take(store: Store, holder: str, ttl: float = 30.0, key: str = KEY,
               ticket: int | None = None) -> SessionLease:
    got = await store.acquire_session_lease(key, holder=holder, ttl=ttl, ticket=ticket)
    assert isinstance(got, SessionLease), got
    return got


async def refused(store: Store, holder: str, ticket: int | None = None,
                  ttl: float = 30.0) -> SessionLeaseBusy:
    got = await store.acquire_session_lease(KEY, holder=holder, ttl=ttl, ticket=ticket)
    assert isinstance(got, SessionLeaseBusy), got
    return got


async def until_expired(store: Store, key: str = KEY, timeout: float = 10.0) -> None:
    """Wait (polling the store) until the key's lease is no longer live."""
    deadline = time.monotonic() + timeout
    while (await store.session_lease_state(key)).held:
        assert time.monotonic() < deadline, "the lease did not expire in time"
        await asyncio.sleep(0.01)


async def test_a_free_lease_is_taken_and_every_acquisition_gets_the_next_fence(
        store: Store) -> None:
    first = await take(store, "A")
    assert (first.fence, first.holder) == (1, "A") and first.expires_at > first.acquired_at
    state = await store.session_lease_state(KEY)
    assert (state.held, state.holder, state.fence, state.waiters_ahead) == (True, "A", 1, 0)
    assert await store.release_session_lease(first)
    assert not (await store.session_lease_state(KEY)).held
    second = await take(store, "B")
    assert second.fence == 2 and second.token != first.token
    other = await take(store, "A", key="agent:main:other")
    assert other.fence == 1  # fences count per session key


async def test_a_live_lease_is_not_taken_and_the_caller_is_queued(
        make_store: StoreFactory) -> None:
    a, b = await make_store(), await make_store()
    await take(a, "A")
    busy = await refused(b, "B")
    assert (busy.holder, busy.fence, busy.held, busy.waiters_ahead) == ("A", 1, True, 0)
    assert busy.ticket > 0
    again = await refused(b, "B", ticket=busy.ticket)  # a retry keeps its place
    assert again.ticket == busy.ticket
    newcomer = await refused(a, "C")
    assert newcomer.waiters_ahead == 1 and newcomer.ticket > busy.ticket


async def test_an_expired_lease_is_taken_over_and_its_late_writes_are_refused(
        make_store: StoreFactory) -> None:
    a, b = await make_store(), await make_store()
    await a.create_session(SessionRecord(KEY, "sid", "main"))
    old = await take(a, "A", ttl=0.2)
    await a.append_entries(KEY, "sid", [msg("before")], fence=old)
    await until_expired(b)
    new = await take(b, "B")
    assert new.fence == old.fence + 1
    with pytest.raises(SessionLeaseLostError, match=r"no longer current .*took the session over"):
        await a.append_entries(KEY, "sid", [msg("late")], fence=old)
    with pytest.raises(SessionLeaseLostError):
        await a.update_session(KEY, fence=old, model_ref="late/model")
    with pytest.raises(SessionLeaseLostError):
        await a.truncate_entries("sid", after_seq=0, fence=old)
    with pytest.raises(SessionLeaseLostError):
        await a.delete_session(KEY, fence=old)
    with pytest.raises(SessionLeaseLostError):
        await a.assert_session_lease(old)
    assert await a.renew_session_leases([old], ttl=30) == [None]
    assert not await a.release_session_lease(old)  # by token: the successor keeps it
    await b.append_entries(KEY, "sid", [msg("after")], fence=new)
    await b.assert_session_lease(new)
    assert [e.text for e in await b.read_entries("sid")] == ["before", "after"]
    session = await b.get_session(KEY)
    assert session is not None and session.model_ref is None
    assert (await b.session_lease_state(KEY)).holder == "B"


async def test_an_expired_lease_nobody_took_is_still_current_and_renewable(
        make_store: StoreFactory) -> None:
    a = await make_store()
    lease = await take(a, "A", ttl=0.2)
    await until_expired(a)
    await a.append_entries(KEY, "sid", [msg("still mine")], fence=lease)
    [renewed] = await a.renew_session_leases([lease], ttl=30)
    assert renewed is not None and renewed.expires_at > lease.expires_at
    assert renewed.token == lease.token and renewed.fence == lease.fence
    b = await make_store()
    assert (await refused(b, "B")).held


async def test_waiters_get_a_freed_lease_in_the_order_they_queued(
        make_store: StoreFactory) -> None:
    a, b, c = await make_store(), await make_store(), await make_store()
    held = await take(a, "A")
    first = await refused(b, "B")
    second = await refused(c, "C")
    assert await a.release_session_lease(held)
    # free, but B queued first: C and a newcomer must wait
    assert (await refused(c, "C", ticket=second.ticket)).waiters_ahead == 1
    assert (await refused(a, "A")).waiters_ahead == 2
    state = await c.session_lease_state(KEY, ticket=second.ticket)
    assert not state.held and not state.free
    b_lease = await take(b, "B", ticket=first.ticket)
    assert await b.release_session_lease(b_lease)
    assert (await c.session_lease_state(KEY, ticket=second.ticket)).free
    c_lease = await take(c, "C", ticket=second.ticket)
    assert c_lease.fence == b_lease.fence + 1


async def test_a_waiter_that_left_or_died_stops_blocking_the_queue(
        make_store: StoreFactory) -> None:
    a, b, c = await make_store(), await make_store(), await make_store()
    held = await take(a, "A")
    gone = await refused(b, "B")
    dead = await refused(b, "D", ttl=0.2)  # its queue row lives 0.2 s without a refresh
    last = await refused(c, "C")
    assert last.waiters_ahead == 2
    await b.leave_session_lease_queue(KEY, gone.ticket)
    await a.release_session_lease(held)
    deadline = time.monotonic() + 10
    while not (await c.session_lease_state(KEY, ticket=last.ticket)).free:
        assert time.monotonic() < deadline, "the dead waiter kept blocking the queue"
        await asyncio.sleep(0.01)
    assert (await take(c, "C", ticket=last.ticket)).holder == "C"
    assert dead.ticket < last.ticket


async def test_renewal_extends_current_leases_and_reports_lost_ones(
        make_store: StoreFactory) -> None:
    a, b = await make_store(), await make_store()
    mine = await take(a, "A", ttl=5, key="agent:main:one")
    lost = await take(a, "A", ttl=0.2)
    await until_expired(b)
    await take(b, "B")
    renewed = await a.renew_session_leases([mine, lost], ttl=60)
    assert renewed[1] is None
    assert renewed[0] is not None and renewed[0].expires_at >= mine.expires_at + 50
    assert await a.renew_session_leases([], ttl=60) == []


async def test_an_acquisition_carries_the_session_row_it_read_until_a_renewal(
        store: Store) -> None:
    """The row as the acquisition's transaction saw it (the turn that takes the lease
    reads it next): no row, then the row made meanwhile; a renewed lease drops it."""
    first = await take(store, "A")
    assert first.session_row == (None,)
    await store.release_session_lease(first)
    await store.create_session(SessionRecord(KEY, "sid", "main", model_ref="p/m"))
    lease = await take(store, "A")
    assert lease.session_row is not None
    row = lease.session_row[0]
    assert row == await store.get_session(KEY)
    assert row is not None and (row.session_id, row.model_ref) == ("sid", "p/m")
    renewed = (await store.renew_session_leases([lease], ttl=60))[0]
    assert renewed is not None and renewed.session_row is None and renewed.fence == lease.fence


async def test_a_fence_of_another_session_or_bad_arguments_are_clear_errors(
        store: Store) -> None:
    lease = await take(store, "A")
    with pytest.raises(StoreError, match="another session"):
        await store.append_entries("agent:main:elsewhere", "sid", [msg("x")], fence=lease)
    for ttl in (0, -1, float("nan"), float("inf")):
        with pytest.raises(StoreError, match="positive number of seconds"):
            await store.acquire_session_lease(KEY, holder="A", ttl=ttl)
    with pytest.raises(StoreError, match="at least 16 characters"):
        await store.acquire_session_lease(KEY, holder="A", ttl=1, token="short")
    assert await store.read_entries("sid") == []


async def test_a_released_lease_fences_no_more_writes(store: Store) -> None:
    lease = await take(store, "A")
    await store.release_session_lease(lease)
    with pytest.raises(SessionLeaseLostError, match="released"):
        await store.append_entries(KEY, "sid", [msg("after release")], fence=lease)


async def test_unfenced_writes_are_not_checked(store: Store) -> None:
    await take(store, "A")
    await store.append_entries(KEY, "sid", [msg("tooling")])
    assert len(await store.read_entries("sid")) == 1


async def test_the_fence_keeps_counting_across_delete_and_re_creation(store: Store) -> None:
    await store.create_session(SessionRecord(KEY, "sid", "main"))
    lease = await take(store, "A")
    assert await store.delete_session(KEY, fence=lease)
    await store.release_session_lease(lease)
    await store.create_session(SessionRecord(KEY, "sid-2", "main"))
    assert (await take(store, "A")).fence == lease.fence + 1


async def test_concurrent_appends_with_one_stale_fence_fail_only_that_one(
        make_store: StoreFactory) -> None:
    a, b = await make_store(), await make_store()
    stale = await take(a, "A", ttl=0.2, key="agent:main:stale")
    live = await take(a, "A", key="agent:main:live")
    await until_expired(b, "agent:main:stale")
    await take(b, "B", key="agent:main:stale")
    results = await asyncio.gather(
        *(a.append_entries("agent:main:live", "live", [msg(f"ok {i}")], fence=live)
          for i in range(5)),
        a.append_entries("agent:main:stale", "stale", [msg("late")], fence=stale),
        *(a.append_entries("agent:main:live", "live", [msg(f"ok {i}")], fence=live)
          for i in range(5, 10)),
        return_exceptions=True)
    assert [type(r).__name__ for r in results].count("SessionLeaseLostError") == 1
    assert isinstance(results[5], SessionLeaseLostError)
    assert len(await a.read_entries("live")) == 10
    assert await a.read_entries("stale") == []


async def test_a_crowd_of_acquirers_gets_exactly_one_lease(make_store: StoreFactory) -> None:
    stores = [await make_store() for _ in range(4)]
    results = await asyncio.gather(*(
        s.acquire_session_lease(KEY, holder=f"h{i}-{j}", ttl=30)
        for i, s in enumerate(stores) for j in range(5)))
    won = [r for r in results if isinstance(r, SessionLease)]
    assert len(won) == 1
    tickets = [r.ticket for r in results if isinstance(r, SessionLeaseBusy)]
    assert len(set(tickets)) == 19


async def test_a_release_not_waited_for_is_seen_by_the_others_soon_after(
        make_store: StoreFactory) -> None:
    """`wait=False` (a holder leaving its session): the release may be stored a few
    milliseconds after it returns (SQLite commits it with the next write), never lost."""
    a, b = await make_store(), await make_store()
    held = await take(a, "A")
    assert await a.release_session_lease(held, wait=False)
    assert not (await a.session_lease_state(KEY)).held  # its own process sees it at once
    deadline = time.monotonic() + 10
    while (await b.session_lease_state(KEY)).held:
        assert time.monotonic() < deadline, "the release was not stored"
        await asyncio.sleep(0.001)
    assert (await take(b, "B")).fence == held.fence + 1
    # the next holder's acquisition in the same process goes with it (on SQLite, in one
    # transaction): it finds the lease free
    again = await take(a, "A", key="agent:main:second")
    assert await a.release_session_lease(again, wait=False)
    assert (await take(a, "A2", key="agent:main:second")).fence == again.fence + 1
