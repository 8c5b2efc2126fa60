"""The transcript mirror writes behind the turn: in order, once, with a barrier."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from clawharness.errors import StoreError
from clawharness.sessions.transcript import TranscriptMirror
from clawharness.store import AppendOutcome, NewEntry
from clawharness.store.sqlite import SqliteStore

KEY, SID = "agent:main:main", "sid-1"


class CountingStore:
    """The real store, counting append calls; `fail_from` makes the n-th call fail."""

    def __init__(self, inner: SqliteStore, fail_from: int | None = None) -> None:
        self.inner = inner
        self.calls: list[int] = []
        self.fail_from = fail_from
        self.release = asyncio.Event()
        self.release.set()

    async def append_entries(self, key: str, sid: str,
                             entries: Sequence[NewEntry]) -> list[AppendOutcome]:
        self.calls.append(len(entries))
        await self.release.wait()
        if self.fail_from is not None and len(self.calls) >= self.fail_from:
            raise StoreError("disk full (test)")
        return await self.inner.append_entries(key, sid, entries)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "t.db")
    await s.open()
    yield s
    await s.close()


def msg(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": [{"type": "text", "text": text}]}


async def test_messages_queued_during_a_write_go_in_the_next_one_in_order(
    store: SqliteStore,
) -> None:
    counting = CountingStore(store)
    counting.release.clear()
    mirror = TranscriptMirror(counting, KEY, SID, "run-1")  # type: ignore[arg-type]
    await mirror([msg("user", "one")])
    await asyncio.sleep(0)  # the first append is now in flight, held
    for text in ("two", "three", "four"):
        await mirror([msg("assistant", text)])
    counting.release.set()
    await mirror.flush()

    assert counting.calls == [1, 3]
    stored = await store.read_entries(SID)
    assert [e.content["content"][0]["text"] for e in stored] == ["one", "two", "three", "four"]
    assert [e.seq for e in stored] == [1, 2, 3, 4]
    assert [o.entry.seq for o in mirror.appended] == [1, 2, 3, 4]


async def test_a_failed_write_fails_the_barrier_and_nothing_after_the_gap_is_stored(
    store: SqliteStore,
) -> None:
    counting = CountingStore(store, fail_from=2)
    mirror = TranscriptMirror(counting, KEY, SID, "run-1")  # type: ignore[arg-type]
    await mirror([msg("user", "kept")])
    await mirror.flush()
    await mirror([msg("assistant", "lost")])
    with pytest.raises(StoreError, match="disk full"):
        await mirror.flush()
    with pytest.raises(StoreError, match="disk full"):
        await mirror([msg("assistant", "after the gap")])
    stored = await store.read_entries(SID)
    assert [e.content["content"][0]["text"] for e in stored] == ["kept"]


async def test_a_retried_run_mirrors_each_message_once(store: SqliteStore) -> None:
    for _ in range(2):  # the same run mirrored twice: the idempotency keys match
        mirror = TranscriptMirror(store, KEY, SID, "run-1")
        await mirror([msg("user", "hi"), msg("assistant", "hello")])
        await mirror.flush()
    assert [e.role for e in await store.read_entries(SID)] == ["user", "assistant"]


async def test_flush_with_nothing_queued_returns_at_once(store: SqliteStore) -> None:
    mirror = TranscriptMirror(store, KEY, SID, "run-1")
    await asyncio.wait_for(mirror.flush(), timeout=1)
    assert mirror.appended == []


async def test_the_scrubbed_copy_is_stored_and_the_message_given_is_left_as_it_was(
        store: SqliteStore) -> None:
    from clawharness.redaction.outbound import redact_transcript_message

    secret = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"
    message = {"role": "assistant", "content": [{"type": "text", "text": "x"}],
               "errorMessage": f"failed with {secret}"}
    mirror = TranscriptMirror(store, KEY, SID, "run-1", scrub=redact_transcript_message)
    await mirror([message])
    await mirror.flush()
    assert message["errorMessage"] == f"failed with {secret}"
    stored = (await store.read_entries(SID))[0].content
    assert secret not in stored["errorMessage"]
    assert mirror.appended[0].entry.content is not message


async def test_a_write_the_store_makes_at_once_ends_in_the_barrier_without_a_loop_pass(
        store: SqliteStore) -> None:
    # the write starts at the barrier (no pass of the loop came first) and the store
    # makes the new session's row and appends inline: the barrier returns without
    # yielding to the loop
    from clawharness.sessions.transcript import SessionCreation
    from clawharness.store import SessionRecord

    creation = SessionCreation(store, SessionRecord(KEY, SID, "main"))
    mirror = TranscriptMirror(store, KEY, SID, "run-1", after=creation)
    await mirror([msg("user", "one"), msg("assistant", "two")])
    await mirror([msg("assistant", "three")])
    passed: list[bool] = []
    asyncio.get_running_loop().call_soon(passed.append, True)
    await mirror.flush()
    assert passed == []
    assert [e.content["content"][0]["text"] for e in await store.read_entries(SID)] == [
        "one", "two", "three"]
    assert [o.entry.seq for o in mirror.appended] == [1, 2, 3]


async def test_a_write_that_waits_goes_on_when_the_barrier_waiting_for_it_is_cancelled(
        store: SqliteStore) -> None:
    counting = CountingStore(store)
    counting.release.clear()
    mirror = TranscriptMirror(counting, KEY, SID, "run-1")  # type: ignore[arg-type]
    await mirror([msg("user", "one")])
    barrier = asyncio.ensure_future(mirror.flush())  # the write starts here, then waits
    await asyncio.sleep(0)
    assert counting.calls == [1]
    barrier.cancel()
    with pytest.raises(asyncio.CancelledError):
        await barrier
    counting.release.set()
    await mirror.flush()
    assert [e.content["content"][0]["text"] for e in await store.read_entries(SID)] == ["one"]


TRACE: contextvars.ContextVar[str] = contextvars.ContextVar("TRACE", default="")


class ContextStore(CountingStore):
    """Sets a context variable around a write that waits (as a span does) and keeps what
    it saw."""

    seen: list[str]

    async def append_entries(self, key: str, sid: str,
                             entries: Sequence[NewEntry]) -> list[AppendOutcome]:
        token = TRACE.set("in the write")
        await self.release.wait()
        self.seen = [TRACE.get()]
        TRACE.reset(token)  # ValueError in any context other than the one it was set in
        return await self.inner.append_entries(key, sid, entries)


@pytest.mark.parametrize("started_by", ["the loop", "the barrier"])
async def test_a_write_runs_in_the_context_of_the_call_that_queued_it(
        store: SqliteStore, started_by: str) -> None:
    context_store = ContextStore(store)
    context_store.release.clear()
    mirror = TranscriptMirror(context_store, KEY, SID, "run-1")  # type: ignore[arg-type]
    token = TRACE.set("the turn's")
    await mirror([msg("user", "one")])
    TRACE.reset(token)
    if started_by == "the loop":
        await asyncio.sleep(0)
    barrier = asyncio.ensure_future(mirror.flush())
    await asyncio.sleep(0)
    context_store.release.set()
    await barrier
    assert context_store.seen == ["in the write"]
    assert TRACE.get() == ""
    assert [e.content["content"][0]["text"] for e in await store.read_entries(SID)] == ["one"]
