"""A controllable clock for the binding tests (imported by name, not via conftest)."""

from __future__ import annotations

import asyncio

from clawharness.sessions.bindings import (
    LeaseTimings,
)


class FakeClock:
    """A clock that moves only when told to.

    A short `sleep` (a lease retry) advances the clock itself; a long one (a heartbeat)
    waits until the test advances the clock past its end.
    """

    def __init__(self, start: float = 1_000_000.0, *, auto_advance_up_to: float = 5.0) -> None:
        self.now = start
        self.auto_advance_up_to = auto_advance_up_to
        self.slept: list[float] = []
        self._sleepers: list[tuple[float, asyncio.Event]] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for target, event in self._sleepers:
            if target <= self.now:
                event.set()
        self._sleepers = [(t, e) for t, e in self._sleepers if not e.is_set()]

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if seconds <= self.auto_advance_up_to:
            self.advance(seconds)
            await asyncio.sleep(0)
            return
        event = asyncio.Event()
        self._sleepers.append((self.now + seconds, event))
        await event.wait()

    def timings(self, *, stale: float = 65.0, wait: float = 70.0, renew: float = 1e9,
                retry: float = 1.0) -> LeaseTimings:
        """Timings on this clock; the heartbeat is off unless `renew` is given."""
        return LeaseTimings(stale=stale, wait=wait, renew_interval=renew,
                            retry_interval=retry, now=self, sleep=self.sleep)
