"""The turn inspector's records (a versioned migration): every test runs on SQLite and
PostgreSQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from clawharness.errors import StoreError
from clawharness.store import SessionRecord, Store, StoredTurnRecord
from clawharness.store.sqlite import SqliteStore


async def put(store: Store, run_id: str, key: str, session_id: str, at: float,
              body: dict[str, object]) -> None:
    await store.put_turn_records([StoredTurnRecord(run_id, key, session_id, at, body)])


def record(run_id: str, **extra: object) -> dict[str, object]:
    return {"run_id": run_id, "terminal": "ok", "timeline": [{"kind": "tool.start",
                                                             "at_ms": 1.5}], **extra}


async def test_records_round_trip_newest_first_and_replace(store: Store) -> None:
    await put(store, "r1", "agent:main:a", "s1", 100.0, record("r1"))
    await put(store, "r2", "agent:main:a", "s1", 200.0, record("r2"))
    await put(store, "r3", "agent:main:b", "s2", 150.0, record("r3"))
    assert await store.get_turn_record("r1") == record("r1")
    assert await store.get_turn_record("nope") is None
    listed = await store.list_turn_records("agent:main:a")
    assert [r["run_id"] for r in listed] == ["r2", "r1"]
    assert [r["run_id"] for r in await store.list_turn_records("agent:main:a", limit=1)] == [
        "r2"]
    await put(store, "r1", "agent:main:a", "s1", 100.0, record("r1", terminal="failed"))
    again = await store.get_turn_record("r1")
    assert again is not None and again["terminal"] == "failed"


async def test_deleting_a_session_deletes_its_records(store: Store) -> None:
    await store.create_session(SessionRecord(key="agent:main:a", session_id="s1",
                                             agent_id="main"))
    await put(store, "r1", "agent:main:a", "s1", 1.0, record("r1"))
    await put(store, "r2", "agent:main:b", "s2", 1.0, record("r2"))
    assert await store.delete_session("agent:main:a")
    assert await store.get_turn_record("r1") is None
    assert await store.get_turn_record("r2") is not None


async def test_a_batch_is_one_transaction_and_a_bad_record_stores_none(store: Store) -> None:
    good = StoredTurnRecord("ok1", "agent:main:a", "s1", 1.0, record("ok1"))
    bad = StoredTurnRecord("bad", "agent:main:a", "s1", 2.0, {"x": float("nan")})
    with pytest.raises(StoreError, match="turn record 'bad'"):
        await store.put_turn_records([good, bad])
    assert await store.get_turn_record("ok1") is None
    await store.put_turn_records([good, StoredTurnRecord("ok2", "agent:main:a", "s1", 2.0,
                                                         record("ok2"))])
    assert len(await store.list_turn_records("agent:main:a")) == 2


async def test_a_record_that_is_not_json_is_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="turn record 'r1'"):
        await put(store, "r1", "agent:main:a", "s1", 1.0, {"bad": float("nan")})


async def test_a_schema_3_sqlite_file_migrates_to_4_keeping_its_sessions(
        tmp_path: Path) -> None:
    from clawharness.store import sqlite as sqlite_mod

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for version in (1, 2, 3):
        for stmt in sqlite_mod._MIGRATIONS[version]:
            conn.execute(stmt)
    conn.execute("INSERT INTO sessions (key, session_id, agent_id, created_at, updated_at, "
                 "meta) VALUES ('agent:main:old', 's0', 'main', 1, 1, '{}')")
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    store = SqliteStore(path)
    await store.open()
    try:
        assert (await store.get_session("agent:main:old")) is not None
        await put(store, "r1", "agent:main:old", "s0", 1.0, record("r1"))
        assert await store.get_turn_record("r1") == record("r1")
    finally:
        await store.close()
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == sqlite_mod.SCHEMA_VERSION
    check.close()
