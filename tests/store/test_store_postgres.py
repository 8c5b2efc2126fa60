"""PostgreSQL store specifics: schema versions, several hosts on one database."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

from clawharness.errors import StoreError
from clawharness.store import NewEntry
from clawharness.store.postgres import SCHEMA_VERSION, PostgresStore


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


async def test_a_v1_schema_is_migrated_to_session_leases_keeping_its_data(schema: str) -> None:
    from clawharness.store import _postgres_sql as q

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path = "{schema}"')
        conn.execute(q.VERSION_TABLE)
        for stmt in q.SCHEMA_V1:
            conn.execute(stmt)
        conn.execute(q.SET_VERSION, (1,))
        conn.execute("INSERT INTO sessions (key, session_id, agent_id, created_at, updated_at) "
                     "VALUES ('agent:main:old', 's', 'main', 1, 1)")
    store = PostgresStore(PG_URL, schema=schema)
    await store.open()
    try:
        assert (await store.get_session("agent:main:old")) is not None
        lease = await store.acquire_session_lease("agent:main:old", holder="A", ttl=5)
        assert getattr(lease, "fence", None) == 1
    finally:
        await store.close()


async def test_a_takeover_waits_for_a_fenced_write_in_flight(schema: str) -> None:
    """The fence check holds the lease row FOR SHARE until the write commits, so a
    successor cannot take over between a writer's check and its commit."""
    from clawharness.store import SessionLease

    a, b = PostgresStore(PG_URL, schema=schema), PostgresStore(PG_URL, schema=schema)
    await a.open()
    await b.open()
    try:
        old = await a.acquire_session_lease("k", holder="A", ttl=0.2)
        assert isinstance(old, SessionLease)
        with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as writer:
            # what a fenced append does first, in its own transaction
            writer.execute("SELECT token FROM session_leases WHERE session_key = 'k' FOR SHARE")
            deadline = asyncio.get_running_loop().time() + 10
            while (await b.session_lease_state("k")).held:
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.01)
            takeover = asyncio.create_task(b.acquire_session_lease("k", holder="B", ttl=30))
            with psycopg.connect(PG_URL, autocommit=True) as watch:
                while not watch.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND query LIKE '%INSERT INTO session_leases%'").fetchone()[0]:
                    assert asyncio.get_running_loop().time() < deadline, "takeover never blocked"
                    assert not takeover.done(), "the takeover did not wait for the write"
                    await asyncio.sleep(0.01)
            assert not takeover.done()
            writer.commit()
        won = await asyncio.wait_for(takeover, 10)
        assert isinstance(won, SessionLease) and won.fence == 2
    finally:
        await a.close()
        await b.close()


async def test_a_client_frozen_inside_a_fenced_write_cannot_block_a_takeover(
        schema: str) -> None:
    from clawharness.store import SessionLease

    a = PostgresStore(PG_URL, schema=schema, idle_in_transaction_timeout=0.5)
    b = PostgresStore(PG_URL, schema=schema)
    await a.open()
    await b.open()
    try:
        old = await a.acquire_session_lease("k", holder="A", ttl=0.2)
        assert isinstance(old, SessionLease)
        frozen = await a._connect()  # one of a's own connections
        await frozen.execute("BEGIN")
        await frozen.execute("SELECT token FROM session_leases WHERE session_key = 'k' FOR SHARE")
        # ... and the client stops here, as a process under SIGSTOP would
        deadline = asyncio.get_running_loop().time() + 10
        while (await b.session_lease_state("k")).held:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
        won = await asyncio.wait_for(b.acquire_session_lease("k", holder="B", ttl=30), 20)
        assert isinstance(won, SessionLease) and won.fence == 2
        with pytest.raises(psycopg.Error):
            await frozen.execute("SELECT 1")
        await frozen.close()
    finally:
        await a.close()
        await b.close()


