"""`NewestOnly`: the newest value only, one send at a time (partial replies, room)."""

from __future__ import annotations

import asyncio

from clawharness.errors import StoreError
from clawharness.worker.newest import NewestOnly


async def test_values_given_during_a_send_collapse_to_the_newest() -> None:
    sent: list[str] = []
    first_send = asyncio.Event()
    release = asyncio.Event()

    async def send(text: str) -> None:
        sent.append(text)
        first_send.set()
        await release.wait()

    partials = NewestOnly(send, what="a partial reply")
    partials("he")
    await asyncio.wait_for(first_send.wait(), 1)
    for text in ("hel", "hell", "hello"):
        partials(text)
    release.set()
    await asyncio.wait_for(partials.flush(), 1)
    assert sent == ["he", "hello"]


async def test_a_failed_send_is_not_raised_and_the_next_value_still_goes() -> None:
    sent: list[str] = []

    async def send(text: str) -> None:
        if text == "bad":
            raise StoreError("the relay is down")
        sent.append(text)

    partials = NewestOnly(send, what="a partial reply")
    partials("bad")
    await asyncio.wait_for(partials.flush(), 1)  # logged, not raised, not retried
    partials("good")
    await asyncio.wait_for(partials.flush(), 1)
    assert sent == ["good"]


async def test_a_value_replaced_while_it_settles_is_never_sent() -> None:
    sent: list[int] = []

    async def send(value: int) -> None:
        sent.append(value)

    room = NewestOnly(send, what="room", settle=lambda value: 0.05 if value else 0.0)
    room(2)
    await asyncio.sleep(0)  # the send task starts: 2 settles
    room(0)  # replaced before it settled: only 0, which needs no settling
    await asyncio.wait_for(room.flush(), 1)
    assert sent == [0]
    room(3)
    await asyncio.wait_for(room.flush(), 1)  # it lasted: sent after settling
    assert sent == [0, 3]
