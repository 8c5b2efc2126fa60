"""The gateway's side of runs (`clawharness.runs`): their events as `agent` and `chat`
events for the WebSocket clients, their results as the protocol's answers.

The run service runs the turns (for the WebSocket methods and the HTTP API alike); the
gateway passes it `GatewayRunEvents` as a listener, so every run's events reach the
connected clients:

- `agent` events: `lifecycle` start -> end (or error), `assistant` with the cumulative
  `text` and its `delta`, and every other stream of the harness (`tool`, `usage`, ...);
- `chat` events: `delta`, then `final`, `error` or `aborted`.

Each run numbers its `agent` and its `chat` events (`seq`) from 1.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from clawharness.errors import ClawHarnessError
from clawharness.gateway.hub import ConnectionHub
from clawharness.records.turn_result import TurnResult
from clawharness.runs import (
    AssistantText,
    RunEnded,
    RunEvent,
    RunHandle,
    RunProgress,
    RunResult,
    RunStarted,
)

__all__ = ["GatewayRunEvents", "RunOutcome", "accepted_payload", "outcome_of", "wait_outcome"]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """The final answer to an `agent` request: `res {ok, payload, error?}`."""

    ok: bool
    payload: dict[str, Any]
    error: dict[str, Any] | None = None


def _now_ms() -> int:
    return int(time.time() * 1000)


def accepted_payload(run: RunHandle) -> dict[str, Any]:
    """The first answer to an `agent` request while its run goes on."""
    return {"runId": run.run_id, "sessionKey": run.session_key, "agentId": run.agent_id,
            "status": "accepted", "acceptedAt": run.accepted_at_ms}


def _assistant_message(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}],
            "timestamp": _now_ms()}


def _as_dict(data: Mapping[str, Any]) -> dict[str, Any]:
    """The event's data as the frame's object (the run service hands over its own dict)."""
    return data if isinstance(data, dict) else dict(data)


def _final_payload(run: RunHandle, result: TurnResult) -> dict[str, Any]:
    status, summary, stop = {
        "ok": ("ok", "completed", None),
        "failed": ("error", "failed", "error"),
        "aborted": ("timeout", "aborted", run.abort_reason or "aborted"),
        "timeout": ("timeout", "aborted", "timeout"),
    }.get(result.terminal, ("error", "failed", "error"))
    payloads: list[dict[str, Any]] = [{"text": p.text or "", "mediaUrl": p.media_url}
                                      for p in result.payloads]
    if not payloads and result.terminal == "failed" and result.error:
        payloads = [{"text": f"⚠️ Agent failed: {result.error}", "mediaUrl": None,
                     "isError": True}]
    agent_meta: dict[str, Any] = {"sessionId": result.session_id, "runtime": result.runtime,
                                  "selectedReason": result.selected_reason}
    if result.usage is not None:
        usage: dict[str, Any] = result.usage.to_wire()
        if result.usage.cost is not None:  # the transcript's spelling: `cost.total`, USD
            usage["cost"] = {"total": result.usage.cost.total}
        agent_meta["usage"] = usage
    payload: dict[str, Any] = {
        "runId": run.run_id, "status": status, "summary": summary,
        "result": {"payloads": payloads,
                   "meta": {"durationMs": round(result.duration_ms), "agentMeta": agent_meta}},
    }
    if stop is not None:
        payload["stopReason"] = stop
    return payload


def outcome_of(run: RunHandle, ended: RunResult) -> RunOutcome:
    """How a run ended, as the `agent` request's final answer."""
    if ended.result is not None:
        return RunOutcome(True, _final_payload(run, ended.result))
    payload = {"runId": run.run_id, "status": "error", "summary": ended.error or "run ended"}
    if ended.error_code is None:
        return RunOutcome(False, payload)
    error: dict[str, Any] = {"code": ended.error_code, "message": ended.error}
    if isinstance(ended.exception, ClawHarnessError):
        error["details"] = _error_details(ended.exception)
    return RunOutcome(False, payload, error)


