"""`TurnResult`: what one turn produced, and its one JSON shape.

The turn runner builds it (`clawharness.attempt.turn`); `Host.run_turn` returns it to
every front. `turn_result_to_wire` is its one serialiser: `agent --json` prints it, and
a cluster worker relays it to the front that asked, which reads it back with
`turn_result_from_wire`. The gateway's `agent` frame and the OpenAI-compatible HTTP API
speak other protocols' shapes and build those from the typed fields.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from clawharness._json import JsonValue
from clawharness.delivery.reply_content import ReplyPayload
from clawharness.errors import ClawHarnessError
from clawharness.records.terminal_kind import TerminalKind, is_terminal_kind
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.usage import Usage, UsageCost, normalize_usage

__all__ = [
    "ClusterPlacement",
    "ModelFallback",
    "QueueDelivery",
    "TerminalKind",
    "TurnResult",
    "TurnResultWireError",
    "is_terminal_kind",
    "turn_result_from_wire",
    "turn_result_to_wire",
]

class TurnResultWireError(ClawHarnessError, ValueError):
    """A turn result's JSON (a cluster relay row) is not the shape `turn_result_to_wire`
    writes; the message names the field."""

    code = "turn_result_invalid"


@dataclass(frozen=True, slots=True)
class ModelFallback:
    """A model of the fallback chain that did not answer the turn, and why."""

    #: the `provider/model` ref
    model: str
    #: the attempt's error, when it ran and failed
    error: str | None = None
    #: why it was not tried (e.g. "harness-scoped preflight"), when it was skipped
    skipped: str | None = None

    def to_wire(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"model": self.model}
        if self.skipped is not None:
            out["skipped"] = self.skipped
        else:
            out["error"] = self.error
        return out


@dataclass(frozen=True, slots=True)
class ClusterPlacement:
    """Where a turn sent to the cluster ran: its worker and attempt, or that it was
    withdrawn from its session's queue before it started."""

    worker: str | None = None
    attempt: int | None = None
    #: run as a Temporal local activity
    local: bool | None = None
    withdrawn: bool = False

    def to_wire(self) -> dict[str, JsonValue]:
        if self.withdrawn:
            return {"withdrawn": True}
        return {"worker": self.worker, "attempt": self.attempt, "local": self.local}


@dataclass(frozen=True, slots=True)
class QueueDelivery:
    """How a message that arrived while its session's turn was running was handled
    (`clawharness.sessions.queue`): its queue `mode`, and `carried` when another turn
    took it ("steered" into the running turn, "collected" into one turn with others):
    the result is then that turn's (its `run_id`)."""

    mode: str
    carried: Literal["steered", "collected"] | None = None

    def to_wire(self) -> dict[str, JsonValue]:
        out: dict[str, JsonValue] = {"mode": self.mode}
        if self.carried is not None:
            out["carried"] = self.carried
        return out


