"""The per-turn event relay: how a turn run on a worker streams back to its front.

Temporal has no streaming, so the turn's events go through PostgreSQL, which every
front and worker of a cluster already share: the worker appends rows to
`cluster_turn_events` (partial replies, coalesced to the newest; a retry notice; the
result last) and `NOTIFY`s; the front `LISTEN`s on one connection, reads the rows past
the last it saw, and deletes the turn's rows once it has the result (the rows of all the
turns finished within `DISCARD_BATCH_SECONDS`, in one statement). Waiters also read
on a timer: every `LISTENING_POLL_SECONDS` as a safety net while notifications come,
every `POLL_SECONDS` while the LISTEN connection is down.

The table lives in the store's schema (the URL's `search_path`) and is created on first
use; it holds only turns in flight, never the transcript.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from clawharness.errors import StoreError
from clawharness.names import display_store_url

__all__ = ["POLL_SECONDS", "TurnEvent", "TurnEventRelay", "abort_key", "reply_key"]

#: what a worker's room announcement reaches: (task queue, worker id, free turn slots)
RoomListener = Callable[[str, str, int], None]

log = logging.getLogger("clawharness.cluster.events")

Conn = psycopg.AsyncConnection[Any]

CHANNEL = "clawharness_turn_events"
#: how often a waiter reads when no notifications come (the LISTEN connection is down)
POLL_SECONDS = 0.5
#: how often it reads while notifications come: only a safety net then, since a waiter
#: clears its event before it reads, so a notification is never missed
LISTENING_POLL_SECONDS = 5.0
#: finished turns whose rows a front deletes together: one statement, not one a turn
DISCARD_BATCH_SECONDS = 0.2
_DDL = (
    "SELECT pg_advisory_xact_lock(7464232118)",
    """CREATE TABLE IF NOT EXISTS cluster_turn_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        turn_id text NOT NULL,
        kind text NOT NULL,
        payload jsonb NOT NULL,
        created_at double precision NOT NULL DEFAULT extract(epoch FROM now())
    )""",
    "CREATE INDEX IF NOT EXISTS cluster_turn_events_by_turn ON cluster_turn_events (turn_id, id)",
)
#: the notification's key after the schema: the turn id (what its front follows), or
#: `abort/<turn id>` for an abort (what the worker running it follows)
_APPEND = ("WITH added AS (INSERT INTO cluster_turn_events (turn_id, kind, payload) "
           "VALUES (%s, %s, %s::jsonb) RETURNING turn_id) "
           f"SELECT pg_notify('{CHANNEL}', current_schema() || ':' || %s) FROM added")
_ABORTED = ("SELECT EXISTS (SELECT 1 FROM cluster_turn_events "
            "WHERE turn_id = %s AND kind = 'abort')")
_READ = ("SELECT id, kind, payload FROM cluster_turn_events WHERE turn_id = %s AND id > %s "
         "ORDER BY id")


def abort_key(turn_id: str) -> str:
    """What a worker subscribes to, to hear that its turn's front asked for an abort."""
    return f"abort/{turn_id}"


#: a worker's announcement of its free turn slots: `room/[<free>, <task queue>, <worker>]`
ROOM_PREFIX = "room/"
_ANNOUNCE = f"SELECT pg_notify('{CHANNEL}', current_schema() || ':' || %s)"


def reply_key(turn_id: str, question_id: str) -> str:
    """Where a front answers a question the turn's worker relayed (and the worker waits)."""
    return f"reply/{turn_id}/{question_id}"


@dataclass(frozen=True, slots=True)
class TurnEvent:
    """`kind`: `partial` (payload `{text}`), `retry` (`{attempt}`), `approval` and
    `question` (`{id, request}`, `{id, prompt}`: see `clawharness.cluster.questions`),
    `result` (the turn result's JSON), written by the worker; `abort` (`{}`) and `reply`
    (under `reply_key`), written by the front."""

    id: int
    kind: str
    payload: dict[str, Any]


class _Pool:
    """A few autocommit connections, handed out one caller at a time."""

    def __init__(self, url: str, size: int) -> None:
        self._url = url
        self._size = size
        self._free: asyncio.Queue[Conn] = asyncio.Queue()
        self._all: list[Conn] = []

    async def conn(self) -> Conn:
        if self._free.empty() and len(self._all) < self._size:
            conn = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
            self._all.append(conn)
            return conn
        return await self._free.get()

    def give_back(self, conn: Conn) -> None:
        if conn.closed:
            self._all.remove(conn)
        else:
            self._free.put_nowait(conn)

    async def close(self) -> None:
        for conn in self._all:
            await conn.close()
        self._all.clear()


