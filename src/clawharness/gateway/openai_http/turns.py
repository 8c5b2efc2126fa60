"""Starting an HTTP request's turn on the run service (or finding the one it repeats),
and streaming it.

A turn started here is a run like the WebSocket `agent` or `chat.send`: it runs through
`Host.run_turn` (transcript, selection, tool policy, approvals asked of connected
operators), it belongs to the run service rather than to the HTTP connection (a client
that disconnects leaves it running to its transcript), and WebSocket subscribers see its
events.

`begin_turn` gives the request its `TurnSource`: a run started for it; or, for a request
carrying an `Idempotency-Key` the store has seen (`idempotency`), the run it repeats (still
running in this process, or in another one) or that run's stored answer. `TurnStream` turns
a source's assistant text into a bounded queue for one SSE response; a client that stops
reading while the queue fills is dropped, not buffered for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from clawharness.gateway.openai_http.answers import TurnAnswer, answer_of
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.failures import retry_safe
from clawharness.gateway.openai_http.idempotency import (
    RequestIdentity,
    RequestLedger,
    RequestRecord,
)
from clawharness.runs import AssistantText, RunEnded, RunEvent, RunHandle, RunOptions, RunService

__all__ = ["MAX_PENDING_BYTES", "MAX_PENDING_EVENTS", "KeyedRuns", "TurnRequest", "TurnSource",
           "TurnStream", "begin_turn"]

log = logging.getLogger("clawharness.gateway")

#: stream items waiting for a slow reader before it is dropped
MAX_PENDING_EVENTS: Final = 2048
#: text waiting for a slow reader before it is dropped (one delta is always taken)
MAX_PENDING_BYTES = 1024 * 1024
#: how a request waits for a keyed run another process is running: first and longest poll
_POLL_FIRST: Final = 0.05
_POLL_LONGEST: Final = 1.0
#: claim attempts before a keyed request gives up (each lost race re-reads the record)
_CLAIM_TRIES: Final = 5
LOST_ERROR: Final = ("the first request with this Idempotency-Key was running in a gateway "
                     "process that stopped before it finished; its turn may have run in part")


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """The turn a request asks for: `prefix` names its run ids (`chatcmpl`, `resp`)."""

    prefix: str
    session_key: str
    agent_id: str
    message: str


class TurnSource:
    """What a request is answered from: a live run (`run`, started for it or joined), or
    an answer (stored, or awaited from another process: `pending`).

    `run_id` is the answer's id, `session_key` where the turn ran, `created` when the first
    request came; `replayed` says this request repeats an earlier one; `idempotent` that it
    carried an `Idempotency-Key`.
    """

    def __init__(self, *, run_id: str, session_key: str, created: int, idempotent: bool,
                 replayed: bool = False, run: RunHandle | None = None,
                 pending: Callable[[], Awaitable[TurnAnswer]] | None = None) -> None:
        assert (run is None) != (pending is None)
        self.run_id = run_id
        self.session_key = session_key
        self.created = created
        self.idempotent = idempotent
        self.replayed = replayed
        self.run = run
        self._pending = pending

    @classmethod
    def stored(cls, record: RequestRecord, answer: TurnAnswer) -> TurnSource:
        async def ready() -> TurnAnswer:
            return answer

        return cls(run_id=record.run_id, session_key=record.session_key,
                   created=record.created, idempotent=True, replayed=True, pending=ready)

    async def answer(self) -> TurnAnswer:
        if self.run is not None:
            return answer_of(await self.run.wait())
        assert self._pending is not None
        return await self._pending()

    def headers(self) -> dict[str, str]:
        out = {"x-openclaw-session-key": self.session_key}
        if self.replayed:
            out["idempotent-replayed"] = "true"
        return out


class KeyedRuns:
    """The keyed requests' runs in this process: each claimed run's record is kept current
    (its lease renewed while it runs, its answer stored when it ends) by a task of its own,
    so a client that goes away does not leave the record running."""

    def __init__(self, ledger: RequestLedger) -> None:
        self.ledger = ledger
        self._tasks: set[asyncio.Task[None]] = set()

    def track(self, identity: RequestIdentity, record: RequestRecord, run: RunHandle) -> None:
        task = asyncio.create_task(self._keep(identity, record, run),
                                   name=f"openai-http-keyed-{run.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _keep(self, identity: RequestIdentity, record: RequestRecord,
                    run: RunHandle) -> None:
        ledger = self.ledger
        current: RequestRecord | None = record
        while True:
            try:
                ended = await asyncio.wait_for(run.wait(), timeout=ledger.lease / 3)
                break
            except TimeoutError:
                if current is not None:
                    current = await ledger.renew(identity, current)
                    if current is None:
                        log.warning("run %s: its Idempotency-Key record was taken over",
                                    run.run_id)
        if current is None:
            return
        answer = answer_of(ended)
        try:
            await ledger.finish(identity, current, answer, retryable=retry_safe(answer))
        except Exception:  # the store failing must not lose the run's own result
            log.exception("run %s: its answer could not be stored for retries", run.run_id)

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait (bounded) for the records of runs that ended to be stored."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)


def _new_run_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def _start(runs: RunService, turn: TurnRequest, run_id: str) -> RunHandle:
    return runs.start(turn.session_key, turn.message, RunOptions(
        agent_id=turn.agent_id, kind="agent", idempotency_key=run_id, run_id=run_id))


async def begin_turn(runs: RunService, turn: TurnRequest, *,
                     keyed: KeyedRuns | None = None,
                     identity: RequestIdentity | None = None) -> TurnSource:
    """The request's source: a run started for it, unless `identity` (its Idempotency-Key)
    names a request already recorded (see the module docstring)."""
    created = int(time.time())
    run_id = _new_run_id(turn.prefix)
    if identity is None or keyed is None:
        return TurnSource(run_id=run_id, session_key=turn.session_key, created=created,
                          idempotent=False, run=_start(runs, turn, run_id))
    ledger = keyed.ledger
    for _ in range(_CLAIM_TRIES):
        claimed = await ledger.claim(identity, run_id=run_id, session_key=turn.session_key,
                                     created=created)
        if claimed is not None:
            run = _start(runs, turn, run_id)
            keyed.track(identity, claimed, run)
            return TurnSource(run_id=run_id, session_key=turn.session_key, created=created,
                              idempotent=True, run=run)
        record = await ledger.get(identity)
        if record is None:
            continue  # swept between the two reads
        if record.fingerprint != identity.fingerprint:
            raise OpenAiHttpError(
                422, "this Idempotency-Key was used for a different request (another body, "
                "agent or session): use a new key for a new request",
                code="idempotency_key_reused", headers={"x-should-retry": "false"})
        if record.state == "done" and record.answer is not None:
            return TurnSource.stored(record, record.answer)
        if record.state == "retryable":
            # the first run failed before doing anything a retry could repeat: run it
            # again, on the session the first one ran on
            taken = await ledger.take_over(identity, record, run_id=run_id, created=created)
            if taken is None:
                continue
            again = TurnRequest(turn.prefix, record.session_key, turn.agent_id, turn.message)
            run = _start(runs, again, run_id)
            keyed.track(identity, taken, run)
            return TurnSource(run_id=run_id, session_key=record.session_key, created=created,
                              idempotent=True, run=run)
        if record.lease_lost(time.time()):
            lost = await _settle_lost(ledger, identity, record)
            if lost is None:
                continue
            return lost
        live = runs.get(record.run_id)
        if live is not None and not live.done:
            return TurnSource(run_id=record.run_id, session_key=record.session_key,
                              created=record.created, idempotent=True, replayed=True,
                              run=live)
        return TurnSource(run_id=record.run_id, session_key=record.session_key,
                          created=record.created, idempotent=True, replayed=True,
                          pending=lambda: _await_answer(ledger, identity))
    raise OpenAiHttpError(409, "the request with this Idempotency-Key is changing hands: "
                          "retry it", code="idempotency_conflict",
                          headers={"x-should-retry": "true", "retry-after": "1"})


async def _settle_lost(ledger: RequestLedger, identity: RequestIdentity,
                       record: RequestRecord) -> TurnSource | None:
    answer = TurnAnswer(False, "", "interrupted", error=LOST_ERROR,
                        error_type="idempotent_request_lost")
    done = await ledger.finish(identity, record, answer, retryable=False)
    return None if done is None else TurnSource.stored(done, answer)


async def _await_answer(ledger: RequestLedger, identity: RequestIdentity) -> TurnAnswer:
    """The answer of a keyed run another process runs, once it stored it."""
    delay = _POLL_FIRST
    while True:
        record = await ledger.get(identity)
        if record is None:
            return TurnAnswer(False, "", "interrupted", error="the first request's record "
                              "expired before its answer was stored",
                              error_type="idempotent_request_lost")
        if record.state != "running" and record.answer is not None:
            return record.answer
        if record.lease_lost(time.time()):
            lost = await _settle_lost(ledger, identity, record)
            if lost is not None:
                return await lost.answer()
        await asyncio.sleep(delay)
        delay = min(delay * 2, _POLL_LONGEST)


class TurnStream:
    """A source's assistant deltas, then its answer, as an async iterator for one
    response. A request that joins a running run gets the text so far as its first
    delta; a stored answer has no deltas (the endpoint sends its text whole)."""

    def __init__(self, source: TurnSource, on_overflow: Callable[[], object]) -> None:
        self._source = source
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._on_overflow = on_overflow
        self._pending_bytes = 0
        self._max_pending_bytes = MAX_PENDING_BYTES
        self.dropped = False
        self.saw_delta = False
        self._unsubscribe: Callable[[], None] = lambda: None
        run = source.run
        if run is None:
            self._queue.put_nowait(None)
            return
        if run.text:
            self._put(run.text)
        self._unsubscribe = run.subscribe(self._observe)
        if run.done:
            self._queue.put_nowait(None)

    def _observe(self, event: RunEvent) -> None:
        if isinstance(event, RunEnded):
            self._queue.put_nowait(None)
            return
        if not isinstance(event, AssistantText) or self.dropped or not event.delta:
            return
        self._put(event.delta)

    def _put(self, delta: str) -> None:
        size = len(delta.encode())
        waiting = self._queue.qsize()
        if waiting and (waiting >= MAX_PENDING_EVENTS
                        or self._pending_bytes + size > self._max_pending_bytes):
            self.dropped = True
            self.close()
            self._on_overflow()
            return
        self._pending_bytes += size
        self._queue.put_nowait(delta)

    async def deltas(self) -> AsyncIterator[str]:
        """Yields each assistant delta; ends when the run settles."""
        while True:
            item = await self._queue.get()
            if item is None:
                return
            self._pending_bytes -= len(item.encode())
            self.saw_delta = True
            yield item

    async def outcome(self) -> TurnAnswer:
        return await self._source.answer()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._unsubscribe()
