"""A worker's turn slots, and what it knows of the other workers' free slots.

`TurnSlots` caps the turns a worker runs at once, across its queues; it counts exactly
(a freed slot goes straight to the longest waiter), so `free` is what an announcement
tells. `RoomBoard` holds the other workers' announcements (`room/...` notifications on
the relay) and hands a full worker a peer to send a turn to, one announced slot per
turn sent. `RoomAnnouncer` sends this worker's own, the newest only
(`clawharness.worker.newest`).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable

from clawharness.worker.newest import NewestOnly

__all__ = ["RoomAnnouncer", "RoomBoard", "TurnSlots"]

#: how long a worker's room must last before it announces it
ROOM_SETTLE_SECONDS = 0.05


class TurnSlots:
    """`capacity` slots; `take` waits in arrival order, `give_back` hands the slot on."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.taken = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    @property
    def free(self) -> int:
        return self.capacity - self.taken

    def try_take(self) -> bool:
        if self.taken < self.capacity and not self._waiters:
            self.taken += 1
            return True
        return False

    async def take(self) -> None:
        if self.try_take():
            return
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(granted)
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self.give_back()  # handed over as the wait was cancelled: pass it on
            else:
                self._waiters.remove(granted)
            raise

    def give_back(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot changes hands: `taken` stays
                return
        self.taken -= 1


class RoomBoard:
    """The free slots the other workers of one task queue last announced."""

    def __init__(self, task_queue: str, worker_id: str) -> None:
        self._task_queue = task_queue
        self._worker_id = worker_id
        self._room: dict[str, int] = {}
        self._changed = asyncio.Event()

    def heard(self, task_queue: str, worker_id: str, free: int) -> None:
        if task_queue != self._task_queue or worker_id == self._worker_id:
            return
        self._room[worker_id] = max(free, 0)
        if free > 0:  # wake the turns waiting here: one of them may go there now
            self._changed.set()
            self._changed = asyncio.Event()

    def claim(self) -> str | None:
        """A peer that said it has room, one of its slots counted as taken (the turn
        goes there); None when no peer said so."""
        peer = max(self._room, key=self._room.__getitem__, default=None)
        if peer is None or self._room[peer] <= 0:
            return None
        self._room[peer] -= 1
        return peer

    async def wait_for_room(self) -> None:
        """Return when a peer next announces free slots."""
        await self._changed.wait()


class RoomAnnouncer(NewestOnly[int]):
    """Sends this worker's free slots when they change, the newest only: a worker gone
    full at once (peers must stop sending), room once it lasted `interval` seconds (a
    slot freed and at once taken again says nothing)."""

    def __init__(self, send: Callable[[int], Awaitable[None]], *,
                 interval: float = ROOM_SETTLE_SECONDS) -> None:
        super().__init__(send, what="this worker's free slots",
                         settle=lambda free: interval if free else 0.0)

    async def close(self, free: int | None = None) -> None:
        """Stop; with `free`, send that last (a worker stopping says 0)."""
        await super().close()
        if free is not None:
            await self.now(free)
