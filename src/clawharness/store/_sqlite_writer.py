"""The writer thread of the SQLite store: group commit of queued write requests.

It also keeps the full-text index up to date, off the append path: appended rows are
indexed in rounds of thousands (when enough are pending, or `index_delay` after the
first), because FTS5 pays a large fixed cost per transaction it writes to and a
moderate cost per row. A search first asks for a round, so it sees every acknowledged
append.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clawharness.errors import ClawHarnessError, StoreCorruptError, StoreError

_MAX_BATCH = 1024
Fn = Callable[[sqlite3.Connection], Any]
#: group(conn, payloads) does the work of several requests at once, one result each
GroupFn = Callable[[sqlite3.Connection, list[Any]], list[Any]]
#: index(conn, limit) indexes up to `limit` pending rows, returns how many it looked at
IndexFn = Callable[[sqlite3.Connection, int], int]
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

    def __init__(self, fn: Fn, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any],
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
        if req.future.done():  # the caller gave up; the write still happened
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

    def __init__(self, conn: sqlite3.Connection, path: Path, index: IndexFn, *,
                 backlog: bool = False, index_delay: float = 0.1, index_at: int = 2000,
                 index_chunk: int = 4000):
        self._conn = conn
        self._path = path
        self._index = index
        self._index_delay = index_delay
        self._index_at = index_at
        self._index_chunk = index_chunk
        #: rows appended since the last index round (a hint, touched by this thread only);
        #: `backlog`: the file already holds unindexed rows (the last process was killed)
        self.unindexed = 1 if backlog else 0
        self._index_due: float | None = time.monotonic() if backlog else None
        self.index_rounds = 0
        self._queue: queue.SimpleQueue[Request | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._stopping = False
        #: counters for tests and the benchmark: transactions, requests, largest batch
        self.batches = 0
        self.requests = 0
        self.max_batch = 0
        self.batch_sizes: list[int] = []
        #: session_id -> highest seq, touched only by this thread; valid while no other
        #: connection has committed (PRAGMA data_version) and no batch rolled back
        self.seqs: dict[str, int] = {}
        self._data_version = -1
        self._thread = threading.Thread(target=self._run, name="clawharness-store-writer",
                                        daemon=True)
        self._thread.start()

    def submit(self, req: Request) -> None:
        with self._lock:
            if self._stopping:
                raise StoreError(f"{self._path}: the store is closed")
            self._queue.put(req)

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
            try:
                if self._index_due is None:
                    item = self._queue.get()
                else:
                    item = self._queue.get(timeout=max(0.0, self._index_due - time.monotonic()))
            except queue.Empty:
                self._index_round()
                continue
            batch: list[Request] = []
            while True:
                if item is None:
                    stop = True
                    break
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
                    self._deliver(batch)
            if self.unindexed >= self._index_at or (
                self._index_due is not None and time.monotonic() >= self._index_due
            ):
                self._index_round()
            elif self.unindexed and self._index_due is None:
                self._index_due = time.monotonic() + self._index_delay
        if self.unindexed:
            self._index_round(limit=None)  # leave the file fully indexed at rest
        self._conn.close()

    def _index_round(self, limit: int | None = 0) -> None:
        """One transaction indexing pending rows (at most `index_chunk`, or all)."""
        conn = self._conn
        chunk = self._index_chunk if limit == 0 else limit
        done = 0
        try:
            conn.execute("BEGIN IMMEDIATE")
            while chunk is None or done < chunk:
                step = self._index(conn, 5000 if chunk is None else chunk - done)
                done += step
                if step == 0:
                    break
            conn.execute("COMMIT")
        except Exception as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            log.warning("%s: indexing appended entries for search failed, will retry: %s",
                        self._path, exc)
            self._index_due = time.monotonic() + 1.0
            return
        self.index_rounds += 1
        if chunk is not None and done >= chunk:  # more may be pending: soon again
            self._index_due = time.monotonic()
        else:
            self.unindexed = 0
            self._index_due = None

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
    else:
        err = StoreError(f"{path}: {what} failed: {text}")
    err.__cause__ = exc
    return err
