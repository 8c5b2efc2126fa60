"""The PostgreSQL store's transcript, turn-record and search methods (see
`clawharness.store.postgres`): an append is one statement (`clawharness_append_entries`),
so one round trip; `seq` is allocated under a per-session advisory lock; search ranks over
a generated `tsvector` column."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from clawharness.errors import ClawHarnessError
from clawharness.store import _postgres_leases as leases
from clawharness.store import _postgres_sql as q
from clawharness.store import turn_records
from clawharness.store.leases import SessionLease, lease_lost
from clawharness.store.records import (
    AppendOutcome,
    NewEntry,
    SearchHit,
    SessionRecord,
    TranscriptEntry,
    dump_json,
)
from clawharness.store.search_query import parse_search_query
from clawharness.store.turn_records import StoredTurnRecord

__all__ = ["TranscriptMethods"]

Conn = psycopg.AsyncConnection[Any]


def _entry(row: Sequence[Any]) -> TranscriptEntry:
    return TranscriptEntry(row[0], row[1], row[2], row[3], row[4], row[5] or {}, row[6], row[7],
                           row[8])


def _refused(fence: SessionLease, session_key: str,
             current: tuple[str | None, int] | None) -> ClawHarnessError:
    """Why an append under `fence` wrote nothing, the lease row holding `current`."""
    error = lease_lost(fence, session_key, current, "append")
    assert error is not None, "the append was refused under a lease still current"
    return error


class TranscriptMethods:
    """The `Store` protocol's transcript, turn-record and search methods, for
    `PostgresStore`."""

    if TYPE_CHECKING:
        search_window: int

        async def _run(self, what: str, fn: Callable[[Conn], Awaitable[Any]], *,
                       tx: bool = True, pipelined: bool = False) -> Any: ...
        async def _one(self, what: str, query: str, args: Sequence[Any]) -> Any: ...
        async def _all(self, what: str, query: str,
                       args: Sequence[Any] | Mapping[str, Any]) -> list[Any]: ...
        async def create_session(self, record: SessionRecord) -> SessionRecord: ...

    # transcript -------------------------------------------------------------------------
    async def create_session_with_entries(
        self, record: SessionRecord, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> tuple[SessionRecord, list[AppendOutcome] | Exception]:
        """The two calls, one after the other: each is one statement here already (a
        transaction around both would cost two round trips more)."""
        stored = await self.create_session(record)
        try:
            return stored, await self.append_entries(record.key, stored.session_id, entries,
                                                     fence=fence)
        except Exception as exc:  # the row is made
            return stored, exc

    async def append_entries(
        self, session_key: str, session_id: str, entries: Sequence[NewEntry], *,
        fence: SessionLease | None = None,
    ) -> list[AppendOutcome]:
        """Append atomically, in order, `seq` increasing per physical session."""
        if not entries:
            return []
        prepared = [
            (e, dump_json(e.content, f"content of entry {i}"),
             "{}" if not e.metadata else dump_json(e.metadata, f"metadata of entry {i}"),
             None if e.text is None else e.text.replace("\x00", ""))
            for i, e in enumerate(entries)
        ]
        if fence is not None and fence.session_key != session_key:
            raise _refused(fence, session_key, None)
        now = time.time()
        args = (session_key, session_id, fence is not None,
                None if fence is None else fence.token, [e.role for e, *_ in prepared],
                [c for _, c, _, _ in prepared], [m for _, _, m, _ in prepared],
                [e.idempotency_key for e, *_ in prepared], [t for *_, t in prepared], now)
        # one statement (the fence, the seq lock, the idempotency look-ups, the rows, the
        # session's touch: `clawharness_append_entries`), so one round trip, no BEGIN
        rows = await self._all("append_entries", q.APPEND_ENTRIES, args)
        if rows and rows[0][0] == 0:  # the writer lease is not this caller's
            assert fence is not None
            lease = rows[0]
            raise _refused(fence, session_key, (lease[10], int(lease[11])) if lease[9] else None)
        out: list[AppendOutcome] = []
        for ordinal, appended, seq, role, content, meta, key, text, created, *_ in rows:
            e = entries[ordinal - 1]
            if appended:
                out.append(AppendOutcome(TranscriptEntry(
                    session_key, session_id, seq, e.role, e.content, dict(e.metadata or {}),
                    e.idempotency_key, e.text, created), True))
            else:
                out.append(AppendOutcome(TranscriptEntry(
                    session_key, session_id, seq, role, content, meta or {}, key, text,
                    created), False))
        return out

    async def read_entries(
        self, session_id: str, *, last: int | None = None, after_seq: int | None = None
    ) -> list[TranscriptEntry]:
        """Entries in seq order; `last` keeps only the newest N."""
        after = -1 if after_seq is None else after_seq
        if last is not None:
            if last <= 0:
                return []
            rows = await self._all("read_entries", q.READ_LAST, (session_id, after, last))
            return [_entry(r) for r in reversed(rows)]
        return [_entry(r) for r in await self._all("read_entries", q.READ_ALL, (session_id, after))]

    # turn records ---------------------------------------------------------------------
    async def put_turn_records(self, records: Sequence[StoredTurnRecord]) -> None:
        """Store (or replace) the inspector's records of some turns, in one transaction."""
        rows = [(r.run_id, r.session_key, r.session_id, r.created_at,
                 turn_records.encode(r)) for r in records]
        if not rows:
            return

        async def fn(conn: psycopg.AsyncConnection[Any]) -> None:
            async with conn.cursor() as cur:
                await cur.executemany(
                    "INSERT INTO turn_records (run_id, session_key, session_id, created_at, "
                    "record) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (run_id) DO UPDATE SET "
                    "session_key = EXCLUDED.session_key, session_id = EXCLUDED.session_id, "
                    "created_at = EXCLUDED.created_at, record = EXCLUDED.record", rows)

        await self._run("put_turn_records", fn, pipelined=True)

    async def get_turn_record(self, run_id: str) -> dict[str, Any] | None:
        """One turn's record by its run id; None when absent."""
        row = await self._one("get_turn_record",
                              "SELECT record FROM turn_records WHERE run_id = %s", (run_id,))
        return None if row is None else dict(json.loads(row[0]))

    async def list_turn_records(self, session_key: str, *,
                                limit: int = 50) -> list[dict[str, Any]]:
        """The newest records of a session key, newest first."""
        rows = await self._all("list_turn_records",
                               "SELECT record FROM turn_records WHERE session_key = %s "
                               "ORDER BY created_at DESC LIMIT %s",
                               (session_key, max(1, limit)))
        return [dict(json.loads(r[0])) for r in rows]

    async def count_entries(self, session_id: str) -> int:
        """How many entries `session_id` holds."""
        row = await self._one("count_entries", "SELECT count(*) FROM transcript_entries "
                              "WHERE session_id = %s", (session_id,))
        return int(row[0])

    async def truncate_entries(self, session_id: str, *, after_seq: int,
                               fence: SessionLease | None = None) -> int:
        """Delete entries with seq > after_seq (a rewind). Returns how many went."""
        async def fn(conn: psycopg.AsyncConnection[Any]) -> int:
            if fence is not None:
                await leases.check_fence(conn, fence.session_key, fence, "truncate_entries")
            await conn.execute(q.SEQ_LOCK, (q.SEQ_LOCK_SPACE, session_id))
            cur = await conn.execute("DELETE FROM transcript_entries WHERE session_id = %s "
                                     "AND seq > %s", (session_id, after_seq))
            return cur.rowcount

        count: int = await self._run("truncate_entries", fn)
        return count

    async def search(
        self, query: str, *, session_key: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Full-text search over entry text, best first (newest first among equals)."""
        terms = parse_search_query(query)
        if not terms or limit <= 0:
            return []
        tsq = q.tsquery(terms)
        where = "" if session_key is None else " AND e.session_key = %(key)s"
        rows = await self._all("search", q.SEARCH.format(where=where), {
            "q": tsq, "key": session_key, "window": max(self.search_window, limit),
            "limit": limit})
        return [SearchHit(r[0], r[1], r[2], r[3], r[4] or "", float(r[5])) for r in rows]
