"""SQLite: the steering inbox's namespace, read at every tool boundary of every turn, is
answered without a read while it is known empty (seen with no rows at the loop
connection's `data_version`, and nobody committed since); a row any other connection
commits, of this process or another, is seen at the next look."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from clawharness.store import STEERING_NAMESPACE, SessionRecord
from clawharness.store.sqlite import SqliteStore

PREFIX = "agent:main:k\x1f"


def traced(store: SqliteStore) -> list[str]:
    seen: list[str] = []
    assert store._small is not None
    store._small.set_trace_callback(seen.append)
    return seen


async def looks(store: SqliteStore) -> list[str]:
    return [r.key for r in await store.state_list(STEERING_NAMESPACE, prefix=PREFIX)]


async def test_an_empty_inbox_is_not_read_again_until_another_connection_commits(
        tmp_path: Path) -> None:
    path = tmp_path / "quiet.db"
    store, other = SqliteStore(path), SqliteStore(path)  # `other`: another process
    await store.open()
    await other.open()
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        assert await looks(store) == []  # read, and seen empty
        seen = traced(store)
        assert await looks(store) == []
        assert not any("plugin_state" in s for s in seen), seen  # no read: unchanged
        # this process's own inline writes (a lease, an append) leave it known empty
        await store.create_session(SessionRecord("agent:main:k", "sid", "main"))
        seen.clear()
        assert await looks(store) == []
        assert not any("plugin_state" in s for s in seen), seen
        assert store.state_namespace_quiet(STEERING_NAMESPACE)  # (what the inbox asks)
        assert not store.state_namespace_quiet("another.namespace")
        # another process offers: seen at the next look
        await other.state_insert_if_absent(STEERING_NAMESPACE, f"{PREFIX}1", {"text": "a"})
        assert not store.state_namespace_quiet(STEERING_NAMESPACE)
        assert await looks(store) == [f"{PREFIX}1"]
        assert not store.state_namespace_quiet(STEERING_NAMESPACE)
        await other.state_delete_if(STEERING_NAMESPACE, f"{PREFIX}1", 1)
        assert await looks(store) == []
        assert await looks(store) == []  # known empty again
        # a row of another session of the namespace: this one's looks read (none here)
        raw.execute("INSERT INTO plugin_state (namespace, key, value, generation) "
                    "VALUES (?, ?, '{}', 1)", (STEERING_NAMESPACE, "agent:main:x\x1f1"))
        assert await looks(store) == []
        seen.clear()
        assert await looks(store) == []
        assert any("plugin_state" in s for s in seen), seen  # not known empty: read
        raw.execute("DELETE FROM plugin_state")
        assert await looks(store) == []
        # this process's own offers (through its writer thread, or blocking) are seen
        await store.state_insert_if_absent(STEERING_NAMESPACE, f"{PREFIX}2", {"text": "b"})
        assert await looks(store) == [f"{PREFIX}2"]
        await store.state_delete_if(STEERING_NAMESPACE, f"{PREFIX}2", 1)
        assert await looks(store) == []
        assert await looks(store) == []
        store.state_insert_if_absent_sync(STEERING_NAMESPACE, f"{PREFIX}3", {"text": "c"})
        assert await looks(store) == [f"{PREFIX}3"]
    finally:
        raw.close()
        await other.close()
        await store.close()