async def test_a_release_wakes_the_waiters_watching_that_session(schema: str) -> None:
    from clawharness.store import SessionLease, SessionLeaseBusy

    a, b = PostgresStore(PG_URL, schema=schema), PostgresStore(PG_URL, schema=schema)
    other_schema = new_schema_name()
    c = PostgresStore(PG_URL, schema=other_schema)
    await a.open()
    await b.open()
    await c.open()
    try:
        held = await a.acquire_session_lease("k", holder="A", ttl=30)
        assert isinstance(held, SessionLease)
        busy = await b.acquire_session_lease("k", holder="B", ttl=30)
        assert isinstance(busy, SessionLeaseBusy)
        watch, elsewhere = b.watch_session_lease("k"), c.watch_session_lease("k")
        unrelated = b.watch_session_lease("other")
        deadline = asyncio.get_running_loop().time() + 10
        while not (watch.notifies and elsewhere.notifies):
            assert asyncio.get_running_loop().time() < deadline, "never listening"
            await asyncio.sleep(0.01)
        assert await a.release_session_lease(held)
        assert await watch.wait(10)  # woken by the release, not by the timeout
        assert not await unrelated.wait(0.2)
        assert not await elsewhere.wait(0.2)  # the same key in another schema
        await a.leave_session_lease_queue("k", busy.ticket)
        assert await watch.wait(10)  # a waiter leaving moves the queue: wake up too
        for w in (watch, elsewhere, unrelated):
            w.close()
    finally:
        for store in (a, b, c):
            await store.close()
        drop_schema(other_schema)


async def test_a_schema_2_database_migrates_to_3_adding_turn_records(
        schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawharness.store import SessionRecord, StoredTurnRecord
    from clawharness.store import postgres as postgres_mod

    monkeypatch.setattr(postgres_mod, "SCHEMA_VERSION", 2)
    old = PostgresStore(PG_URL, schema=schema)
    await old.open()
    await old.create_session(SessionRecord(key="agent:main:old", session_id="s0",
                                           agent_id="main"))
    await old.close()
    with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(2,)]
        assert conn.execute("SELECT to_regclass('turn_records')").fetchone() == (None,)
    monkeypatch.setattr(postgres_mod, "SCHEMA_VERSION", SCHEMA_VERSION)
    store = PostgresStore(PG_URL, schema=schema)
    await store.open()
    try:
        assert await store.get_session("agent:main:old") is not None
        await store.put_turn_records([StoredTurnRecord("r1", "agent:main:old", "s0", 1.0,
                                                       {"run_id": "r1"})])
        assert await store.get_turn_record("r1") == {"run_id": "r1"}
    finally:
        await store.close()
    with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


async def test_a_schema_4_database_migrates_to_5_and_its_transcript_appends_on(
        schema: str) -> None:
    """v5 moved the append into one statement (a plpgsql function); a v4 transcript keeps
    its seqs and idempotency keys across the upgrade."""
    store = PostgresStore(PG_URL, schema=schema)
    await store.open()
    await store.append_entries("k", "sid", [NewEntry("user", "before", idempotency_key="i1")])
    await store.close()
    with psycopg.connect(PG_URL, autocommit=True, options=f"-c search_path={schema}") as conn:
        conn.execute("DROP FUNCTION clawharness_append_entries")
        conn.execute("UPDATE schema_version SET version = 4")
    store = PostgresStore(PG_URL, schema=schema)
    await store.open()
    try:
        again, after = await store.append_entries("k", "sid", [
            NewEntry("user", "replayed", idempotency_key="i1"), NewEntry("assistant", "after")])
        assert (again.appended, again.entry.seq, again.entry.content) == (False, 1, "before")
        assert (after.appended, after.entry.seq) == (True, 2)
        assert [e.content for e in await store.read_entries("sid")] == ["before", "after"]
    finally:
        await store.close()
    with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


async def test_a_schema_7_database_migrates_to_8_adding_the_childs_caller(
        schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from clawharness.store import SubagentRecord
    from clawharness.store import postgres as postgres_mod

    monkeypatch.setattr(postgres_mod, "SCHEMA_VERSION", 7)
    old = PostgresStore(PG_URL, schema=schema)
    await old.open()
    await old.close()
    with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as conn:
        conn.execute("INSERT INTO subagents (child_key, parent_key, run_id, agent_id, status, "
                      "depth, task, context, created_at, heartbeat_at) VALUES "
                      "('agent:main:subagent:old', 'agent:main:boss', 'r0', 'main', 'ok', 1, "
                      "'t', 'fresh', 1.0, 1.0)")
    monkeypatch.setattr(postgres_mod, "SCHEMA_VERSION", SCHEMA_VERSION)
    store = PostgresStore(PG_URL, schema=schema)
    await store.open()
    try:
        before = await store.get_subagent("agent:main:subagent:old")
        assert before is not None and before.caller is None
        await store.register_subagent(SubagentRecord(
            child_key="agent:main:subagent:new", parent_key="agent:main:boss", run_id="r1",
            agent_id="main", status="queued", depth=1, task="t", caller="alice"))
        new = await store.get_subagent("agent:main:subagent:new")
        assert new is not None and new.caller == "alice"
    finally:
        await store.close()
    with psycopg.connect(PG_URL, options=f"-c search_path={schema}") as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(8,)]
