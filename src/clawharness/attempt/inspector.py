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
from dataclasses import dataclass, field
from typing import Any, Final

from clawharness._json import JsonValue
from clawharness.harness.capabilities import ApprovalDecision, ApprovalGate, ApprovalRequest
from clawharness.harness.types import AgentEvent, AttemptResult
from clawharness.records.turn_result import ModelFallback, TurnResult
from clawharness.records.usage import Usage
from clawharness.redaction import redact_entry, redact_secrets_in, redact_walked
from clawharness.redaction.fields import is_sensitive_field_key
from clawharness.redaction.known import known_generation
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


#: made once (`json.dumps` with options builds an encoder per call)
_ENCODER: Final = json.JSONEncoder(default=str, ensure_ascii=False)


def _capped(value: Any) -> Any:
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) <= MAX_ARGUMENT_CHARS:
        return value
    return {"truncated": True, "preview": text[:MAX_ARGUMENT_CHARS], "chars": len(text)}


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    at_ms: float
    kind: str
    duration_ms: float | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at_ms": round(self.at_ms, 2), "kind": self.kind}
        if self.duration_ms is not None:
            out["duration_ms"] = round(self.duration_ms, 2)
        if self.data:
            out["data"] = dict(self.data)
        return out


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    tool_call_id: str
    name: str
    arguments: Any
    outcome: str  # ok | error | unfinished
    started_at_ms: float
    duration_ms: float | None = None
    attempt: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"tool_call_id": self.tool_call_id, "name": self.name,
                "arguments": self.arguments, "outcome": self.outcome,
                "started_at_ms": round(self.started_at_ms, 2),
                "duration_ms": None if self.duration_ms is None else round(self.duration_ms, 2),
                "attempt": self.attempt}


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn, as the inspector shows it."""

    run_id: str
    session_key: str
    session_id: str
    agent_id: str
    started_at: float
    duration_ms: float
    terminal: str
    error: str | None
    runtime: str
    selected_reason: str
    selections: tuple[Mapping[str, Any], ...]
    timeline: tuple[TimelineEvent, ...]
    tool_calls: tuple[ToolCallRecord, ...]
    approvals: tuple[Mapping[str, Any], ...]
    lease: Mapping[str, Any] | None
    native: Mapping[str, Any]
    delivery: Mapping[str, Any]
    finalization: str
    fallbacks: tuple[ModelFallback, ...] = ()
    usage: Usage | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "session_key": self.session_key,
            "session_id": self.session_id, "agent_id": self.agent_id,
            "started_at": self.started_at, "duration_ms": round(self.duration_ms, 2),
            "terminal": self.terminal, "error": self.error, "runtime": self.runtime,
            "selected_reason": self.selected_reason,
            "selections": [dict(s) for s in self.selections],
            "timeline": [e.to_json() for e in self.timeline],
            "tool_calls": [t.to_json() for t in self.tool_calls],
            "approvals": [dict(a) for a in self.approvals],
            "lease": None if self.lease is None else dict(self.lease),
            "native": dict(self.native), "delivery": dict(self.delivery),
            "finalization": self.finalization,
            "fallbacks": [f.to_wire() for f in self.fallbacks],
            "usage": _usage_wire(self.usage),
        }


def _usage_wire(usage: Usage | None) -> dict[str, JsonValue] | None:
    """The turn's usage in the transcript's spelling, with its cost (`cost.total`, USD)
    when it has one."""
    if usage is None:
        return None
    out = usage.to_wire()
    if usage.cost is not None:
        out["cost"] = {"total": usage.cost.total}
    return out


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
        self.selections: list[dict[str, Any]] = []
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
                                              duration_ms, data or {}))

    # --- hooks the runner calls -------------------------------------------------------

    def selected(self, index: int, model: str, decision: Any) -> None:
        """An attempt's selection: harness, reason, policy and candidates."""
        self._attempt = index
        self._step_started = self.now_ms()
        self.selections.append({"attempt": index, "model": model, **_selection_facts(decision)})
        self.event("attempt.start", data={"attempt": index, "model": model,
                                          "harness": decision.selected_harness_id})

    def attempt_ended(self, index: int, result: AttemptResult, started_ms: float) -> None:
        """An attempt's end: its terminal, the native session it used, delivery facts."""
        terminal = result.terminal
        extra = result.extra if isinstance(result.extra, Mapping) else {}
        native = {k: extra[k] for k in ("nativeSessionId", "nativeThreadId", "pid",
                                        "processId", "binding") if k in extra}
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


