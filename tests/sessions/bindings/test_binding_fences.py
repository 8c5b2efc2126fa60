"""Rule 3 and scenario 47: mutation fences around an exclusive native operation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clawharness.sessions.bindings import (
    MutationBlockedError,
    MutationFence,
    NativeSessionBindingLifecycle,
)


async def test_scenario_47_mutation_while_archive_pending_is_blocked(
        lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
    in_mutation = asyncio.Event()
    finish_mutation = asyncio.Event()
    archive_ran = asyncio.Event()
    order: list[str] = []

    async def slow_mutation() -> None:
        in_mutation.set()
        await finish_mutation.wait()
        order.append("mutation done")

    async def archive() -> str:
        order.append("archive")
        # Inside the exclusive operation, binding mutations still work.
        await lifecycle.transact("k", lambda cur, tok: (None, {"archived": True}))
        archive_ran.set()
        return "archived"

    first = asyncio.create_task(lifecycle.with_mutation(slow_mutation))
    await in_mutation.wait()
    fence = asyncio.create_task(lifecycle.with_exclusive_mutation_fence(archive))
    await asyncio.sleep(0)
    with pytest.raises(MutationBlockedError, match=r"mutation blocked .* retry"):
        await lifecycle.with_mutation(slow_mutation)
    assert not archive_ran.is_set()  # still waiting for the running mutation to drain
    finish_mutation.set()
    assert await asyncio.wait_for(fence, 5) == "archived"
    await first
    assert order == ["mutation done", "archive"]
    # Once the exclusive operation is over, mutations are admitted again.
    assert await lifecycle.read("k") == {"archived": True}
    ran: list[int] = []

    async def quick() -> None:
        ran.append(1)

    await lifecycle.with_mutation(quick)
    assert ran == [1]


async def test_exclusive_operations_run_one_after_another() -> None:
    fence = MutationFence(operation="a native archive")
    active = 0
    peak = 0

    async def exclusive() -> None:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01)
        active -= 1

    await asyncio.gather(*(fence.with_exclusive_mutation_fence(exclusive) for _ in range(3)))
    assert peak == 1
    assert not fence.exclusive_pending and fence.active_mutations == 0


async def test_blocked_message_names_the_operation() -> None:
    fence = MutationFence(operation="a native archive")
    gate = asyncio.Event()

    async def hold() -> None:
        await gate.wait()

    task = asyncio.create_task(fence.with_exclusive_mutation_fence(hold))
    await asyncio.sleep(0)
    with pytest.raises(MutationBlockedError, match="while a native archive is in progress; retry"):
        await fence.with_mutation(hold)
    gate.set()
    await task
