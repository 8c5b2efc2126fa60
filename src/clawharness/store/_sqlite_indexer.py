"""The search indexer of the SQLite store: FTS5 in a file of its own, kept up by a thread.

The full-text index is derived data, so it lives beside the store in `<store>-search`
(its own WAL and its own write lock) and one thread per process keeps it up to date.
Appends never wait for it, and indexing runs on another core while the writer thread
commits: FTS5 costs about as much CPU per row as the append itself.

Each round is one transaction on the search file that reads the store through a
read-only ATTACH, so it sees one snapshot of the store: it first applies the deletions
the store recorded (`search_deletions`; contentless FTS5 must be told the text it
removes) for rows it had indexed, then indexes the rows appended after
`indexed_upto`. Entry ids are never reused (AUTOINCREMENT), which makes "was this row
indexed?" the question "is its id at or below `indexed_upto`?".

A search first asks for a catch-up, so it sees every acknowledged append and deletion.
A missing, corrupt or foreign search file is rebuilt from the store; nothing in it is
the only copy of anything.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clawharness.errors import StoreError

__all__ = [
    "SEARCH_SCHEMA_VERSION",
    "Indexer",
    "attach_search",
    "attach_store",
    "open_search_file",
    "search_path_for",
]

log = logging.getLogger(__name__)

SEARCH_SCHEMA_VERSION = 1
_HEADER = b"SQLite format 3\x00"

_SEARCH_SCHEMA: tuple[str, ...] = (
    # Contentless FTS5 over entry text, plus `skey`: the session key as one token, so a
    # session filter is an FTS AND. Prefix indexes of 2 and 3 characters: short prefixes
    # would otherwise expand to thousands of terms.
    """CREATE VIRTUAL TABLE transcript_fts USING fts5(
        text, skey, content='', prefix='2 3', tokenize='unicode61 remove_diacritics 2'
    )""",
    # merge segments 8 at a time, not 4: a fifth less CPU per indexed row, and searches
    # at 1M entries stay within a few milliseconds
    "INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('automerge', 8)",
    """CREATE TABLE search_state (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        store_id TEXT NOT NULL,
        indexed_upto INTEGER NOT NULL,
        deletions_upto INTEGER NOT NULL
    )""",
)

# 'k' || hex(session_key) is exactly `_sqlite_search.session_token(session_key)`
_INDEX_RANGE = (
    "INSERT INTO transcript_fts (rowid, text, skey) SELECT id, text, 'k' || hex(session_key) "
    "FROM src.transcript_entries WHERE id > ? AND id <= ? AND text IS NOT NULL"
)
_PENDING_DELETIONS = (
    "SELECT seq, entry_id, text, skey FROM src.search_deletions WHERE seq > ? ORDER BY seq"
)
_FTS_DELETE = (
    "INSERT INTO transcript_fts (transcript_fts, rowid, text, skey) VALUES ('delete', ?, ?, ?)"
)
_TOP_ID = "SELECT coalesce(max(id), 0) FROM src.transcript_entries"
_TOP_DELETION = "SELECT coalesce(max(seq), 0) FROM src.search_deletions"
_ID_HIGH_WATER = "SELECT coalesce(max(seq), 0) FROM src.sqlite_sequence WHERE name = 'transcript_entries'"


def search_path_for(store_path: Path) -> Path:
    """Where the search index of the store at `store_path` lives."""
    return store_path.with_name(store_path.name + "-search")


def attach_store(conn: sqlite3.Connection, store_path: Path) -> None:
    """The store, read-only, as `src` (the indexer's view)."""
    conn.execute("ATTACH DATABASE ? AS src", (store_path.as_uri() + "?mode=ro",))


def attach_search(conn: sqlite3.Connection, search_path: Path) -> None:
    """The search file, read-only, as `s` (the store connections' view)."""
    conn.execute("ATTACH DATABASE ? AS s", (search_path.as_uri() + "?mode=ro",))


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _usable(conn: sqlite3.Connection, store_id: str) -> str | None:
    """Why the search file cannot be used as it is, or None."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SEARCH_SCHEMA_VERSION:
        return f"schema version {version}, expected {SEARCH_SCHEMA_VERSION}"
    row = conn.execute("SELECT store_id, indexed_upto FROM search_state").fetchone()
    if row is None or row[0] != store_id:
        return "it belongs to another store"
    if row[1] > conn.execute(_ID_HIGH_WATER).fetchone()[0]:
        return "it indexes entries this store never had (a store file restored from a copy?)"
    return None


def open_search_file(store_path: Path, store_id: str,
                     connect: Callable[[Path], sqlite3.Connection]) -> sqlite3.Connection:
    """The indexer's connection to a usable search file (built anew when needed)."""
    path = search_path_for(store_path)
    for attempt in (1, 2):
        conn: sqlite3.Connection | None = None
        try:
            with path.open("rb") as f:
                head = f.read(len(_HEADER))
        except FileNotFoundError:
            head = b""
        try:
            if head and head != _HEADER:
                raise sqlite3.DatabaseError("file is not a database")
            conn = connect(path)
            if str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower() != "wal":
                raise StoreError(f"{path}: cannot switch the search index to WAL mode")
            attach_store(conn, store_path)
            conn.execute("BEGIN IMMEDIATE")
            fresh = not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'search_state'").fetchone()
            if fresh:
                for stmt in _SEARCH_SCHEMA:
                    conn.execute(stmt)
                # deletions recorded before now concern rows this index never had
                conn.execute("INSERT INTO search_state VALUES (1, ?, 0, (" + _TOP_DELETION + "))",
                             (store_id,))
                conn.execute(f"PRAGMA user_version = {SEARCH_SCHEMA_VERSION}")
                conn.execute("COMMIT")
                return conn
            why = _usable(conn, store_id)
            conn.execute("COMMIT")
            if why is None:
                return conn
            raise sqlite3.DatabaseError(why)
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if attempt == 2 or (isinstance(exc, sqlite3.OperationalError)
                                and "locked" in str(exc)):
                raise StoreError(f"{path}: cannot open the search index: {exc}") from exc
            log.warning("%s: rebuilding the search index (%s)", path, exc)
            _remove(path)
        except BaseException:
            if conn is not None:
                conn.close()
            raise
    raise AssertionError("unreachable")


class Indexer:
    """The one thread (per process) that writes the search file."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, delay: float = 0.1,
                 at: int = 2000, chunk: int = 4000):
        self._conn = conn
        self._path = path
        self._delay = delay
        self._at = at
        self._chunk = chunk
        self._cond = threading.Condition()
        self._hint = 1  # a backlog may be waiting from the last process: look at once
        self._due: float | None = time.monotonic()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._stopping = False
        #: called (in this thread) with the last deletion the index has applied, so the
        #: store can drop the text it kept for it
        self.on_deletions_applied: Callable[[int], None] | None = None
        #: counters for tests and the benchmark
        self.rounds = 0
        self.indexed = 0
        self._thread = threading.Thread(target=self._run, name="clawharness-store-indexer",
                                        daemon=True)
        self._thread.start()

    # called from other threads --------------------------------------------------------
    def note_written(self, appended: int) -> None:
        """The writer committed `appended` new rows (0: a deletion) for the index."""
        with self._cond:
            self._hint += max(appended, 1)
            if self._hint >= self._at:
                self._due = time.monotonic()
                self._cond.notify()
            elif self._due is None:
                self._due = time.monotonic() + self._delay
                self._cond.notify()

    async def catch_up(self) -> None:
        """Return once every append and deletion committed before the call is indexed."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._cond:
            if self._stopping:
                raise StoreError(f"{self._path}: the store is closed")
            self._waiters.append((loop, fut))
            self._cond.notify()
        await fut

    def stop(self) -> None:
        """Index what is pending, then close the connection (blocks)."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._thread.join()

    # the thread -------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._stopping or self._waiters or (
                        self._due is not None and time.monotonic() >= self._due)):
                    timeout = None if self._due is None else self._due - time.monotonic()
                    self._cond.wait(timeout)
                waiters, self._waiters = self._waiters, []
                stopping = self._stopping
                self._hint, self._due = 0, None
            error = self._catch_up(background=not (waiters or stopping))
            for loop, fut in waiters:
                try:
                    loop.call_soon_threadsafe(_settle, fut, error)
                except RuntimeError:  # that loop is closed: nobody is waiting any more
                    pass
            if error is not None:
                with self._cond:  # try again in a while; searches fail meanwhile
                    self._due = time.monotonic() + 1.0
            if stopping:
                break
        self._conn.close()

    def _catch_up(self, *, background: bool) -> StoreError | None:
        try:
            while self._round():
                if background and self._stopping:
                    break
            return None
        except Exception as exc:
            log.warning("%s: updating the search index failed: %s", self._path, exc)
            err = StoreError(f"{self._path}: the search index could not be updated: {exc}")
            err.__cause__ = exc
            return err

    def _round(self) -> bool:
        """One transaction: pending deletions, then up to `chunk` new rows; more to do?"""
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            before = conn.execute(
                "SELECT indexed_upto, deletions_upto FROM search_state").fetchone()
            upto, done = before
            for seq, entry_id, text, skey in conn.execute(_PENDING_DELETIONS, (done,)).fetchall():
                if entry_id <= upto:  # ids are never reused: this row was indexed
                    conn.execute(_FTS_DELETE, (entry_id, text, skey))
                done = seq
            top = conn.execute(_TOP_ID).fetchone()[0]
            step = min(top, upto + self._chunk)
            if step > upto:
                conn.execute(_INDEX_RANGE, (upto, step))
                self.indexed += step - upto
                upto = step
            if (upto, done) != before:
                conn.execute("UPDATE search_state SET indexed_upto = ?, deletions_upto = ?",
                             (upto, done))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self.rounds += 1
        if done != before[1] and self.on_deletions_applied is not None:
            self.on_deletions_applied(done)
        return bool(top > upto)


def _settle(fut: asyncio.Future[Any], error: BaseException | None) -> None:
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(None)
