"""The writer thread of the SQLite store: group commit of queued write requests.

After a batch commits it tells `on_commit` how many rows were appended (the search
indexer, which keeps the full-text index in a file of its own, off the append path).

Requests made on the event loop while the thread is busy are held back until the loop
has run the callbacks it had ready (`submit_soon`), then handed over together: with many
turns in flight the thread then wakes once per loop iteration and commits what that
iteration asked for as one batch, instead of waking for each request and taking the GIL
from the loop to commit a batch of two or three (one transaction, one wake-up of the
loop per batch).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clawharness.errors import ClawHarnessError, StoreCorruptError, StoreError
from clawharness.store._sqlite_file import CORRUPT_HINT

_MAX_BATCH = 1024
#: requests held back on the loop are handed over at the latest when this many wait
_MAX_HELD = 512
Fn = Callable[[sqlite3.Connection], Any]
#: group(conn, payloads) does the work of several requests at once, one result each
GroupFn = Callable[[sqlite3.Connection, list[Any]], list[Any]]
#: on_commit(appended) after a batch committed: rows appended (0 when only other writes)
CommitHook = Callable[[int], None]
log = logging.getLogger(__name__)


class Request:
    """One queued write: `fn(conn)` runs in the writer thread inside its batch.

    By contract `fn` raises a ClawHarnessError only before it wrote anything, so
    such an error needs no rollback. Adjacent requests with the same `group` function
    may instead be done together by `group(conn, [payload, ...])`, which must give the
    results their `fn`s would have (fewer statements, and far fewer hand-offs of the GIL
    between this thread and the event loop); if it fails, each `fn` runs on its own.
    """

    __slots__ = ("error", "fn", "future", "group", "loop", "payload", "result")

    def __init__(self, fn: Fn, loop: asyncio.AbstractEventLoop | None,
                 future: asyncio.Future[Any] | None,
                 group: GroupFn | None = None, payload: Any = None):
        self.fn = fn
        self.group = group
        self.payload = payload
        self.loop = loop
        self.future = future
        self.result: Any = None
        self.error: BaseException | None = None


def _resolve(batch: list[Request]) -> None:
    for req in batch:
        if req.future is None or req.future.done():  # the caller gave up; it happened
            continue
        if req.error is not None:
            req.future.set_exception(req.error)
        else:
            req.future.set_result(req.result)


class _Retry(Exception):
    def __init__(self, cause: BaseException):
        super().__init__(str(cause))
        self.cause = cause


class Writer:
    """The one thread that writes: batches queued requests into single transactions."""

    def __init__(self, conn: sqlite3.Connection, path: Path, on_commit: CommitHook):
        self._conn = conn
        self._path = path
        self._on_commit = on_commit
        #: rows appended by the batch in progress (set by requests in this thread); a
        #: deletion sets `search_dirty`
        self.unindexed = 0
        self.search_dirty = False
        #: a request, the requests a loop iteration held back (one item: they are taken
        #: together), or None to stop
        self._queue: queue.SimpleQueue[Request | list[Request] | None] = queue.SimpleQueue()
        #: requests held back on the event loop by `submit_soon` (touched on it only)
        self._held: list[Request] = []
        self._lock = threading.Lock()
        self._stopping = False
        #: counters for tests and the benchmark: transactions, requests, largest batch
        self.batches = 0
        self.requests = 0
        self.max_batch = 0
        self.checkpoints = 0
        self.batch_sizes: list[int] = []
        #: session_id -> highest seq, touched only by this thread; valid while no other
        #: connection has committed (PRAGMA data_version) and no batch rolled back
        self.seqs: dict[str, int] = {}
        self._data_version = -1
        #: False from taking work until its transaction ended (read without a lock: a
        #: stale answer costs only a short wait for the file's write lock)
        self._waiting = True
        self._checkpoint = False
        self._thread = threading.Thread(target=self._run, name="clawharness-store-writer",
                                        daemon=True)
        self._thread.start()

    def submit(self, req: Request) -> None:
        with self._lock:
            if self._stopping:
                raise StoreError(f"{self._path}: the store is closed")
            self._queue.put(req)

    def submit_soon(self, req: Request, loop: asyncio.AbstractEventLoop) -> None:
        """Queue `req` from the event loop `loop` (the one thread that calls this): at
        once when the thread idles (a lone write waits for nothing), else held back
        until the callbacks the loop has ready have run, to go with the requests they
        make (in order: nothing overtakes a held request)."""
        held = self._held
        if not held:
            if self._waiting and self._queue.empty():
                self.submit(req)
                return
            loop.call_soon(self.hand_over)
        held.append(req)
        if len(held) >= _MAX_HELD:
            self.hand_over()

    def hand_over(self) -> None:
        """Queue the requests held back on the loop (on the loop; also before closing).
        Once the store is closing they fail, as a request submitted then would."""
        held, self._held = self._held, []
        if not held:
            return
        with self._lock:
            if not self._stopping:
                self._queue.put(held)
                return
        for req in held:
            if req.future is not None and not req.future.done():
                req.future.set_exception(StoreError(f"{self._path}: the store is closed"))

    @property
    def idle(self) -> bool:
        """Nothing queued or held and no batch running: a write made elsewhere now
        neither overtakes a queued one nor meets this thread at the file's write lock."""
        return self._waiting and not self._held and self._queue.empty()

    def checkpoint_soon(self) -> None:
        """Checkpoint the WAL after the next batch (for commits of other connections in
        this process that do not checkpoint themselves)."""
        self._checkpoint = True
        self.submit_background(lambda conn: None)

    def submit_background(self, fn: Fn) -> None:
        """Queue `fn` with nobody waiting for it (any thread); ignored once stopping."""
        with self._lock:
            if not self._stopping:
                self._queue.put(Request(fn, None, None))

    def stop(self) -> None:
        """Finish every queued request, then close the connection (blocks)."""
        with self._lock:
            if not self._stopping:
                self._stopping = True
                self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        stop = False
        while not stop:
            item = self._queue.get()
            self._waiting = False
            batch: list[Request] = []
            while True:
                if item is None:
                    stop = True
                    break
                if isinstance(item, list):
                    batch.extend(item)
                else:
                    batch.append(item)
                if len(batch) >= _MAX_BATCH:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if batch:
                try:
                    self._run_batch(batch)
                except BaseException as exc:  # never let the writer die with callers waiting
                    self._fail_all(batch, exc)
                    self._waiting = True
                    self._deliver(batch)
            self._waiting = True
            if self._checkpoint:
                self._checkpoint = False
                try:
                    self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    self.checkpoints += 1
                except sqlite3.Error as exc:  # the next one will do
                    log.warning("%s: WAL checkpoint failed: %s", self._path, exc)
        self._conn.close()

    def _run_batch(self, batch: list[Request]) -> None:
        try:
            self._attempt(batch, savepoints=False)
        except _Retry:
            # a request failed inside sqlite and may have left half its writes: run the
            # batch again with a SAVEPOINT per request. Not the default because FTS5
            # flushes its pending index data at every savepoint, which is slow.
            for req in batch:
                req.result = req.error = None
            try:
                self._attempt(batch, savepoints=True)
            except _Retry as retry:
                self._fail_all(batch, retry.cause)
        except Exception as exc:
            self._fail_all(batch, exc)
        if self.unindexed or self.search_dirty:
            appended, self.unindexed, self.search_dirty = self.unindexed, 0, False
            try:
                self._on_commit(appended)
            except Exception:  # the index catches up at the next search anyway
                log.exception("%s: telling the search indexer failed", self._path)
        self._waiting = True  # the transaction is over: the callers may write inline now
        self._deliver(batch)

    def _fail_all(self, batch: list[Request], exc: BaseException) -> None:
        err = translate(exc, self._path, "write")
        for req in batch:
            req.error = StoreError(f"{self._path}: write batch failed, nothing of it "
                                   f"was stored: {err}")
            req.error.__cause__ = exc

    def _attempt(self, batch: list[Request], *, savepoints: bool) -> None:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if version != self._data_version:
                self.seqs.clear()
                self._data_version = version
            at = 0
            while at < len(batch):
                req = batch[at]
                at += 1
                if req.group is not None and not savepoints:
                    run = [req]
                    while at < len(batch) and batch[at].group is req.group:
                        run.append(batch[at])
                        at += 1
                    try:
                        results = req.group(conn, [r.payload for r in run])
                    except Exception as exc:
                        raise _Retry(exc) from exc
                    for r, result in zip(run, results, strict=True):
                        r.result = result
                    continue
                if savepoints:
                    conn.execute("SAVEPOINT req")
                try:
                    req.result = req.fn(conn)
                except ClawHarnessError as exc:
                    # by contract a request raises these only before it wrote anything
                    req.error = exc
                except Exception as exc:
                    if not savepoints or not conn.in_transaction:
                        raise _Retry(exc) from exc
                    req.error = exc
                    conn.execute("ROLLBACK TO req")
                if savepoints:
                    conn.execute("RELEASE req")
            conn.execute("COMMIT")
        except BaseException as exc:
            self.seqs.clear()
            self.unindexed, self.search_dirty = 0, False
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(exc, _Retry) or not savepoints:
                raise
            raise _Retry(exc) from exc

    def _deliver(self, batch: list[Request]) -> None:
        self.batches += 1
        self.requests += len(batch)
        self.max_batch = max(self.max_batch, len(batch))
        if len(self.batch_sizes) < 10_000:
            self.batch_sizes.append(len(batch))
        by_loop: dict[asyncio.AbstractEventLoop, list[Request]] = {}
        for req in batch:
            if req.error is not None:
                req.error = translate(req.error, self._path, "write")
            if req.loop is None:  # a background request: nobody waits for it
                if req.error is not None:
                    log.warning("%s: background write failed: %s", self._path, req.error)
                continue
            by_loop.setdefault(req.loop, []).append(req)
        for loop, reqs in by_loop.items():
            try:
                loop.call_soon_threadsafe(_resolve, reqs)
            except RuntimeError:  # that loop is closed: nobody is waiting any more
                pass


def translate(exc: BaseException, path: Path, what: str) -> BaseException:
    if isinstance(exc, ClawHarnessError) or not isinstance(exc, sqlite3.Error):
        return exc
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text
    ):
        err: StoreError = StoreCorruptError(f"{path}: the store file is corrupt: {text}")
        err.hint = CORRUPT_HINT
    else:
        err = StoreError(f"{path}: {what} failed: {text}")
    err.__cause__ = exc
    return err
