"""The turn inspector's record: what one turn did, kept with the turn in the store.

`TurnRecorder` rides along a turn and notes, cheaply (a list append per event, no I/O):

- the selection of each attempt: the model, the harness chosen and why, the policy that
  decided (runtime and its source), the candidates with their `supports()` answers;
- the timeline: each attempt's start and end, model responses (one per `usage` event,
  with the time since the previous step), tool calls from start to result, approvals
  asked and answered, finalization; every event at milliseconds since the turn began;
- tool calls with their arguments (capped) and terminal outcome;
- the session writer lease the turn held (holder, fence generation), the native harness
  and its session binding when the attempt reports one;
- delivery facts (silent, payloads) and the finalization outcome.

`TurnRecord.to_json()` is the stored shape (snake_case keys); the store keeps it opaque.
The record values and their redacted stored form live in `attempt._turn_record`.
The record is written after the turn's result is known, off the turn's path (the
runner's background tasks), so a turn does not wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

from clawharness._json_text import surely_within
from clawharness.attempt._turn_record import (
    MAX_CACHED_LISTS,
    TimelineEvent,
    ToolCallRecord,
    TurnRecord,
    stored_json,
)
from clawharness.harness import quick_maker
from clawharness.harness.capabilities import ApprovalDecision, ApprovalGate, ApprovalRequest
from clawharness.harness.types import AgentEvent, AttemptResult
from clawharness.records.turn_result import TurnResult
from clawharness.store import SessionLease, StoredTurnRecord, TurnRecordStore

__all__ = ["RECORDED_STREAMS", "TimelineEvent", "ToolCallRecord", "TurnRecord", "TurnRecordKeeper",
           "TurnRecorder"]

#: arguments (as JSON) longer than this are cut in the record
MAX_ARGUMENT_CHARS: Final = 4000
#: how long finished turns' records gather before one store write takes them all
FLUSH_AFTER_SECONDS: Final = 0.05
#: ... or how many, whichever comes first
FLUSH_AT_RECORDS: Final = 256
#: timeline events kept per turn (a runaway loop must not grow the record without bound)
MAX_TIMELINE_EVENTS: Final = 2000

log = logging.getLogger("clawharness.attempt")

EventSink = Callable[[AgentEvent], Awaitable[None] | None]

#: the agent event streams `TurnRecorder.observe` reads (`AttemptParams.agent_event_streams`
#: when nothing else listens)
RECORDED_STREAMS: Final = frozenset({"tool", "usage", "lifecycle"})


#: makes a `StoredTurnRecord` as the class does, in fewer instructions (`clawharness._frozen`):
#: one per turn
_stored_record = quick_maker(StoredTurnRecord)

#: made once (`json.dumps` with options builds an encoder per call)
_ENCODER: Final = json.JSONEncoder(default=str, ensure_ascii=False)


def _capped(value: Any) -> Any:
    # (an empty list or dict, or None, is short whatever the cap: most messaging targets)
    if not value and (value is None or type(value) is list or type(value) is dict):
        return value
    if surely_within(value, MAX_ARGUMENT_CHARS):  # (most are: no text made)
        return value
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) <= MAX_ARGUMENT_CHARS:
        return value
    return {"truncated": True, "preview": text[:MAX_ARGUMENT_CHARS], "chars": len(text)}


#: what an attempt's extras may say of its native session (`TurnRecord.native`)
_NATIVE_KEYS: Final = ("nativeSessionId", "nativeThreadId", "pid", "processId", "binding")
#: an event's data when it has none (shared: nothing writes to it)
_NO_DATA: Final[Mapping[str, Any]] = MappingProxyType({})


class _RecordingGate:
    """An approval gate that notes each question and answer, then defers to `inner`."""

    __slots__ = ("_inner", "_recorder")

    def __init__(self, inner: ApprovalGate, recorder: TurnRecorder) -> None:
        self._inner = inner
        self._recorder = recorder

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        asked = self._recorder.now_ms()
        self._recorder.event("approval.asked", data={
            "tool": request.tool_name, "tool_call_id": request.tool_call_id,
            "reason": request.reason})
        answer = await self._inner.decide(request)
        verdict = "unanswered" if answer is None else str(
            getattr(answer, "decision", None) or getattr(answer, "kind", None) or answer)
        waited = self._recorder.now_ms() - asked
        self._recorder.event("approval.answered", duration_ms=waited,
                             data={"tool": request.tool_name, "decision": verdict})
        self._recorder.approvals.append({"tool": request.tool_name,
                                         "tool_call_id": request.tool_call_id,
                                         "reason": request.reason, "decision": verdict,
                                         "waited_ms": round(waited, 2),
                                         "asked_at_ms": round(asked, 2)})
        return answer


class TurnRecorder:
    """Collects one turn's record as it runs (see the module docstring)."""

    def __init__(self, run_id: str, session_key: str, lease: SessionLease | None) -> None:
        self.run_id = run_id
        self.session_key = session_key
        self.started_at = time.time()
        self._t0 = time.perf_counter()
        self._events: list[TimelineEvent] = []
        self._tools: dict[str, list[Any]] = {}
        self._order: list[str] = []
        self.approvals: list[dict[str, Any]] = []
        self.selections: list[Mapping[str, Any]] = []
        self._attempt = 0
        self._step_started = 0.0
        self._native: dict[str, Any] = {}
        self._delivery: dict[str, Any] = {}
        self._lease = None if lease is None else {"holder": lease.holder,
                                                  "fence": lease.fence}
        self.finalization = "not-needed"

    def now_ms(self) -> float:
        return (time.perf_counter() - self._t0) * 1000

    def event(self, kind: str, *, duration_ms: float | None = None,
              data: Mapping[str, Any] | None = None) -> None:
        if len(self._events) < MAX_TIMELINE_EVENTS:
            self._events.append(TimelineEvent((time.perf_counter() - self._t0) * 1000, kind,
                                              duration_ms, data or _NO_DATA))

    # --- hooks the runner calls -------------------------------------------------------

    def selected(self, index: int, model: str, decision: Any) -> None:
        """An attempt's selection: harness, reason, policy and candidates."""
        self._attempt = index
        self._step_started = self.now_ms()
        selection, start = _selection(decision, index, model)
        self.selections.append(selection)
        self.event("attempt.start", data=start)

    def attempt_ended(self, index: int, result: AttemptResult, started_ms: float) -> None:
        """An attempt's end: its terminal, the native session it used, delivery facts."""
        terminal = result.terminal
        extra = result.extra
        # (most attempts report no extras: nothing to look up then)
        native = {k: extra[k] for k in _NATIVE_KEYS if k in extra} if extra and isinstance(
            extra, Mapping) else {}
        self._native = {"harness_id": result.agent_harness_id, "attempt": index,
                        "session_id_used": result.session_id_used,
                        **({"native": _capped(native)} if native else {})}
        self._delivery = {"did_send_via_messaging_tool": result.did_send_via_messaging_tool,
                          "messaging_targets": _capped(result.messaging_tool_sent_targets),
                          "media_urls": len(result.tool_media_urls)}
        self.event("attempt.end", duration_ms=self.now_ms() - started_ms,
                   data={"attempt": index, "terminal": getattr(terminal, "kind", None),
                         "source": getattr(terminal, "source", None),
                         "error": getattr(terminal, "error", None)})

    def gate(self, inner: ApprovalGate | None) -> ApprovalGate | None:
        return None if inner is None else _RecordingGate(inner, self)

    def chain(self, sink: EventSink | None) -> EventSink:
        """An event sink that notes the event, then passes it to `sink` (if any)."""
        observe = self.observe
        if sink is None:
            return observe

        def both(event: AgentEvent) -> Awaitable[None] | None:
            observe(event)
            return sink(event)

        return both

    def observe(self, event: AgentEvent) -> None:
        stream = event.stream
        if stream == "assistant":
            return
        data = event.data
        if stream == "tool":
            phase = data.get("phase")
            call_id = str(data.get("toolCallId") or f"call-{len(self._order)}")
            if phase == "start":
                started = (time.perf_counter() - self._t0) * 1000
                self._tools[call_id] = [str(data.get("name")), _capped(data.get("args")),
                                        started, None, "unfinished", self._attempt]
                self._order.append(call_id)
                self.event("tool.start", data={"tool": data.get("name"),
                                               "tool_call_id": call_id})
            elif phase == "result":
                entry = self._tools.get(call_id)
                outcome = "error" if data.get("isError") else "ok"
                duration = None
                if entry is not None:
                    duration = (time.perf_counter() - self._t0) * 1000 - entry[2]
                    entry[3], entry[4] = duration, outcome
                self.event("tool.end", duration_ms=duration,
                           data={"tool": data.get("name"), "tool_call_id": call_id,
                                 "outcome": outcome})
        elif stream == "usage":
            now = (time.perf_counter() - self._t0) * 1000
            self.event("model.response", duration_ms=now - self._step_started,
                       data={k: v for k, v in data.items() if k != "attempt"})
            self._step_started = now
        elif stream == "lifecycle":
            phase = data.get("phase")
            if phase not in ("start", "end"):
                self.event(f"lifecycle.{phase}", data={"error": data.get("error")}
                           if data.get("error") else None)

    def finalized(self, outcome: str) -> None:
        self.finalization = outcome
        self.event("finalization", data={"outcome": outcome})

    # --- the record ------------------------------------------------------------------

    def build(self, result: TurnResult, *, agent_id: str) -> TurnRecord:
        """The record, from the turn's `TurnResult`."""
        tools = tuple(ToolCallRecord(cid, e[0], e[1], e[4], e[2], e[3], e[5])
                      for cid in self._order if (e := self._tools.get(cid)) is not None)
        return TurnRecord(
            run_id=self.run_id, session_key=self.session_key, session_id=result.session_id,
            agent_id=agent_id, started_at=self.started_at, duration_ms=self.now_ms(),
            terminal=result.terminal, error=result.error, runtime=result.runtime,
            selected_reason=result.selected_reason, selections=tuple(self.selections),
            timeline=tuple(self._events), tool_calls=tools, approvals=tuple(self.approvals),
            lease=self._lease,
            native=self._native or {"harness_id": result.runtime},
            delivery={"silent": result.silent, "payloads": len(result.payloads),
                      "text_chars": len(result.text), "warnings": list(result.warnings),
                      **self._delivery},
            finalization=self.finalization, fallbacks=result.fallbacks, usage=result.usage,
        )


