"""A new session's row made with its transcript's first append (`SessionCreation` as
the mirror's `after`), or alone when nothing was appended."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from clawharness.errors import ConditionalWriteConflict
from clawharness.sessions.transcript import SessionCreation, TranscriptMirror
from clawharness.store import SessionRecord
from clawharness.store.sqlite import SqliteStore


async def test_the_row_goes_in_with_the_first_batch(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    try:
        creation = SessionCreation(store, SessionRecord("agent:main:a", "sid", "main"))
        mirror = TranscriptMirror(store, "agent:main:a", "sid", "run", after=creation)
        before = store.writer_stats["requests"]
        await mirror([{"role": "user", "content": "hi"}])
        await mirror([{"role": "assistant", "content": "hello"}])
        await mirror.flush()
        made = await creation
        assert made.session_id == "sid" and creation.started
        assert await store.get_session("agent:main:a") is not None
        assert [e.role for e in await store.read_entries("sid")] == ["user", "assistant"]
        assert [o.entry.seq for o in mirror.appended] == [1, 2]
        assert store.writer_stats["requests"] == before
    finally:
        await store.close()


async def test_awaited_before_any_append_it_makes_the_row_alone(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    try:
        creation = SessionCreation(store, SessionRecord("agent:main:b", "sid-b", "main"))
        mirror = TranscriptMirror(store, "agent:main:b", "sid-b", "run", after=creation)
        await mirror.flush()  # nothing queued: the barrier makes the row
        assert (await creation).key == "agent:main:b"
        assert await store.read_entries("sid-b") == []
    finally:
        await store.close()


async def test_a_lost_race_fails_the_mirror_and_the_creation(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    await store.open()
    try:
        await store.create_session(SessionRecord("agent:main:c", "theirs", "main"))
        creation = SessionCreation(store, SessionRecord("agent:main:c", "mine", "main"))
        mirror = TranscriptMirror(store, "agent:main:c", "mine", "run", after=creation)
        await mirror([{"role": "user", "content": "hi"}])
        with pytest.raises(ConditionalWriteConflict):
            await mirror.flush()
        with pytest.raises(ConditionalWriteConflict):
            await creation
        assert await store.read_entries("mine") == []
    finally:
        await store.close()


async def test_a_cancelled_waiter_does_not_undo_the_first_append(tmp_path: Path) -> None:
    """The turn awaiting the row is cancelled while the row and first batch are being
    written (queued behind another process's write): they still land, and the mirror
    has their outcomes."""
    path = tmp_path / "s.db"
    store = SqliteStore(path)
    await store.open()
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        creation = SessionCreation(store, SessionRecord("agent:main:d", "sid-d", "main"))
        mirror = TranscriptMirror(store, "agent:main:d", "sid-d", "run", after=creation)
        blocker.execute("BEGIN IMMEDIATE")
        await mirror([{"role": "user", "content": "hi"}])
        for _ in range(3):
            await asyncio.sleep(0)
        assert creation.started
        waiter = asyncio.ensure_future(asyncio.wait_for(creation, timeout=0.01))
        with pytest.raises(asyncio.TimeoutError):
            await waiter
        blocker.execute("COMMIT")
        await mirror.flush()
        assert [o.entry.seq for o in mirror.appended] == [1]
        assert await store.get_session("agent:main:d") is not None
    finally:
        blocker.close()
        await store.close()