class TurnEventRelay:
    """Append (workers) and follow (fronts) the events of turns in flight; and the other
    way, a front's abort of a turn, which the worker running it follows."""

    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        self._where = display_store_url(url)
        self._url = url
        self._pool = _Pool(url, pool_size)
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._to_discard: list[str] = []
        self._discarding: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._room_listeners: list[RoomListener] = []

    async def open(self) -> None:
        """Create the relay's table if absent (idempotent, serialized across processes)."""
        try:
            async with await psycopg.AsyncConnection.connect(self._url) as conn, \
                    conn.transaction():
                for stmt in _DDL:
                    await conn.execute(stmt)
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: the turn event relay could not be set up: "
                             f"{exc}") from exc

    async def close(self) -> None:
        self._closing.set()  # rows waiting to be deleted go now
        if self._discarding is not None:
            await asyncio.gather(self._discarding, return_exceptions=True)
        task, self._listener = self._listener, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await self._pool.close()

    async def _execute(self, query: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        conn = await self._pool.conn()
        try:
            cur = await conn.execute(query, params)
            return await cur.fetchall() if cur.description else []
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: turn event relay: {exc}") from exc
        finally:
            self._pool.give_back(conn)

    # workers ----------------------------------------------------------------------

    async def append(self, turn_id: str, kind: str, payload: dict[str, Any]) -> None:
        await self._execute(_APPEND, (turn_id, kind, json.dumps(payload), turn_id))

    async def announce_room(self, task_queue: str, worker_id: str, free: int) -> None:
        """Tell the other workers of `task_queue` how many turn slots this one has free
        (a notification only: nothing is stored)."""
        said = json.dumps([free, task_queue, worker_id], separators=(",", ":"))
        await self._execute(_ANNOUNCE, (ROOM_PREFIX + said,))

    def on_room(self, listener: RoomListener) -> None:
        """Call `listener` with every room announcement heard (its own included)."""
        self._room_listeners.append(listener)

    def _heard_room(self, key: str) -> None:
        try:
            free, task_queue, worker_id = json.loads(key[len(ROOM_PREFIX):])
        except (ValueError, TypeError):
            return  # not one of ours
        if isinstance(free, int) and isinstance(task_queue, str) and isinstance(worker_id, str):
            for listener in self._room_listeners:
                listener(task_queue, worker_id, free)

    async def abort_requested(self, turn_id: str) -> bool:
        rows = await self._execute(_ABORTED, (turn_id,))
        return bool(rows and rows[0][0])

    # fronts -----------------------------------------------------------------------

    async def request_abort(self, turn_id: str) -> None:
        """Ask the worker running (or about to run) the turn to abort it; the row stays
        until the front deletes the turn's rows, so a turn still queued sees it when it
        starts."""
        await self._execute(_APPEND, (turn_id, "abort", "{}", abort_key(turn_id)))

    async def read(self, turn_id: str, after: int = 0) -> list[TurnEvent]:
        rows = await self._execute(_READ, (turn_id, after))
        return [TurnEvent(int(r[0]), str(r[1]), dict(r[2])) for r in rows]

    async def discard(self, *turn_ids: str) -> None:
        await self._execute("DELETE FROM cluster_turn_events WHERE turn_id = ANY(%s)",
                            (list(turn_ids),))

    def discard_soon(self, turn_id: str) -> None:
        """Delete the turn's rows behind the caller's back (not on its critical path), with
        those of the other turns finished within `DISCARD_BATCH_SECONDS`; `close` deletes
        what still waits."""
        self._to_discard.append(turn_id)
        if self._discarding is None or self._discarding.done():
            self._discarding = asyncio.ensure_future(self._discard_batches())

    async def _discard_batches(self) -> None:
        # turns finished while a batch is being deleted go in the next batch
        while self._to_discard:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), DISCARD_BATCH_SECONDS)
            turn_ids, self._to_discard = self._to_discard, []
            try:
                await self.discard(*turn_ids)
            except StoreError as exc:  # rows of finished turns, harmless if left
                log.warning("the relayed events of %d finished turns were not deleted: %s",
                            len(turn_ids), exc)

    async def listen(self) -> None:
        """Start the LISTEN connection (once) and wait until it listens."""
        if self._listener is None or self._listener.done():
            self._listening.clear()
            self._listener = asyncio.get_running_loop().create_task(
                self._listen(), name="clawharness-turn-event-listener")
        waiting = asyncio.ensure_future(self._listening.wait())
        done, _ = await asyncio.wait({waiting, self._listener},
                                     return_when=asyncio.FIRST_COMPLETED)
        if waiting not in done:
            waiting.cancel()
            self._listener.result()  # raises why it stopped

    @property
    def listening(self) -> bool:
        """Notifications come: a subscriber's event is set for every row of its key."""
        return (self._listening.is_set() and self._listener is not None
                and not self._listener.done())

    @property
    def poll_seconds(self) -> float:
        """How long a waiter may wait on its event before it reads anyway."""
        return LISTENING_POLL_SECONDS if self.listening else POLL_SECONDS

    def subscribe(self, turn_id: str) -> asyncio.Event:
        event = asyncio.Event()
        self._waiters.setdefault(turn_id, set()).add(event)
        return event

    def unsubscribe(self, turn_id: str, event: asyncio.Event) -> None:
        waiters = self._waiters.get(turn_id)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._waiters[turn_id]

    async def _listen(self) -> None:
        try:
            conn = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: turn event relay: {exc}") from exc
        try:
            row = await (await conn.execute("SELECT current_schema()")).fetchone()
            prefix = f"{row[0] if row else 'public'}:"
            await conn.execute(f"LISTEN {CHANNEL}")
            self._listening.set()
            async for note in conn.notifies():
                if note.payload.startswith(prefix):
                    key = note.payload[len(prefix):]
                    if key.startswith(ROOM_PREFIX):
                        self._heard_room(key)
                    for event in list(self._waiters.get(key, ())):
                        event.set()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # waiters fall back to polling
            log.warning("%s: turn event notifications stopped: %s", self._where, exc)
        finally:
            self._listening.clear()
            for waiters in self._waiters.values():
                for event in waiters:
                    event.set()
            await conn.close()
