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
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Final

from clawharness.errors import ConfigError
from clawharness.gateway.openai_http.answers import (
    HostCall,
    TurnAnswer,
    answer_of,
    host_calls_of,
    with_host_calls,
)
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.failures import failure_error, retry_safe
from clawharness.gateway.openai_http.idempotency import (
    RequestIdentity,
    RequestLedger,
    RequestRecord,
)
from clawharness.gateway.openai_http.memory import SessionMemory
from clawharness.harness import CallerToolResult, ToolSpec
from clawharness.runs import (
    AssistantText,
    RunEnded,
    RunEvent,
    RunHandle,
    RunOptions,
    RunResult,
    RunService,
    RunStarted,
)
from clawharness.sessions.queue import parse_queue_mode
from clawharness.store import TranscriptEntry

__all__ = ["MAX_PENDING_BYTES", "MAX_PENDING_EVENTS", "QUEUE_HEADER", "RunKeeper",
           "TurnRequest", "TurnSource", "TurnStream", "begin_turn", "header_queue_mode"]

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
#: finished runs whose answers are kept for requests that follow them in this process
_ANSWERS_KEPT: Final = 1000
LOST_ERROR: Final = ("the first request with this Idempotency-Key was running in a gateway "
                     "process that stopped before it finished; its turn may have run in part")


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """The turn a request asks for: `prefix` names its run ids (`chatcmpl`, `resp`);
    `client_tools` the client's function tools, `results` its results of the calls the
    session's last turn ended with; `host_calls`: show the host's own tool calls; `caller`
    the credential the request presented (the client's calls are remembered under it)."""

    prefix: str
    session_key: str
    agent_id: str
    message: str
    client_tools: tuple[ToolSpec, ...] = ()
    results: tuple[CallerToolResult, ...] = ()
    host_calls: bool = False
    caller: str = ""
    #: whose budgets the turn falls under (`HttpApi.budget_caller`)
    budget_caller: str | None = None
    #: what to do if a turn of the session is running (`QUEUE_HEADER`; docs/steering.md)
    queue_mode: str | None = None
    #: the request's reasoning effort as a thinking level (`request_thinking`)
    thinking: str | None = None
    #: the caller's W3C trace context (`caller_trace_context` of the request's headers):
    #: the turn's spans join the caller's trace
    trace_context: Mapping[str, str] | None = None


def request_thinking(effort: object, param: str) -> str | None:
    """A request's reasoning effort (`reasoning_effort`, `reasoning.effort`: `none`,
    `minimal`, `low`, `medium`, `high`, `xhigh`) as this message's thinking level
    (docs/thinking.md); a 400 naming `param` when it is not one."""
    if effort is None:
        return None
    from clawharness.models import ThinkingLevelError, parse_thinking_level

    if not isinstance(effort, str):
        raise OpenAiHttpError(400, f"`{param}` must be a string", param=param)
    try:
        return parse_thinking_level(effort)
    except ThinkingLevelError as exc:
        raise OpenAiHttpError(400, f"`{param}`: {exc}", param=param) from None


#: the request's queue mode: `steer`, `followup`, `collect` or `interrupt`
QUEUE_HEADER: Final = "x-openclaw-queue-mode"


def header_queue_mode(value: str | None) -> str | None:
    """The `QUEUE_HEADER` value, checked (a 400 naming the header when unknown)."""
    try:
        return parse_queue_mode(value.strip().lower() if value else None)
    except ConfigError as exc:
        raise OpenAiHttpError(400, f"{QUEUE_HEADER}: {exc}", param=QUEUE_HEADER) from None


