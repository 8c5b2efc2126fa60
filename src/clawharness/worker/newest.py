"""`NewestOnly`: sends a stream of values of which only the newest matters.

A partial reply carries the whole text so far, and a worker's free slots replace the
count before: while one send is in flight, a value still waiting is replaced by the
next. Used by the turn activities (partial replies to the relay) and by the room
announcements (`clawharness.worker.slots`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from clawharness.errors import ClawHarnessError

__all__ = ["NewestOnly"]

log = logging.getLogger("clawharness.cluster.newest")

T = TypeVar("T")


def _at_once(value: object) -> float:
    return 0.0


class NewestOnly(Generic[T]):
    """One send at a time, the newest value each time; a value equal to the last one
    sent is not sent again. `settle(value)`: seconds a value must stay the newest
    before it is sent (0: at once). A send that fails is logged as `what` and not
    raised (the next value may get through)."""

    def __init__(self, send: Callable[[T], Awaitable[None]], *, what: str,
                 settle: Callable[[T], float] = _at_once) -> None:
        self._send = send
        self._what = what
        self._settle = settle
        self._latest: T | None = None
        self._sent: T | None = None
        self._task: asyncio.Task[None] | None = None

    def __call__(self, value: T) -> None:
        self._latest = value
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        tried: T | None = None  # a value whose send failed is not tried again
        while (value := self._latest) is not None and value not in (self._sent, tried):
            delay = self._settle(value)
            if delay:
                await asyncio.sleep(delay)
                if self._latest != value:
                    continue  # replaced meanwhile: the newest must settle in turn
            tried = value
            await self.now(value)

    async def now(self, value: T) -> None:
        """Send `value` at once, waiting for it (a worker starting, or stopping)."""
        try:
            await self._send(value)
            self._sent = value
        except ClawHarnessError as exc:
            log.warning("%s was not sent: %s", self._what, exc)

    async def flush(self) -> None:
        """Wait for the send in flight and any still waiting."""
        if self._task is not None:
            await self._task

    async def close(self) -> None:
        """Drop what is waiting."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
