"""Offers of steered messages between processes in a real store: each is claimed once,
oldest first; a claimed offer settles to its run, an open one is withdrawn; a refused
claim opens the offer again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clawharness.sessions.steering_inbox import SteeringInbox
from clawharness.store.sqlite import SqliteStore

KEY = "agent:main:s"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "store.db")
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()


async def test_offers_are_claimed_once_oldest_first_and_settle_to_their_run(
        store: SqliteStore) -> None:
    offering, holding = SteeringInbox(store), SteeringInbox(store)  # two processes
    first = await offering.offer(KEY, "one")
    second = await offering.offer(KEY, "two")
    other = await offering.offer("agent:main:other", "elsewhere")
    claimed = await holding.claim(KEY, "run-1")
    assert [o.text for o in claimed] == ["one", "two"]
    assert await holding.claim(KEY, "run-2") == []  # taken already
    assert await offering.settle(first) == "run-1"
    assert await offering.settle(second) == "run-1"
    assert await offering.settle(other) is None  # nobody took it: it runs where it came
    assert await store.state_list("clawharness.steering") == []


async def test_a_refused_claim_opens_the_offer_again(store: SqliteStore) -> None:
    inbox = SteeringInbox(store)
    offer = await inbox.offer(KEY, "steer me")
    claimed = await inbox.claim(KEY, "run-1")
    await inbox.unclaim(claimed, "run-1")
    assert await inbox.settle(offer) is None


async def test_an_offer_is_withdrawn_only_while_nobody_claimed_it(store: SqliteStore) -> None:
    inbox = SteeringInbox(store)
    open_offer = await inbox.offer(KEY, "not yet")
    assert await inbox.withdraw(open_offer)
    assert await inbox.claim(KEY, "run-1") == []
    taken = await inbox.offer(KEY, "taken")
    await inbox.claim(KEY, "run-1")
    assert not await inbox.withdraw(taken)
    assert await inbox.settle(taken) == "run-1"


async def test_an_interrupt_stops_only_the_turn_it_is_addressed_to(store: SqliteStore) -> None:
    offering, holding = SteeringInbox(store), SteeringInbox(store)
    steer = await offering.offer(KEY, "steer me")
    interrupt = await offering.offer_interrupt(KEY, "stop", "pid 1 (turn run-1)")
    # another turn (or a reader that names no holder) claims the steer, not the interrupt
    other = await holding.take(KEY, "run-2", "pid 1 (turn run-2)")
    assert other.interrupt is None and [o.text for o in other.offers] == ["steer me"]
    assert await offering.settle(steer) == "run-2"
    found = await holding.take(KEY, "run-1", "pid 1 (turn run-1)")
    assert found.interrupt == interrupt and found.offers == ()
    later = await offering.offer(KEY, "after the interrupt")
    # the addressed turn claims nothing while its interrupt is there
    assert (await holding.take(KEY, "run-1", "pid 1 (turn run-1)")).offers == ()
    await offering.drop(interrupt)
    assert await offering.settle(later) is None
    assert await store.state_list("clawharness.steering") == []
