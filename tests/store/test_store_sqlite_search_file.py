"""The SQLite store's search index lives in `<store>-search`, derived and rebuildable."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from clawharness.store import NewEntry
from clawharness.store import _sqlite_sql as q
from clawharness.store.sqlite import SCHEMA_VERSION, SqliteStore


def msg(text: str) -> NewEntry:
    return NewEntry("user", {"text": text}, text=text)


async def texts_found(store: SqliteStore, query: str) -> list[str]:
    return sorted(h.text for h in await store.search(query, limit=50))


def fts_is_consistent(path: Path) -> bool:
    with sqlite3.connect(f"{path}-search") as conn:
        conn.execute("INSERT INTO transcript_fts (transcript_fts) VALUES ('integrity-check')")
        return bool(conn.execute("PRAGMA integrity_check").fetchone() == ("ok",))


async def test_a_missing_search_file_is_rebuilt_from_the_store(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "s", [msg("alpha one"), msg("alpha two")])
    await store.close()
    for suffix in ("-search", "-search-wal", "-search-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    again = SqliteStore(path)
    await again.open()
    assert await texts_found(again, "alpha") == ["alpha one", "alpha two"]
    await again.close()
    assert fts_is_consistent(path)


async def test_a_corrupt_or_foreign_search_file_is_replaced_and_the_store_kept(
        tmp_path: Path) -> None:
    path, other = tmp_path / "s.db", tmp_path / "other.db"
    for p in (path, other):
        store = SqliteStore(p)
        await store.open()
        await store.append_entries("k", "s", [msg(f"beta in {p.stem}")])
        await store.close()
    before = path.read_bytes()
    Path(f"{path}-search").write_bytes(b"garbage" * 100)
    store = SqliteStore(path)
    await store.open()
    assert await texts_found(store, "beta") == ["beta in s"]
    await store.close()
    shutil.copy(f"{other}-search", f"{path}-search")  # another store's index
    store = SqliteStore(path)
    await store.open()
    assert await texts_found(store, "beta") == ["beta in s"]
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM transcript_entries").fetchone() == (1,)
    assert len(path.read_bytes()) >= len(before) // 2  # the store file was never replaced


async def test_a_store_restored_from_an_older_copy_gets_a_fresh_index(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "s", [msg("gamma early")])
    await store.close()
    shutil.copy(path, tmp_path / "backup.db")
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "s", [msg("gamma late")])
    await store.close()
    shutil.copy(tmp_path / "backup.db", path)  # the index now covers an entry it lacks
    Path(f"{path}-wal").unlink(missing_ok=True)
    Path(f"{path}-shm").unlink(missing_ok=True)
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "s", [msg("gamma after restore")])
    assert await texts_found(store, "gamma") == ["gamma after restore", "gamma early"]
    await store.close()
    assert fts_is_consistent(path)


async def test_deleted_entries_leave_the_index_and_their_ids_are_never_reused(
        tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SqliteStore(path)
    await store.open()
    await store.append_entries("k", "s", [msg("delta keep"), msg("delta drop"), msg("delta gone")])
    assert len(await texts_found(store, "delta")) == 3  # indexed before the rewind
    await store.truncate_entries("s", after_seq=1)
    await store.append_entries("k", "s", [msg("epsilon new")])
    await store.append_entries("k", "s2", [msg("delta other")])
    await store.delete_session("k-none")
    assert await texts_found(store, "delta") == ["delta keep", "delta other"]
    assert await texts_found(store, "epsilon") == ["epsilon new"]
    # the index has let go of the deleted text, so the store forgets it too (the prune
    # was queued before the search returned; this write comes after it)
    await store.append_entries("k", "s3", [msg("zeta later")])
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM search_deletions").fetchone() == (0,)
    await store.close()
    with sqlite3.connect(path) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM transcript_entries ORDER BY id")]
    assert ids == [1, 4, 5, 6]
    assert fts_is_consistent(path)


async def test_a_version_1_file_is_migrated_and_its_entries_become_searchable(
        tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        for stmt in q.SCHEMA_V1:
            conn.execute(stmt)
        conn.execute("PRAGMA user_version = 1")
        for i, text in enumerate(["zeta first", "zeta second", "eta third"], start=1):
            conn.execute(q.INSERT_ENTRY, ("k", "s", i, "user", f'{{"text": "{text}"}}', "{}",
                                          None, text, 1.0))
        conn.execute("INSERT INTO transcript_fts (rowid, text, skey) SELECT id, text, 'k' "
                     "FROM transcript_entries")
        conn.execute("UPDATE search_index_state SET indexed_upto = 3")
    store = SqliteStore(path)
    await store.open()
    assert [e.text for e in await store.read_entries("s")] == ["zeta first", "zeta second",
                                                               "eta third"]
    assert await texts_found(store, "zeta") == ["zeta first", "zeta second"]
    await store.truncate_entries("s", after_seq=2)
    await store.append_entries("k", "s", [msg("theta fourth")])
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [r[0] for r in conn.execute("SELECT id FROM transcript_entries")] == [1, 2, 4]
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "transcript_fts" not in names and "search_index_state" not in names
    assert fts_is_consistent(path)