#: what the record says of the selection decisions seen last (a selector keeps its
#: decisions, so the same few come back turn after turn), by the decision's identity, the
#: attempt and the model: the attempt's selection entry and its `attempt.start` data, made
#: once and shared read-only by the records, which then redact them once
#: (`_turn_record`: a `MappingProxyType` is a kept mapping)
_SELECTIONS: dict[tuple[int, int, str], tuple[Any, Mapping[str, Any], Mapping[str, Any]]] = {}
_MAX_SELECTIONS: Final = MAX_CACHED_LISTS


def _selection(decision: Any, index: int,
               model: str) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """An attempt's selection entry and the data of its `attempt.start` event."""
    key = (id(decision), index, model)
    known = _SELECTIONS.get(key)
    if known is not None and known[0] is decision:
        return known[1], known[2]
    policy = decision.policy
    selection = MappingProxyType({
        "attempt": index, "model": model,
        "selected_harness_id": decision.selected_harness_id,
        "selected_reason": decision.selected_reason,
        "runtime": policy.runtime, "runtime_source": policy.source,
        "requested_runtime": decision.requested_policy.runtime,
        "builtin": decision.builtin, "availability": decision.availability,
        "owner_plugin_id": decision.owner_plugin_id,
        "candidates": [_candidate(c) for c in decision.candidates],
    })
    start = MappingProxyType({"attempt": index, "model": model,
                              "harness": decision.selected_harness_id})
    if len(_SELECTIONS) >= _MAX_SELECTIONS:
        _SELECTIONS.clear()
    _SELECTIONS[key] = (decision, selection, start)
    return selection, start


