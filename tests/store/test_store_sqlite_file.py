"""SQLite store specifics: the file, its schema version, WAL, group commit, the index."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from clawharness.errors import StoreCorruptError, StoreError
from clawharness.store import NewEntry
from clawharness.store import sqlite as sqlite_mod
from clawharness.store.sqlite import SCHEMA_VERSION, SqliteStore


def msg(text: str, role: str = "user") -> NewEntry:
    return NewEntry(role=role, content=text, text=text)


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for `condition` to hold, polling; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.001)


async def test_a_file_of_garbage_is_refused_as_corrupt_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    garbage = b"these are my notes, not a database\n" * 300
    path.write_bytes(garbage)
    store = SqliteStore(path)
    with pytest.raises(StoreCorruptError, match=str(path)):
        await store.open()
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


async def test_a_file_with_a_sqlite_header_but_garbage_pages_is_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    data = b"SQLite format 3\x00" + bytes(range(256)) * 64
    path.write_bytes(data)
    with pytest.raises(StoreCorruptError, match=str(path)):
        await SqliteStore(path).open()
    assert path.read_bytes() == data


async def test_the_file_is_in_wal_mode_at_the_current_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "store.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "transcript_entries", "search_deletions", "plugin_state"} <= tables
    with sqlite3.connect(f"{path}-search") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"transcript_fts", "search_state"} <= tables


async def test_a_file_from_a_newer_version_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"newer than this clawharness supports"):
        await SqliteStore(path).open()
    assert path.read_bytes() == before


async def test_an_older_file_is_migrated_forward_keeping_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "sid", [msg("from version 1")])
    await store.close()
    # a release with a version 2 that adds an index
    monkeypatch.setitem(sqlite_mod._MIGRATIONS, SCHEMA_VERSION + 1,
                        ("CREATE INDEX transcript_by_role ON transcript_entries (role)",))
    monkeypatch.setattr(sqlite_mod, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    newer = SqliteStore(path)
    await newer.open()
    assert [e.text for e in await newer.read_entries("sid")] == ["from version 1"]
    await newer.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'transcript_by_role'"
                            ).fetchone() == (1,)


async def test_another_applications_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "theirs.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
    with pytest.raises(StoreError, match="not a clawharness store"):
        await SqliteStore(path).open()


async def test_one_failing_request_in_a_group_commit_fails_alone(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = SqliteStore(path)
    await store.open()
    # hold the write lock so every request below queues up into one batch
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    first = asyncio.ensure_future(store.append_entries("k0", "s0", [msg("first")]))
    writer = store._writer
    assert writer is not None
    await asyncio.sleep(0)  # a yield, not a wait: lets the task submit its request
    await until(writer._queue.empty)  # the writer has taken "first" and waits for the lock
    rest = [asyncio.ensure_future(store.append_entries(f"k{i}", f"s{i}", [msg(f"ok{i}")]))
            for i in range(1, 6)]
    bad = asyncio.ensure_future(store.append_entries("kb", "sb", [msg("fine"), msg("x", role="")]))
    rest += [asyncio.ensure_future(store.append_entries(f"k{i}", f"s{i}", [msg(f"ok{i}")]))
             for i in range(6, 11)]
    await asyncio.sleep(0)  # let every task submit its request (no waiting on time here)
    blocker.execute("COMMIT")
    blocker.close()
    await first
    await asyncio.gather(*rest)
    with pytest.raises(StoreError, match="CHECK constraint"):
        await bad
    for i in range(11):
        assert [e.text for e in await store.read_entries(f"s{i}")] == [
            "first" if i == 0 else f"ok{i}"]
    assert await store.read_entries("sb") == []
    assert store.writer_stats["max_batch"] >= 11  # the ten good ones and the bad one together
    await store.close()


async def test_the_search_index_stays_consistent_through_truncate_and_delete(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    store = SqliteStore(path)
    await store.open()
    for i in range(20):
        await store.append_entries(f"k{i % 3}", f"s{i % 3}", [msg(f"alpha beta {i}"),
                                                              NewEntry("tool", {"no": "text"})])
    await store.truncate_entries("s0", after_seq=4)
    await store.delete_session("k1")
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with sqlite3.connect(f"{path}-search") as conn:
        conn.execute("INSERT INTO transcript_fts (transcript_fts) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_writes_after_close_are_refused(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.db")
    await store.open()
    await store.close()
    with pytest.raises(StoreError, match="not open"):
        await store.append_entries("k", "s", [msg("late")])
    with pytest.raises(StoreError, match="not open"):
        store.state_get_sync("ns", "k")


async def test_a_cancelled_append_does_not_stall_the_writer(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.db")
    await store.open()
    task = asyncio.ensure_future(store.append_entries("k", "s", [msg("maybe")]))
    await asyncio.sleep(0)
    task.cancel()
    outs = await asyncio.wait_for(store.append_entries("k", "s", [msg("after")]), timeout=10)
    assert outs[0].entry.text == "after"
    await store.close()


async def test_two_stores_on_one_file_interleave_appends_without_seq_clashes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "shared.db"
    a, b = SqliteStore(path), SqliteStore(path)
    await a.open()
    await b.open()
    try:
        for i in range(10):  # each writer sees the other's commits before numbering
            await a.append_entries("k", "sid", [msg(f"a{i}")])
            await b.append_entries("k", "sid", [msg(f"b{i}")])
        await asyncio.gather(*(s.append_entries("k", "sid", [msg(f"c{i}-{n}")])
                               for i in range(10) for n, s in enumerate((a, b))))
        got = await a.read_entries("sid")
        assert [e.seq for e in got] == list(range(1, 41))
        assert len({e.text for e in got}) == 40
        assert len(await b.search("a3")) == 1
    finally:
        await a.close()
        await b.close()


async def test_writes_made_in_one_loop_iteration_while_the_writer_works_commit_together(
    tmp_path: Path,
) -> None:
    # A hundred turns in flight write while the writer thread works on an earlier batch;
    # between their writes the loop lets go of the GIL (a system call, here a sleep of a
    # millisecond), which would let the writer take each write on its own as it comes.
    # They reach the writer together once the loop has run them all: one transaction.
    store = SqliteStore(tmp_path / "store.db")
    await store.open()
    writer = store._writer
    assert writer is not None
    busy = threading.Event()
    earlier = asyncio.ensure_future(store._write(lambda conn: busy.wait(10)))
    await until(lambda: not writer.idle)

    async def turn(i: int) -> None:
        if i == 50:
            busy.set()  # the earlier batch ends while the turns go on
        time.sleep(0.001)
        await store.append_entries(f"k{i}", f"s{i}", [msg(f"m{i}")])

    before = writer.batches
    await asyncio.gather(*(turn(i) for i in range(100)))
    assert await earlier is True
    assert writer.batch_sizes[before:] == [1, 100]  # the earlier one, then the hundred
    for i in range(100):
        assert [e.text for e in await store.read_entries(f"s{i}")] == [f"m{i}"]
    await store.close()


async def test_writes_held_back_on_the_loop_are_stored_by_close(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    store = SqliteStore(path)
    await store.open()
    tasks = [asyncio.ensure_future(store.append_entries(f"k{i}", f"s{i}", [msg(f"m{i}")]))
             for i in range(20)]
    await asyncio.sleep(0)  # a yield: every task makes its write; most are held back
    await store.close()
    await asyncio.gather(*tasks)
    store = SqliteStore(path)
    await store.open()
    assert [len(await store.read_entries(f"s{i}")) for i in range(20)] == [1] * 20
    await store.close()


async def test_an_entry_that_is_not_json_is_refused_naming_it_and_nothing_is_stored(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    try:
        good = NewEntry(role="user", content={"text": "fine"}, metadata={"runId": "r"})
        with pytest.raises(StoreError, match="content of entry 1 is not JSON-serializable"):
            await store.append_entries("k", "sid", [good, NewEntry(role="user",
                                                                   content={"x": float("nan")})])
        with pytest.raises(StoreError, match="metadata of entry 0 is not JSON-serializable"):
            await store.append_entries("k", "sid", [NewEntry(role="user", content="c",
                                                             metadata={"at": object()})])
        assert await store.read_entries("sid") == []
    finally:
        await store.close()
