"""The process pool against the fake app-server: bounds, pinning, eviction, crashes."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from codex_fake_rig import alive, eventually, fake_config, kill

from clawharness.harnesses.codex.errors import CodexPoolClosedError
from clawharness.harnesses.codex.pool import AppServerPool

MakePool = Callable[..., AppServerPool]


@pytest.fixture
async def make_pool(tmp_path: Path) -> AsyncIterator[MakePool]:
    pools: list[AppServerPool] = []

    def make(**overrides: object) -> AppServerPool:
        config = dataclasses.replace(fake_config(tmp_path / "log.jsonl"), **overrides)
        pool = AppServerPool(config, home_root=tmp_path / "homes", client_version="1.0")
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        await pool.close()
        assert not any(alive(pid) for pid in pool.pids), "a process outlived close()"


async def test_a_busy_process_is_never_evicted_the_next_acquirer_waits(
        make_pool: MakePool) -> None:
    pool = make_pool(max_processes=1, max_threads_per_process=1)
    first = await pool.acquire("main", None)
    first.mark_loaded("thread-a")
    waiting = asyncio.create_task(pool.acquire("main", None))
    for _ in range(20):  # give the waiter every chance to (wrongly) evict
        await asyncio.sleep(0)
    assert not waiting.done()
    assert not first.process.closing and alive(first.process.pid)
    pool.release(first)
    second = await asyncio.wait_for(waiting, 5)
    assert second.process is not first.process  # the idle one was replaced
    assert not alive(first.process.pid)
    assert pool.peak == 1 and pool.live_count == 1
    pool.release(second)


async def test_a_loaded_thread_is_always_served_by_its_process(make_pool: MakePool) -> None:
    pool = make_pool(max_processes=2, max_threads_per_process=4)
    held = await pool.acquire("main", None)
    held.mark_loaded("thread-a")
    pool.release(held)
    again = await pool.acquire("main", "thread-a")
    assert again.loaded and again.process is held.process
    other = await pool.acquire("main", None)  # room left: same process, two turns in flight
    assert other.process is held.process and held.process.active == 2
    pool.release(again)
    pool.release(other)


async def test_threads_of_one_agent_fill_a_process_before_another_starts(
        make_pool: MakePool) -> None:
    pool = make_pool(max_processes=3, max_threads_per_process=2)
    slots = [await pool.acquire("main", None) for _ in range(3)]
    for n, held in enumerate(slots):
        held.mark_loaded(f"t{n}")
    assert len({h.process.pid for h in slots}) == 2
    other_agent = await pool.acquire("other", None)
    assert other_agent.process.home != slots[0].process.home
    assert pool.live_count == 3
    for held in (*slots, other_agent):
        pool.release(held)


async def test_concurrent_first_turns_share_one_starting_process(make_pool: MakePool) -> None:
    pool = make_pool(max_processes=4, max_threads_per_process=4)
    slots = await asyncio.gather(*(pool.acquire("main", None) for _ in range(3)))
    assert len(pool.pids) == 1 and {h.process.pid for h in slots} == {pool.pids[0]}
    assert slots[0].process.active == 3 and slots[0].process.reserved == 3
    for held in slots:
        pool.release(held)
    assert slots[0].process.active == 0 and slots[0].process.reserved == 0


async def test_a_crashed_process_leaves_and_its_thread_resumes_elsewhere(
        make_pool: MakePool) -> None:
    pool = make_pool(max_processes=1)
    held = await pool.acquire("main", None)
    held.mark_loaded("thread-a")
    pool.release(held)
    kill(held.process.pid)
    await asyncio.wait_for(held.client.wait_closed(), 5)
    assert pool.live_count == 0 and pool.process_of("thread-a") is None
    again = await pool.acquire("main", "thread-a")
    assert not again.loaded and again.process.pid != held.process.pid
    pool.release(again)


async def test_an_idle_process_is_closed_after_the_idle_timeout(make_pool: MakePool) -> None:
    pool = make_pool(idle_timeout_seconds=0.2)
    held = await pool.acquire("main", None)
    # pinned for ten reaper rounds (0.05 s each) past the timeout: it must stay
    await asyncio.sleep(0.7)
    assert pool.live_count == 1 and not held.client.closed
    pool.release(held)
    await eventually(lambda: pool.live_count == 0, what="the idle process to close")
    assert not alive(held.process.pid)


async def test_a_closed_pool_refuses_new_turns(make_pool: MakePool) -> None:
    pool = make_pool()
    held = await pool.acquire("main", None)
    pool.release(held)
    await pool.close()
    assert not alive(held.process.pid)
    with pytest.raises(CodexPoolClosedError):
        await pool.acquire("main", None)


async def test_each_agent_home_gets_the_config_toml(make_pool: MakePool, tmp_path: Path) -> None:
    import tomllib

    pool = make_pool(config={"model_provider": "mock", "features": {"goals": False}})
    held = await pool.acquire("agent/with:odd chars", None)
    home = Path(held.process.home)
    assert home.parent == tmp_path / "homes" and "/" not in home.name
    written = tomllib.loads((home / "config.toml").read_text())
    assert written["model_provider"] == "mock"
    assert written["features"]["goals"] is False and written["features"]["plugins"] is False
    assert written["check_for_update_on_startup"] is False
    pool.release(held)


async def test_a_retired_process_finishes_its_turns_first_and_serves_no_new_one(
        make_pool: MakePool) -> None:
    pool = make_pool(max_processes=2, max_threads_per_process=4)
    held = await pool.acquire("main", None)
    held.mark_loaded("thread-a")
    pool.retire_when_idle(held.process)
    assert alive(held.process.pid) and not held.client.closed  # its turn is in flight
    fresh = await pool.acquire("main", None)
    assert fresh.process is not held.process
    waiting = asyncio.create_task(pool.acquire("main", "thread-a"))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not waiting.done()  # the thread's writer is still the retiring process
    pool.release(held)
    moved = await asyncio.wait_for(waiting, 5)
    assert not alive(held.process.pid)
    assert not moved.loaded and moved.process is fresh.process  # resumed elsewhere
    pool.release(moved)
    pool.release(fresh)
