"""`ToolCalls`: the one tool-call routine every harness runs its tool calls through.

A tool call goes through the same steps whoever runs it:

1. policy and approval: `host_capabilities.run_before_tool_call` (the arguments it
   returns are the ones that run);
2. execution: a host tool (`ToolSpec.execute`) the harness runs for its runtime, after
   the transcript barrier (a call that may change state is on record first) and the
   exactly-once ledger (`params.tool_outcomes`); or a native tool the runtime runs itself;
3. the host's observer: `observe_tool_terminal` sees the original result once, and
   answers the turn's last tool error;
4. tool-result middleware (`transform_tool_result`, host tools only): what the model sees;
5. the record: a tool meta for the attempt result, the `toolResult` message placed in
   the transcript by the harness's `ResultPlacement` (none where the runtime records its
   own items), and a `tool` agent event.

The harnesses differ only in where the call comes from and where its result goes, so
those are the parameters: `run_host_tool` for a host tool (the built-in loop, a Codex
dynamic tool), `ask` + `settle_native` for a tool a native runtime runs (a CLI or ACP
agent's permission request and tool result, a Codex command), `settle_unfinished` for a
call an abort or a bound cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from clawharness._frozen import quick_maker
from clawharness._json import JsonValue
from clawharness.harness.messages import ContentBlock, Message
from clawharness.harness.tool_spec import ToolCallContext, ToolResult, ToolSpec
from clawharness.harness.tool_terminal import report_tool_terminal, tool_observation
from clawharness.harness.types import AgentEvent, AttemptParams
from clawharness.records import ToolCallMeta

__all__ = [
    "ResultPlacement",
    "ToolCallOutcome",
    "ToolCallRequest",
    "ToolCalls",
    "ToolPermission",
    "result_text",
    "text_result",
]

log = logging.getLogger("clawharness.plugin_sdk.tools")
#: makes an `AgentEvent` as the class does, in fewer instructions (`clawharness._frozen`)
_make_event = quick_maker(AgentEvent)


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call as the model or the native runtime asked for it.

    `call_id` is the protocol's call id (the transcript pairs the `toolCall` block and
    its `toolResult` by it); `name` the canonical host tool id policy knows (`exec`,
    `read`, ...); `arguments` the JSON arguments."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolPermission:
    """The host's answer to a native runtime asking to run a tool (`ToolCalls.ask`).

    `allowed`: run it. `reason`: why not (for the runtime's refusal message).
    `arguments`: what may run (the policy may rewrite them). `cancelled`: the attempt is
    being stopped (abort or deadline), so answer the runtime's "cancel" rather than a
    refusal. `approval`: how the host decided (`not-required`, `approved-once`,
    `approved-session`, `denied`, `unavailable`, `cancelled`)."""

    allowed: bool
    arguments: Mapping[str, Any]
    reason: str | None = None
    approval: Literal["not-required", "approved-once", "approved-session", "denied",
                      "unavailable", "cancelled"] = "not-required"

    @property
    def cancelled(self) -> bool:
        """True when the attempt was stopping while the runtime asked."""
        return self.approval == "cancelled"


@dataclass(frozen=True, slots=True)
class ToolCallOutcome:
    """A settled tool call: what the observer was told and what the model sees.

    `result` is the host tool-result shape `{"content": [ContentBlock, ...],
    "isError"?: bool, "details"?: JSON}` after middleware (`content` always a list);
    `arguments` are the ones that ran; `error` the failure text when `is_error`."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    result: ToolResult
    is_error: bool
    execution_started: bool
    error: str | None = None

    @property
    def content(self) -> list[ContentBlock]:
        """The result's content blocks."""
        content: list[ContentBlock] = self.result["content"]
        return content

    @property
    def text(self) -> str:
        """The result's text blocks, joined."""
        return result_text(self.content)


#: makers of the routine's frozen values as their classes make them, in fewer
#: instructions (`clawharness._frozen`): the objects are of the classes themselves
_make_request = quick_maker(ToolCallRequest)
_make_outcome = quick_maker(ToolCallOutcome)
_make_context = quick_maker(ToolCallContext)
_make_meta = quick_maker(ToolCallMeta)


#: `placement(message, outcome)`: put a settled call's `toolResult` message in the
#: transcript (the built-in loop appends it to its context and mirrors it; a native turn
#: mirrors it under an idempotency key). A runtime that records its own items (Codex)
#: passes none.
ResultPlacement = Callable[[Message, ToolCallOutcome], Awaitable[None]]


def text_result(text: str, *, details: JsonValue | None = None) -> ToolResult:
    """The host tool-result shape of a plain-text result: `{"content": [{"type": "text",
    "text": text}]}`, with `details` when given."""
    result: ToolResult = {"content": [{"type": "text", "text": text}]}
    if details is not None:
        result["details"] = details
    return result


def result_text(content: object) -> str:
    """The text blocks of a result's `content`, joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(str(b.get("text", "")) for b in content
                   if isinstance(b, (dict, Mapping)) and b.get("type") == "text")


def _normalized(result: ToolResult) -> ToolResult:
    """`result` with its `content` a list of blocks (a tool may return a bare string)."""
    content = result.get("content")
    if isinstance(content, list):
        return result
    text = "" if content is None else str(content)
    return {**result, "content": [{"type": "text", "text": text}]}


class ToolCalls:
    """The tool calls of one attempt, each run or settled the one way.

    `tools`: the host tools the harness may run (default: `params.tools`).
    `placement`: where a settled call's `toolResult` message goes (None: the runtime
    records results itself). `details_in_message`: whether a result's `details` ride on
    its transcript message (the observer always gets them).

    The record: `metas` (the attempt's `tool_metas`), `last_tool_error` (as the host's
    observer last answered it), `settled` (call ids with a result), `in_flight` (the
    host tool running now, with the arguments that reached it)."""

    def __init__(self, params: AttemptParams, *, tools: list[ToolSpec] | None = None,
                 placement: ResultPlacement | None = None,
                 details_in_message: bool = True) -> None:
        self.p = params
        self.tools = {t.name: t for t in (params.tools if tools is None else tools)}
        self.placement = placement
        self.details_in_message = details_in_message
        self.metas: list[ToolCallMeta] = []
        self.last_tool_error: dict[str, Any] | None = None
        self.settled: set[str] = set()
        self.in_flight: ToolCallRequest | None = None
        #: native calls the host refused, and why (`ask`)
        self._refused: dict[str, str | None] = {}
        #: the arguments the host let a native call run with (`ask`)
        self._approved: dict[str, Mapping[str, Any]] = {}
        self._started = False

    # --- events ----------------------------------------------------------------------

    async def emit(self, data: Mapping[str, Any]) -> None:
        """A `tool` agent event to `params.on_agent_event` (when the host listens)."""
        sink = self.p.on_agent_event
        if sink is not None:
            delivered = sink(_make_event("tool", data))
            if delivered is not None and inspect.isawaitable(delivered):
                await delivered

    async def started(self, call: ToolCallRequest) -> None:
        """Announce a call the runtime is about to run (`phase: "start"`)."""
        await self.emit({"phase": "start", "name": call.name, "toolCallId": call.call_id,
                         "args": dict(call.arguments)})

    # --- a host tool the harness runs ------------------------------------------------

    async def run_host_tool(self, call: ToolCallRequest, *,
                            invalid_arguments: str | None = None) -> ToolCallOutcome:
        """Run one host tool call through every step, in an `execute_tool` span.

        `invalid_arguments`: why the call's arguments could not be read (the tool is
        then not run, and the model is told why)."""
        content_attribute, end_tool, tool_span = _spans()
        with tool_span(call.name, call.call_id, session_id=self.p.session_id) as span:
            content_attribute(span, "gen_ai.tool.call.arguments", call.arguments)
            outcome = await self._run_host_tool(call, invalid_arguments)
            content_attribute(span, "gen_ai.tool.call.result", outcome.content)
            end_tool(span, call.name, ok=not outcome.is_error,
                     started=outcome.execution_started, error=outcome.error)
            return outcome

    async def _run_host_tool(self, call: ToolCallRequest,
                             invalid_arguments: str | None) -> ToolCallOutcome:
        p = self.p
        name, call_id = call.name, call.call_id
        args = call.arguments
        await self.started(call)
        started = False
        error: str | None = None
        result: ToolResult | None = None
        spec = self.tools.get(name)
        loop = None if p.tool_loops is None else p.tool_loops.tripped
        if loop is not None:
            error = f"Tool {name!r} was not run: {loop.message}."
        elif spec is None:
            reason = p.host_capabilities.unavailable_tool_reason(name)
            error = f"Tool {name!r} is not available in this session: {reason}."
        elif invalid_arguments is not None:
            error = f"Tool {name!r} was not run: {invalid_arguments}"
        else:
            decision = await p.host_capabilities.run_before_tool_call(
                name, args, tool_call_id=call_id)
            if not decision.allowed:
                error = f"Tool {name!r} was not run: {decision.reason or 'blocked by policy'}"
            else:
                args = decision.arguments or args
                barrier = p.mirror_barrier
                if barrier is not None and not _replay_safe(name, args):
                    await barrier()  # the call is on record before it can change anything
                started = True
                ledger = p.tool_outcomes
                verdict = None if ledger is None else await ledger.begin(call_id, name, args)
                if verdict is not None and verdict.action != "run":
                    # a retried turn: the outcome an earlier attempt committed, or the
                    # call it started and lost; either way the tool does not run again
                    result, error = verdict.result, verdict.error
                else:
                    self.in_flight = _ran(call, args)
                    context = _make_context(call_id, p.workspace_dir, p.abort,
                                            p.session_key, p.run_id)
                    try:
                        raw = await spec.execute(args, context)
                    except Exception as exc:  # a tool's failure is the model's to see
                        error = str(exc) or type(exc).__name__
                    else:
                        result = raw if isinstance(raw, dict) else {"content": raw}
                    # not in a finally: after a cancellation the interrupted call stays known
                    self.in_flight = None
                    if ledger is not None:
                        await ledger.commit(call_id, result, error)  # before the model sees it
        return await self._settle(_ran(call, args), result, error, started=started,
                                  host_tool=True)

    # --- a native tool the runtime runs ----------------------------------------------

    async def ask(self, call: ToolCallRequest, *, cwd: str | None = None) -> ToolPermission:
        """The host's policy and approval for a native call the runtime asks to run.

        `cwd` is where the native operation would run. The answer is remembered for the
        call's `settle_native`. It fails closed: a host capability that raises (the
        attempt settled) refuses, and an abort or the deadline while the host (or a
        person) decides answers `cancelled`."""
        loop = None if self.p.tool_loops is None else self.p.tool_loops.tripped
        if self._stopping():
            permission = ToolPermission(False, call.arguments, "the turn is being stopped",
                                        "cancelled")
        elif loop is not None:
            permission = ToolPermission(False, call.arguments, loop.message, "denied")
        else:
            permission = await self._decide(call, cwd)
        if not permission.allowed:
            self._refused[call.call_id] = permission.reason
        else:
            self._refused.pop(call.call_id, None)
            self._approved[call.call_id] = permission.arguments
        event: dict[str, Any] = {"phase": "permission", "name": call.name,
                                 "toolCallId": call.call_id, "allowed": permission.allowed}
        if permission.reason:
            event["reason"] = permission.reason
        await self.emit(event)
        return permission

    def _stopping(self) -> bool:
        p = self.p
        if p.abort.is_set():
            return True
        return p.deadline is not None and asyncio.get_running_loop().time() >= p.deadline

    async def _decide(self, call: ToolCallRequest, cwd: str | None) -> ToolPermission:
        p = self.p
        decision = asyncio.ensure_future(p.host_capabilities.run_before_tool_call(
            call.name, call.arguments, tool_call_id=call.call_id or None,
            native_operation={"cwd": cwd} if cwd else None))
        # the abort, or the deadline as the wait's own timeout (no wait_for: its task)
        stopped = asyncio.ensure_future(p.abort.wait())
        timeout = None if p.deadline is None else max(
            0.0, p.deadline - asyncio.get_running_loop().time())
        try:
            await asyncio.wait({decision, stopped}, timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            if not decision.done():
                decision.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await stopped
        if not decision.done() or decision.cancelled():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await decision
            return ToolPermission(False, call.arguments, "the turn is being stopped",
                                  "cancelled")
        error = decision.exception()
        if error is not None:  # a settled capability fails closed
            log.warning("the host's decision on %s failed; refusing: %s", call.name, error)
            if self._stopping():
                return ToolPermission(False, call.arguments, "the turn is being stopped",
                                      "cancelled")
            return ToolPermission(False, call.arguments, f"tool policy unavailable: {error}",
                                  "denied")
        verdict = decision.result()
        return ToolPermission(verdict.allowed, verdict.arguments or call.arguments,
                              verdict.reason, verdict.approval)

    def refusal(self, call_id: str) -> str | None:
        """Why the host refused the native call `call_id` (None: not refused, or no
        reason given; see `was_refused`)."""
        return self._refused.get(call_id)

    def was_refused(self, call_id: str) -> bool:
        """Whether the host refused the native call `call_id` when the runtime asked."""
        return call_id in self._refused

    async def settle_native(self, call: ToolCallRequest, *, result: ToolResult, is_error: bool,
                            error: str | None = None, execution_started: bool | None = None,
                            arguments_reported: bool = False,
                            failure: Mapping[str, Any] | None = None,
                            native_mutation: Mapping[str, Any] | None = None
                            ) -> ToolCallOutcome:
        """A native call's result, as the runtime reported it: observed, recorded,
        placed in the transcript and announced.

        `result` is the host tool-result shape (`text_result(...)` makes one);
        `execution_started` defaults to "the host did not refuse it when asked", and a
        refused call fails with the host's reason. The arguments reported are the ones
        the host approved when asked, unless `arguments_reported` says `call.arguments`
        are the runtime's own account of what ran. `failure` adds the runtime's
        structured failure fields (an exit code) and `native_mutation` the protocol's
        mutation and replay facts, both for the observer."""
        refused = self.was_refused(call.call_id)
        started = (not refused) if execution_started is None else execution_started
        if is_error and error is None:
            reason = self.refusal(call.call_id) if refused and not started else None
            error = reason or result_text(result.get("content"))
        arguments = call.arguments if arguments_reported else self._approved.get(
            call.call_id, call.arguments)
        return await self._settle(_make_request(call.call_id, call.name, arguments),
                                  {**result, "isError": is_error}, error if is_error else None,
                                  started=started, host_tool=False, failure=failure,
                                  native_mutation=native_mutation)

    async def settle_unfinished(self, call: ToolCallRequest, note: str) -> ToolCallOutcome:
        """A host tool call an abort, the deadline or a step bound cut off: it fails with
        `note`. The call that was running (`in_flight`) counts as started, with the
        arguments that reached it. (A native call cut off is `settle_native(...,
        is_error=True)`: only its runtime knows whether it started.)"""
        running = self.in_flight
        if running is not None and running.call_id == call.call_id:
            self.in_flight = None
            return await self._settle(running, None, note, started=True, host_tool=True)
        return await self._settle(call, None, note, started=False, host_tool=True)

    # --- the one settling step -------------------------------------------------------

    async def _settle(self, call: ToolCallRequest, result: ToolResult | None,
                      error: str | None, *, started: bool, host_tool: bool,
                      failure: Mapping[str, Any] | None = None,
                      native_mutation: Mapping[str, Any] | None = None) -> ToolCallOutcome:
        p = self.p
        name, call_id, args = call.name, call.call_id, call.arguments
        if result is None:
            result = {"content": [{"type": "text", "text": error or "Tool failed."}],
                      "isError": True}
        result = _normalized(result)
        is_error = error is not None or bool(result.get("isError"))
        # (the failure text is looked at only on an error: not joined for a success)
        failure_error = (error or result_text(result["content"])) if is_error else ""
        observation = tool_observation(
            tool_call_id=call_id, tool_name=name, arguments=args, execution_started=started,
            is_error=is_error, result=result, failure_error=failure_error)
        if is_error and failure:
            observation["failure"] = {**observation["failure"], **failure}
        if native_mutation is not None:
            observation["nativeMutation"] = dict(native_mutation)
        self.last_tool_error = await report_tool_terminal(
            p.observe_tool_terminal, observation, self.last_tool_error)
        loops = p.tool_loops
        loop = None if loops is None else loops.observe(name, args, result["content"], is_error)
        transform = p.transform_tool_result
        if host_tool and started and transform is not None:
            # the observer saw the original; the model sees what middleware makes of it
            result = _normalized(await transform(name, call_id, dict(args), result, is_error))
        if loop is not None:  # the transcript says why the turn ends here
            result = {**result, "content": [*result["content"],
                                            {"type": "text", "text": loop.note}]}
        self.metas.append(_make_meta(name, call_id, is_error,
                                     failure_error if is_error else None))
        self.settled.add(call_id)
        outcome = _make_outcome(call_id, name, args, result, is_error, started,
                                failure_error if is_error else None)
        if self.placement is not None:
            message: Message = {
                "role": "toolResult", "toolCallId": call_id, "toolName": name,
                "content": outcome.content, "isError": is_error,
                "timestamp": _now_ms()}
            details = result.get("details")
            if details and self.details_in_message:
                message["details"] = details
            await self.placement(message, outcome)
        await self.emit({"phase": "result", "name": name, "toolCallId": call_id,
                         "isError": is_error})
        return outcome


#: what the tool-call routine imports at a host tool's first call, not with the SDK (a
#: host that only reports, `clawharness status`, loads a plugin's harness without
#: OpenTelemetry), then keeps: an import statement per call costs microseconds
_SPANS: tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None = None
_IS_REPLAY_SAFE: Callable[[str, Mapping[str, Any]], bool] | None = None


def _spans() -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """`content_attribute`, `end_tool`, `tool_span` of `clawharness.observability.spans`."""
    global _SPANS
    if _SPANS is None:
        from clawharness.observability.spans import content_attribute, end_tool, tool_span

        _SPANS = (content_attribute, end_tool, tool_span)
    return _SPANS


def _replay_safe(name: str, args: Mapping[str, Any]) -> bool:
    global _IS_REPLAY_SAFE
    if _IS_REPLAY_SAFE is None:
        from clawharness.tools.replay import is_replay_safe_tool_call

        _IS_REPLAY_SAFE = is_replay_safe_tool_call
    return _IS_REPLAY_SAFE(name, args)


def _ran(call: ToolCallRequest, args: Mapping[str, Any]) -> ToolCallRequest:
    """`call` with the arguments that ran: itself (frozen) when the policy kept them."""
    return call if args is call.arguments else _make_request(call.call_id, call.name, args)


def _now_ms() -> int:
    return int(time.time() * 1000)
