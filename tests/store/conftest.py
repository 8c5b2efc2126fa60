"""Fixtures for the store tests: the same suite runs over SQLite and PostgreSQL.

PostgreSQL tests use the server at CLAWHARNESS_TEST_PG_URL (default: the local test
database) and a fresh schema per test, dropped afterwards; they are skipped, with the
reason, when no server answers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from store_test_support import (
    PG_URL,
    StoreFactory,
    drop_schema,
    new_schema_name,
    pg_unavailable,
)

from clawharness.store import Store
from clawharness.store.postgres import PostgresStore
from clawharness.store.sqlite import SqliteStore


@pytest.fixture(params=["sqlite", "postgres"])
async def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreFactory]:
    """Opens stores over ONE backing database (a file, or a schema); closes them after."""
    backend = request.param
    if backend == "postgres" and (reason := pg_unavailable()):
        pytest.skip(reason)
    schema = new_schema_name()
    opened: list[Store] = []

    async def factory() -> Store:
        store: Store
        if backend == "sqlite":
            store = SqliteStore(tmp_path / "store.db")
        else:
            store = PostgresStore(PG_URL, schema=schema)
        await store.open()
        opened.append(store)
        return store

    try:
        yield factory
    finally:
        for store in opened:
            await store.close()
        if backend == "postgres":
            drop_schema(schema)


@pytest.fixture
async def store(make_store: StoreFactory) -> Store:
    """One open store, SQLite or PostgreSQL."""
    return await make_store()
