"""Mutation fences: ordinary binding mutations versus one exclusive native operation.

An exclusive operation (for Codex, archiving a native thread subtree) needs one stable
ownership snapshot: it waits for the mutations already running to drain, then runs
alone. A mutation that arrives while an exclusive operation is pending is refused with
MutationBlockedError rather than queued, so a stale caller cannot attach a binding after
the snapshot was taken; the caller retries. Work inside the exclusive operation (the same
async context) may mutate freely. Exclusive operations run one after another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TypeVar

from clawharness.sessions.bindings.errors import MutationBlockedError

__all__ = ["MutationFence"]

R = TypeVar("R")


class MutationFence:
    """Counts active binding mutations and runs exclusive operations between them."""

    def __init__(self, *, operation: str = "an exclusive native operation") -> None:
        self._operation = operation
        self._active = 0
        self._pending_exclusive = 0
        self._drained = asyncio.Event()
        self._drained.set()
        self._exclusive_lock: asyncio.Lock | None = None
        self._inside: ContextVar[bool] = ContextVar(f"mutation-fence-{id(self)}", default=False)

    @property
    def active_mutations(self) -> int:
        """How many ordinary mutations are running now."""
        return self._active

    @property
    def exclusive_pending(self) -> bool:
        """True while an exclusive operation waits or runs."""
        return self._pending_exclusive > 0

    async def with_mutation(self, run: Callable[[], Awaitable[R]]) -> R:
        """Run one ordinary mutation; MutationBlockedError while an exclusive one is pending."""
        if self._inside.get():
            return await run()
        if self._pending_exclusive > 0:
            raise MutationBlockedError(self._operation)
        self._active += 1
        self._drained.clear()
        try:
            return await run()
        finally:
            self._active -= 1
            if self._active == 0:
                self._drained.set()

    async def with_exclusive_mutation_fence(self, run: Callable[[], Awaitable[R]]) -> R:
        """Wait for running mutations to drain, then run `run` exclusively."""
        if self._inside.get():
            return await run()
        if self._exclusive_lock is None:
            # Created lazily so the fence binds to the loop that first uses it.
            self._exclusive_lock = asyncio.Lock()
        self._pending_exclusive += 1
        try:
            async with self._exclusive_lock:
                await self._drained.wait()
                token = self._inside.set(True)
                try:
                    return await run()
                finally:
                    self._inside.reset(token)
        finally:
            self._pending_exclusive -= 1
