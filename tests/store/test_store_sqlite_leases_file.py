"""SQLite specifics of the store file and its writer leases: an empty (truncated) file
is refused, a new file is created once even when processes race, a version 2 file gains
the lease tables, and lease writes never block the event loop on another's write lock."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from clawharness.errors import StoreCorruptError
from clawharness.store import NewEntry, SessionLease
from clawharness.store import _sqlite_sql as q
from clawharness.store.sqlite import SCHEMA_VERSION, SqliteStore


async def test_a_store_file_truncated_to_zero_bytes_is_refused_and_left_untouched(
        tmp_path: Path) -> None:
    path = tmp_path / "clawharness.db"
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "sid", [NewEntry("user", "precious")])
    await store.close()
    path.write_bytes(b"")  # what a crashed copy or `> clawharness.db` leaves
    os.utime(path, (1_000_000, 1_000_000))
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(StoreCorruptError) as info:
        await SqliteStore(path).open()
    text = str(info.value)
    assert str(path) in text and "0 bytes" in text
    assert "backup" in text and "move it aside" in text
    assert path.stat().st_size == 0 and path.stat().st_mtime == 1_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == before


async def test_an_empty_file_beside_its_wal_says_so(tmp_path: Path) -> None:
    path = tmp_path / "clawharness.db"
    path.write_bytes(b"")
    Path(f"{path}-wal").write_bytes(b"x" * 4096)
    with pytest.raises(StoreCorruptError, match=r"clawharness\.db-wal of 4096 bytes"):
        await SqliteStore(path).open()
    assert path.stat().st_size == 0


async def test_a_path_that_does_not_exist_yet_is_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "new.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    assert path.stat().st_size > 0
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(".")) == []
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_processes_creating_one_new_store_at_once_all_open_the_same_file(
        tmp_path: Path) -> None:
    path = tmp_path / "raced.db"
    go = tmp_path / "go"
    code = (
        "import asyncio, os, sys, time\n"
        "from clawharness.store.sqlite import SqliteStore\n"
        "from clawharness.store import SessionRecord\n"
        "path, go, n = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "while not os.path.exists(go): time.sleep(0.001)\n"
        "async def main():\n"
        "    s = SqliteStore(path)\n"
        "    await s.open()\n"
        "    await s.create_session(SessionRecord(f'agent:main:p{n}', n, 'main'))\n"
        "    await s.close()\n"
        "asyncio.run(main())\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(go), str(n)],
                              stderr=subprocess.PIPE) for n in range(6)]
    go.touch()
    errors = [p.communicate(timeout=120)[1].decode() for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, errors
    with sqlite3.connect(path) as conn:
        keys = sorted(r[0] for r in conn.execute("SELECT key FROM sessions"))
    assert keys == [f"agent:main:p{n}" for n in range(6)]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


async def test_a_version_2_file_gains_the_lease_tables_and_keeps_its_data(
        tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        for stmt in (*q.SCHEMA_V1, *q.MIGRATION_V2):
            conn.execute(stmt)
        conn.execute("PRAGMA user_version = 2")
        conn.execute("INSERT INTO sessions VALUES ('agent:main:old', 's', 'main', NULL, NULL, "
                     "1, 1, '{}')")
    store = SqliteStore(path)
    await store.open()
    try:
        assert await store.get_session("agent:main:old") is not None
        lease = await store.acquire_session_lease("agent:main:old", holder="A", ttl=5)
        assert isinstance(lease, SessionLease) and lease.fence == 1
    finally:
        await store.close()


async def test_lease_writes_queue_behind_another_processs_write_lock_without_blocking(
        tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    store = SqliteStore(path)
    await store.open()
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process is in a write transaction
        acquiring = asyncio.create_task(
            store.acquire_session_lease("agent:main:k", holder="A", ttl=5))
        ticks = 0
        while ticks < 50:  # the event loop keeps running meanwhile
            await asyncio.sleep(0)
            ticks += 1
        assert not acquiring.done()
        other.execute("COMMIT")
        lease = await asyncio.wait_for(acquiring, 20)
        assert isinstance(lease, SessionLease)
        assert store.writer_stats["requests"] >= 1  # it went through the writer thread
    finally:
        other.close()
        await store.close()


async def test_inline_lease_writes_have_the_writer_checkpoint_the_wal(tmp_path: Path) -> None:
    """The inline connection never checkpoints (it must not stall the event loop), so
    every 500 of its commits the writer thread is asked to."""
    store = SqliteStore(tmp_path / "wal.db")
    await store.open()
    try:
        assert store.writer_stats["checkpoints"] == 0
        for i in range(3000):  # 6,000 small commits
            lease = await store.acquire_session_lease(f"agent:main:k{i % 20}", holder="A",
                                                      ttl=5)
            assert isinstance(lease, SessionLease)
            assert await store.release_session_lease(lease)
        deadline = asyncio.get_running_loop().time() + 20
        while store.writer_stats["checkpoints"] < 5:
            assert asyncio.get_running_loop().time() < deadline, store.writer_stats
            await asyncio.sleep(0.001)
    finally:
        await store.close()
