"""SQLite: a lease release or a spend row nobody waits for (`wait=False`), and the turn
inspector's records, are written at once on the loop's connection and committed with
the next inline write, or a few milliseconds later; every other way of writing or reading commits it first, and a
failed write that shared its transaction does not take it down."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clawharness.errors import StoreError
from clawharness.store import Amount, SessionLease, SpendRecord
from clawharness.store.sqlite import SqliteStore
from clawharness.store.turn_records import StoredTurnRecord

KEY = "agent:main:k"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    made = SqliteStore(tmp_path / "deferred.db")
    await made.open()
    try:
        yield made
    finally:
        await made.close()


async def take(store: SqliteStore, key: str = KEY) -> SessionLease:
    got = await store.acquire_session_lease(key, holder="me", ttl=30)
    assert isinstance(got, SessionLease)
    return got


def held_in_file(path: Path, key: str = KEY) -> bool:
    """What another process reads in the file (committed rows only)."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT token FROM session_leases WHERE session_key = ?",
                           (key,)).fetchone()
        return row is not None and row[0] is not None
    finally:
        conn.close()


async def until_free_in_file(path: Path, key: str = KEY) -> None:
    deadline = time.monotonic() + 10
    while held_in_file(path, key):
        assert time.monotonic() < deadline, "the release was never committed"
        await asyncio.sleep(0.001)


async def test_a_release_commits_with_the_next_inline_write(store: SqliteStore) -> None:
    lease = await take(store)
    small = store._small
    assert small is not None
    seen: list[str] = []
    small.set_trace_callback(seen.append)
    try:
        assert await store.release_session_lease(lease, wait=False)
        assert small.in_transaction and held_in_file(store.path)  # not committed yet
        nxt = await take(store)  # the next turn's lease, same session: one transaction
        assert nxt.fence == lease.fence + 1
    finally:
        small.set_trace_callback(None)
    assert seen.count("BEGIN IMMEDIATE") == 1 and seen.count("COMMIT") == 1, seen
    assert not small.in_transaction
    assert held_in_file(store.path)  # the new lease, committed


async def test_a_release_alone_commits_by_itself_soon(store: SqliteStore) -> None:
    lease = await take(store)
    assert await store.release_session_lease(lease, wait=False)
    await until_free_in_file(store.path)
    assert store._small is not None and not store._small.in_transaction


async def test_close_stores_a_pending_release(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "close.db")
    await store.open()
    lease = await take(store)
    await store.release_session_lease(lease, wait=False)
    await store.close()
    assert not held_in_file(tmp_path / "close.db")


async def test_writes_through_the_thread_and_blocking_calls_commit_it_first(
        store: SqliteStore) -> None:
    lease = await take(store)
    await store.release_session_lease(lease, wait=False)
    # a blocking plugin-state write on the loop would wait on the open transaction
    assert store.state_insert_if_absent_sync("ns", "k", {"v": 1}) is not None
    assert not held_in_file(store.path)
    lease = await take(store)
    await store.release_session_lease(lease, wait=False)
    await store.state_insert_if_absent("ns", "k2", {"v": 2})  # through the writer thread
    assert not held_in_file(store.path)


async def test_a_failing_write_in_its_transaction_does_not_lose_the_release(
        store: SqliteStore) -> None:
    lease = await take(store)
    await store.release_session_lease(lease, wait=False)

    def bad(conn: sqlite3.Connection) -> None:  # violates the role CHECK: rolled back
        conn.execute("INSERT INTO transcript_entries (session_key, session_id, seq, role, "
                     "content, created_at) VALUES (?, 's', 1, '', 'x', 0)", (KEY,))

    with pytest.raises(StoreError):
        await store._write_small(bad)
    await until_free_in_file(store.path)
    assert (await take(store)).fence == lease.fence + 1


async def test_a_spend_row_written_behind_goes_with_the_next_write_and_reads_see_it(
        store: SqliteStore) -> None:
    record = SpendRecord(run_id="r1", day="2026-12-01", at=time.time(), agent_id="main",
                         session_key=KEY, provider="p", model="m", runtime="openclaw",
                         terminal="ok", input_tokens=3, output_tokens=1, nano_usd=7, ms=5)
    assert await store.settle_budget(record, (), Amount(), holds=False, wait=False)
    assert store._small is not None and store._small.in_transaction
    # a read in a reader thread (another connection) commits it first
    [day] = await store.summarize_spend(since=0, by="day")
    assert (day.turns, day.nano_usd) == (1, 7)
    assert not store._small.in_transaction


async def test_turn_records_commit_with_the_next_inline_write(store: SqliteStore) -> None:
    record = StoredTurnRecord("run-1", KEY, "sid", 1.0, {"run_id": "run-1"})
    await store.put_turn_records([record])
    small = store._small
    assert small is not None and small.in_transaction  # left open for the next write
    assert await store.get_turn_record("run-1") == {"run_id": "run-1"}  # seen here already
    await take(store)  # the next turn's lease commits them with it
    assert not small.in_transaction
    conn = sqlite3.connect(store.path)  # as another process reads the file
    try:
        assert conn.execute("SELECT count(*) FROM turn_records").fetchone()[0] == 1
    finally:
        conn.close()