def _error_details(exc: ClawHarnessError) -> dict[str, Any]:
    """What a client needs to report a host error as the embedded command does: its
    stable code, and where to change what refused it."""
    details: dict[str, Any] = {"code": exc.code}
    for attribute, key in (("key_path", "keyPath"), ("hint", "hint")):
        value = getattr(exc, attribute, None)
        if isinstance(value, str) and value:
            details[key] = value
    return details


async def wait_outcome(run: RunHandle) -> RunOutcome:
    """Wait for `run`, and give its end as the `agent` request's final answer."""
    return outcome_of(run, await run.wait())


class GatewayRunEvents:
    """A run service listener: each run's events as `agent` and `chat` events to the
    connected clients (`ConnectionHub`), numbered per run."""

    def __init__(self, hub: ConnectionHub) -> None:
        self._hub = hub
        #: run id -> [agent seq, chat seq] of the runs under way
        self._seqs: dict[str, list[int]] = {}

    def __call__(self, event: RunEvent) -> None:
        run = event.run
        if isinstance(event, AssistantText):  # the most frequent first
            self._agent(run, "assistant", {"text": event.text, "delta": event.delta})
            chat: dict[str, Any] = {"state": "delta", "deltaText": event.delta,
                                    "message": _assistant_message(event.text)}
            if event.replace:
                chat["replace"] = True
            self._chat(run, chat)
        elif isinstance(event, RunProgress):
            self._agent(run, event.stream, _as_dict(event.data), tool=event.stream == "tool")
        elif isinstance(event, RunStarted):
            self._agent(run, "lifecycle", _as_dict(event.data))
        elif isinstance(event, RunEnded):
            self._ended(run, event.result)
            self._seqs.pop(run.run_id, None)

    def _ended(self, run: RunHandle, ended: RunResult) -> None:
        result = ended.result
        if result is None:
            if ended.error_code is None:
                return  # interrupted before it settled: nothing to tell
            message = ended.error or ""
            self._agent(run, "lifecycle", {"phase": "error", "endedAt": _now_ms(),
                                           "error": message})
            self._chat(run, {"state": "error", "errorMessage": message, "errorKind": "unknown"})
            return
        lifecycle: dict[str, Any] = {"phase": "end", "endedAt": _now_ms(),
                                     "terminal": result.terminal}
        if result.terminal == "failed":
            lifecycle = {"phase": "error", "endedAt": _now_ms(), "terminal": result.terminal,
                         "error": result.error or "failed"}
        self._agent(run, "lifecycle", lifecycle)
        chat: dict[str, Any]
        carried = result.queue.carried if result.queue is not None else None
        if carried is not None and result.run_id != run.run_id:
            # steered into (or collected with) another run: the reply is that run's, so
            # this one ends without repeating it (docs/steering.md)
            chat = {"state": "final", "stopReason": "stop", "carried": carried,
                    "carriedBy": result.run_id}
        elif result.terminal == "ok":
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
        self._chat(run, chat)

    def _next(self, run: RunHandle, index: int) -> int:
        seqs = self._seqs.get(run.run_id)
        if seqs is None:
            seqs = self._seqs[run.run_id] = [0, 0]
        seqs[index] += 1
        return seqs[index]

    def _agent(self, run: RunHandle, stream: str, data: dict[str, Any], *,
               tool: bool = False) -> None:
        payload: dict[str, Any] = {"runId": run.run_id, "seq": self._next(run, 0),
                                   "stream": stream, "ts": _now_ms(), "data": data,
                                   "sessionKey": run.session_key, "agentId": run.agent_id}
        if run.session_id:
            payload["sessionId"] = run.session_id
        self._hub.publish_run_event("agent", payload, session_key=run.session_key,
                                    origin=run.origin, tool=tool)

    def _chat(self, run: RunHandle, fields: dict[str, Any]) -> None:
        payload = {"runId": run.run_id, "sessionKey": run.session_key, "agentId": run.agent_id,
                   "seq": self._next(run, 1), **fields}
        self._hub.publish_run_event("chat", payload, session_key=run.session_key,
                                    origin=run.origin)
