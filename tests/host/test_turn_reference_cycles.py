"""A finished turn is freed by reference counting: it leaves nothing in reference cycles.

Garbage in cycles waits for the cyclic collector, whose young collections walk every
object of every turn in flight: with many sessions at once that walk, not the turns,
becomes the host's work (docs/performance.md). So a turn's objects must not point back
at one another once it is over. Each test runs a few warm turns, then counts what the
collector finds after more turns (`gc.DEBUG_SAVEALL` keeps it in `gc.garbage`).
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from clawharness.host import Host

READ_THEN_ANSWER = {"responses": [
    {"match": "^go", "repeat": True,
     "tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]},
    {"match": "hello data", "repeat": True, "text": "done"},
]}


@pytest.fixture
def collector_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    gc.set_debug(0)
    gc.garbage.clear()
    if was_enabled:
        gc.enable()


async def cyclic_garbage_of(turn: Callable[[int], Awaitable[None]], *, turns: int = 3) -> Counter[str]:
    """The types of what `turns` more turns leave to the cyclic collector."""
    for i in range(2):  # first-use caches and lazily made parts are not garbage
        await turn(i)
    await asyncio.sleep(0)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for i in range(turns):
            await turn(100 + i)
        await asyncio.sleep(0)
        gc.collect()
    finally:
        gc.set_debug(0)
    found = Counter(type(thing).__qualname__ for thing in gc.garbage)
    gc.garbage.clear()
    return found


@pytest.fixture
async def in_process_host(tmp_path: Path) -> AsyncIterator[Host]:
    """A host whose model is the in-process scripted transport (`api: scripted`): the
    HTTP clients' own objects are not the host's (httpx keeps each response and its
    stream in a cycle, one per request, beside a network round trip)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "data.txt").write_text("hello data\n")
    config = {
        "models": {"providers": {"local": {"api": "scripted", "models": [
            {"id": "m", "params": {"script": READ_THEN_ANSWER}}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(workspace)}},
        "tools": {"allow": ["read"]},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
        yield host


async def test_a_tool_turn_on_a_new_session_leaves_no_cycles(
    in_process_host: Host, collector_paused: None,
) -> None:
    async def turn(i: int) -> None:
        result = await in_process_host.run_turn(f"s{i}", "go")
        assert (result.terminal, result.text) == ("ok", "done")

    assert await cyclic_garbage_of(turn) == Counter()


async def test_tool_turns_on_one_session_leave_no_cycles(
    in_process_host: Host, collector_paused: None,
) -> None:
    async def turn(i: int) -> None:
        result = await in_process_host.run_turn("one", f"go {i}")
        assert (result.terminal, result.text) == ("ok", "done")

    assert await cyclic_garbage_of(turn) == Counter()
