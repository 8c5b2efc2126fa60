"""One writer per session: turns on the same session queue in order.

A caller that cannot get the session within its timeout gets `SessionBusyError`,
never a silent drop. Locks are per process; across processes the store's binding
leases (and, on PostgreSQL, one worker per session key) keep the single-writer rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from clawharness.errors import SessionBusyError

__all__ = ["SessionWriters"]


class SessionWriters:
    """FIFO per-key writer slots."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiters: dict[str, int] = {}

    def busy(self, key: str) -> bool:
        lock = self._locks.get(key)
        return bool(lock and lock.locked())

    @asynccontextmanager
    async def hold(self, key: str, *, timeout: float | None = None) -> AsyncIterator[None]:
        """Hold the session's writer slot; waits in arrival order (asyncio.Lock is FIFO)."""
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiters[key] = self._waiters.get(key, 0) + 1
        try:
            try:
                if timeout is None:
                    await lock.acquire()
                else:
                    await asyncio.wait_for(lock.acquire(), timeout)
            except TimeoutError:
                raise SessionBusyError(
                    f"session {key} is busy with another turn; gave up after {timeout:g}s"
                ) from None
            try:
                yield
            finally:
                lock.release()
        finally:
            self._waiters[key] -= 1
            if self._waiters[key] == 0:
                del self._waiters[key]
                if not lock.locked():
                    self._locks.pop(key, None)
