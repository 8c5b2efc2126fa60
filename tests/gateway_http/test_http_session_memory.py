"""Which session a response or a client tool call belongs to, kept in a real store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clawharness.gateway.openai_http.memory import NAMESPACE, SessionMemory
from clawharness.store.sqlite import SqliteStore


class Clock:
    def __init__(self) -> None:
        self.now = 5_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "store.db")
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()


async def test_another_process_of_the_store_recalls_what_one_remembered(
        store: SqliteStore) -> None:
    await SessionMemory(store).remember("response", "resp_1", "agent:main:a")
    await SessionMemory(store).remember("call", "call_1", "agent:main:b", caller="alice")
    other = SessionMemory(store)  # nothing in its own memory
    assert await other.recall("response", "resp_1") == "agent:main:a"
    assert await other.recall("call", "call_1", caller="alice") == "agent:main:b"
    # a call is the caller's own
    assert await other.recall("call", "call_1", caller="bob") is None
    assert all("alice" not in row.key and "call_1" not in row.key
               for row in await store.state_list(NAMESPACE))


async def test_a_reused_call_id_names_its_newest_session_and_old_ones_are_forgotten(
        store: SqliteStore) -> None:
    clock = Clock()
    memory = SessionMemory(store, ttl=100, clock=clock)
    await memory.remember("call", "call_1", "agent:main:old")
    await memory.remember("call", "call_1", "agent:main:new")
    assert await SessionMemory(store, clock=clock).recall("call", "call_1") == "agent:main:new"
    clock.now += 101
    assert await SessionMemory(store, ttl=100, clock=clock).recall("call", "call_1") is None
    assert await memory.sweep() == 1


async def test_without_a_store_the_newest_are_kept_in_memory() -> None:
    memory = SessionMemory(None)
    await memory.remember("response", "resp_9", "agent:main:x")
    assert await memory.recall("response", "resp_9") == "agent:main:x"
    assert await memory.recall("response", "resp_0") is None