def _candidate(candidate: Any) -> dict[str, Any]:
    as_dict = getattr(candidate, "as_dict", None)
    raw = dict(as_dict()) if callable(as_dict) else {"id": str(candidate)}
    return {"id": raw.get("id"), "label": raw.get("label"),
            "plugin_id": raw.get("pluginId"), "supported": raw.get("supported"),
            "priority": raw.get("priority"), "reason": raw.get("reason")}


class TurnRecordKeeper:
    """Writes finished turns' records to the store in batches, off the turns' path.

    A turn hands its record over and returns; records gather for `FLUSH_AFTER_SECONDS`
    (or until `FLUSH_AT_RECORDS`) and go to the store in one transaction, so a busy host
    pays one small write per batch, not one per turn. A write that fails is logged and
    the records are dropped: the inspector must never fail a turn. `drain()` writes what
    is pending (the host calls it at close).
    """

    def __init__(self, store: TurnRecordStore) -> None:
        self._store = store
        self._pending: list[TurnRecord] = []
        self._timer: asyncio.TimerHandle | None = None
        self._writes: set[asyncio.Task[None]] = set()

    def keep(self, record: TurnRecord) -> None:
        self._pending.append(record)
        if len(self._pending) >= FLUSH_AT_RECORDS:
            self._flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_AFTER_SECONDS,
                                                                 self._flush)

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        task = asyncio.ensure_future(self._write(batch))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, batch: list[TurnRecord]) -> None:
        try:
            await self._store.put_turn_records([
                _stored_record(r.run_id, r.session_key, r.session_id, r.started_at,
                               stored_json(r)) for r in batch])
        except Exception as exc:
            log.warning("%d turn record(s) could not be stored: %s", len(batch), exc)

    async def drain(self) -> None:
        """Write every pending record now and wait for the writes."""
        self._flush()
        if self._writes:
            with contextlib.suppress(Exception):
                await asyncio.gather(*self._writes, return_exceptions=True)
