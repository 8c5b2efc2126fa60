"""The Store contract, search and plugin state: every test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest

from clawharness.store import NewEntry, Store


def msg(text: str, role: str = "user") -> NewEntry:
    return NewEntry(role=role, content={"content": text}, text=text)


async def seed(store: Store) -> None:
    await store.append_entries("agent:main:a", "sid-a", [
        msg("the quick brown fox jumps"),                       # seq 1
        msg("lazy dogs sleep all day", role="assistant"),       # seq 2
        msg("foxes and dogs are friends sometimes"),            # seq 3
    ])
    await store.append_entries("agent:main:b", "sid-b", [
        msg("a fox in session b"),                              # seq 1
        msg("nothing to see here"),                             # seq 2
    ])


# search ------------------------------------------------------------------------------
async def test_search_finds_a_word_across_sessions_newest_first_among_equals(
    store: Store,
) -> None:
    await seed(store)
    hits = await store.search("fox")
    assert [(h.session_key, h.seq) for h in hits] == [("agent:main:b", 1), ("agent:main:a", 1)]
    assert hits[0].session_id == "sid-b" and hits[0].role == "user"
    assert hits[0].text == "a fox in session b"


async def test_search_with_two_terms_needs_both(store: Store) -> None:
    await seed(store)
    assert [h.seq for h in await store.search("dogs friends")] == [3]
    assert [h.seq for h in await store.search("lazy DOGS")] == [2]
    assert await store.search("fox friends") == []


async def test_a_trailing_star_is_a_prefix_search(store: Store) -> None:
    await seed(store)
    hits = await store.search("fox*")
    assert sorted((h.session_key, h.seq) for h in hits) == [
        ("agent:main:a", 1), ("agent:main:a", 3), ("agent:main:b", 1)]
    assert [h.seq for h in await store.search("frien* dog*")] == [3]


async def test_search_filtered_by_session_key_only_sees_that_session(store: Store) -> None:
    await seed(store)
    hits = await store.search("fox*", session_key="agent:main:a")
    assert sorted((h.session_key, h.seq) for h in hits) == [("agent:main:a", 1), ("agent:main:a", 3)]
    assert await store.search("fox", session_key="agent:main:none") == []


async def test_search_ranks_the_better_match_first_and_honours_the_limit(store: Store) -> None:
    await store.append_entries("k", "sid", [
        msg("otter otter otter river"),                          # many mentions, older
        *(msg(f"filler words number {i} about a river") for i in range(5)),
        msg("one otter among many many other words in a long sentence here"),
    ])
    hits = await store.search("otter")
    assert [h.seq for h in hits] == [1, 7]
    assert hits[0].score > hits[1].score
    assert len(await store.search("river", limit=2)) == 2


@pytest.mark.parametrize("query", [
    'fox" OR dogs', "NEAR(fox dogs)", "fox AND", "* fox", "-fox", "fox:", "(fox", "'fox'",
    "text : fox", "^fox", "fox OR",
])
async def test_search_syntax_in_user_text_is_never_an_error(store: Store, query: str) -> None:
    await seed(store)
    hits = await store.search(query)
    assert all("fox" in h.text for h in hits)


async def test_a_query_with_no_words_finds_nothing(store: Store) -> None:
    await seed(store)
    assert await store.search("") == []
    assert await store.search("  *** -- ") == []
    assert await store.search("fox", limit=0) == []


# plugin state -----------------------------------------------------------------------------
async def test_insert_if_absent_creates_generation_one_once(store: Store) -> None:
    first = await store.state_insert_if_absent("ns", "k", {"v": 1}, lease_token="t1",
                                               lease_expires_at=123.5)
    assert first is not None
    assert (first.generation, first.value, first.lease_token, first.lease_expires_at) == (
        1, {"v": 1}, "t1", 123.5)
    assert await store.state_insert_if_absent("ns", "k", {"v": 2}) is None
    assert await store.state_get("ns", "k") == first
    assert await store.state_get("ns", "missing") is None


async def test_update_if_writes_only_at_the_expected_generation(store: Store) -> None:
    await store.state_insert_if_absent("ns", "k", "v1", lease_token="t1", lease_expires_at=10.0)
    second = await store.state_update_if("ns", "k", 1, "v2")
    assert second is not None and (second.generation, second.value) == (2, "v2")
    assert second.lease_token is None and second.lease_expires_at is None  # lease replaced
    assert await store.state_update_if("ns", "k", 1, "stale") is None
    assert await store.state_update_if("ns", "missing", 1, "x") is None
    third = await store.state_update_if("ns", "k", 2, [3], lease_token="t3", lease_expires_at=9.0)
    assert third is not None and (third.generation, third.lease_token) == (3, "t3")
    assert await store.state_get("ns", "k") == third


async def test_delete_if_deletes_only_at_the_expected_generation(store: Store) -> None:
    await store.state_insert_if_absent("ns", "k", 1)
    await store.state_update_if("ns", "k", 1, 2)
    assert await store.state_delete_if("ns", "k", 1) is False
    assert (await store.state_get("ns", "k")) is not None
    assert await store.state_delete_if("ns", "k", 2) is True
    assert await store.state_get("ns", "k") is None
    assert await store.state_delete_if("ns", "k", 2) is False
    again = await store.state_insert_if_absent("ns", "k", 3)
    assert again is not None and again.generation == 1


async def test_state_list_filters_by_namespace_and_prefix_in_key_order(store: Store) -> None:
    for key in ("b:2", "a:1", "b:1", "b", "c"):
        await store.state_insert_if_absent("ns", key, key)
    await store.state_insert_if_absent("other", "b:3", "x")
    assert [r.key for r in await store.state_list("ns")] == ["a:1", "b", "b:1", "b:2", "c"]
    assert [r.key for r in await store.state_list("ns", prefix="b:")] == ["b:1", "b:2"]
    assert await store.state_list("ns", prefix="zz") == []
    assert await store.state_list("empty") == []


async def test_sync_and_async_views_share_rows_and_conflicts(store: Store) -> None:
    made = store.state_insert_if_absent_sync("ns", "lease", {"owner": "a"}, lease_token="tok",
                                             lease_expires_at=50.0)
    assert made is not None and await store.state_get("ns", "lease") == made
    assert await store.state_insert_if_absent("ns", "lease", {"owner": "b"}) is None
    bumped = await store.state_update_if("ns", "lease", 1, {"owner": "a", "n": 2},
                                         lease_token="tok", lease_expires_at=60.0)
    assert store.state_get_sync("ns", "lease") == bumped
    assert store.state_update_if_sync("ns", "lease", 1, {"stale": True}) is None
    third = store.state_update_if_sync("ns", "lease", 2, {"owner": "c"})
    assert third is not None and third.generation == 3
    assert await store.state_delete_if("ns", "lease", 2) is False
    assert store.state_delete_if_sync("ns", "lease", 3) is True
    assert await store.state_get("ns", "lease") is None
    assert store.state_get_sync("ns", "lease") is None


async def test_racing_conditional_updates_let_exactly_one_writer_win(store: Store) -> None:
    await store.state_insert_if_absent("ns", "k", 0)
    results = await asyncio.gather(
        *(store.state_update_if("ns", "k", 1, i) for i in range(10)),
        *(asyncio.to_thread(store.state_update_if_sync, "ns", "k", 1, 100 + i) for i in range(10)),
    )
    winners = [r for r in results if r is not None]
    assert len(winners) == 1 and winners[0].generation == 2
    assert await store.state_get("ns", "k") == winners[0]
