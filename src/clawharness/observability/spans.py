"""The span points of a turn, as small helpers: each takes typed facts, names the span
and its GenAI attributes in one place, and is a shared no-op context when tracing is off.

    with turn_span(agent_id, session_key, run_id) as span:
        ...
        if span.is_recording():
            span.set_attribute(TERMINAL, "ok")

The tree of one turn: `invoke_agent <agent>` > `harness_attempt <runtime>` >
`chat <model>` / `execute_tool <tool>` / `native_process_start <label>`, with
`session_lease_wait` and `store_append` where the turn waits for its writer and stores
its transcript. Prompts, replies and tool payloads go on spans only with
`diagnostics.otel.captureContent`, and then through the secret redaction.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from types import TracebackType
from typing import Any, Final, cast

from opentelemetry import context as otel_context
from opentelemetry.propagators.textmap import default_setter
from opentelemetry.trace import (
    INVALID_SPAN,
    Span,
    SpanKind,
    Status,
    StatusCode,
    set_span_in_context,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from clawharness.observability.telemetry import current_telemetry
from clawharness.records.usage import Usage

__all__ = [
    "CONVERSATION_ID",
    "INPUT_TOKENS",
    "OUTPUT_TOKENS",
    "RESPONSE_MODEL",
    "SELECTED_REASON",
    "TERMINAL",
    "attempt_span",
    "capture_trace_context",
    "chat_span",
    "cluster_turn_span",
    "content_attribute",
    "continued_trace",
    "end_attempt",
    "end_chat",
    "end_tool",
    "end_turn",
    "lease_wait_span",
    "mark_failed",
    "native_process_span",
    "store_append_span",
    "tool_span",
    "trace_carrier",
    "trace_env",
    "turn_span",
]

OPERATION: Final = "gen_ai.operation.name"
PROVIDER: Final = "gen_ai.provider.name"
REQUEST_MODEL: Final = "gen_ai.request.model"
RESPONSE_MODEL: Final = "gen_ai.response.model"
INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
#: the cached part of the input (GenAI semantic conventions: the input count includes it)
CACHE_READ_TOKENS: Final = "gen_ai.usage.cache_read.input_tokens"
CACHE_WRITE_TOKENS: Final = "gen_ai.usage.cache_creation.input_tokens"
OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
CONVERSATION_ID: Final = "gen_ai.conversation.id"
AGENT_ID: Final = "gen_ai.agent.id"
SESSION_KEY: Final = "clawharness.session.key"
RUN_ID: Final = "clawharness.run.id"
RUNTIME: Final = "clawharness.runtime"
SELECTED_REASON: Final = "clawharness.selected_reason"
TERMINAL: Final = "clawharness.terminal"

_NOOP: Final[AbstractContextManager[Span]] = nullcontext(INVALID_SPAN)
_PROPAGATOR: Final = TraceContextTextMapPropagator()
#: the most characters of one captured content attribute
_CONTENT_LIMIT: Final = 8192


class _CurrentSpan(AbstractContextManager[Span]):
    """A started span, current while the block runs and ended after it (what
    `start_as_current_span` does, without its generator: this is the hot path)."""

    __slots__ = ("_span", "_token")

    def __init__(self, span: Span) -> None:
        self._span = span
        self._token: object = None

    def __enter__(self) -> Span:
        self._token = otel_context.attach(set_span_in_context(self._span))
        return self._span

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        span = self._span
        try:
            if isinstance(exc, Exception):
                # the SDK's own attributes hold the raw message and stack: a secret in an
                # exception (a provider echoing its key) is masked like everything else
                stack = "".join(traceback.format_exception(type(exc), exc, tb))
                span.record_exception(exc, attributes={
                    "exception.message": _redact(str(exc)),
                    "exception.stacktrace": _redact(stack)})
                span.set_status(Status(StatusCode.ERROR,
                                       _redact(f"{type(exc).__name__}: {exc}")))
            span.end()
        finally:
            otel_context.detach(cast(Any, self._token))


def _span(name: str, kind: SpanKind, attributes: dict[str, Any]
          ) -> AbstractContextManager[Span]:
    tracer = current_telemetry().tracer
    if tracer is None:
        return _NOOP
    return _CurrentSpan(tracer.start_span(name, kind=kind, attributes=attributes))


def turn_span(agent_id: str, session_key: str, run_id: str) -> AbstractContextManager[Span]:
    """`invoke_agent <agent>`: one whole turn."""
    if current_telemetry().tracer is None:
        return _NOOP
    return _span(f"invoke_agent {agent_id}", SpanKind.INTERNAL, {
        OPERATION: "invoke_agent", AGENT_ID: agent_id, SESSION_KEY: session_key,
        RUN_ID: run_id})


def attempt_span(runtime: str, selected_reason: str, *, provider: str, model: str,
                 session_id: str, attempt: int) -> AbstractContextManager[Span]:
    """`harness_attempt <runtime>`: one candidate's attempt on its selected harness."""
    if current_telemetry().tracer is None:
        return _NOOP
    return _span(f"harness_attempt {runtime}", SpanKind.INTERNAL, {
        RUNTIME: runtime, SELECTED_REASON: selected_reason, PROVIDER: provider,
        REQUEST_MODEL: model, CONVERSATION_ID: session_id, "clawharness.attempt": attempt})


