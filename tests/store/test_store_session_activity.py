"""A session's activity as the store shows it: every test runs on SQLite and PostgreSQL.

A turn appends to its session's transcript and nothing else, so the append itself is
what moves the row's `updated_at` ("most recently used first"). A reset gives the key
a new physical session: the previous one's entries stay stored but are no longer
searchable, and a deletion leaves nothing searchable under the key.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from clawharness.store import NewEntry, SessionRecord, Store
from clawharness.store.sqlite import SqliteStore

StoreFactory = Callable[[], Awaitable[Store]]
LONG_AGO = 1_000_000.0


def msg(text: str, role: str = "user") -> NewEntry:
    return NewEntry(role=role, content={"role": role, "content": text}, text=text)


async def make(store: Store, key: str, sid: str, at: float = LONG_AGO) -> SessionRecord:
    return await store.create_session(SessionRecord(key=key, session_id=sid, agent_id="main",
                                                    created_at=at, updated_at=at))


async def test_an_append_moves_the_sessions_updated_at_and_keeps_created_at(store: Store) -> None:
    made = await make(store, "agent:main:work", "w1")
    before = time.time()
    await store.append_entries("agent:main:work", "w1", [msg("first turn")])
    got = await store.get_session("agent:main:work")
    assert got is not None
    assert got.created_at == made.created_at == LONG_AGO
    assert got.updated_at >= before
    first = got.updated_at
    await store.append_entries("agent:main:work", "w1", [msg("second turn")])
    again = await store.get_session("agent:main:work")
    assert again is not None and again.updated_at >= first and again.created_at == LONG_AGO


async def test_the_session_used_last_is_listed_first(store: Store) -> None:
    await make(store, "agent:main:work", "w1", at=LONG_AGO)
    await make(store, "agent:main:other", "o1", at=LONG_AGO + 10)
    assert [s.key for s in await store.list_sessions()] == ["agent:main:other", "agent:main:work"]
    await store.append_entries("agent:main:work", "w1", [msg("a second turn on work")])
    assert [s.key for s in await store.list_sessions()] == ["agent:main:work", "agent:main:other"]
    await store.append_entries("agent:main:other", "o1", [msg("now other again")])
    assert [s.key for s in await store.list_sessions()] == ["agent:main:other", "agent:main:work"]


async def test_appends_batched_together_each_move_their_own_session(store: Store) -> None:
    import asyncio

    for i in range(5):
        await make(store, f"agent:main:s{i}", f"sid{i}", at=LONG_AGO + i)
    await asyncio.gather(*(store.append_entries(f"agent:main:s{i}", f"sid{i}", [msg(f"x{i}")])
                           for i in (0, 2)))
    rows = {s.key: s for s in await store.list_sessions()}
    assert rows["agent:main:s0"].updated_at > LONG_AGO + 4
    assert rows["agent:main:s2"].updated_at > LONG_AGO + 4
    assert [rows[f"agent:main:s{i}"].updated_at for i in (1, 3, 4)] == [
        LONG_AGO + 1, LONG_AGO + 3, LONG_AGO + 4]


async def test_a_late_append_to_a_replaced_physical_session_does_not_move_the_row(
    store: Store,
) -> None:
    await make(store, "agent:main:work", "old")
    reset = await store.update_session("agent:main:work", session_id="new")
    await store.append_entries("agent:main:work", "old", [msg("a straggler")])
    got = await store.get_session("agent:main:work")
    assert got is not None and got.updated_at == reset.updated_at


async def test_entries_without_a_session_row_append_and_search_as_before(store: Store) -> None:
    await store.append_entries("agent:main:loose", "l1", [msg("loose walrus")])
    assert await store.get_session("agent:main:loose") is None
    assert [h.text for h in await store.search("walrus")] == ["loose walrus"]


# search after reset and delete -----------------------------------------------------------
async def test_after_a_reset_search_finds_only_the_new_physical_session(store: Store) -> None:
    await make(store, "agent:main:work", "before")
    await store.append_entries("agent:main:work", "before", [msg("buy milk"), msg("milk bought")])
    assert len(await store.search("milk")) == 2
    await store.update_session("agent:main:work", session_id="after")
    assert await store.search("milk") == []
    assert await store.search("milk", session_key="agent:main:work") == []
    await store.append_entries("agent:main:work", "after", [msg("oat milk this time")])
    hits = await store.search("milk")
    assert [(h.session_id, h.text) for h in hits] == [("after", "oat milk this time")]
    # the previous transcript is kept in the store, only no longer found
    assert [e.text for e in await store.read_entries("before")] == ["buy milk", "milk bought"]


async def test_a_reset_hides_only_that_keys_old_entries(store: Store) -> None:
    await make(store, "agent:main:work", "w1")
    await make(store, "agent:main:home", "h1")
    await store.append_entries("agent:main:work", "w1", [msg("milk at work")])
    await store.append_entries("agent:main:home", "h1", [msg("milk at home")])
    await store.update_session("agent:main:work", session_id="w2")
    assert [h.text for h in await store.search("milk")] == ["milk at home"]


async def test_stale_matches_do_not_crowd_out_the_current_ones(store: Store) -> None:
    await make(store, "agent:main:work", "old")
    await make(store, "agent:main:home", "h1")
    await store.append_entries("agent:main:home", "h1", [msg("milk at home")])
    await store.append_entries("agent:main:work", "old", [msg(f"milk {i}") for i in range(30)])
    await store.update_session("agent:main:work", session_id="new")
    hits = await store.search("milk", limit=5)
    assert [h.text for h in hits] == ["milk at home"]


async def test_after_a_delete_nothing_under_the_key_is_found(store: Store) -> None:
    await make(store, "agent:main:work", "w1")
    await store.append_entries("agent:main:work", "w1", [msg("milk list")])
    await store.update_session("agent:main:work", session_id="w2")
    await store.append_entries("agent:main:work", "w2", [msg("more milk")])
    assert await store.delete_session("agent:main:work") is True
    assert await store.search("milk") == []
    assert await store.read_entries("w1") == [] and await store.read_entries("w2") == []


async def test_reset_and_delete_hold_for_a_store_opened_later(make_store: StoreFactory) -> None:
    first = await make_store()
    await make(first, "agent:main:work", "w1")
    await make(first, "agent:main:gone", "g1")
    await first.append_entries("agent:main:work", "w1", [msg("milk old")])
    await first.append_entries("agent:main:gone", "g1", [msg("milk gone")])
    await first.update_session("agent:main:work", session_id="w2")
    await first.delete_session("agent:main:gone")
    await first.close()
    later = await make_store()
    assert await later.search("milk") == []


@pytest.mark.parametrize("lose_index", [False, True])
async def test_sqlite_search_file_rebuilt_after_a_reset_keeps_the_old_entries_hidden(
    tmp_path: Path, lose_index: bool,
) -> None:
    path = tmp_path / "store.db"
    store = SqliteStore(path)
    await store.open()
    await make(store, "agent:main:work", "w1")
    await store.append_entries("agent:main:work", "w1", [msg("milk old")])
    await store.update_session("agent:main:work", session_id="w2")
    await store.append_entries("agent:main:work", "w2", [msg("milk new")])
    await store.close()
    if lose_index:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}-search{suffix}").unlink(missing_ok=True)
    reopened = SqliteStore(path)
    await reopened.open()
    try:
        assert [h.text for h in await reopened.search("milk")] == ["milk new"]
    finally:
        await reopened.close()
