"""The Store contract: a new session's row and its first entries in one call
(`create_session_with_entries`), as `create_session` then `append_entries` would leave
them. Every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from clawharness.errors import ConditionalWriteConflict, SessionLeaseLostError
from clawharness.store import NewEntry, SessionLease, SessionRecord, Store


def msg(text: str, key: str | None = None) -> NewEntry:
    return NewEntry(role="user", content={"role": "user", "content": text}, text=text,
                    idempotency_key=key)


async def lease(store: Store, key: str) -> SessionLease:
    got = await store.acquire_session_lease(key, holder="test", ttl=30.0)
    assert isinstance(got, SessionLease)
    return got


async def test_the_row_and_the_entries_are_made_together(store: Store) -> None:
    fence = await lease(store, "agent:main:n")
    made, outcomes = await store.create_session_with_entries(
        SessionRecord("agent:main:n", "sid-n", "main", model_ref="p/m"),
        [msg("one", "r:0"), msg("two", "r:1")], fence=fence)
    assert not isinstance(outcomes, Exception)
    assert [(o.entry.seq, o.appended) for o in outcomes] == [(1, True), (2, True)]
    assert made.updated_at == made.created_at  # the row as create_session returns it
    row = await store.get_session("agent:main:n")
    assert row is not None and (row.session_id, row.model_ref) == ("sid-n", "p/m")
    assert row.updated_at >= outcomes[-1].entry.created_at  # as the append's touch leaves it
    assert [e.text for e in await store.read_entries("sid-n")] == ["one", "two"]
    more = await store.append_entries("agent:main:n", "sid-n", [msg("three", "r:2")],
                                      fence=fence)
    assert [o.entry.seq for o in more] == [3]


async def test_an_existing_key_conflicts_and_nothing_is_written(store: Store) -> None:
    first = await store.create_session(SessionRecord("agent:main:x", "sid-1", "main"))
    with pytest.raises(ConditionalWriteConflict, match="agent:main:x"):
        await store.create_session_with_entries(
            SessionRecord("agent:main:x", "sid-2", "main"), [msg("lost")])
    assert await store.get_session("agent:main:x") == first
    assert await store.read_entries("sid-2") == []


async def test_a_lost_lease_refuses_the_entries_but_the_row_is_made(store: Store) -> None:
    stale = await lease(store, "agent:main:l")
    assert await store.release_session_lease(stale)
    await lease(store, "agent:main:l")  # another writer's now
    made, outcome = await store.create_session_with_entries(
        SessionRecord("agent:main:l", "sid-l", "main"), [msg("refused")], fence=stale)
    assert isinstance(outcome, SessionLeaseLostError)
    assert await store.get_session("agent:main:l") == made
    assert await store.read_entries("sid-l") == []


async def test_no_entries_is_create_session(store: Store) -> None:
    made, outcomes = await store.create_session_with_entries(
        SessionRecord("agent:main:e", "sid-e", "main"), [])
    assert outcomes == [] and await store.get_session("agent:main:e") == made