def chat_span(provider: str, model: str, *,
              session_id: str | None = None) -> AbstractContextManager[Span]:
    """`chat <model>`: one model request."""
    if current_telemetry().tracer is None:
        return _NOOP
    attributes: dict[str, Any] = {OPERATION: "chat", PROVIDER: provider, REQUEST_MODEL: model}
    if session_id:
        attributes[CONVERSATION_ID] = session_id
    return _span(f"chat {model}", SpanKind.CLIENT, attributes)


def tool_span(name: str, call_id: str, *, session_id: str | None = None
              ) -> AbstractContextManager[Span]:
    """`execute_tool <tool>`: one tool call (policy, approval and execution)."""
    if current_telemetry().tracer is None:
        return _NOOP
    attributes: dict[str, Any] = {OPERATION: "execute_tool", TOOL_NAME: name,
                                  TOOL_CALL_ID: call_id, "gen_ai.tool.type": "function"}
    if session_id:
        attributes[CONVERSATION_ID] = session_id
    return _span(f"execute_tool {name}", SpanKind.INTERNAL, attributes)


def native_process_span(label: str, argv0: str) -> AbstractContextManager[Span]:
    """`native_process_start <label>`: spawning a native runtime's process."""
    if current_telemetry().tracer is None:
        return _NOOP
    return _span(f"native_process_start {label}", SpanKind.INTERNAL,
                 {"process.executable.name": argv0.rsplit("/", 1)[-1]})


def store_append_span(session_id: str, entries: int) -> AbstractContextManager[Span]:
    """`store_append`: one batch of transcript entries written."""
    if current_telemetry().tracer is None:
        return _NOOP
    return _span("store_append", SpanKind.INTERNAL,
                 {CONVERSATION_ID: session_id, "clawharness.store.entries": entries})


def lease_wait_span(session_key: str, where: str) -> AbstractContextManager[Span]:
    """`session_lease_wait`: a turn waiting for its session's writer, behind another turn
    of this process (`where` "process") or another process's lease ("store"). A writer
    taken at once makes no span."""
    if current_telemetry().tracer is None:
        return _NOOP
    return _span("session_lease_wait", SpanKind.INTERNAL,
                 {SESSION_KEY: session_key, "clawharness.lease.wait": where})


