"""`RunService`: starts a front's turns, tells its listeners what they do, remembers them.

A run is a task owned by the service (not by the connection that asked for it), so a
turn keeps running when its client goes away; its result lands in the transcript. Runs
are remembered by `<kind>:<idempotency key>` in a bounded map, so the same key never
runs a turn twice: a second request while the run is going gets the same handle.

Every event of every run goes to the service's listeners first (a front that fans events
out to its clients, like the gateway), then to the run's own subscribers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

from clawharness.attempt.turn import TurnOptions
from clawharness.errors import ClawHarnessError
from clawharness.harness.capabilities import ApprovalGate
from clawharness.harness.types import AgentEvent
from clawharness.records.turn_result import TurnResult
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
    now_ms,
)

__all__ = ["DEDUPE_MAX", "DEDUPE_TTL_SECONDS", "ApprovalsFor", "OnFinished", "RunHost", "RunService"]

log = logging.getLogger("clawharness.gateway")

#: finished runs remembered for idempotency (the original: 1000 entries, 5 minutes)
DEDUPE_MAX: Final = 1000
DEDUPE_TTL_SECONDS: Final = 300.0
#: the longest run id taken as given (a longer one, or one in use, gets a fresh id)
MAX_RUN_ID_CHARS: Final = 200


class RunHost(Protocol):
    """What the run service needs of `Host`: its one door for turns."""

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None) -> TurnResult: ...


#: the approval gate for a run of an agent (None: the turn asks no one)
ApprovalsFor = Callable[[str], ApprovalGate | None]
#: called (awaited) after a run ended and left the active runs
OnFinished = Callable[[RunHandle, TurnResult | None], Awaitable[None]]


class RunService:
    """Runs a front's turns through `host`: start, find, abort, shut down."""

    def __init__(self, host: RunHost, *, approvals: ApprovalsFor | None = None,
                 listeners: Sequence[RunListener] = (), on_finished: OnFinished | None = None,
                 dedupe_max: int = DEDUPE_MAX, dedupe_ttl: float = DEDUPE_TTL_SECONDS) -> None:
        self._host = host
        self._approvals = approvals
        self._listeners = list(listeners)
        self._on_finished = on_finished
        self._dedupe: OrderedDict[str, RunHandle] = OrderedDict()
        #: (finished at, key, run) of remembered runs, in the order they finished: the
        #: oldest are forgotten first, without a walk over every remembered run
        self._finished: deque[tuple[float, str, RunHandle]] = deque()
        self._dedupe_max = dedupe_max
        self._dedupe_ttl = dedupe_ttl
        self._active: dict[str, RunHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # --- lookups ----------------------------------------------------------------------

    def active_runs(self, session_key: str | None = None) -> list[RunHandle]:
        return [r for r in self._active.values()
                if session_key is None or r.session_key == session_key]

    def get(self, run_id: str) -> RunHandle | None:
        """An active or remembered run by its id."""
        run = self._active.get(run_id)
        if run is not None:
            return run
        return next((r for r in self._dedupe.values() if r.run_id == run_id), None)

    def find(self, kind: str, idempotency_key: str) -> RunHandle | None:
        """The run remembered under this key, if any."""
        self._expire()
        return self._dedupe.get(f"{kind}:{idempotency_key}")

    def _expire(self) -> None:
        horizon = time.monotonic() - self._dedupe_ttl
        finished = self._finished
        while finished and finished[0][0] < horizon:
            _at, key, run = finished.popleft()
            if self._dedupe.get(key) is run:
                del self._dedupe[key]
        while len(self._dedupe) > self._dedupe_max:
            victim = next((k for k, r in self._dedupe.items() if r.done), None)
            if victim is None:
                break
            del self._dedupe[victim]

    # --- starting ---------------------------------------------------------------------

    def start(self, session_key: str, message: str, options: RunOptions) -> RunHandle:
        """Start a turn on `session_key`, or, when `options.idempotency_key` names a run
        already remembered, hand that one back (its turn is not run again)."""
        key = options.idempotency_key
        if key is not None and (existing := self.find(options.kind, key)) is not None:
            return existing
        chosen = options.run_id or key or str(uuid.uuid4())
        if chosen in self._active or len(chosen) > MAX_RUN_ID_CHARS:
            chosen = str(uuid.uuid4())
        run = RunHandle(run_id=chosen, kind=options.kind, session_key=session_key,
                        agent_id=options.agent_id, origin=options.origin,
                        accepted_at_ms=now_ms())
        remembered = None if key is None else f"{options.kind}:{key}"
        if remembered is not None:
            self._dedupe[remembered] = run
        self._active[run.run_id] = run
        self._expire()
        task = asyncio.create_task(self._execute(run, message, options, remembered),
                                   name=f"gateway-run-{run.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run

    def abort(self, session_key: str, run_id: str | None = None,
              reason: str = "rpc") -> list[str]:
        """Abort active runs of a session (or the one run); the run ids aborted."""
        aborted: list[str] = []
        for run in self.active_runs(session_key):
            if run_id is not None and run.run_id != run_id:
                continue
            run.abort(reason)
            aborted.append(run.run_id)
        return aborted

    async def shutdown(self, grace: float = 5.0) -> None:
        """Abort every active run and wait (bounded) for them to settle."""
        for run in list(self._active.values()):
            run.abort_reason = "restart"
            run.abort_requested.set()
        tasks = list(self._tasks)
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)

    # --- execution --------------------------------------------------------------------

    async def _execute(self, run: RunHandle, message: str, asked: RunOptions,
                       remembered: str | None) -> None:
        result: TurnResult | None = None
        options = TurnOptions(
            on_agent_event=lambda event: self._on_agent_event(run, event),
            on_partial_reply=lambda text: self._assistant_text(run, text, None),
            abort=run.abort_requested,
            approvals=self._approvals(run.agent_id) if self._approvals is not None else None,
            timeout=asked.timeout, run_id=run.run_id, workspace=asked.workspace,
            tool_backends=asked.tool_backends, tool_restriction=asked.tool_restriction,
            caller_tools=asked.caller_tools, caller_results=asked.caller_results,
            queue_mode=asked.queue_mode,
            caller=asked.caller, thinking=asked.thinking, trace_context=asked.trace_context,
        )
        try:
            result = await self._host.run_turn(run.session_key, message, options)
        except asyncio.CancelledError as exc:
            self._settle_error(run, "gateway shutting down", exc)
            raise
        except ClawHarnessError as exc:
            self._settle_error(run, str(exc), exc)
        except Exception as exc:  # a bug below must not take the front down
            log.exception("run %s failed", run.run_id)
            self._settle_error(run, f"{type(exc).__name__}: {exc}", exc)
        else:
            self._settle_result(run, result)
        finally:
            run.finished_at = time.monotonic()
            if remembered is not None:
                self._finished.append((run.finished_at, remembered, run))
            self._active.pop(run.run_id, None)
            if not run.done:
                ended = RunResult(run.run_id, error="run ended")
                self._emit(RunEnded(run, ended))
                run.settle(ended)
        if self._on_finished is not None:
            with contextlib.suppress(Exception):
                await self._on_finished(run, result)

    def _settle_result(self, run: RunHandle, result: TurnResult) -> None:
        run.session_id = result.session_id
        run.result = result
        self._ensure_started(run)
        ended = RunResult(run.run_id, result)
        self._emit(RunEnded(run, ended))
        run.settle(ended)

    def _settle_error(self, run: RunHandle, message: str, exc: BaseException) -> None:
        self._ensure_started(run)
        ended = RunResult(run.run_id, error=message, error_code="UNAVAILABLE", exception=exc)
        self._emit(RunEnded(run, ended))
        run.settle(ended)

    # --- events -----------------------------------------------------------------------

    def _emit(self, event: RunEvent) -> None:
        for listener in self._listeners:
            listener(event)
        event.run.emit(event)

    def _ensure_started(self, run: RunHandle, data: dict[str, Any] | None = None) -> None:
        if run.started:
            return
        run.started = True
        start = {"phase": "start", "startedAt": now_ms(), **(data or {})}
        start["phase"] = "start"
        self._emit(RunStarted(run, start))

    def _on_agent_event(self, run: RunHandle, event: AgentEvent) -> None:
        data = dict(event.data)
        if event.stream == "lifecycle":
            phase = data.get("phase")
            session_id = data.get("sessionId")
            if isinstance(session_id, str):
                run.session_id = session_id
            if phase == "start":
                self._ensure_started(run, data)
            elif phase not in ("end", "error"):
                self._ensure_started(run)
                self._emit(RunProgress(run, "lifecycle", data))
            return
        self._ensure_started(run)
        if event.stream == "assistant":
            text = data.get("text")
            if isinstance(text, str):
                delta = data.get("delta")
                self._assistant_text(run, text, delta if isinstance(delta, str) else None)
            return
        self._emit(RunProgress(run, event.stream, data))

    def _assistant_text(self, run: RunHandle, text: str, delta: str | None) -> None:
        """Cumulative assistant text from either callback; emits each change once."""
        if text == run.text:
            return
        replace = not text.startswith(run.text)
        if delta is None or replace or run.text + delta != text:
            delta = text if replace else text[len(run.text):]
        run.text = text
        self._ensure_started(run)
        self._emit(AssistantText(run, text, delta, replace))