#: the recorded facts of the selection decisions seen last (a selector keeps its
#: decisions, so the same few come back turn after turn), by the decision's identity
_FACTS: dict[int, tuple[Any, dict[str, Any]]] = {}
_MAX_FACTS: Final = 256


def _selection_facts(decision: Any) -> dict[str, Any]:
    """What the record says of a selection decision besides the attempt and its model
    (read-only: records share it)."""
    known = _FACTS.get(id(decision))
    if known is not None and known[0] is decision:
        return known[1]
    policy = decision.policy
    facts = {
        "selected_harness_id": decision.selected_harness_id,
        "selected_reason": decision.selected_reason,
        "runtime": policy.runtime, "runtime_source": policy.source,
        "requested_runtime": decision.requested_policy.runtime,
        "builtin": decision.builtin, "availability": decision.availability,
        "owner_plugin_id": decision.owner_plugin_id,
        "candidates": [_candidate(c) for c in decision.candidates],
    }
    if len(_FACTS) >= _MAX_FACTS:
        _FACTS.clear()
    _FACTS[id(decision)] = (decision, facts)
    return facts


def _candidate(candidate: Any) -> dict[str, Any]:
    as_dict = getattr(candidate, "as_dict", None)
    raw = dict(as_dict()) if callable(as_dict) else {"id": str(candidate)}
    return {"id": raw.get("id"), "label": raw.get("label"),
            "plugin_id": raw.get("pluginId"), "supported": raw.get("supported"),
            "priority": raw.get("priority"), "reason": raw.get("reason")}


#: who and what the record is about: identities, never secrets (and `session_key` would
#: read as a secret-named field); `lease` is the writer lease the host itself took (its
#: holder names this process and the turn, its fence is a number)
_IDENTITY: Final = frozenset({"run_id", "session_key", "session_id", "agent_id", "lease"})


def _redacted(record: dict[str, Any]) -> dict[str, Any]:
    """A record as stored: every other string passes the secret redaction (tool
    arguments, failure messages, approval reasons, timeline data).

    Two parts are not walked again each turn: a selection's candidates (the same list
    for every turn of a kept decision, `_selection_facts`: redacted once per list and
    set of known values), and the session id the attempt used when it is the turn's own
    (`session_id`, an identity stored as it is)."""
    identity: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in record.items():
        (identity if key in _IDENTITY else rest)[key] = value
    selections: Any = rest.get("selections")
    candidates: list[tuple[int, Any]] = []
    if type(selections) is list:
        rest["selections"] = [_without(s, "candidates", candidates, i)
                              for i, s in enumerate(selections)]
    native: Any = rest.get("native")
    own: list[tuple[int, Any]] = []
    if (type(native) is dict and native.get("session_id_used") is not None
            and native.get("session_id_used") == identity.get("session_id")):
        rest["native"] = _without(native, "session_id_used", own, 0)
    out = redact_secrets_in(rest)
    if candidates:
        generation = known_generation()
        stored = out["selections"]
        for i, listed in candidates:
            stored[i] = _with(selections[i], stored[i], "candidates",
                              _redacted_candidates(listed, generation))
    if own:
        out["native"] = _with(native, out["native"], "session_id_used", own[0][1])
    return {**identity, **out}


#: the keys of a record and of its timeline events and tool calls `_stored_json` writes
#: itself (none is secret-named, so a walk would not mask their strings whatever they
#: look like; `tests/attempt/test_turn_record_redaction.py` holds it to that)
_OWN_KEYS: Final = frozenset({
    "started_at", "duration_ms", "terminal", "error", "runtime", "selected_reason",
    "selections", "timeline", "tool_calls", "approvals", "native", "delivery",
    "finalization", "fallbacks", "usage", "at_ms", "kind", "data", "tool_call_id", "name",
    "arguments", "outcome", "started_at_ms", "attempt", "session_id_used"})
assert not any(is_sensitive_field_key(k) for k in _OWN_KEYS)


