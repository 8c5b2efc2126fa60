"""The Store contract, sessions and transcript: every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clawharness.errors import ConditionalWriteConflict, SessionNotFoundError, StoreError
from clawharness.records.session_meta import SessionMeta
from clawharness.store import NewEntry, SessionRecord, Store

StoreFactory = Callable[[], Awaitable[Store]]


def rec(key: str, sid: str = "sid-1", agent: str = "main", **kw: Any) -> SessionRecord:
    return SessionRecord(key=key, session_id=sid, agent_id=agent, **kw)


def msg(text: str, role: str = "user", **kw: Any) -> NewEntry:
    return NewEntry(role=role, content={"role": role, "content": text}, text=text, **kw)


async def test_a_new_store_satisfies_the_store_protocol(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.url


# sessions -------------------------------------------------------------------------------
async def test_created_session_reads_back_with_every_field(store: Store) -> None:
    made = await store.create_session(rec(
        "agent:main:a", model_ref="openai/gpt", agent_harness_id="codex",
        meta=SessionMeta(model_selection_locked=True, previous_session_id="s-0", label="mine",
                         extra={"channel": "cli", "nested": {"n": [1, 2.5, None, True]},
                                "uni": "héllo ✓"})))
    assert made.created_at > 0 and made.updated_at == made.created_at
    got = await store.get_session("agent:main:a")
    assert got == made
    assert await store.get_session("agent:main:missing") is None


async def test_creating_an_existing_key_conflicts_and_keeps_the_first_row(store: Store) -> None:
    first = await store.create_session(rec("agent:main:a", sid="one"))
    with pytest.raises(ConditionalWriteConflict, match="agent:main:a"):
        await store.create_session(rec("agent:main:a", sid="two"))
    assert await store.get_session("agent:main:a") == first


async def test_sessions_list_most_recently_updated_first_with_filters(store: Store) -> None:
    await store.create_session(rec("k1", created_at=100.0))
    await store.create_session(rec("k2", agent="other", created_at=200.0))
    await store.create_session(rec("k3", created_at=300.0))
    assert [s.key for s in await store.list_sessions()] == ["k3", "k2", "k1"]
    await store.update_session("k1", model_ref="m")  # now the most recent
    assert [s.key for s in await store.list_sessions()] == ["k1", "k3", "k2"]
    assert [s.key for s in await store.list_sessions(agent_id="main")] == ["k1", "k3"]
    assert [s.key for s in await store.list_sessions(limit=2)] == ["k1", "k3"]


async def test_update_sets_clears_and_replaces_fields_and_bumps_updated_at(store: Store) -> None:
    made = await store.create_session(rec("k", agent_harness_id="codex",
                                          meta=SessionMeta(extra={"a": 1, "b": 2}),
                                          created_at=1000.0))
    updated = await store.update_session("k", session_id="sid-2", agent_harness_id=None,
                                         meta=SessionMeta(reset_at=5.0, extra={"c": 3}))
    assert updated.session_id == "sid-2"
    assert updated.agent_harness_id is None
    assert updated.meta == SessionMeta(reset_at=5.0, extra={"c": 3})
    assert updated.created_at == made.created_at and updated.updated_at > made.updated_at
    assert await store.get_session("k") == updated


async def test_update_of_a_missing_session_or_unknown_field_is_refused(store: Store) -> None:
    with pytest.raises(SessionNotFoundError, match="nope"):
        await store.update_session("nope", model_ref="m")
    await store.create_session(rec("k"))
    with pytest.raises(StoreError, match="agent_id"):
        await store.update_session("k", agent_id="other")


async def test_a_store_reopened_on_the_same_database_sees_the_same_data(
    make_store: StoreFactory,
) -> None:
    first = await make_store()
    await first.create_session(rec("k"))
    await first.append_entries("k", "sid-1", [msg("kept")])
    await first.close()
    second = await make_store()
    assert (await second.get_session("k")) is not None
    assert [e.text for e in await second.read_entries("sid-1")] == ["kept"]


# transcript --------------------------------------------------------------------------------
async def test_appended_entries_read_back_in_order_with_content_intact(store: Store) -> None:
    odd = {"s": "nul \u0000 and ✓ and \"quotes\"", "n": [1, -2.5, 1e300], "t": True, "z": None}
    outs = await store.append_entries("k", "sid", [
        NewEntry("user", "plain string"),
        NewEntry("assistant", odd, metadata={"runId": "r1"}, text="searchable"),
        NewEntry("tool", [1, 2, 3]),
    ])
    assert [o.appended for o in outs] == [True, True, True]
    assert [o.entry.seq for o in outs] == [1, 2, 3]
    more = await store.append_entries("k", "sid", [NewEntry("user", None)])
    assert more[0].entry.seq == 4
    got = await store.read_entries("sid")
    assert [e.seq for e in got] == [1, 2, 3, 4]
    assert [e.content for e in got] == ["plain string", odd, [1, 2, 3], None]
    assert got[1].metadata == {"runId": "r1"} and got[0].metadata == {}
    assert got[1].text == "searchable" and got[0].text is None
    assert all(e.session_key == "k" and e.session_id == "sid" for e in got)
    assert [e.created_at for e in got[:3]] == [o.entry.created_at for o in outs]
    assert await store.count_entries("sid") == 4
    assert await store.read_entries("other-sid") == []


async def test_last_n_keeps_the_newest_in_seq_order_and_after_seq_filters(store: Store) -> None:
    await store.append_entries("k", "sid", [msg(f"m{i}") for i in range(1, 31)])
    assert [e.seq for e in await store.read_entries("sid", last=3)] == [28, 29, 30]
    assert [e.seq for e in await store.read_entries("sid", after_seq=27)] == [28, 29, 30]
    assert [e.seq for e in await store.read_entries("sid", after_seq=10, last=2)] == [29, 30]
    assert len(await store.read_entries("sid", last=100)) == 30
    assert await store.read_entries("sid", last=0) == []


async def test_an_idempotency_key_returns_the_stored_entry_and_never_duplicates(
    store: Store,
) -> None:
    first = await store.append_entries("k", "sid", [msg("one", idempotency_key="turn-1:0"),
                                                    msg("two", idempotency_key="turn-1:1")])
    retry = await store.append_entries("k", "sid", [msg("one again", idempotency_key="turn-1:0"),
                                                    msg("three", idempotency_key="turn-1:2")])
    assert [o.appended for o in retry] == [False, True]
    assert retry[0].entry == first[0].entry
    assert retry[1].entry.seq == 3
    same_call = await store.append_entries("k", "sid", [msg("x", idempotency_key="dup"),
                                                        msg("y", idempotency_key="dup")])
    assert [o.appended for o in same_call] == [True, False]
    assert same_call[1].entry.seq == same_call[0].entry.seq == 4
    assert [e.text for e in await store.read_entries("sid")] == ["one", "two", "three", "x"]
    # the key is per physical session
    other = await store.append_entries("k", "sid-2", [msg("fresh", idempotency_key="turn-1:0")])
    assert other[0].appended and other[0].entry.seq == 1


async def test_a_failing_entry_stores_none_of_its_call_and_spares_concurrent_calls(
    store: Store,
) -> None:
    async def good(i: int) -> None:
        await store.append_entries(f"k{i}", f"sid-{i}", [msg(f"a{i}"), msg(f"b{i}")])

    async def bad() -> None:
        await store.append_entries("k-bad", "sid-bad", [msg("ok"), msg("ok too"),
                                                        msg("empty role", role="")])

    results = await asyncio.gather(*(good(i) for i in range(10)), bad(),
                                   *(good(i) for i in range(10, 20)), return_exceptions=True)
    assert isinstance(results[10], StoreError)
    assert [r for i, r in enumerate(results) if i != 10] == [None] * 20
    assert await store.read_entries("sid-bad") == []
    for i in range(20):
        assert [e.text for e in await store.read_entries(f"sid-{i}")] == [f"a{i}", f"b{i}"]
    with pytest.raises(StoreError, match="JSON"):
        await store.append_entries("k", "sid-x", [msg("fine"), NewEntry("user", {1, 2})])
    assert await store.read_entries("sid-x") == []
    # the session still takes appends, numbered from 1
    outs = await store.append_entries("k-bad", "sid-bad", [msg("later")])
    assert outs[0].entry.seq == 1


async def test_truncate_removes_the_tail_and_later_appends_continue_after_the_cut(
    store: Store,
) -> None:
    await store.append_entries("k", "sid", [msg(f"zebra{i}" if i > 3 else f"m{i}")
                                            for i in range(1, 7)])
    assert await store.truncate_entries("sid", after_seq=3) == 3
    assert [e.seq for e in await store.read_entries("sid")] == [1, 2, 3]
    assert await store.truncate_entries("sid", after_seq=3) == 0
    assert (await store.append_entries("k", "sid", [msg("next")]))[0].entry.seq == 4
    assert await store.search("zebra4") == []


async def test_deleting_a_session_removes_every_entry_under_its_key(store: Store) -> None:
    await store.create_session(rec("k", sid="new"))
    await store.create_session(rec("other", sid="o"))
    await store.append_entries("k", "old", [msg("walrus old")])
    await store.append_entries("k", "new", [msg("walrus new")])
    await store.append_entries("other", "o", [msg("walrus other")])
    assert await store.delete_session("k") is True
    assert await store.get_session("k") is None
    assert await store.read_entries("old") == [] and await store.read_entries("new") == []
    assert [h.session_key for h in await store.search("walrus")] == ["other"]
    assert await store.delete_session("k") is False
    assert len(await store.read_entries("o")) == 1


async def test_fifty_concurrent_appends_to_one_session_each_land_once_in_order(
    store: Store,
) -> None:
    async def writer(i: int) -> list[int]:
        seqs = []
        for j in range(3):  # each writer's own entries must keep their order
            outs = await store.append_entries("k", "sid", [msg(f"w{i}-{j}")])
            seqs.append(outs[0].entry.seq)
        return seqs

    per_writer = await asyncio.gather(*(writer(i) for i in range(50)))
    got = await store.read_entries("sid")
    assert [e.seq for e in got] == list(range(1, 151))
    assert sorted(e.text or "" for e in got) == sorted(f"w{i}-{j}" for i in range(50)
                                                       for j in range(3))
    by_text = {e.text: e.seq for e in got}
    for i, seqs in enumerate(per_writer):
        assert seqs == sorted(seqs) and seqs == [by_text[f"w{i}-{j}"] for j in range(3)]


async def test_fifty_concurrent_appends_to_different_sessions_each_land_once(
    store: Store,
) -> None:
    await asyncio.gather(*(store.append_entries(f"k{i}", f"sid-{i}", [msg(f"x{i}"), msg(f"y{i}")])
                           for i in range(50)))
    for i in range(50):
        got = await store.read_entries(f"sid-{i}")
        assert [(e.seq, e.text) for e in got] == [(1, f"x{i}"), (2, f"y{i}")]


async def test_search_after_a_rewind_finds_the_new_tail_and_not_the_old(store: Store) -> None:
    await store.append_entries("k", "sid", [msg("kept alpha"), msg("gone beta"), msg("gone gamma")])
    assert len(await store.search("gone")) == 2  # indexed before the rewind
    await store.truncate_entries("sid", after_seq=1)
    await store.append_entries("k", "sid", [msg("fresh delta"), msg("fresh epsilon")])
    assert await store.search("gone") == []
    assert sorted(h.seq for h in await store.search("fresh")) == [2, 3]
    assert [h.text for h in await store.search("delta")] == ["fresh delta"]
    assert [h.seq for h in await store.search("kept")] == [1]


async def test_concurrent_retries_of_one_keyed_entry_store_it_once(store: Store) -> None:
    await store.append_entries("k", "sid", [msg("before", idempotency_key="a")])
    outs = await asyncio.gather(*(
        store.append_entries("k", "sid", [msg("before again", idempotency_key="a"),
                                          msg(f"retry {i}", idempotency_key="b")])
        for i in range(12)))
    assert all(not o[0].appended and o[0].entry.seq == 1 for o in outs)
    fresh = [o[1] for o in outs if o[1].appended]
    assert len(fresh) == 1
    assert {o[1].entry.seq for o in outs} == {2}
    assert {o[1].entry.text for o in outs} == {fresh[0].entry.text}
    assert [e.seq for e in await store.read_entries("sid")] == [1, 2]


async def test_large_entries_read_back_intact(store: Store) -> None:
    big = [{"output": (f"line {i} " * 20_000)} for i in range(3)]  # ~140k chars each
    await store.append_entries("k", "sid", [NewEntry("tool", b) for b in big])
    assert [e.content for e in await store.read_entries("sid", last=3)] == big
    assert [e.content for e in await store.read_entries("sid")] == big


async def test_text_with_a_nul_character_is_stored_and_searchable(store: Store) -> None:
    outs = await store.append_entries("k", "sid", [NewEntry("tool", "x", text="bin\x00ary output")])
    assert outs[0].appended
    (got,) = await store.read_entries("sid")
    assert (got.text or "").replace("\x00", "") == "binary output"  # PostgreSQL drops the NUL
    assert [h.seq for h in await store.search("output")] == [1]
