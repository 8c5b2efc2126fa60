"""The sub-agent registry on SQLite and PostgreSQL: a child registers once, its status
changes only from the statuses a write names, a heartbeat touches only its owner's
active rows, and another store instance (another process) sees all of it."""

from __future__ import annotations

import time

import pytest

from clawharness.errors import ConditionalWriteConflict
from clawharness.store import SubagentRecord


def _child(key: str, parent: str = "agent:main:boss", *, owner: str = "host-a",
           at: float | None = None) -> SubagentRecord:
    now = time.time() if at is None else at
    return SubagentRecord(child_key=key, parent_key=parent, run_id=f"run-{key}",
                          agent_id="main", status="queued", depth=1, task="do it",
                          label="lbl", context="fork", runtime="codex",
                          model_ref="scripted/m1", owner=owner, created_at=now,
                          heartbeat_at=now)


async def test_a_child_is_registered_once_and_seen_from_another_store(make_store) -> None:
    first = await make_store()
    record = _child("agent:main:subagent:1")
    await first.register_subagent(record)
    with pytest.raises(ConditionalWriteConflict):
        await first.register_subagent(record)
    other = await make_store()
    assert await other.get_subagent(record.child_key) == record
    assert await other.get_subagent("agent:main:subagent:none") is None


async def test_a_status_changes_only_from_the_statuses_named(make_store) -> None:
    store = await make_store()
    key = "agent:main:subagent:2"
    await store.register_subagent(_child(key))
    running = await store.mark_subagent(key, "running", when=("queued",))
    assert running is not None and running.status == "running" and running.ended_at is None
    assert await store.mark_subagent(key, "running", when=("queued",)) is None
    killed = await store.mark_subagent(key, "killed", when=("queued", "running"),
                                       error="killed by test")
    assert killed is not None and killed.status == "killed" and killed.ended_at is not None
    # the run's own ending comes too late: the kill stays
    assert await store.mark_subagent(key, "ok", when=("running",), result="done") is None
    assert (await store.get_subagent(key)).status == "killed"  # type: ignore[union-attr]
    await store.note_subagent_announced(key)
    assert (await store.get_subagent(key)).announced  # type: ignore[union-attr]


async def test_children_are_listed_by_parent_and_activity(make_store) -> None:
    store = await make_store()
    base = time.time()
    for i, parent in enumerate(("agent:main:boss", "agent:main:boss", "agent:main:other")):
        await store.register_subagent(_child(f"agent:main:subagent:{i}", parent, at=base + i))
    await store.mark_subagent("agent:main:subagent:0", "ok", when=("queued",), result="r")
    boss = await store.list_subagents("agent:main:boss")
    assert [r.child_key for r in boss] == ["agent:main:subagent:0", "agent:main:subagent:1"]
    assert boss[0].result == "r" and boss[0].status == "ok"
    active = await store.list_subagents("agent:main:boss", active=True)
    assert [r.child_key for r in active] == ["agent:main:subagent:1"]
    assert len(await store.list_subagents()) == 3


async def test_a_heartbeat_touches_only_its_owners_active_rows(make_store) -> None:
    store = await make_store()
    old = time.time() - 100
    await store.register_subagent(_child("agent:main:subagent:a", owner="host-a", at=old))
    await store.register_subagent(_child("agent:main:subagent:b", owner="host-b", at=old))
    rows = await store.beat_subagents("host-a", ["agent:main:subagent:a",
                                                 "agent:main:subagent:b"])
    by_key = {r.child_key: r for r in rows}
    assert by_key["agent:main:subagent:a"].heartbeat_at > old + 50
    assert by_key["agent:main:subagent:b"].heartbeat_at == pytest.approx(old)
    assert by_key["agent:main:subagent:b"].lost(time.time(), after=30)
    assert not by_key["agent:main:subagent:a"].lost(time.time(), after=30)


async def test_a_childs_http_api_caller_is_kept_with_it(make_store) -> None:
    store = await make_store()
    base = _child("agent:main:subagent:c1")
    called = _child("agent:main:subagent:c2")
    called = SubagentRecord(**{**{f: getattr(called, f) for f in called.__slots__},
                               "caller": "token:abc123"})
    await store.register_subagent(base)
    await store.register_subagent(called)
    assert (await store.get_subagent(base.child_key)).caller is None
    assert (await store.get_subagent(called.child_key)).caller == "token:abc123"


async def test_a_version_7_sqlite_store_migrates_its_children_to_8_without_a_caller(
        tmp_path) -> None:
    import sqlite3

    from clawharness.store.sqlite import SCHEMA_VERSION, SqliteStore

    path = tmp_path / "v7.db"
    store = SqliteStore(path)
    await store.open()
    await store.register_subagent(_child("agent:main:subagent:old"))
    await store.close()
    with sqlite3.connect(path) as conn:  # back to v7: the registry had no caller
        conn.execute("ALTER TABLE subagents DROP COLUMN caller")
        conn.execute("PRAGMA user_version = 7")
    store = SqliteStore(path)
    await store.open()
    try:
        old = await store.get_subagent("agent:main:subagent:old")
        assert old is not None and old.caller is None and old.task == "do it"
        new = _child("agent:main:subagent:new")
        await store.register_subagent(SubagentRecord(
            **{**{f: getattr(new, f) for f in new.__slots__}, "caller": "alice"}))
        assert (await store.get_subagent(new.child_key)).caller == "alice"
    finally:
        await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
