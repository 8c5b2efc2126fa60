"""The turn event relay on a real PostgreSQL: rows of finished turns are deleted in
batches, and what waits to be deleted goes when the relay closes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
import pytest_asyncio
from cluster_rig import PG_URL

from clawharness.cluster import events
from clawharness.cluster.events import TurnEventRelay

pytestmark = pytest.mark.integration


@pytest_asyncio.fixture
async def relay() -> AsyncIterator[TurnEventRelay]:
    schema = f"relay_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    opened = TurnEventRelay(f"{PG_URL}?options=-csearch_path%3D{schema}")
    await opened.open()
    try:
        yield opened
    finally:
        await opened.close()
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _count_statements(relay: TurnEventRelay) -> list[str]:
    said: list[str] = []
    execute = relay._execute

    async def counted(query: str, params: Any) -> Any:
        said.append(query.split()[0])
        return await execute(query, params)

    relay._execute = counted  # type: ignore[method-assign]
    return said


async def test_finished_turns_rows_are_deleted_together_not_one_statement_each(
        relay: TurnEventRelay) -> None:
    turns = [f"turn-{n}" for n in range(5)]
    for turn in turns:
        await relay.append(turn, "result", {"terminal": "ok"})
    said = _count_statements(relay)
    for turn in turns:
        relay.discard_soon(turn)
    assert all([await relay.read(turn) for turn in turns])  # not yet: the batch gathers
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while any([await relay.read(turn) for turn in turns]):
        assert loop.time() < deadline, "the finished turns' rows were never deleted"
        await asyncio.sleep(events.DISCARD_BATCH_SECONDS / 4)
    assert said.count("DELETE") == 1


async def test_rows_waiting_to_be_deleted_go_when_the_relay_closes(
        relay: TurnEventRelay, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "DISCARD_BATCH_SECONDS", 60.0)
    await relay.append("turn-late", "result", {"terminal": "ok"})
    relay.discard_soon("turn-late")
    await asyncio.wait_for(relay.close(), 5)  # does not wait out the batch window
    reader = TurnEventRelay(relay._url)
    try:
        assert await reader.read("turn-late") == []
    finally:
        await reader.close()


async def test_a_turn_finished_while_a_batch_is_deleted_goes_in_the_next_batch(
        relay: TurnEventRelay) -> None:
    for turn in ("turn-first", "turn-late"):
        await relay.append(turn, "result", {"terminal": "ok"})
    discard = relay.discard

    async def discard_while_another_finishes(*turn_ids: str) -> None:
        if "turn-first" in turn_ids:
            relay.discard_soon("turn-late")  # arrives while this batch is in flight
        await discard(*turn_ids)

    relay.discard = discard_while_another_finishes  # type: ignore[method-assign]
    relay.discard_soon("turn-first")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while await relay.read("turn-first") or await relay.read("turn-late"):
        assert loop.time() < deadline, "a turn finished mid-batch was left for close()"
        await asyncio.sleep(events.DISCARD_BATCH_SECONDS / 4)