def end_turn(span: Span, *, runtime: str, selected_reason: str, terminal: str,
             session_id: str, usage: Usage | None, duration: float,
             error: str | None = None, error_type: str | None = None,
             model: str | None = None) -> None:
    """What the turn came to, on its span and in the turn metrics (its cost, when its
    usage carries one: `clawharness_cost_usd_total`)."""
    telemetry = current_telemetry()
    if telemetry.metrics_on:  # with metrics off the instruments are no-ops: skip the work
        outcome = {"runtime": runtime, "outcome": terminal}
        telemetry.turns.add(1, outcome)
        telemetry.turn_duration.record(duration, outcome)
        cost = None if usage is None else usage.cost
        if cost is not None and cost.total > 0:
            telemetry.cost.add(cost.total, {"runtime": runtime, "model": model or "-"})
    if not span.is_recording():
        return
    attributes: dict[str, Any] = {RUNTIME: runtime, SELECTED_REASON: selected_reason,
                                  TERMINAL: terminal, CONVERSATION_ID: session_id}
    _usage_attributes(attributes, usage)
    span.set_attributes(attributes)
    if terminal != "ok":
        mark_failed(span, error, error_type or terminal)


def end_attempt(span: Span, *, terminal: str, error: str | None = None) -> None:
    """What the attempt came to (its tokens are on the turn and each `chat` span)."""
    if not span.is_recording():
        return
    span.set_attribute(TERMINAL, terminal)
    if terminal != "ok":
        mark_failed(span, error, terminal)


def _usage_attributes(attributes: dict[str, Any], usage: Usage | None) -> None:
    if usage is None:
        return
    if usage.input is not None:  # every input token, cached ones included
        attributes[INPUT_TOKENS] = usage.whole_input
    if usage.output is not None:
        attributes[OUTPUT_TOKENS] = usage.output
    _cache_attributes(attributes, usage)


def _cache_attributes(attributes: dict[str, Any], usage: Usage) -> None:
    if usage.cache_read:
        attributes[CACHE_READ_TOKENS] = usage.cache_read
    if usage.cache_write:
        attributes[CACHE_WRITE_TOKENS] = usage.cache_write


def end_chat(span: Span, *, provider: str, model: str, duration: float,
             input_tokens: int | None = None, output_tokens: int | None = None,
             usage: Usage | None = None,
             response_model: str | None = None, finish_reason: str | None = None,
             error_type: str | None = None, error: str | None = None) -> None:
    """What a model request came to: its span's response attributes and the GenAI
    client metrics (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`).
    `usage`, when given, is the call's: its input count includes the cached tokens (as
    the GenAI conventions count it), which are also given apart."""
    if usage is not None:
        input_tokens, output_tokens = usage.whole_input, usage.output
    telemetry = current_telemetry()
    if telemetry.metrics_on:  # with metrics off the instruments are no-ops: skip the work
        metric = {OPERATION: "chat", PROVIDER: provider, REQUEST_MODEL: model,
                  RESPONSE_MODEL: response_model or model}
        if error_type:
            metric["error.type"] = error_type
        telemetry.operation_duration.record(duration, metric)
        if input_tokens is not None:
            telemetry.token_usage.record(input_tokens, {**metric, "gen_ai.token.type": "input"})
        if output_tokens is not None:
            telemetry.token_usage.record(output_tokens,
                                         {**metric, "gen_ai.token.type": "output"})
    if not span.is_recording():
        return
    attributes: dict[str, Any] = {RESPONSE_MODEL: response_model or model}
    if input_tokens is not None:
        attributes[INPUT_TOKENS] = input_tokens
    if output_tokens is not None:
        attributes[OUTPUT_TOKENS] = output_tokens
    if usage is not None:
        _cache_attributes(attributes, usage)
    if finish_reason:
        attributes["gen_ai.response.finish_reasons"] = (finish_reason,)
    span.set_attributes(attributes)
    if error_type:
        mark_failed(span, error, error_type)


