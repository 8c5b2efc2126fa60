"""The embedded store: one SQLite file in WAL mode.

Every async write goes through one writer thread (`_sqlite_writer`) that owns the write
connection: it drains all queued requests, runs them in one transaction, commits once and
only then resolves the callers' futures (group commit). A small write (a transcript
append, a new session row, a lease) made on the event loop while that thread idles is
made inline instead, in a transaction of its own on a connection of the loop's (a thread
hand-off costs several times the commit); while the thread has work, or another process
holds the file's write lock, it queues like any other. A write nobody waits on the commit
of (a lease's release) is left uncommitted there for the next inline write to commit with
its own, or for 2 ms (`_write_deferred`). A request that fails inside
SQLite makes the writer run that batch again with a SAVEPOINT per request, so it fails
alone. WAL with synchronous=NORMAL: a returned write survives the process being killed
(a power cut may lose the last commits), but for a release made with `wait=False`, which
a kill within its 2 ms leaves to expire.

The full-text index (FTS5) lives in `<file>-search` and an indexer thread of its own
keeps it up to date just after appends commit (`_sqlite_indexer`); a search first has
pending rows indexed, so it sees every returned append. That file is derived data: it is
rebuilt when missing or unusable.

Reads use their own connections in a small thread pool; a bounded index-seek read (the
last N entries, one session row, one state row) runs inline on the event loop, because a
thread hop costs more than the read, on the connection the loop writes with: SQLite drops
a connection's page cache whenever another connection committed, and a sequential turn's
writes are that connection's own, so its reads find the pages cached (the check that the
search index is current reads on a connection with the search file attached). The
synchronous plugin-state methods use a third connection with a busy timeout.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar, cast

from clawharness.errors import (
    ConditionalWriteConflict,
    SessionNotFoundError,
    StoreError,
)
from clawharness.store import _sqlite_budgets as budgets
from clawharness.store import _sqlite_leases as leases
from clawharness.store import _sqlite_sql as q
from clawharness.store import _sqlite_subagents as subagents
from clawharness.store import _sqlite_tool_outcomes as tool_outcomes
from clawharness.store import turn_records
from clawharness.store._sqlite_file import (
    check_header,
    check_tables,
    create_if_absent,
    migrate,
)
from clawharness.store._sqlite_indexer import (
    Indexer,
    attach_search,
    open_search_file,
    search_path_for,
)
from clawharness.store._sqlite_state import PluginStateMethods
from clawharness.store._sqlite_transcript import TranscriptMethods
from clawharness.store._sqlite_writer import GroupFn, Request, Writer, translate
from clawharness.store.leases import STEERING_NAMESPACE, SessionLease
from clawharness.store.records import (
    SessionRecord,
    check_session_update,
    dump_json,
    new_session_row,
    stored_session_meta,
)

__all__ = ["SqliteStore"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")
#: callbacks ready on the event loop above which a small write is not made inline
_BUSY_LOOP_READY = 16
#: rows written inline (on the event loop's connection, which never checkpoints) between
#: two WAL checkpoints the writer thread is asked for
_SMALL_ROWS_PER_CHECKPOINT = 500
#: how long a write nobody waits on (a lease's release) stays uncommitted on the loop's
#: connection for the next inline write to commit with it (seconds)
_DEFER_SECONDS = 0.002
#: `_write_deferred_inline`'s word that another process holds the file's write lock
_LOCKED: Any = object()

#: version -> DDL that brings a file from version-1 to version (tests may add more)
_MIGRATIONS: dict[int, tuple[str, ...]] = {1: q.SCHEMA_V1, 2: q.MIGRATION_V2,
                                           3: leases.MIGRATION_V3,
                                           4: turn_records.SQLITE_MIGRATION_V4,
                                           5: tool_outcomes.MIGRATION_V5,
                                           6: budgets.MIGRATION_V6,
                                           7: subagents.MIGRATION_V7,
                                           8: subagents.MIGRATION_V8}
#: the SQLite file's schema version (the PostgreSQL store counts its own)
SCHEMA_VERSION = 8


def _session(row: Sequence[Any]) -> SessionRecord:
    return SessionRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6],
                         stored_session_meta(json.loads(row[7])))


def _busy_loop() -> bool:
    """Are many callbacks ready to run on this event loop (many sessions at work)? Then
    a write goes to the writer thread, which commits those of many tasks together,
    rather than inline, one transaction each with the loop's other work waiting. (An
    event loop that does not show its ready queue counts as not busy.)"""
    ready = getattr(asyncio.get_running_loop(), "_ready", None)
    return ready is not None and len(ready) > _BUSY_LOOP_READY


class SqliteStore(TranscriptMethods, PluginStateMethods, leases.SessionLeaseMethods,
                  tool_outcomes.ToolOutcomeMethods, budgets.BudgetLedgerMethods,
                  subagents.SubagentMethods):
    """The `Store` protocol over one SQLite file (see the module docstring)."""

    def __init__(self, path: str | Path, *, readers: int = 4, search_window: int = 2000,
                 common_df: int = 10_000, busy_timeout: float = 10.0):
        self.path = Path(path).expanduser().absolute()
        self.url = f"sqlite:///{self.path}"
        self.search_window = search_window
        #: a search term in at least this many entries counts as "very common"
        self.common_df = common_df
        self._readers = readers
        self._busy_ms = int(busy_timeout * 1000)
        self._writer: Writer | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._read_conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()
        self._inline: sqlite3.Connection | None = None
        self._inline_thread = 0
        self._sync: sqlite3.Connection | None = None
        self._sync_lock = threading.Lock()
        #: small writes made on the event loop while the writer idles, and the loop's
        #: bounded reads (its own commits keep its page cache valid)
        self._small: sqlite3.Connection | None = None
        self._small_rows = 0
        #: writes made on `_small` in the transaction left open for them (`_write_deferred`)
        self._deferred: list[Callable[[sqlite3.Connection], Any]] = []
        self._deferred_commit: asyncio.TimerHandle | None = None
        self._append_group: GroupFn | None = None
        #: the `data_version` of `_small` at which the steering inbox's namespace was
        #: seen with no rows at all (None: not known to be empty; `_quiet_namespace`)
        self._quiet_inbox: int | None = None
        self._indexer: Indexer | None = None
        self.search_path = search_path_for(self.path)

    # lifecycle -------------------------------------------------------------------
    def _connect(self, *, busy_ms: int | None = None, path: Path | None = None,
                 search: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(path or self.path, isolation_level=None, check_same_thread=False,
                               timeout=(self._busy_ms if busy_ms is None else busy_ms) / 1000,
                               uri=True)
        conn.execute("PRAGMA synchronous = NORMAL")
        if search:  # read-only, as `s`: the search index and its bookkeeping
            attach_search(conn, self.search_path)
        return conn

    def _init_file(self, conn: sqlite3.Connection) -> None:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(f"{self.path}: cannot switch the store to WAL mode ({mode})")
        migrate(conn, self.path, SCHEMA_VERSION, _MIGRATIONS)
        check_tables(conn, self.path, SCHEMA_VERSION, _MIGRATIONS)

    def _open_sync(self) -> None:
        check_header(self.path)
        create_if_absent(self.path, self._init_file)
        conn = None
        indexer: Indexer | None = None
        try:
            conn = self._connect()
            self._init_file(conn)
            conn.execute("PRAGMA cache_size = -65536")
            conn.execute("PRAGMA temp_store = MEMORY")
            store_id = str(conn.execute(q.STORE_ID).fetchone()[0])
            search = open_search_file(
                self.path, store_id, lambda p: self._connect(path=p, busy_ms=self._busy_ms))
            indexer = Indexer(search, self.search_path)
            self._sync = self._connect()
            self._inline = self._connect(busy_ms=0, search=True)
            self._small = self._connect(busy_ms=0)
            # the writer thread's connection checkpoints; this one must never stall on it
            self._small.execute("PRAGMA wal_autocheckpoint = 0")
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if indexer is not None:
                indexer.stop()
            for c in (self._sync, self._inline, self._small):
                if c is not None:
                    c.close()
            self._sync = self._inline = self._small = None
            raise translate(exc, self.path, "open") from exc
        self._indexer = indexer
        writer = self._writer = Writer(conn, self.path, indexer.note_written)
        indexer.on_deletions_applied = lambda applied: writer.submit_background(
            lambda c: q.prune_deletions(c, applied))
        self._append_group = q.make_append_group(self._writer)

    async def open(self) -> None:
        """Create or migrate the file; StoreCorruptError (file untouched) if not SQLite."""
        if self._writer is not None:
            return
        await asyncio.to_thread(self._open_sync)
        self._inline_thread = threading.get_ident()
        self._pool = ThreadPoolExecutor(self._readers, thread_name_prefix="clawharness-store-read")

    async def close(self) -> None:
        """Finish queued writes and close every connection."""
        writer, pool = self._writer, self._pool
        if writer is None:
            return
        indexer, self._indexer = self._indexer, None
        self._commit_deferred()
        self._writer = self._pool = None
        writer.hand_over()  # what this loop held back goes before the end
        await asyncio.to_thread(writer.stop)
        if indexer is not None:
            await asyncio.to_thread(indexer.stop)  # leave the index complete at rest
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, True)
        with self._conns_lock:
            conns, self._read_conns = self._read_conns, []
        with self._sync_lock:
            for c in (*conns, self._inline, self._sync, self._small):
                if c is not None:
                    c.close()
            self._inline = self._sync = self._small = None

    @property
    def writer_stats(self) -> dict[str, int]:
        """Group-commit counters: transactions, requests, largest batch, and the WAL
        checkpoints asked for by inline (lease) writes."""
        w = self._writer
        return {} if w is None else {"batches": w.batches, "requests": w.requests,
                                     "max_batch": w.max_batch, "checkpoints": w.checkpoints}

    # plumbing ----------------------------------------------------------------------
    def _need_writer(self) -> Writer:
        if self._writer is None:
            raise StoreError(f"{self.path}: the store is not open")
        return self._writer

    def _write(self, fn: Callable[[sqlite3.Connection], _T], *,
               group: GroupFn | None = None, payload: Any = None) -> asyncio.Future[_T]:
        """`fn(conn)` through the writer thread: the future of its result, resolved once
        its batch committed. (Submitted when called; a plain function, not a coroutine,
        so a caller waiting on the writer keeps one object fewer alive.)"""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[_T] = loop.create_future()
        writer = self._need_writer()
        req = Request(fn, loop, fut, group, payload)
        if threading.get_ident() == self._inline_thread:
            self._commit_deferred()  # the writer thread would wait for its lock
            writer.submit_soon(req, loop)  # with the others this loop iteration makes
        else:
            writer.submit(req)
        return fut

    async def _write_small(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """A write of a few rows: inline on the event loop when the writer thread idles
        and no other process holds the file's write lock (no thread hand-off: ~15 µs
        instead of ~150), else through the writer like any other write."""
        done, result = self._write_inline(fn)
        return result if done else await self._write(fn)

    def _write_inline(self, fn: Callable[[sqlite3.Connection], _T], *,
                      rows: int = 1) -> tuple[bool, Any]:
        """(True, fn's result) when `fn` ran and committed in a transaction of its own on
        the event loop's connection; (False, None) when it may not now: called off the
        event loop, the writer thread has work queued or running (an inline write would
        overtake it), or another process holds the file's write lock (never wait on the
        loop). Then nothing was written. `rows`: about how many rows `fn` writes (the
        writer is asked for a WAL checkpoint every `_SMALL_ROWS_PER_CHECKPOINT`)."""
        writer = self._need_writer()
        conn = self._small
        if conn is None or threading.get_ident() != self._inline_thread or _busy_loop():
            return False, None
        deferred = self._deferred  # already in the open transaction: commit them too
        if not deferred:
            if not writer.idle:
                return False, None
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                return False, None  # another process is writing: queue behind it instead
        try:
            result = fn(conn)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self._redo_deferred()
            raise translate(exc, self.path, "write") from exc
        if deferred:
            self._end_deferred()
        self._small_rows += rows
        if self._small_rows >= _SMALL_ROWS_PER_CHECKPOINT:
            self._small_rows = 0
            writer.checkpoint_soon()  # this connection never checkpoints
        return True, result

    async def _write_deferred(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """A small write whose caller needs its result but not its commit (a lease's
        release, which its holder does not wait on anyway: a lease left behind by a
        crash expires). While the writer thread idles it runs at once on the loop's
        connection, in a transaction left open for `_DEFER_SECONDS` so the next inline
        write (the next turn's lease, the spend row) commits it with its own; any other
        write, a blocking plugin-state call or `close` commits it first. Else as
        `_write_small` (`_write_deferred_inline`, then this)."""
        done, result = self._write_deferred_inline(fn)
        if done:
            return cast(_T, result)
        if result is _LOCKED:
            return await self._write(fn)  # another process is writing
        return await self._write_small(fn)

    def _write_deferred_inline(self, fn: Callable[[sqlite3.Connection], _T]
                               ) -> tuple[bool, Any]:
        """`_write_deferred`'s inline part: (True, fn's result) when `fn` ran in the
        transaction left open; else (False, `_LOCKED` when another process holds the
        file's write lock, or None) and nothing was written."""
        writer = self._need_writer()
        conn = self._small
        if conn is None or threading.get_ident() != self._inline_thread or _busy_loop() \
                or (not self._deferred and not writer.idle):
            return False, None
        if not self._deferred:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                return False, _LOCKED
            self._deferred_commit = asyncio.get_running_loop().call_later(
                _DEFER_SECONDS, self._commit_deferred)
        try:
            result = fn(conn)
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self._redo_deferred()
            raise translate(exc, self.path, "write") from exc
        self._deferred.append(fn)
        return True, result

    def _commit_deferred(self) -> None:
        """Commit the writes `_write_deferred` left open (on the loop's thread only)."""
        if not self._deferred or threading.get_ident() != self._inline_thread:
            return
        conn = self._small
        assert conn is not None
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            log.warning("%s: deferred write failed, trying it again: %s", self.path, exc)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self._redo_deferred()
            return
        self._end_deferred()

    def _end_deferred(self) -> None:
        self._deferred = []
        if self._deferred_commit is not None:
            self._deferred_commit.cancel()
            self._deferred_commit = None

    def _redo_deferred(self) -> None:
        """The open transaction was rolled back: its deferred writes go again, through the
        writer thread (ahead of anything the loop writes next: it no longer idles)."""
        fns = self._deferred
        self._end_deferred()
        for fn in fns:
            self._need_writer().submit_background(fn)

    def _quiet_namespace(self, namespace: str) -> int | None:
        """For `state_list`, before its read: None when `namespace` (the steering inbox's,
        read at every tool boundary of every turn) is known to have no rows: it was seen
        empty at the loop connection's current `data_version`, so no other connection,
        of this process or another, has committed since, and that connection never
        writes plugin state. Else the `data_version` read now, for `_note_quiet` (-1:
        none read, as off the loop, or when many tasks are ready, where other writes
        commit all the time: one read, as before)."""
        if namespace != STEERING_NAMESPACE:
            return -1
        conn = self._small
        if conn is None or threading.get_ident() != self._inline_thread:
            return -1
        seen = self._quiet_inbox
        if seen is None and _busy_loop():
            return -1
        try:
            version = int(conn.execute(q.DATA_VERSION).fetchone()[0])
        except sqlite3.Error:
            return -1
        if version == seen:
            return None
        self._quiet_inbox = None
        return version

    def state_namespace_quiet(self, namespace: str) -> bool:
        """Whether `namespace` is known to have no rows now, without reading it (one
        `PRAGMA data_version`; see `_quiet_namespace`); False: not known (read it). For
        the steering inbox's look at each tool boundary (`SteeringInbox.nothing_offered`)."""
        seen = self._quiet_inbox
        conn = self._small
        if seen is None or namespace != STEERING_NAMESPACE or conn is None \
                or threading.get_ident() != self._inline_thread:
            return False
        try:
            return int(conn.execute(q.DATA_VERSION).fetchone()[0]) == seen
        except sqlite3.Error:
            return False

    def _note_quiet(self, namespace: str, version: int) -> None:
        """`state_list` found no rows under its prefix after `_quiet_namespace` read
        `version`: when the whole namespace has none either, the next looks need no read
        while `version` stays current."""
        conn = self._small
        if conn is None or threading.get_ident() != self._inline_thread or _busy_loop():
            return
        try:
            if not q.state_any(conn, namespace):
                self._quiet_inbox = version
        except sqlite3.Error:
            return

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect(search=True)
            conn.execute("PRAGMA query_only = 1")
            conn.execute("PRAGMA cache_size = -32768")
            self._local.conn = conn
            with self._conns_lock:
                self._read_conns.append(conn)
        return conn

    def _run_read(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        try:
            return fn(self._reader())
        except sqlite3.Error as exc:
            raise translate(exc, self.path, "read") from exc

    async def _read(self, fn: Callable[[sqlite3.Connection], _T], *, inline: bool = False,
                    search: bool = False) -> _T:
        """`fn(conn)`: inline on the loop's write connection (`search`: the one with the
        search file attached) for a bounded read, else in a reader thread."""
        self._need_writer()
        conn = self._inline if search else self._small
        if not inline or search:
            self._commit_deferred()  # what this process wrote, its other connections see
        if inline and conn is not None and threading.get_ident() == self._inline_thread:
            try:
                return fn(conn)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise translate(exc, self.path, "read") from exc
                # rare (WAL recovery, a blocking checkpoint): wait in a thread instead
            except sqlite3.Error as exc:
                raise translate(exc, self.path, "read") from exc
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._run_read, fn)

    # sessions -----------------------------------------------------------------------
    async def create_session(self, record: SessionRecord) -> SessionRecord:
        """Insert a new session row; ConditionalWriteConflict if the key exists."""
        stored, meta = new_session_row(record)

        def fn(conn: sqlite3.Connection) -> SessionRecord:
            cur = conn.execute(q.INSERT_SESSION, (
                stored.key, stored.session_id, stored.agent_id, stored.model_ref,
                stored.agent_harness_id, stored.created_at, stored.updated_at, meta))
            if cur.rowcount == 0:
                raise ConditionalWriteConflict(f"session {record.key!r} already exists")
            return stored

        return await self._write_small(fn)

    def _session_row(self, conn: sqlite3.Connection, key: str) -> SessionRecord | None:
        row = conn.execute(q.SELECT_SESSION_BY_KEY, (key,)).fetchone()
        return None if row is None else _session(row)

    async def get_session(self, key: str) -> SessionRecord | None:
        """The session row under `key`, or None."""
        return await self._read(lambda conn: self._session_row(conn, key), inline=True)

    async def list_sessions(
        self, *, agent_id: str | None = None, limit: int | None = None
    ) -> list[SessionRecord]:
        """Most recently updated first."""
        where, args = ("", ()) if agent_id is None else (" WHERE agent_id = ?", (agent_id,))
        sql = f"{q.SELECT_SESSION}{where} ORDER BY updated_at DESC, key LIMIT ?"
        lim = -1 if limit is None else limit

        def fn(conn: sqlite3.Connection) -> list[SessionRecord]:
            return [_session(r) for r in conn.execute(sql, (*args, lim))]

        return await self._read(fn)

    async def update_session(self, key: str, *, fence: SessionLease | None = None,
                             **fields: Any) -> SessionRecord:
        """Set some of session_id, model_ref, agent_harness_id, meta; bumps updated_at."""
        values = check_session_update(key, fields)
        if "meta" in values:
            values["meta"] = dump_json(values["meta"], f"meta of session {key!r}")
        sets = "".join(f"{name} = ?, " for name in values)
        sql = f"UPDATE sessions SET {sets}updated_at = ? WHERE key = ? RETURNING {q.SESSION_COLS}"
        args = (*values.values(), time.time(), key)

        def fn(conn: sqlite3.Connection) -> SessionRecord:
            leases.check_fence(conn, key, fence, "update_session")
            row = conn.execute(sql, args).fetchone()
            if row is None:
                raise SessionNotFoundError(f"no session {key!r}")
            return _session(row)

        return await self._write(fn)

    async def delete_session(self, key: str, *, fence: SessionLease | None = None) -> bool:
        """Delete the row and every transcript entry under the key. False if absent."""
        writer = self._need_writer()
        seqs = writer.seqs

        def fn(conn: sqlite3.Connection) -> bool:
            leases.check_fence(conn, key, fence, "delete_session")
            seqs.clear()
            q.delete_entries(conn, "session_key = ?", (key,))
            writer.search_dirty = True
            conn.execute("DELETE FROM turn_records WHERE session_key = ?", (key,))
            return conn.execute("DELETE FROM sessions WHERE key = ?", (key,)).rowcount > 0

        return await self._write(fn)
