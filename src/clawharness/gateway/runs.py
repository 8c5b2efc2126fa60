"""Agent runs started through the gateway: execution, events, idempotency, abort.

A run is a task owned by the gateway (not by the connection that asked for it), so a
turn keeps running when its client disconnects; its result lands in the transcript and
in `chat.history`. Each run is keyed by `<kind>:<idempotencyKey>` in a bounded map, so the
same key never runs a turn twice, across reconnects: a second request while the run is
going waits for it and gets the same final answer.

While a run streams, harness events become `agent` events (`lifecycle` start -> end,
`assistant` with cumulative `text` and `delta`, `tool`, `usage`) and `chat` events
(`delta`, then `final`, `error` or `aborted`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from clawharness.attempt.turn import TurnOptions, TurnResult
from clawharness.errors import ClawHarnessError
from clawharness.gateway.approvals import ApprovalBroker, GatewayApprovalGate
from clawharness.gateway.hub import ConnectionHub
from clawharness.harness.types import AgentEvent

__all__ = ["Run", "RunManager", "RunOutcome", "TurnHost"]

log = logging.getLogger("clawharness.gateway")

#: finished runs remembered for idempotency (the original: 1000 entries, 5 minutes)
DEDUPE_MAX: Final = 1000
DEDUPE_TTL_SECONDS: Final = 300.0

RunKind = Literal["agent", "chat"]


class TurnHost(Protocol):
    """What a run needs from `Host`."""

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None) -> TurnResult: ...


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """The final answer to an `agent` request: `res {ok, payload, error?}`."""

    ok: bool
    payload: dict[str, Any]
    error: dict[str, Any] | None = None


@dataclass(slots=True)
class Run:
    run_id: str
    kind: RunKind
    session_key: str
    agent_id: str
    origin: str | None
    accepted_at_ms: int
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    outcome: asyncio.Future[RunOutcome] | None = None
    session_id: str | None = None
    text: str = ""
    started: bool = False
    abort_reason: str | None = None
    finished_at: float | None = None
    #: called with (event name, payload) for each event the run emits (an HTTP stream)
    observers: list[Callable[[str, dict[str, Any]], None]] = field(default_factory=list)
    #: the turn's result once it settled (None while running, or when it raised)
    result: TurnResult | None = None
    _agent_seq: int = 0
    _chat_seq: int = 0

    def accepted_payload(self) -> dict[str, Any]:
        return {"runId": self.run_id, "sessionKey": self.session_key, "agentId": self.agent_id,
                "status": "accepted", "acceptedAt": self.accepted_at_ms}

    @property
    def done(self) -> bool:
        return self.outcome is not None and self.outcome.done()

    def next_agent_seq(self) -> int:
        self._agent_seq += 1
        return self._agent_seq

    def next_chat_seq(self) -> int:
        self._chat_seq += 1
        return self._chat_seq

    async def wait(self) -> RunOutcome:
        assert self.outcome is not None
        return await asyncio.shield(self.outcome)


def _assistant_message(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}],
            "timestamp": _now_ms()}


def _final_payload(run: Run, result: TurnResult) -> dict[str, Any]:
    status, summary, stop = {
        "ok": ("ok", "completed", None),
        "failed": ("error", "failed", "error"),
        "aborted": ("timeout", "aborted", run.abort_reason or "aborted"),
        "timeout": ("timeout", "aborted", "timeout"),
    }.get(result.terminal, ("error", "failed", "error"))
    payloads = [{"text": p.get("text", ""), "mediaUrl": p.get("mediaUrl")}
                for p in result.payloads]
    if not payloads and result.terminal == "failed" and result.error:
        payloads = [{"text": f"⚠️ Agent failed: {result.error}", "mediaUrl": None,
                     "isError": True}]
    agent_meta: dict[str, Any] = {"sessionId": result.session_id, "runtime": result.runtime,
                                  "selectedReason": result.selected_reason}
    if result.usage:
        agent_meta["usage"] = result.usage
    payload: dict[str, Any] = {
        "runId": run.run_id, "status": status, "summary": summary,
        "result": {"payloads": payloads,
                   "meta": {"durationMs": round(result.duration_ms), "agentMeta": agent_meta}},
    }
    if stop is not None:
        payload["stopReason"] = stop
    return payload


class RunManager:
    """Starts runs, fans their events out, remembers them by idempotency key."""

    def __init__(self, host: TurnHost, hub: ConnectionHub, approvals: ApprovalBroker, *,
                 dedupe_max: int = DEDUPE_MAX,
                 dedupe_ttl: float = DEDUPE_TTL_SECONDS,
                 on_finished: Callable[[Run, TurnResult | None], Awaitable[None]] | None = None,
                 ) -> None:
        self._host = host
        self._hub = hub
        self._approvals = approvals
        self._dedupe: OrderedDict[str, Run] = OrderedDict()
        self._dedupe_max = dedupe_max
        self._dedupe_ttl = dedupe_ttl
        self._active: dict[str, Run] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._on_finished = on_finished

    # --- lookups ----------------------------------------------------------------------

    def active_runs(self, session_key: str | None = None) -> list[Run]:
        return [r for r in self._active.values()
                if session_key is None or r.session_key == session_key]

    def get(self, run_id: str) -> Run | None:
        """An active or remembered run by its id."""
        run = self._active.get(run_id)
        if run is not None:
            return run
        return next((r for r in self._dedupe.values() if r.run_id == run_id), None)

    def find(self, kind: RunKind, idempotency_key: str) -> Run | None:
        self._expire()
        return self._dedupe.get(f"{kind}:{idempotency_key}")

    def _expire(self) -> None:
        horizon = time.monotonic() - self._dedupe_ttl
        stale = [k for k, r in self._dedupe.items()
                 if r.finished_at is not None and r.finished_at < horizon]
        for key in stale:
            del self._dedupe[key]
        while len(self._dedupe) > self._dedupe_max:
            victim = next((k for k, r in self._dedupe.items() if r.done), None)
            if victim is None:
                break
            del self._dedupe[victim]

    # --- starting ---------------------------------------------------------------------

    def start(self, *, kind: RunKind, idempotency_key: str, session_key: str, agent_id: str,
              message: str, origin: str | None, timeout: float | None = None,
              run_id: str | None = None) -> tuple[Run, bool]:
        """The run for this key: a new one (True) or the one already known (False)."""
        existing = self.find(kind, idempotency_key)
        if existing is not None:
            return existing, False
        chosen = run_id or idempotency_key
        if chosen in self._active or len(chosen) > 200:
            chosen = str(uuid.uuid4())
        run = Run(run_id=chosen, kind=kind, session_key=session_key,
                  agent_id=agent_id, origin=origin, accepted_at_ms=_now_ms())
        run.outcome = asyncio.get_running_loop().create_future()
        self._dedupe[f"{kind}:{idempotency_key}"] = run
        self._active[run.run_id] = run
        self._expire()
        task = asyncio.create_task(self._execute(run, message, timeout),
                                   name=f"gateway-run-{run.run_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run, True

    def abort(self, session_key: str, run_id: str | None = None,
              reason: str = "rpc") -> list[str]:
        """Abort active runs of a session (or the one run); the run ids aborted."""
        aborted: list[str] = []
        for run in self.active_runs(session_key):
            if run_id is not None and run.run_id != run_id:
                continue
            if not run.abort.is_set():
                run.abort_reason = reason
                run.abort.set()
            aborted.append(run.run_id)
        return aborted

    async def shutdown(self, grace: float = 5.0) -> None:
        """Abort every active run and wait (bounded) for them to settle."""
        for run in list(self._active.values()):
            run.abort_reason = "restart"
            run.abort.set()
        tasks = list(self._tasks)
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending, timeout=1.0)

    # --- execution --------------------------------------------------------------------

    async def _execute(self, run: Run, message: str, timeout: float | None) -> None:
        assert run.outcome is not None
        result: TurnResult | None = None
        options = TurnOptions(
            on_agent_event=lambda event: self._on_agent_event(run, event),
            on_partial_reply=lambda text: self._assistant_text(run, text, None),
            abort=run.abort, approvals=GatewayApprovalGate(self._approvals, run.agent_id),
            timeout=timeout, run_id=run.run_id,
        )
        try:
            result = await self._host.run_turn(run.session_key, message, options)
        except asyncio.CancelledError:
            self._settle_error(run, "gateway shutting down")
            raise
        except ClawHarnessError as exc:
            self._settle_error(run, str(exc))
        except Exception as exc:  # a bug below must not take the gateway down
            log.exception("run %s failed", run.run_id)
            self._settle_error(run, f"{type(exc).__name__}: {exc}")
        else:
            self._settle_result(run, result)
        finally:
            run.finished_at = time.monotonic()
            self._active.pop(run.run_id, None)
            if not run.outcome.done():
                run.outcome.set_result(RunOutcome(False, {"runId": run.run_id, "status": "error",
                                                          "summary": "run ended"}))
        if self._on_finished is not None:
            with contextlib.suppress(Exception):
                await self._on_finished(run, result)

    def _settle_result(self, run: Run, result: TurnResult) -> None:
        assert run.outcome is not None
        run.session_id = result.session_id
        run.result = result
        self._ensure_started(run)
        ended = {"phase": "end", "endedAt": _now_ms(), "terminal": result.terminal}
        if result.terminal == "failed":
            ended = {"phase": "error", "endedAt": _now_ms(), "terminal": result.terminal,
                     "error": result.error or "failed"}
        self._emit_agent(run, "lifecycle", ended)
        chat: dict[str, Any]
        if result.terminal == "ok":
            chat = {"state": "final", "stopReason": "stop"}
            if result.text:
                chat["message"] = _assistant_message(result.text)
        elif result.terminal == "failed":
            chat = {"state": "error", "errorMessage": result.error or "failed",
                    "errorKind": "unknown", "stopReason": "error"}
        else:
            chat = {"state": "aborted", "stopReason": run.abort_reason or result.terminal}
            if result.error:
                chat["errorMessage"] = result.error
            if run.text:
                chat["message"] = _assistant_message(run.text)
        self._emit_chat(run, chat)
        run.outcome.set_result(RunOutcome(True, _final_payload(run, result)))

    def _settle_error(self, run: Run, message: str) -> None:
        assert run.outcome is not None
        self._ensure_started(run)
        self._emit_agent(run, "lifecycle", {"phase": "error", "endedAt": _now_ms(),
                                            "error": message})
        self._emit_chat(run, {"state": "error", "errorMessage": message, "errorKind": "unknown"})
        run.outcome.set_result(RunOutcome(
            False, {"runId": run.run_id, "status": "error", "summary": message},
            {"code": "UNAVAILABLE", "message": message},
        ))

    # --- events -----------------------------------------------------------------------

    def _ensure_started(self, run: Run, data: dict[str, Any] | None = None) -> None:
        if run.started:
            return
        run.started = True
        start = {"phase": "start", "startedAt": _now_ms(), **(data or {})}
        start["phase"] = "start"
        self._emit_agent(run, "lifecycle", start)

    def _on_agent_event(self, run: Run, event: AgentEvent) -> None:
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
                self._emit_agent(run, "lifecycle", data)
            return
        self._ensure_started(run)
        if event.stream == "assistant":
            text = data.get("text")
            if isinstance(text, str):
                delta = data.get("delta")
                self._assistant_text(run, text, delta if isinstance(delta, str) else None)
            return
        self._emit_agent(run, event.stream, data, tool=event.stream == "tool")

    def _assistant_text(self, run: Run, text: str, delta: str | None) -> None:
        """Cumulative assistant text from either callback; emits each change once."""
        if text == run.text:
            return
        replace = not text.startswith(run.text)
        if delta is None or replace or run.text + delta != text:
            delta = text if replace else text[len(run.text):]
        run.text = text
        self._ensure_started(run)
        self._emit_agent(run, "assistant", {"text": text, "delta": delta})
        chat: dict[str, Any] = {"state": "delta", "deltaText": delta,
                                "message": _assistant_message(text)}
        if replace:
            chat["replace"] = True
        self._emit_chat(run, chat)

    def _emit_agent(self, run: Run, stream: str, data: dict[str, Any], *,
                    tool: bool = False) -> None:
        payload: dict[str, Any] = {"runId": run.run_id, "seq": run.next_agent_seq(),
                                   "stream": stream, "ts": _now_ms(), "data": data,
                                   "sessionKey": run.session_key, "agentId": run.agent_id}
        if run.session_id:
            payload["sessionId"] = run.session_id
        self._hub.publish_run_event("agent", payload, session_key=run.session_key,
                                    origin=run.origin, tool=tool)
        for observer in run.observers:
            observer("agent", payload)

    def _emit_chat(self, run: Run, fields: dict[str, Any]) -> None:
        payload = {"runId": run.run_id, "sessionKey": run.session_key, "agentId": run.agent_id,
                   "seq": run.next_chat_seq(), **fields}
        self._hub.publish_run_event("chat", payload, session_key=run.session_key,
                                    origin=run.origin)
        for observer in run.observers:
            observer("chat", payload)