def end_tool(span: Span, name: str, *, ok: bool, started: bool,
             error: str | None = None) -> None:
    """What a tool call came to: its span's status and the tool-call counter."""
    outcome = "success" if ok else ("error" if started else "refused")
    telemetry = current_telemetry()
    if telemetry.metrics_on:
        telemetry.tool_calls.add(1, {TOOL_NAME: name, "outcome": outcome})
    if not span.is_recording():
        return
    span.set_attribute("clawharness.tool.outcome", outcome)
    if not ok:
        mark_failed(span, error, "tool_error" if started else "tool_refused")


def mark_failed(span: Span, error: str | None, error_type: str = "turn_failed") -> None:
    """Record a failure the code returned (rather than raised) on `span`."""
    if not span.is_recording():
        return
    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR, _redact(error or error_type)))


def content_attribute(span: Span, key: str, value: Any) -> None:
    """Put prompt/reply/tool content on `span`, redacted, only with captureContent on."""
    if not span.is_recording() or not current_telemetry().capture_content:
        return
    if isinstance(value, str):
        text = _redact(value)
    else:
        # each string redacted before JSON escapes it (`\nDB_PASSWORD=` starts no word)
        from clawharness.redaction.outbound import redact_secrets_in

        text = _redact(json.dumps(redact_secrets_in(json.loads(json.dumps(value, default=str))),
                                  ensure_ascii=False))
    span.set_attribute(key, text[:_CONTENT_LIMIT])


def _redact(text: str) -> str:
    from clawharness.redaction.outbound import redact_secrets

    return redact_secrets(text)


def capture_trace_context() -> Callable[[], AbstractContextManager[object]]:
    """The trace context here, to resume where the work continues in another task (a
    native runtime's request handled by its connection's reader): `with resume(): ...`."""
    if current_telemetry().tracer is None:
        return _no_resume
    captured = otel_context.get_current()

    @contextmanager
    def resume() -> Iterator[None]:
        with _attached(captured):
            yield

    return resume


def _no_resume() -> AbstractContextManager[object]:
    return _NOOP


def trace_carrier() -> dict[str, str]:
    """The current span's W3C trace context (`traceparent`, and `tracestate` when set),
    for another process to continue the trace; empty when nothing is traced."""
    carrier: dict[str, str] = {}
    if current_telemetry().tracer is not None:
        _PROPAGATOR.inject(carrier, setter=default_setter)
    return carrier


def continued_trace(carrier: Mapping[str, str]) -> AbstractContextManager[object]:
    """Continue here the trace another process put in `carrier` (`trace_carrier`): the
    spans started in the block are children of that process's span."""
    if current_telemetry().tracer is None or "traceparent" not in carrier:
        return _NOOP
    return _attached(_PROPAGATOR.extract(dict(carrier)))


@contextmanager
def _attached(context: otel_context.Context) -> Iterator[None]:
    token = otel_context.attach(context)
    try:
        yield
    finally:
        otel_context.detach(token)


def cluster_turn_span(session_key: str, run_id: str, *, server: str,
                      port: int) -> AbstractContextManager[Span]:
    """`cluster_turn`: a front's wait for a turn it submitted to the cluster; the
    worker's `invoke_agent` of the turn is its child."""
    if current_telemetry().tracer is None:
        return _NOOP
    return _span("cluster_turn", SpanKind.CLIENT, {
        OPERATION: "invoke_agent", SESSION_KEY: session_key, RUN_ID: run_id,
        "server.address": server, "server.port": port})


def trace_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with `TRACEPARENT` (and `TRACESTATE`) of the current span, for a native
    process that continues the trace; `env` as it is when nothing is traced."""
    out = dict(env)
    carrier = trace_carrier()
    if "traceparent" in carrier:
        out["TRACEPARENT"] = carrier["traceparent"]
        if carrier.get("tracestate"):
            out["TRACESTATE"] = carrier["tracestate"]
    return out


