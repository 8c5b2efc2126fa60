"""A worker's turn slots and its board of the other workers' room (no server needed)."""

from __future__ import annotations

import asyncio

from clawharness.errors import StoreError
from clawharness.worker.slots import RoomAnnouncer, RoomBoard, TurnSlots


async def test_slots_go_to_waiters_in_arrival_order_and_count_exactly() -> None:
    slots = TurnSlots(1)
    assert slots.try_take() and slots.free == 0
    order: list[str] = []

    async def wait(name: str) -> None:
        await slots.take()
        order.append(name)

    first = asyncio.ensure_future(wait("first"))
    second = asyncio.ensure_future(wait("second"))
    await asyncio.sleep(0)
    assert not slots.try_take()  # waiters come first, even for a caller that won't wait
    slots.give_back()
    await first
    assert order == ["first"] and slots.free == 0  # handed over, not freed
    slots.give_back()
    await second
    slots.give_back()
    assert order == ["first", "second"] and slots.free == 1


async def test_a_wait_cancelled_after_its_slot_was_handed_over_passes_the_slot_on() -> None:
    slots = TurnSlots(1)
    assert slots.try_take()
    late = asyncio.ensure_future(slots.take())
    next_one = asyncio.ensure_future(slots.take())
    await asyncio.sleep(0)
    slots.give_back()  # to `late`, which is cancelled before it runs again
    late.cancel()
    await asyncio.gather(late, return_exceptions=True)
    await asyncio.wait_for(next_one, 1)
    assert slots.free == 0
    slots.give_back()
    assert slots.free == 1


async def test_a_cancelled_wait_leaves_the_queue() -> None:
    slots = TurnSlots(1)
    assert slots.try_take()
    gone = asyncio.ensure_future(slots.take())
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    slots.give_back()
    assert slots.free == 1 and slots.try_take()


async def test_the_board_hands_out_each_announced_slot_once_and_only_for_its_queue() -> None:
    board = RoomBoard("turns", "w1")
    board.heard("turns", "w1", 5)  # its own announcement
    board.heard("other-fleet", "w9", 5)  # another task queue's worker
    assert board.claim() is None
    board.heard("turns", "w2", 1)
    board.heard("turns", "w3", 2)
    claims = [board.claim() for _ in range(3)]
    assert claims[0] == "w3"  # the roomiest first
    assert sorted(claims) == ["w2", "w3", "w3"] and board.claim() is None
    board.heard("turns", "w2", 0)
    assert board.claim() is None


async def test_waiters_wake_when_a_peer_announces_room_not_when_it_is_full() -> None:
    board = RoomBoard("turns", "w1")
    woke = asyncio.ensure_future(board.wait_for_room())
    await asyncio.sleep(0)
    board.heard("turns", "w2", 0)
    await asyncio.sleep(0)
    assert not woke.done()
    board.heard("turns", "w2", 3)
    await asyncio.wait_for(woke, 1)


async def test_the_announcer_says_a_last_count_on_close() -> None:
    sent: list[int] = []

    async def send(free: int) -> None:
        sent.append(free)

    announce = RoomAnnouncer(send, interval=0)
    announce(3)
    await asyncio.wait_for(announce.flush(), 1)
    announce(3)  # no change: nothing sent
    await announce.close(0)
    assert sent == [3, 0]


async def test_an_announcement_that_fails_is_logged_not_raised() -> None:
    async def send(free: int) -> None:
        raise StoreError("the relay is down")

    announce = RoomAnnouncer(send, interval=0)
    announce(4)
    await announce.close(0)  # neither the background send nor the last one raises


async def test_full_is_said_at_once_and_room_only_if_it_lasts() -> None:
    sent: list[int] = []
    arrived = asyncio.Event()

    async def send(free: int) -> None:
        sent.append(free)
        arrived.set()

    announce = RoomAnnouncer(send, interval=60)
    announce(0)
    await asyncio.wait_for(arrived.wait(), 1)  # not after the interval: at once
    assert sent == [0]
    announce(1)  # a slot freed...
    announce(0)  # ...and taken again before the interval passed
    await announce.close()
    assert sent == [0]
