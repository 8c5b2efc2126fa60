"""The SQLite store's transcript and turn-record methods (see `clawharness.store.sqlite`).

Appends are made inline on the event loop's connection when the writer thread idles,
else grouped by the writer (`_sqlite_sql.make_append_group`); bounded reads of the
newest entries run inline too.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from clawharness._json_text import dumps_strict
from clawharness.errors import ClawHarnessError, ConditionalWriteConflict, StoreError
from clawharness.store import _sqlite_leases as leases
from clawharness.store import _sqlite_sql as q
from clawharness.store import turn_records
from clawharness.store._sqlite_indexer import Indexer
from clawharness.store._sqlite_search import SearchPlan
from clawharness.store._sqlite_writer import GroupFn, Writer
from clawharness.store.leases import SessionLease
from clawharness.store.records import (
    AppendOutcome,
    NewEntry,
    SearchHit,
    SessionRecord,
    TranscriptEntry,
    new_session_row,
)
from clawharness.store.search_query import parse_search_query
from clawharness.store.turn_records import StoredTurnRecord

__all__ = ["INLINE_LAST", "TranscriptMethods", "entry_of"]

_T = TypeVar("_T")
#: reads of at most this many entries (or state rows) run inline on the event loop...
INLINE_LAST = 64
#: ...and are decoded in a thread instead when their JSON is bigger than this
_INLINE_DECODE_CHARS = 256 * 1024

_PUT_TURN_RECORDS = ("INSERT OR REPLACE INTO turn_records (run_id, session_key, session_id, "
                     "created_at, record) VALUES (?, ?, ?, ?, ?)")

_decode = json.JSONDecoder().raw_decode  # we wrote the JSON: skip loads()'s checks


def entry_of(row: Sequence[Any], session_id: str) -> TranscriptEntry:
    """A transcript entry from a row of `_sqlite_sql.ENTRY_COLS`."""
    meta = row[4]
    return TranscriptEntry(
        row[0], session_id, row[1], row[2], _decode(row[3])[0],
        {} if meta == "{}" else _decode(meta)[0], row[5], row[6], row[7],
    )


def _encoded(entries: Sequence[NewEntry]) -> list[tuple[NewEntry, str, str]]:
    """Each entry with its content and metadata as JSON. Metadata all strings, the
    same keys in the same order with the same values as the previous entry's (a run's
    entries all carry its id), is encoded once. (`dumps_strict` directly: the error's
    wording, `dump_json`'s, is made only when one fails.)"""
    out: list[tuple[NewEntry, str, str]] = []
    last: tuple[Any, ...] = ()
    last_raw = "{}"
    for i, e in enumerate(entries):
        what = "metadata"
        try:
            meta = e.metadata
            if not meta:
                raw = "{}"
            else:
                items = tuple(meta.items())
                if items == last:
                    raw = last_raw
                else:
                    raw = dumps_strict(meta)
                    if all(type(k) is str and type(v) is str for k, v in items):
                        last, last_raw = items, raw
            what = "content"
            out.append((e, dumps_strict(e.content), raw))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{what} of entry {i} is not JSON-serializable: {exc}") from exc
    return out


def _outcomes(session_key: str, session_id: str, rows: Sequence[tuple[NewEntry, str, str]],
              now: float, marks: Sequence[Any]) -> list[AppendOutcome]:
    return [
        AppendOutcome(TranscriptEntry(
            session_key, session_id, m, e.role, e.content, dict(e.metadata or {}),
            e.idempotency_key, e.text, now), True)
        if isinstance(m, int) else AppendOutcome(entry_of(m, session_id), False)
        for (e, _, _), m in zip(rows, marks, strict=True)
    ]


class _CreateWithEntries:
    """`create_session_with_entries`' write: called, in the writer thread (its seq
    cache); `inline`, on the event loop's connection. (An object, not closures over
    eight variables: fewer objects alive while a turn waits on the writer.)"""

    __slots__ = ("fence", "meta", "rows", "stored", "writer")

    def __init__(self, writer: Writer, stored: SessionRecord, meta: str,
                 rows: list[tuple[NewEntry, str, str]], fence: SessionLease | None) -> None:
        self.writer = writer
        self.stored = stored
        self.meta = meta
        self.rows = rows
        self.fence = fence

    def write(self, conn: sqlite3.Connection, seqs: dict[str, int]) -> Any:
        stored, key = self.stored, self.stored.key
        now = time.time()
        if conn.execute(q.INSERT_SESSION, (
                key, stored.session_id, stored.agent_id, stored.model_ref,
                stored.agent_harness_id, stored.created_at, max(stored.updated_at, now),
                self.meta)).rowcount == 0:
            raise ConditionalWriteConflict(f"session {key!r} already exists")
        try:
            return q.append_rows(conn, seqs, key, stored.session_id, self.rows, self.fence,
                                 now=now, touch=False)
        except ClawHarnessError as exc:  # refused before it wrote: the row stays,
            conn.execute("UPDATE sessions SET updated_at = ? WHERE key = ?",  # untouched
                         (stored.updated_at, key))
            return exc

    def inline(self, conn: sqlite3.Connection) -> Any:
        return self.write(conn, {})

    def __call__(self, conn: sqlite3.Connection) -> Any:
        writer = self.writer
        result = self.write(conn, writer.seqs)
        if not isinstance(result, Exception):
            writer.unindexed += len(self.rows)
        return result


class TranscriptMethods:
    """The `Store` protocol's transcript, turn-record and search methods, for
    `SqliteStore`."""

    if TYPE_CHECKING:
        path: Path
        search_window: int
        common_df: int
        _indexer: Indexer | None
        _append_group: GroupFn | None

        def _need_writer(self) -> Writer: ...
        def _write(self, fn: Callable[[sqlite3.Connection], _T], *,
                   group: GroupFn | None = None, payload: Any = None) -> asyncio.Future[_T]: ...
        async def _write_small(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        async def _write_deferred(self, fn: Callable[[sqlite3.Connection], _T]) -> _T: ...
        async def create_session(self, record: SessionRecord) -> SessionRecord: ...
        def _write_inline(self, fn: Callable[[sqlite3.Connection], _T], *,
                          rows: int = 1) -> tuple[bool, Any]: ...
        async def _read(self, fn: Callable[[sqlite3.Connection], _T], *,
                        inline: bool = False, search: bool = False) -> _T: ...

    # transcript ----------------------------------------------------------------------
    async def append_entries(
        self, session_key: str, session_id: str, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> list[AppendOutcome]:
        """Append atomically, in order, `seq` increasing per physical session."""
        if not entries:
            return []
        rows = _encoded(entries)
        writer = self._need_writer()

        def fn(conn: sqlite3.Connection) -> tuple[float, list[Any]]:
            # runs in the writer thread: keep it lean, the outcomes are built by the caller
            result = q.append_rows(conn, writer.seqs, session_key, session_id, rows, fence)
            writer.unindexed += len(rows)
            return result

        def inline(conn: sqlite3.Connection) -> tuple[float, list[Any]]:
            # on the event loop: the writer's seq cache is its thread's alone (and a
            # commit of this connection makes the writer drop it)
            return q.append_rows(conn, {}, session_key, session_id, rows, fence)

        done, result = self._write_inline(inline, rows=len(rows))
        if done:
            if self._indexer is not None:
                self._indexer.note_written(len(rows))
            now, marks = result
            # as a write through the writer would: let the loop's other tasks run, so
            # a task appending in a loop does not starve them
            await asyncio.sleep(0)
        else:
            now, marks = await self._write(fn, group=self._append_group,
                                           payload=(session_key, session_id, rows, fence))
        return _outcomes(session_key, session_id, rows, now, marks)

    async def create_session_with_entries(
        self, record: SessionRecord, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> tuple[SessionRecord, list[AppendOutcome] | Exception]:
        """The new session's row and its first entries in one transaction: the row goes
        in with `updated_at` already where the append's touch would put it, and the
        append's lease check and newest-seq read are the one read it makes. An append
        refused by its lease commits the row alone."""
        try:
            rows = _encoded(entries)
        except StoreError as exc:
            return await self.create_session(record), exc
        if not rows:
            return await self.create_session(record), []
        stored, meta = new_session_row(record)
        key, sid = record.key, stored.session_id
        write = _CreateWithEntries(self._need_writer(), stored, meta, rows, fence)
        done, result = self._write_inline(write.inline, rows=len(rows) + 1)
        if done:
            # (no pause for the loop's other tasks after it, as `append_entries` makes: a
            # session is made once, so no task makes these in a loop to starve the others)
            if self._indexer is not None and not isinstance(result, Exception):
                self._indexer.note_written(len(rows))
        else:
            result = await self._write(write)
        if isinstance(result, Exception):
            return stored, result
        now, marks = result
        return stored, _outcomes(key, sid, rows, now, marks)

    async def read_entries(
        self, session_id: str, *, last: int | None = None, after_seq: int | None = None
    ) -> list[TranscriptEntry]:
        """Entries in seq order; `last` keeps only the newest N (an index seek)."""
        after = -1 if after_seq is None else after_seq
        if last is not None:
            if last <= 0:
                return []

            def newest(conn: sqlite3.Connection) -> list[Any]:
                return conn.execute(q.READ_LAST, (session_id, after, last)).fetchall()

            def decode(rows: list[Any]) -> list[TranscriptEntry]:
                return [entry_of(r, session_id) for r in reversed(rows)]

            rows = await self._read(newest, inline=last <= INLINE_LAST)
            if sum(len(r[3]) + len(r[4]) for r in rows) > _INLINE_DECODE_CHARS:
                return await asyncio.to_thread(decode, rows)  # keep the event loop free
            return decode(rows)

        def every(conn: sqlite3.Connection) -> list[TranscriptEntry]:
            return [entry_of(r, session_id) for r in conn.execute(q.READ_ALL, (session_id, after))]

        return await self._read(every)

    # turn records ---------------------------------------------------------------------
    async def put_turn_records(self, records: Sequence[StoredTurnRecord]) -> None:
        """Store (or replace) the inspector's records of some turns, in one transaction.
        Nobody waits on their commit (the inspector writes them behind the turns): they
        join the transaction the store leaves open for such writes (`_write_deferred`)
        and commit with its next write, a few milliseconds later at most; this process
        reads them at once."""
        rows = [(r.run_id, r.session_key, r.session_id, r.created_at,
                 turn_records.encode(r)) for r in records]
        if not rows:
            return

        def fn(conn: sqlite3.Connection) -> None:
            conn.executemany(_PUT_TURN_RECORDS, rows)

        await self._write_deferred(fn)

    async def get_turn_record(self, run_id: str) -> dict[str, Any] | None:
        """One turn's record by its run id; None when absent."""
        def fn(conn: sqlite3.Connection) -> dict[str, Any] | None:
            found = conn.execute("SELECT record FROM turn_records WHERE run_id = ?",
                                 (run_id,)).fetchone()
            return None if found is None else dict(json.loads(found[0]))

        return await self._read(fn, inline=True)

    async def list_turn_records(self, session_key: str, *,
                                limit: int = 50) -> list[dict[str, Any]]:
        """The newest records of a session key, newest first."""
        def fn(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            rows = conn.execute("SELECT record FROM turn_records WHERE session_key = ? "
                                "ORDER BY created_at DESC LIMIT ?",
                                (session_key, max(1, limit))).fetchall()
            return [dict(json.loads(r[0])) for r in rows]

        return await self._read(fn)

    async def count_entries(self, session_id: str) -> int:
        """How many entries `session_id` holds."""
        def fn(conn: sqlite3.Connection) -> int:
            sql = "SELECT count(*) FROM transcript_entries WHERE session_id = ?"
            return int(conn.execute(sql, (session_id,)).fetchone()[0])

        return await self._read(fn)

    async def truncate_entries(self, session_id: str, *, after_seq: int,
                               fence: SessionLease | None = None) -> int:
        """Delete entries with seq > after_seq (a rewind). Returns how many went."""
        writer = self._need_writer()
        seqs = writer.seqs

        def fn(conn: sqlite3.Connection) -> int:
            if fence is not None:
                leases.check_fence(conn, fence.session_key, fence, "truncate_entries")
            seqs.pop(session_id, None)
            writer.search_dirty = True
            return q.delete_entries(conn, "session_id = ? AND seq > ?", (session_id, after_seq))

        return await self._write(fn)

    async def search(
        self, query: str, *, session_key: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Full-text search over entry text, best first (newest first among equals)."""
        terms = parse_search_query(query)
        if not terms or limit <= 0:
            return []
        plan = SearchPlan(terms, session_key, limit, self.search_window, self.common_df)
        if not await self._read(lambda c: bool(c.execute(q.SEARCH_CURRENT).fetchone()[0]),
                                inline=True, search=True):
            indexer = self._indexer
            if indexer is None:
                raise StoreError(f"{self.path}: the store is not open")
            await indexer.catch_up()  # so every acknowledged append is searchable
        return await self._read(plan.run)
