"""SQLite: small writes made on the event loop while the writer thread idles are made
inline (no hand-off to that thread), and mix safely with the writes that go through it."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from clawharness.store import NewEntry, SessionLease, SessionRecord
from clawharness.store.sqlite import SqliteStore


def msg(text: str, key: str | None = None) -> NewEntry:
    return NewEntry(role="user", content=text, text=text, idempotency_key=key)


async def test_appends_and_a_new_session_while_the_writer_idles_skip_its_thread(
        tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "inline.db")
    await store.open()
    try:
        before = store.writer_stats["requests"]
        await store.create_session(SessionRecord("agent:main:k", "sid", "main"))
        outs = await store.append_entries("agent:main:k", "sid",
                                          [msg("alpha one", "r:0"), msg("beta two", "r:1")])
        assert [o.entry.seq for o in outs] == [1, 2] and all(o.appended for o in outs)
        again = await store.append_entries("agent:main:k", "sid", [msg("alpha one", "r:0")])
        assert [(o.entry.seq, o.appended) for o in again] == [(1, False)]
        assert store.writer_stats["requests"] == before  # nothing went through the thread
        assert [e.text for e in await store.read_entries("sid")] == ["alpha one", "beta two"]
        hits = await store.search("beta")  # the inline append reached the search index
        assert [h.seq for h in hits] == [2]
    finally:
        await store.close()
    reopened = SqliteStore(tmp_path / "inline.db")
    await reopened.open()
    try:
        assert [e.seq for e in await reopened.read_entries("sid")] == [1, 2]
    finally:
        await reopened.close()


async def test_seqs_stay_dense_when_inline_appends_and_writer_batches_alternate(
        tmp_path: Path) -> None:
    """The writer thread caches each session's highest seq: an inline commit in between
    must not make it reuse one."""
    path = tmp_path / "mixed.db"
    store = SqliteStore(path)
    await store.open()
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        texts: list[str] = []
        for round_ in range(3):
            blocker.execute("BEGIN IMMEDIATE")  # the file is busy: this one queues
            queued = asyncio.ensure_future(
                store.append_entries("k", "s", [msg(f"queued {round_}")]))
            await asyncio.sleep(0)
            blocker.execute("COMMIT")
            await queued
            await store.append_entries("k", "s", [msg(f"inline {round_}")])
            texts += [f"queued {round_}", f"inline {round_}"]
        assert store.writer_stats["requests"] == 3
        entries = await store.read_entries("s")
        assert [e.seq for e in entries] == list(range(1, 7))
        assert [e.text for e in entries] == texts
    finally:
        blocker.close()
        await store.close()


async def test_a_task_appending_in_a_loop_does_not_starve_the_others(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "fair.db")
    await store.open()
    try:
        done = 0

        async def appender() -> None:
            nonlocal done
            for i in range(200):
                await store.append_entries("k", "s", [msg(f"m{i}")])
                done += 1

        task = asyncio.ensure_future(appender())
        seen: set[int] = set()
        while not task.done():  # this task gets the loop between the appender's appends
            seen.add(done)
            await asyncio.sleep(0)
        assert any(0 < d < 200 for d in seen), seen
        await task
    finally:
        await store.close()


async def test_many_sessions_appending_at_once_share_the_writers_commits(
        tmp_path: Path) -> None:
    """With many tasks ready on the loop, appends go to the writer thread, which commits
    them together (group commit), not one inline transaction each."""
    store = SqliteStore(tmp_path / "busy.db")
    await store.open()
    try:
        await asyncio.gather(*(store.append_entries(f"k{i}", f"s{i}", [msg(f"m{i}")])
                               for i in range(64)))
        assert store.writer_stats["max_batch"] > 8
        for i in range(64):
            assert [e.text for e in await store.read_entries(f"s{i}")] == [f"m{i}"]
    finally:
        await store.close()


async def test_listing_a_few_state_rows_reads_on_the_loop_and_many_in_a_thread(
        tmp_path: Path) -> None:
    """A session's steering offers (a few rows, mostly none) are listed at every tool
    boundary: an index seek on the event loop, no hop to a reader thread. A long listing
    still reads every row."""
    store = SqliteStore(tmp_path / "state.db")
    await store.open()
    try:
        for i in range(3):
            await store.state_insert_if_absent("ns", f"few/{i}", {"i": i})
        for i in range(100):
            await store.state_insert_if_absent("ns", f"many/{i:03d}", {"i": i})
        assert await store.state_list("ns", prefix="none/") == []
        few = await store.state_list("ns", prefix="few/")
        assert [r.value for r in few] == [{"i": 0}, {"i": 1}, {"i": 2}]
        assert store._read_conns == []  # no reader thread was needed
        many = await store.state_list("ns", prefix="many/")
        assert [r.value["i"] for r in many] == list(range(100))
        assert len(store._read_conns) == 1
    finally:
        await store.close()


async def test_a_batch_with_a_retried_row_in_the_middle_keeps_seqs_dense(
        tmp_path: Path) -> None:
    """An append's rows go in at once; a row whose key is stored already makes it take
    them back and go a row at a time: the retried row hands back the stored one and the
    others get the next seqs, with no gap."""
    store = SqliteStore(tmp_path / "retry.db")
    await store.open()
    try:
        await store.append_entries("k", "s", [msg("first", "r:0"), msg("second", "r:1")])
        outs = await store.append_entries(
            "k", "s", [msg("third", "r:2"), msg("first", "r:0"), msg("fourth", None)])
        assert [(o.entry.seq, o.entry.text, o.appended) for o in outs] == [
            (3, "third", True), (1, "first", False), (4, "fourth", True)]
        assert [(e.seq, e.text) for e in await store.read_entries("s")] == [
            (1, "first"), (2, "second"), (3, "third"), (4, "fourth")]
        # the same key twice in one batch: stored once
        twice = await store.append_entries("k", "s", [msg("fifth", "r:5"), msg("fifth", "r:5")])
        assert [(o.entry.seq, o.appended) for o in twice] == [(5, True), (5, False)]
        assert await store.count_entries("s") == 5
    finally:
        await store.close()


async def test_a_batch_of_queued_appends_checks_every_fence_and_fails_only_the_stale_one(
        tmp_path: Path) -> None:
    """Appends queued behind another process's write go to the writer thread as one
    group, whose lease rows are read at once: a stale fence among them fails alone."""
    path = tmp_path / "fences.db"
    store = SqliteStore(path)
    await store.open()
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        live = await store.acquire_session_lease("agent:main:live", holder="a", ttl=30)
        stale = await store.acquire_session_lease("agent:main:stale", holder="a", ttl=30)
        assert isinstance(live, SessionLease) and isinstance(stale, SessionLease)
        assert await store.release_session_lease(stale)
        await store.acquire_session_lease("agent:main:stale", holder="b", ttl=30)
        before = store.writer_stats["requests"]
        blocker.execute("BEGIN IMMEDIATE")  # the file is busy: every append queues
        pending = [
            asyncio.ensure_future(store.append_entries(
                "agent:main:live", "live", [msg(f"ok {i}")], fence=live)) for i in range(3)
        ] + [asyncio.ensure_future(store.append_entries(
            "agent:main:stale", "stale", [msg("late")], fence=stale))]
        await asyncio.sleep(0)
        blocker.execute("COMMIT")
        results = await asyncio.gather(*pending, return_exceptions=True)
        assert store.writer_stats["requests"] - before == 4  # through the writer thread
        assert [type(r).__name__ for r in results] == ["list"] * 3 + ["SessionLeaseLostError"]
        assert [e.text for e in await store.read_entries("live")] == ["ok 0", "ok 1", "ok 2"]
        assert await store.read_entries("stale") == []
    finally:
        blocker.close()
        await store.close()
