"""The run service: one way for every front to run a turn.

The WebSocket gateway, the OpenAI HTTP API, `mcp serve` (and any front to come) start
turns, follow them, abort them and read their results through one `RunService` over the
host; none calls `Host.run_turn` with options of its own:

    runs = RunService(host)                        # or the gateway's, shared by its fronts
    run = runs.start(session_key, "hello", RunOptions(agent_id="main"))
    async for event in run.events():               # RunStarted, RunProgress and
        if isinstance(event, AssistantText):       # AssistantText, then RunEnded
            print(event.delta, end="")
    ended = await run.wait()                       # RunResult: the TurnResult, or why not
    run.abort("user")                              # ask a running turn to stop

A run belongs to the service, not to the client that asked: it outlives a client that
goes away, and a repeated `idempotency_key` gets the same run instead of a second turn.
A front that fans every run's events out (the gateway's WebSocket clients) passes a
listener to the service; one that follows a run subscribes to it (`run.subscribe`) or
iterates its events. Each front turns the typed events and the `RunResult` into its own
wire shape, at its edge.

    run.py      one run: RunOptions, RunHandle, its events (RunStarted, RunProgress,
                AssistantText, RunEnded) and RunResult
    service.py  RunService, and RunHost: what it needs of `Host`
"""

from __future__ import annotations

from clawharness.runs.run import (
    AssistantText,
    RunEnded,
    RunEvent,
    RunHandle,
    RunListener,
    RunOptions,
    RunProgress,
    RunResult,
    RunStarted,
)
from clawharness.runs.service import ApprovalsFor, OnFinished, RunHost, RunService

__all__ = [
    "ApprovalsFor",
    "AssistantText",
    "OnFinished",
    "RunEnded",
    "RunEvent",
    "RunHandle",
    "RunHost",
    "RunListener",
    "RunOptions",
    "RunProgress",
    "RunResult",
    "RunService",
    "RunStarted",
]