def _stored_json(record: TurnRecord) -> dict[str, Any]:
    """`_redacted(record.to_json())`, made in one pass: the record's own frame (its
    fields, timeline events and tool calls, whose keys are never secret-named) is built
    already redacted, and only the values inside it are walked (timeline data, tool
    arguments, ...), at the depth a walk of the whole would reach them."""
    generation = known_generation()
    session_id = record.session_id

    def text(value: str | None) -> str | None:
        return None if value is None else redact_walked(value, 1, generation)

    def duration(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    timeline: list[Any] = []
    for event in record.timeline:
        item: dict[str, Any] = {"at_ms": round(event.at_ms, 2),
                                "kind": redact_walked(event.kind, 3, generation)}
        if event.duration_ms is not None:
            item["duration_ms"] = round(event.duration_ms, 2)
        if event.data:
            item["data"] = redact_walked(event.data, 3, generation)
        timeline.append(item)
    tools = [{"tool_call_id": redact_walked(t.tool_call_id, 3, generation),
              "name": redact_walked(t.name, 3, generation),
              "arguments": redact_walked(t.arguments, 3, generation),
              "outcome": redact_walked(t.outcome, 3, generation),
              "started_at_ms": round(t.started_at_ms, 2),
              "duration_ms": duration(t.duration_ms), "attempt": t.attempt}
             for t in record.tool_calls]
    selections: list[Any] = []
    for selection in record.selections:
        listed = selection.get("candidates", _ABSENT)
        if listed is _ABSENT:
            selections.append(redact_walked(selection, 2, generation))
            continue
        redacted = redact_walked({k: v for k, v in selection.items() if k != "candidates"},
                                 2, generation)
        selections.append(_with(selection, redacted, "candidates",
                                _redacted_candidates(listed, generation)))
    native = {k: v if k == "session_id_used" and v is not None and v == session_id
              else redact_entry(k, v, 1, generation) for k, v in record.native.items()}
    lease = record.lease
    return {
        "run_id": record.run_id, "session_key": record.session_key,
        "session_id": session_id, "agent_id": record.agent_id,
        "lease": None if lease is None else dict(lease),
        "started_at": record.started_at, "duration_ms": round(record.duration_ms, 2),
        "terminal": text(record.terminal), "error": text(record.error),
        "runtime": text(record.runtime), "selected_reason": text(record.selected_reason),
        "selections": selections, "timeline": timeline, "tool_calls": tools,
        "approvals": redact_walked([dict(a) for a in record.approvals], 1, generation),
        "native": native,
        "delivery": redact_walked(record.delivery, 1, generation),
        "finalization": text(record.finalization),
        "fallbacks": redact_walked([f.to_wire() for f in record.fallbacks], 1, generation),
        "usage": redact_walked(_usage_wire(record.usage), 1, generation),
    }


_ABSENT: Final = object()


def _without(value: Any, key: str, taken: list[tuple[int, Any]], index: int) -> Any:
    """`value` without `key` (noted in `taken` under `index`), when it is a dict with it."""
    if type(value) is not dict or key not in value:
        return value
    taken.append((index, value[key]))
    return {k: v for k, v in value.items() if k != key}


def _with(original: Mapping[str, Any], redacted: dict[str, Any], key: str,
          item: Any) -> dict[str, Any]:
    """`redacted` with `key` put back as `item`, in `original`'s order of keys."""
    return {k: item if k == key else redacted[k] for k in original}


#: the redacted copy of each kept decision's candidates list, by the list's identity
_CANDIDATES: dict[int, tuple[Any, int, Any]] = {}


def _redacted_candidates(listed: Any, generation: int) -> Any:
    known = _CANDIDATES.get(id(listed))
    if known is not None and known[0] is listed and known[1] == generation:
        return known[2]
    redacted = redact_secrets_in(listed)
    if len(_CANDIDATES) >= _MAX_FACTS:
        _CANDIDATES.clear()
    _CANDIDATES[id(listed)] = (listed, generation, redacted)
    return redacted


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
                StoredTurnRecord(r.run_id, r.session_key, r.session_id, r.started_at,
                                 _stored_json(r)) for r in batch])
        except Exception as exc:
            log.warning("%d turn record(s) could not be stored: %s", len(batch), exc)

    async def drain(self) -> None:
        """Write every pending record now and wait for the writes."""
        self._flush()
        if self._writes:
            with contextlib.suppress(Exception):
                await asyncio.gather(*self._writes, return_exceptions=True)
