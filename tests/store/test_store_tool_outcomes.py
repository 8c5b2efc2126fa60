"""The tool-call ledger on SQLite and PostgreSQL: a claim is made once, an outcome is
committed once, and both survive reopening the store (another process's view)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from clawharness.errors import StoreError
from clawharness.store import ToolCallKey
from clawharness.store.sqlite import SCHEMA_VERSION, SqliteStore

KEY = ToolCallKey("sess-1", "run-1", "call-1")


async def test_the_first_claim_is_fresh_and_a_later_one_finds_it(make_store) -> None:
    first = await make_store()
    claim = await first.claim_tool_call(KEY, tool_name="append", state_changing=True)
    assert claim.fresh and not claim.record.committed and claim.record.outcome is None
    assert claim.record.state_changing and claim.record.tool_name == "append"
    # another process (a retried turn on another worker) sees the same row, not fresh
    other = await make_store()
    again = await other.claim_tool_call(KEY, tool_name="append", state_changing=True)
    assert not again.fresh and again.record.started_at == claim.record.started_at
    # keys differing in any part are distinct calls
    for key in (ToolCallKey("sess-2", "run-1", "call-1"), ToolCallKey("sess-1", "run-2", "call-1"),
                ToolCallKey("sess-1", "run-1", "call-2")):
        assert (await other.claim_tool_call(key, tool_name="x", state_changing=False)).fresh


async def test_an_outcome_commits_once_and_is_replayed_from_any_process(make_store) -> None:
    first = await make_store()
    await first.claim_tool_call(KEY, tool_name="append", state_changing=True)
    outcome = {"content": [{"type": "text", "text": "appended 1 line"}]}
    record = await first.commit_tool_outcome(KEY, outcome=outcome, is_error=False)
    assert record.committed and record.outcome == outcome and not record.is_error
    # a second commit (a zombie attempt) does not replace the first
    late = await first.commit_tool_outcome(
        KEY, outcome={"content": [{"type": "text", "text": "other"}]}, is_error=True)
    assert late.outcome == outcome and not late.is_error
    other = await make_store()
    seen = await other.claim_tool_call(KEY, tool_name="append", state_changing=True)
    assert not seen.fresh and seen.record.committed and seen.record.outcome == outcome


async def test_an_outcome_without_a_claim_is_refused(make_store) -> None:
    store = await make_store()
    with pytest.raises(StoreError, match="never claimed"):
        await store.commit_tool_outcome(KEY, outcome={}, is_error=False)


async def test_concurrent_claims_make_exactly_one_fresh(make_store) -> None:
    stores = [await make_store() for _ in range(3)]
    claims = await asyncio.gather(*(s.claim_tool_call(KEY, tool_name="t", state_changing=True)
                                    for s in stores for _ in range(3)))
    assert sum(c.fresh for c in claims) == 1


async def test_a_version_4_sqlite_file_migrates_to_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    with sqlite3.connect(path) as conn:  # back to v4: no ledger table
        conn.execute("DROP TABLE tool_outcomes")
        conn.execute("PRAGMA user_version = 4")
    assert SCHEMA_VERSION >= 5  # the ledger came with v5
    store = SqliteStore(path)
    await store.open()
    try:
        assert (await store.claim_tool_call(KEY, tool_name="t", state_changing=True)).fresh
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_a_version_3_postgres_schema_migrates_to_the_ledger() -> None:
    import psycopg
    from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

    from clawharness.store.postgres import SCHEMA_VERSION as PG_VERSION
    from clawharness.store.postgres import PostgresStore

    if reason := pg_unavailable():
        pytest.fail(reason)
    schema = new_schema_name()
    try:
        store = PostgresStore(PG_URL, schema=schema)
        await store.open()
        await store.close()
        with psycopg.connect(PG_URL, autocommit=True) as conn:  # back to v3
            conn.execute(f'DROP TABLE "{schema}".tool_outcomes')
            conn.execute(f'UPDATE "{schema}".schema_version SET version = 3')
        assert PG_VERSION >= 4  # the ledger came with v4
        store = PostgresStore(PG_URL, schema=schema)
        await store.open()
        try:
            assert (await store.claim_tool_call(KEY, tool_name="t", state_changing=True)).fresh
        finally:
            await store.close()
        with psycopg.connect(PG_URL) as conn:
            row = conn.execute(f'SELECT version FROM "{schema}".schema_version').fetchone()
            assert row is not None and row[0] == PG_VERSION
    finally:
        drop_schema(schema)
