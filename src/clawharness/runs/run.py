"""One run: how a front asks for it (`RunOptions`), holds it (`RunHandle`), hears of it
(the events) and learns how it ended (`RunResult`).

A run emits `RunStarted` once before anything else, then any number of `RunProgress` (a
harness's agent events other than assistant text: lifecycle phases, tool calls, usage,
...) and `AssistantText` (the cumulative reply, each change once, with its delta), then
`RunEnded` once, with the run's `RunResult`, before `RunHandle.wait()` returns it. A run
that ended without settling (its task was interrupted) emits `RunEnded` alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from clawharness.harness import CallerToolResult, ToolSpec
from clawharness.records.turn_result import TurnResult
from clawharness.tools import ToolBackends, ToolRestriction

__all__ = [
    "AssistantText",
    "RunEnded",
    "RunEvent",
    "RunHandle",
    "RunListener",
    "RunOptions",
    "RunProgress",
    "RunResult",
    "RunStarted",
]


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How a front asks for a run.

    `idempotency_key`: the same key (per `kind`) never runs a turn twice: while the run is
    remembered, `RunService.find` answers it. `run_id`: the run's id (default: the key,
    else a fresh one). `origin`: the connection that asked (a front may route events by
    it). `timeout`: seconds the turn may take.
    """

    agent_id: str
    kind: str = "agent"
    idempotency_key: str | None = None
    run_id: str | None = None
    origin: str | None = None
    timeout: float | None = None
    #: the turn's own workspace, file/exec backends and tool narrowing (an editor's
    #: project, files, terminals and session mode; see `TurnOptions`)
    workspace: str | None = None
    tool_backends: ToolBackends | None = None
    tool_restriction: ToolRestriction | None = None
    #: tools the caller runs, and its results of the calls the last turn ended with
    #: (`TurnOptions.caller_tools` / `caller_results`: the OpenAI HTTP API's client tools)
    caller_tools: tuple[ToolSpec, ...] = ()
    caller_results: tuple[CallerToolResult, ...] = ()
    #: the HTTP API caller whose budgets the turn falls under (`TurnOptions.caller`)
    caller: str | None = None
    #: what to do with the message if a turn of its session is running: `steer`,
    #: `followup`, `collect`, `interrupt` (None: the agent's `queue.mode`; docs/steering.md)
    queue_mode: str | None = None
    #: this message's thinking level (`TurnOptions.thinking`), already checked
    thinking: str | None = None
    #: the caller's W3C trace context (`TurnOptions.trace_context`: an HTTP request's
    #: `traceparent` / `tracestate`)
    trace_context: Mapping[str, str] | None = None


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended: the turn's `result`, or why there is none (`error`, and the
    `exception` that said so). `error_code` is `UNAVAILABLE` when the turn raised; None
    with no result means the run was interrupted before it settled."""

    run_id: str
    result: TurnResult | None = None
    error: str | None = None
    error_code: str | None = None
    exception: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.result is not None


@dataclass(slots=True, eq=False)
class RunHandle:
    """A run: a turn the run service owns (not the front that asked), so it outlives a
    client that goes away. Subscribe to its events, abort it, await its result."""

    run_id: str
    kind: str
    session_key: str
    agent_id: str
    origin: str | None
    accepted_at_ms: int
    #: set to ask the turn to stop (`abort`); the harness sees it as the turn's abort
    abort_requested: asyncio.Event = field(default_factory=asyncio.Event)
    abort_reason: str | None = None
    #: the physical session the turn ran on, once known
    session_id: str | None = None
    #: the assistant's reply so far
    text: str = ""
    started: bool = False
    #: monotonic time the run settled (None while it runs)
    finished_at: float | None = None
    #: the turn's result once it settled (None while running, or when it raised)
    result: TurnResult | None = None
    _settled: asyncio.Future[RunResult] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future())
    _listeners: list[RunListener] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self._settled.done()

    def abort(self, reason: str = "rpc") -> None:
        """Ask the turn to stop (a second call keeps the first reason)."""
        if not self.abort_requested.is_set():
            self.abort_reason = reason
            self.abort_requested.set()

    async def wait(self) -> RunResult:
        """The run's result, once it ended (cancelling the wait leaves the run running)."""
        return await asyncio.shield(self._settled)

    def subscribe(self, listener: RunListener) -> Callable[[], None]:
        """Call `listener` with each later event of this run; returns the unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    async def events(self) -> AsyncIterator[RunEvent]:
        """This run's later events, through its `RunEnded` (nothing more once it ended)."""
        queue: asyncio.Queue[RunEvent] = asyncio.Queue()
        unsubscribe = self.subscribe(queue.put_nowait)
        try:
            if self.done:
                return
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, RunEnded):
                    return
        finally:
            unsubscribe()

    def emit(self, event: RunEvent) -> None:
        """Hand `event` to this run's subscribers (the run service calls it)."""
        if self._listeners:
            for listener in tuple(self._listeners):  # one may unsubscribe as it hears
                listener(event)

    def settle(self, result: RunResult) -> None:
        """Make `result` what `wait` returns (the run service calls it, once)."""
        if not self._settled.done():
            self._settled.set_result(result)


# The events are named tuples, immutable like the frozen dataclasses elsewhere: one is made
# for every streamed piece of a reply, where a frozen dataclass's `__init__` costs about
# four times as much (bench/runs.py).


class RunStarted(NamedTuple):
    """The run's turn started: the lifecycle data of its start (`phase`, `startedAt`, and
    what the harness said of it)."""

    run: RunHandle
    data: Mapping[str, Any]


class RunProgress(NamedTuple):
    """An agent event of the turn on `stream` (`lifecycle`, `tool`, `usage`, ...)."""

    run: RunHandle
    stream: str
    data: Mapping[str, Any]

    @property
    def tool(self) -> bool:
        return self.stream == "tool"


class AssistantText(NamedTuple):
    """The reply so far (`text`) and what changed (`delta`); `replace` when the new text
    does not continue the old one (the delta is then the whole text)."""

    run: RunHandle
    text: str
    delta: str
    replace: bool


class RunEnded(NamedTuple):
    """The run ended with `result`."""

    run: RunHandle
    result: RunResult


RunEvent = RunStarted | RunProgress | AssistantText | RunEnded
#: called with each event, synchronously, as it happens: it must not block
RunListener = Callable[[RunEvent], None]