def _queue_from_wire(value: JsonValue) -> QueueDelivery | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("mode"), str):
        raise TurnResultWireError("turn result: 'queue' must be an object with a mode")
    mode, carried = value["mode"], value.get("carried")
    assert isinstance(mode, str)
    return QueueDelivery(mode, "steered" if carried == "steered"
                         else "collected" if carried == "collected" else None)


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one turn produced."""

    session_key: str
    session_id: str
    run_id: str
    runtime: str
    selected_reason: str
    terminal: TerminalKind
    text: str
    #: the reply was NO_REPLY (and `text` is empty)
    silent: bool = False
    tool_calls: tuple[ToolCallMeta, ...] = ()
    usage: Usage | None = None
    error: str | None = None
    duration_ms: float = 0.0
    #: what the user should know about how the turn ran (e.g. a native session was gone)
    warnings: tuple[str, ...] = ()
    #: what else is known about `error`, JSON-keyed: `type`, `provider`, `model`, `url`,
    #: `runtime`, `hint`, ... (see `clawharness.attempt.failure`)
    error_details: Mapping[str, JsonValue] | None = None
    #: the harness the session was pinned to when the turn started (None on its first)
    pinned_harness_id: str | None = None
    #: the `provider/model` ref of the attempt that answered (None when none ran)
    model: str | None = None
    #: the models of the chain that were tried or skipped before `model`, in order
    fallbacks: tuple[ModelFallback, ...] = ()
    #: the turn ended with tool work and no answer, and finalization could not make one:
    #: the warning the user got as the reply
    incomplete_turn_warning: str | None = None
    #: this run id ran before and was lost (a retried cluster turn); this turn continued it
    resumed_run: bool = False
    #: where the cluster ran the turn (None for a turn run in this process)
    cluster: ClusterPlacement | None = None
    #: calls of the caller's tools the turn ended with, for the caller to run and answer
    #: with the next turn (`TurnOptions.caller_results`): `{"id", "name", "arguments"}`,
    #: the caller's own wire shape
    client_tool_calls: tuple[Mapping[str, JsonValue], ...] = ()
    #: the message arrived while a turn of its session ran: how it was handled
    queue: QueueDelivery | None = None

    @property
    def cost_usd(self) -> float | None:
        """What the turn cost in USD (its usage's cost: priced by the host, or as the
        runtime reported it); None when its model is unpriced (docs/budgets.md)."""
        cost = None if self.usage is None else self.usage.cost
        return None if cost is None else cost.total

    @property
    def error_type(self) -> str | None:
        """The failure's stable code (`provider_unreachable`, `timeout`, ...)."""
        if self.error is None:
            return None
        return str((self.error_details or {}).get("type") or "turn_failed")

    @property
    def payloads(self) -> tuple[ReplyPayload, ...]:
        """What the turn delivers: its text, unless it was silent or empty."""
        return (ReplyPayload(text=self.text),) if self.text else ()

    def to_json(self) -> dict[str, JsonValue]:
        """`turn_result_to_wire(self)`."""
        return turn_result_to_wire(self)


def _tool_call_to_wire(call: ToolCallMeta) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {"name": call.tool_name}
    if call.tool_call_id is not None:
        out["id"] = call.tool_call_id
    out["ok"] = not call.is_error
    if call.is_error and call.error:
        out["error"] = call.error
    return out


def turn_result_to_wire(result: TurnResult) -> dict[str, JsonValue]:
    """The turn result as JSON (`agent --json`, the cluster relay); docs/cli.md."""
    out: dict[str, JsonValue] = {
        "sessionKey": result.session_key,
        "sessionId": result.session_id,
        "runId": result.run_id,
        "runtime": result.runtime,
        "selectedReason": result.selected_reason,
        "pinnedHarnessId": result.pinned_harness_id,
        "terminal": result.terminal,
        "text": result.text,
        "toolCalls": [_tool_call_to_wire(call) for call in result.tool_calls],
        "usage": None if result.usage is None else result.usage.to_wire(),
        "durationMs": round(result.duration_ms, 3),
    }
    cost = result.cost_usd
    if cost is not None:
        out["costUsd"] = cost
    if result.silent:
        out["silent"] = True
    if result.warnings:
        out["warnings"] = list(result.warnings)
    if result.client_tool_calls:
        out["clientToolCalls"] = [dict(call) for call in result.client_tool_calls]
    if result.model is not None:
        out["model"] = result.model
    if result.fallbacks:
        out["fallbacks"] = [fallback.to_wire() for fallback in result.fallbacks]
    if result.incomplete_turn_warning is not None:
        out["incompleteTurnWarning"] = result.incomplete_turn_warning
    if result.resumed_run:
        out["resumedRun"] = True
    if result.cluster is not None:
        out["cluster"] = result.cluster.to_wire()
    if result.queue is not None:
        out["queue"] = result.queue.to_wire()
    if result.error is not None:
        details = {k: v for k, v in (result.error_details or {}).items() if k != "type"}
        out["error"] = {"type": result.error_type, "message": result.error, **details}
    return out


# --- reading it back --------------------------------------------------------------------


def _field(wire: Mapping[str, JsonValue], key: str) -> JsonValue:
    if key not in wire:
        raise TurnResultWireError(f"turn result: {key!r} is missing")
    return wire[key]


def _text(wire: Mapping[str, JsonValue], key: str) -> str:
    value = _field(wire, key)
    if not isinstance(value, str):
        raise TurnResultWireError(f"turn result: {key!r} must be a string, not {value!r}")
    return value


def _optional_text(wire: Mapping[str, JsonValue], key: str) -> str | None:
    value = wire.get(key)
    if value is not None and not isinstance(value, str):
        raise TurnResultWireError(f"turn result: {key!r} must be a string or null")
    return value