class TurnSource:
    """What a request is answered from: a live run (`run`, started for it or joined), or
    an answer (stored, or awaited from another process: `pending`).

    `run_id` is the answer's id, `session_key` where the turn ran, `created` when the first
    request came; `replayed` says this request repeats an earlier one; `idempotent` that it
    carried an `Idempotency-Key`.
    """

    def __init__(self, *, run_id: str, session_key: str, created: int, idempotent: bool,
                 replayed: bool = False, run: RunHandle | None = None,
                 keeper: RunKeeper | None = None,
                 pending: Callable[[], Awaitable[TurnAnswer]] | None = None) -> None:
        assert (run is None) != (pending is None)
        self._keeper = keeper
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
            if self._keeper is not None:
                return await self._keeper.answer(self.run)
            return answer_of(await self.run.wait())
        assert self._pending is not None
        return await self._pending()

    def headers(self) -> dict[str, str]:
        out = {"x-openclaw-session-key": self.session_key}
        if self.replayed:
            out["idempotent-replayed"] = "true"
        return out


class RunKeeper:
    """What outlives a request's connection, for every run the HTTP API starts: each run's
    answer (with the host's tool calls when asked, read from the transcript), the sessions
    of the client tool calls it ended with (`memory`), and for a keyed request its record
    (the claim renewed while the run goes, the answer stored when it ends). A task per run
    does it, so a client that goes away changes nothing."""

    def __init__(self, memory: SessionMemory, ledger: RequestLedger | None,
                 history: Callable[..., Awaitable[list[TranscriptEntry]]]) -> None:
        self.memory = memory
        self.ledger = ledger
        self._history = history
        self._answers: OrderedDict[str, asyncio.Future[TurnAnswer]] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    def keep(self, run: RunHandle, turn: TurnRequest, *,
             identity: RequestIdentity | None = None,
             record: RequestRecord | None = None) -> None:
        self._answers[run.run_id] = asyncio.get_running_loop().create_future()
        while len(self._answers) > _ANSWERS_KEPT:
            self._answers.popitem(last=False)
        task = asyncio.create_task(self._keep(run, turn, identity, record),
                                   name=f"openai-http-run-{run.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def answer(self, run: RunHandle) -> TurnAnswer:
        """The run's answer, once it ended."""
        future = self._answers.get(run.run_id)
        if future is None:  # forgotten (many runs later): what the run itself says
            return answer_of(await run.wait())
        return await asyncio.shield(future)

    async def _keep(self, run: RunHandle, turn: TurnRequest,
                    identity: RequestIdentity | None, record: RequestRecord | None) -> None:
        future = self._answers.get(run.run_id)
        answer: TurnAnswer | None = None
        try:
            ended, record = await self._wait(run, identity, record)
            answer = answer_of(ended)
            if turn.host_calls and answer.tools_ran:
                answer = with_host_calls(answer, await self._host_calls(run, turn, answer))
        except Exception:  # the answer must come, whatever the bookkeeping did
            log.exception("run %s: its answer could not be made", run.run_id)
            answer = answer or answer_of(await run.wait())
        finally:
            if future is not None and not future.done() and answer is not None:
                future.set_result(answer)
        try:
            for call in answer.client_calls:
                await self.memory.remember("call", call.id, run.session_key, caller=turn.caller)
            if identity is not None and record is not None and self.ledger is not None:
                await self.ledger.finish(identity, record, answer, retryable=retry_safe(answer))
        except Exception:  # the store failing must not lose the run's own result
            log.exception("run %s: its answer could not be stored for retries", run.run_id)

    async def _wait(self, run: RunHandle, identity: RequestIdentity | None,
                    record: RequestRecord | None) -> tuple[RunResult, RequestRecord | None]:
        """The run's end; meanwhile a keyed request's claim is renewed."""
        ledger = self.ledger
        if identity is None or record is None or ledger is None:
            return await run.wait(), record
        current: RequestRecord | None = record
        while True:
            try:
                return await asyncio.wait_for(run.wait(), timeout=ledger.lease / 3), current
            except TimeoutError:
                if current is not None:
                    current = await ledger.renew(identity, current)
                    if current is None:
                        log.warning("run %s: its Idempotency-Key record was taken over",
                                    run.run_id)

    async def _host_calls(self, run: RunHandle, turn: TurnRequest,
                          answer: TurnAnswer) -> tuple[HostCall, ...]:
        entries = await self._history(run.session_key, last=4 * answer.tools_ran + 8)
        return host_calls_of(entries, run.run_id, frozenset(t.name for t in turn.client_tools))

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait (bounded) for the answers of runs that ended to be stored."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)


def _new_run_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def _start(runs: RunService, keeper: RunKeeper, turn: TurnRequest, run_id: str, *,
           identity: RequestIdentity | None = None,
           record: RequestRecord | None = None) -> RunHandle:
    run = runs.start(turn.session_key, turn.message, RunOptions(
        agent_id=turn.agent_id, kind="agent", idempotency_key=run_id, run_id=run_id,
        caller_tools=turn.client_tools, caller_results=turn.results,
        caller=turn.budget_caller, queue_mode=turn.queue_mode, thinking=turn.thinking,
        trace_context=turn.trace_context))
    keeper.keep(run, turn, identity=identity, record=record)
    return run


async def begin_turn(runs: RunService, keeper: RunKeeper, turn: TurnRequest, *,
                     identity: RequestIdentity | None = None) -> TurnSource:
    """The request's source: a run started for it, unless `identity` (its Idempotency-Key)
    names a request already recorded (see the module docstring)."""
    created = int(time.time())
    run_id = _new_run_id(turn.prefix)
    if identity is None:
        return TurnSource(run_id=run_id, session_key=turn.session_key, created=created,
                          idempotent=False, run=_start(runs, keeper, turn, run_id),
                          keeper=keeper)
    ledger = keeper.ledger
    if ledger is None:
        raise OpenAiHttpError(501, "this gateway keeps no store, so it cannot honour an "
                              "Idempotency-Key", code="idempotency_unavailable")
    for _ in range(_CLAIM_TRIES):
        claimed = await ledger.claim(identity, run_id=run_id, session_key=turn.session_key,
                                     created=created)
        if claimed is not None:
            run = _start(runs, keeper, turn, run_id, identity=identity, record=claimed)
            return TurnSource(run_id=run_id, session_key=turn.session_key, created=created,
                              idempotent=True, run=run, keeper=keeper)
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
            again = replace(turn, session_key=record.session_key)
            run = _start(runs, keeper, again, run_id, identity=identity, record=taken)
            return TurnSource(run_id=run_id, session_key=record.session_key, created=created,
                              idempotent=True, run=run, keeper=keeper)
        if record.lease_lost(time.time()):
            lost = await _settle_lost(ledger, identity, record)
            if lost is None:
                continue
            return lost
        live = runs.get(record.run_id)
        if live is not None and not live.done:
            return TurnSource(run_id=record.run_id, session_key=record.session_key,
                              created=record.created, idempotent=True, replayed=True,
                              run=live, keeper=keeper)
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
        #: set at the run's first event, once its runtime started it (past its budgets'
        #: reservation) or it ended
        self._begun = asyncio.Event()
        run = source.run
        if run is None:
            self._queue.put_nowait(None)
            self._begun.set()
            return
        if run.text:
            self._put(run.text)
        self._unsubscribe = run.subscribe(self._observe)
        if run.started or run.text or run.done:
            self._begun.set()
        if run.done:
            self._queue.put_nowait(None)

    async def check_start(self, headers: dict[str, str]) -> None:
        """Wait until the turn has started or ended, before a response's headers are
        sent; a turn that failed before it started (a budget without room, a refused
        request) raises its `failure_error` (429 for a budget, `x-should-retry`), so a
        streamed request is answered with a real status rather than an `Error:` chunk."""
        try:
            await self._begun.wait()
            run = self._source.run
            if run is None or (run.done and not run.text):
                answer = await self._source.answer()
                if not answer.ok and not answer.text:
                    raise failure_error(answer, idempotent=self._source.idempotent,
                                        headers=headers)
        except BaseException:
            self.close()
            raise

    def _observe(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            # a run that ends before its runtime starts it (a budget refused it) is
            # marked started just before it ends, in the same call: look after both
            asyncio.get_running_loop().call_soon(self._begun.set)
        else:
            self._begun.set()
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
