"""PostgreSQL store specifics: schema versions, several hosts on one database."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

from clawharness.errors import StoreError
from clawharness.store.base import SCHEMA_VERSION, NewEntry
from clawharness.store.postgres import PostgresStore


@pytest.fixture
def schema() -> Iterator[str]:
    if reason := pg_unavailable():
        pytest.skip(reason)
    name = new_schema_name()
    yield name
    drop_schema(name)


async def test_hosts_opening_one_schema_at_once_migrate_it_once(schema: str) -> None:
    stores = [PostgresStore(PG_URL, schema=schema) for _ in range(4)]
    await asyncio.gather(*(s.open() for s in stores))
    with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    for s in stores:
        await s.close()


async def test_a_schema_from_a_newer_version_is_refused(schema: str) -> None:
    store = PostgresStore(PG_URL, schema=schema)
    await store.open()
    await store.close()
    with psycopg.connect(PG_URL, autocommit=True, options=f"-c search_path={schema}") as conn:
        conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 3,))
    with pytest.raises(StoreError, match="newer than this clawharness supports"):
        await PostgresStore(PG_URL, schema=schema).open()


async def test_two_hosts_appending_to_one_session_get_dense_unique_seqs(schema: str) -> None:
    a, b = PostgresStore(PG_URL, schema=schema), PostgresStore(PG_URL, schema=schema)
    await a.open()
    await b.open()
    try:
        async def host(store: PostgresStore, name: str) -> None:
            for i in range(25):
                await store.append_entries("k", "sid", [NewEntry("user", f"{name}{i}",
                                                                 text=f"{name} {i}")])

        await asyncio.gather(*(host(s, f"{n}{w}") for s, n in ((a, "a"), (b, "b"))
                               for w in range(4)))
        got = await a.read_entries("sid")
        assert [e.seq for e in got] == list(range(1, 201))
        assert len({e.content for e in got}) == 200
    finally:
        await a.close()
        await b.close()


async def test_a_bad_schema_name_or_unreachable_server_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="plain identifier"):
        PostgresStore(PG_URL, schema="x; DROP TABLE y")
    store = PostgresStore("postgresql://nobody:secret@127.0.0.1:1/none", connect_timeout=2)
    with pytest.raises(StoreError) as info:
        await store.open()
    assert "secret" not in str(info.value)