def _objects(wire: Mapping[str, JsonValue], key: str) -> Sequence[Mapping[str, JsonValue]]:
    value = wire.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise TurnResultWireError(f"turn result: {key!r} must be a list of objects")
    return [item for item in value if isinstance(item, dict)]


def _usage_from_wire(wire: Mapping[str, JsonValue]) -> Usage | None:
    usage = normalize_usage(wire.get("usage"))
    cost = wire.get("costUsd")
    if usage is None or isinstance(cost, bool) or not isinstance(cost, int | float):
        return usage
    return replace(usage, cost=UsageCost(total=float(cost)))


def _tool_call_from_wire(value: Mapping[str, JsonValue]) -> ToolCallMeta:
    name, call_id, error = value.get("name"), value.get("id"), value.get("error")
    if not isinstance(name, str):
        raise TurnResultWireError("turn result: a tool call's 'name' must be a string")
    return ToolCallMeta(tool_name=name, tool_call_id=call_id if isinstance(call_id, str) else None,
                        is_error=value.get("ok") is not True,
                        error=error if isinstance(error, str) else None)


def _fallback_from_wire(value: Mapping[str, JsonValue]) -> ModelFallback:
    model, error, skipped = value.get("model"), value.get("error"), value.get("skipped")
    if not isinstance(model, str):
        raise TurnResultWireError("turn result: a fallback's 'model' must be a string")
    return ModelFallback(model, error if isinstance(error, str) else None,
                         skipped if isinstance(skipped, str) else None)


def _cluster_from_wire(value: JsonValue) -> ClusterPlacement | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TurnResultWireError("turn result: 'cluster' must be an object")
    if value.get("withdrawn") is True:
        return ClusterPlacement(withdrawn=True)
    worker, attempt, local = value.get("worker"), value.get("attempt"), value.get("local")
    return ClusterPlacement(
        worker=worker if isinstance(worker, str) else None,
        attempt=attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else None,
        local=local if isinstance(local, bool) else None)


def turn_result_from_wire(wire: Mapping[str, JsonValue]) -> TurnResult:
    """A turn result read back from `turn_result_to_wire`'s JSON; `TurnResultWireError`
    naming the field when it is not that shape."""
    terminal = _text(wire, "terminal")
    if not is_terminal_kind(terminal):
        raise TurnResultWireError(f"turn result: unknown 'terminal' {terminal!r}")
    error: str | None = None
    details: dict[str, JsonValue] | None = None
    raw_error = wire.get("error")
    if raw_error is not None:
        if not isinstance(raw_error, dict) or not isinstance(raw_error.get("message"), str):
            raise TurnResultWireError("turn result: 'error' must be an object with a message")
        details = {k: v for k, v in raw_error.items() if k != "message"}
        message = raw_error["message"]
        assert isinstance(message, str)
        error = message
    warnings = wire.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise TurnResultWireError("turn result: 'warnings' must be a list of strings")
    duration = wire.get("durationMs", 0.0)
    if isinstance(duration, bool) or not isinstance(duration, int | float):
        raise TurnResultWireError("turn result: 'durationMs' must be a number")
    return TurnResult(
        session_key=_text(wire, "sessionKey"), session_id=_text(wire, "sessionId"),
        run_id=_text(wire, "runId"), runtime=_text(wire, "runtime"),
        selected_reason=_text(wire, "selectedReason"),
        terminal=terminal,
        text=_text(wire, "text"), silent=wire.get("silent") is True,
        tool_calls=tuple(_tool_call_from_wire(call) for call in _objects(wire, "toolCalls")),
        usage=_usage_from_wire(wire), error=error, duration_ms=float(duration),
        warnings=tuple(str(w) for w in warnings), error_details=details,
        pinned_harness_id=_optional_text(wire, "pinnedHarnessId"),
        model=_optional_text(wire, "model"),
        fallbacks=tuple(_fallback_from_wire(f) for f in _objects(wire, "fallbacks")),
        incomplete_turn_warning=_optional_text(wire, "incompleteTurnWarning"),
        resumed_run=wire.get("resumedRun") is True,
        cluster=_cluster_from_wire(wire.get("cluster")),
        client_tool_calls=tuple(_objects(wire, "clientToolCalls")),
        queue=_queue_from_wire(wire.get("queue")),
    )
