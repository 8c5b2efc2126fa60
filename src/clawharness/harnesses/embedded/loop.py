"""One attempt of the built-in runtime: model -> tool calls -> results -> model, until done.

The loop runs under the attempt's deadline, and a watcher of `params.abort` cancels it,
so the abort or the deadline stops the model stream or the running tool at once.
Whatever was in flight is then settled: a partial assistant message is recorded with
stopReason "aborted", and every tool call left without a result gets an error result, so
the transcript stays well paired.

Per turn the loop builds one `ModelRequest` over one growing context list; tool schemas
are made once per tuple of tools the host hands it (an agent's, turn after turn).
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

from clawharness.harnesses.embedded.ids import HARNESS_ID
from clawharness.harnesses.embedded.messages import (
    AssistantBuilder,
    Message,
    model_context,
    user_message,
)
from clawharness.plugin_sdk.agent_harness import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ContentBlock,
)
from clawharness.plugin_sdk.agent_harness_telemetry import chat_span, end_chat
from clawharness.plugin_sdk.agent_harness_tool_runtime import (
    ToolCallOutcome,
    ToolCallRequest,
    ToolCalls,
)
from clawharness.providers import (
    STREAM_CUT_MESSAGE,
    Done,
    ModelTransport,
    ProviderError,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolSchema,
    Usage,
    locate_provider_error,
    make_model_request,
    provider_failure_details,
)

__all__ = ["HARNESS_ID", "EmbeddedAttempt"]

_log = logging.getLogger("clawharness.harnesses.embedded")
#: `last_usage` before the attempt's first model call (a frozen Usage, so one is shared:
#: making one per attempt cost about 17k instructions)
_NO_CALL_YET = Usage.counted()
#: the terminal of an attempt that ended well (frozen: one is shared, not one made per
#: attempt at ~1.2k instructions a field)
_OK = AttemptTerminal.ok()


class _Aborted(Exception):
    """Raised in the loop when it sees the abort event set (ends the attempt aborted)."""


#: the model's tool schemas and the caller's tool names of each tuple of tools, by the
#: tuple's identity (the host hands an agent's turns one tuple): made once, not per attempt
_SURFACES: dict[int, tuple[Any, tuple[ToolSchema, ...], frozenset[str]]] = {}
_MAX_SURFACES = 256


def _tool_surface(tools: Any) -> tuple[tuple[ToolSchema, ...], frozenset[str]]:
    """The schemas the model is offered for `tools`, and the names of those the caller
    runs; kept for a tuple (immutable), made afresh for any other sequence."""
    kept = _SURFACES.get(id(tools))
    if kept is not None and kept[0] is tools:
        return kept[1], kept[2]
    schemas = tuple(ToolSchema(t.name, t.description, t.parameters) for t in tools)
    callers = frozenset(t.name for t in tools if t.executed_by_caller)
    if type(tools) is tuple:
        if len(_SURFACES) >= _MAX_SURFACES:
            _SURFACES.clear()
        _SURFACES[id(tools)] = (tools, schemas, callers)
    return schemas, callers


def _watch(event: asyncio.Event, callback: Callable[[object], None],
           loop: asyncio.AbstractEventLoop) -> asyncio.Future[Any]:
    """Have `callback` called (by the event loop) once `event` is set; returns what
    watches, for `_unwatch`.

    A plain `asyncio.Event` gets a future among its own waiters, as `Event.wait` puts
    there, without the task `wait` would need: one per attempt, whose creation, first
    step and cancelled last step cost more than the rest of the watch. Any other event
    (a subclass, or an Event without that deque) is watched by a task on `wait()`."""
    waiters = getattr(event, "_waiters", None)
    if type(event) is asyncio.Event and isinstance(waiters, collections.deque):
        future = loop.create_future()  # (the caller's loop: no `get_running_loop` again)
        future.add_done_callback(callback)
        waiters.append(future)
        return future
    watcher = asyncio.ensure_future(event.wait())
    watcher.add_done_callback(callback)
    return watcher


def _unwatch(event: asyncio.Event, watching: asyncio.Future[Any],
             callback: Callable[[object], None]) -> None:
    """Undo `_watch(event, callback, ...)`, which returned `watching`. (Functions, not an
    undo closure per attempt: fewer GC-tracked objects a turn in flight.)"""
    watching.remove_done_callback(callback)
    waiters = getattr(event, "_waiters", None)
    if type(event) is asyncio.Event and isinstance(waiters, collections.deque):
        # (watched as `_watch` watches a plain Event: a future among its waiters)
        try:
            waiters.remove(watching)
        except ValueError:
            pass
    watching.cancel()


class EmbeddedAttempt:
    """Runs one prepared attempt against one model transport."""

    def __init__(self, params: AttemptParams, transport: ModelTransport) -> None:
        self.p = params
        self.transport = transport
        self.tool_calls = ToolCalls(params, placement=self.place_tool_result)
        self.schemas, self.caller_tools = _tool_surface(params.tools)
        self.context: list[Message] = model_context(params.history)
        self.new_messages: list[Message] = []
        self.mirrored = 0
        self.builder: AssistantBuilder | None = None
        self.pending: list[ContentBlock] = []
        self.phase = "prompt"
        self.assistant_texts: list[str] = []
        #: the attempt's token totals over its model calls
        self.usage = Usage.zero()
        self.arg_errors: dict[str, str] = {}
        self.last_usage = _NO_CALL_YET
        #: the tools the caller runs (`ToolSpec.executed_by_caller`: `caller_tools`, set
        #: above), and the calls of them the attempt ended with, pending
        #: (`AttemptResult.client_tool_calls`)
        self.client_calls: list[dict[str, Any]] = []
        #: a provider's context-overflow error compacts and retries once per attempt
        self.overflow_retried = False
        #: `guarded`'s state for its abort watcher (`_on_abort`): the task running the
        #: loop (while it runs), and whether the watcher cancelled it
        self._guarded_task: asyncio.Task[Any] | None = None
        self._abort_cancelled = False

    # --- callbacks ------------------------------------------------------------------

    def emit(self, stream: str, data: Mapping[str, Any]) -> Awaitable[Any] | None:
        """Send an agent event to `on_agent_event`, if set and reading `stream`; answers
        the sink's awaitable for the caller to await, else None (a plain call, not a
        coroutine an event: the host's own sink answers None)."""
        sink = self.p.on_agent_event
        if sink is None:
            return None
        streams = self.p.agent_event_streams
        if streams is not None and stream not in streams:
            return None
        result = sink(AgentEvent(stream, data))
        if result is not None and inspect.isawaitable(result):
            return result
        return None

    async def settle(self, message: Message) -> None:
        """Record a settled message and mirror it into the transcript."""
        self.new_messages.append(message)
        self.context.append(message)
        mirror = self.p.mirror
        if mirror is not None:
            await mirror([message])
        self.mirrored = len(self.new_messages)

    # --- the attempt ----------------------------------------------------------------

    async def run(self) -> AttemptResult:
        """Run the attempt to its terminal and build the result."""
        try:
            p = self.p
            pending = self.emit("lifecycle", {"phase": "start", "runId": p.run_id,
                                              "sessionId": p.session_id, "harnessId": HARNESS_ID})
            if pending is not None:
                await pending
            if p.prompt or p.images:
                # (an empty prompt continues the transcript: the caller's tool results)
                await self.settle(user_message(p.prompt, p.images))
            terminal = await self.guarded()
            await self.settle_interrupted(terminal)
            end: dict[str, Any] = {"phase": "end", "terminal": terminal.kind}
            if terminal.error:
                end["error"] = terminal.error
            pending = self.emit("lifecycle", end)
            if pending is not None:
                await pending
            last = next((m for m in reversed(self.new_messages) if m["role"] == "assistant"), None)
            return AttemptResult(
                terminal=terminal,
                session_id_used=p.session_id,
                messages_snapshot=list(self.new_messages),
                assistant_texts=self.assistant_texts,
                last_assistant=last,
                tool_metas=self.tool_calls.metas,
                last_tool_error=self.tool_calls.last_tool_error,
                attempt_usage=self.usage,
                client_tool_calls=list(self.client_calls) or None,
                agent_harness_id=HARNESS_ID,
                transcript_mirrored=p.mirror is not None,
            )
        finally:
            # the tool routine's placement is this attempt's bound method: a reference
            # cycle that would leave the attempt, its params and everything they hold
            # (~120 objects a turn) to the cyclic collector instead of reference counts
            self.tool_calls.placement = None

    async def guarded(self) -> AttemptTerminal:
        """The loop, stopped by abort or the deadline.

        The loop runs in the attempt's own task: the abort cancels that task (a callback
        of a watcher of the abort event), as `asyncio.timeout_at` does for the deadline,
        and takes its cancellation back (`uncancel`) when it ends the loop. No task is made
        for the loop itself: at one per turn its creation, scheduling and wake-up cost more
        than the rest of the guard (no task group either: in Python 3.11 a child's failure
        left the caller's task counting a cancellation it never got)."""
        p = self.p
        if p.abort.is_set():
            return AttemptTerminal("aborted", source="external", error="aborted before start")
        task = asyncio.current_task()
        assert task is not None, "an attempt runs in a task"
        self._guarded_task = task
        # (`_abort_cancelled`: this guard cancelled the task, and owes it an `uncancel`)
        self._abort_cancelled = False
        on_abort = self._on_abort
        watching = _watch(p.abort, on_abort, task.get_loop())
        try:
            try:
                if p.deadline is None:  # (no deadline: no timeout context to enter)
                    terminal = await self.loop()
                else:
                    async with asyncio.timeout_at(p.deadline):
                        terminal = await self.loop()
            finally:
                self._guarded_task = None
        except TimeoutError:
            if self.phase != "tool_execution":
                return AttemptTerminal("timeout", source="runtime", phase="prompt",
                                       error="the attempt deadline passed")
            # the call that was running: the first of the round without its result
            running_call = next((c["name"] for c in self.pending
                                 if c["id"] not in self.tool_calls.settled), None)
            return AttemptTerminal("timeout", source="runtime", phase="tool_execution",
                                   error="the attempt deadline passed",
                                   details={"tool": running_call} if running_call else None)
        except _Aborted:
            return AttemptTerminal("aborted", source="external", error="aborted")
        except asyncio.CancelledError:
            if self._abort_cancelled:
                self._abort_cancelled = False
                if task.uncancel() == 0:  # the abort's own: no one else cancelled the task
                    return AttemptTerminal("aborted", source="external", error="aborted")
            raise
        finally:
            if self._abort_cancelled:  # cancelled by the abort, but the loop ended otherwise
                self._abort_cancelled = False
                task.uncancel()
            _unwatch(p.abort, watching, on_abort)
        if p.abort.is_set():  # (set as it ended: the abort still counts)
            return AttemptTerminal("aborted", source="external", error="aborted")
        return terminal

    def _on_abort(self, _: object) -> None:
        """The abort's watcher (`guarded`): cancel the task running the loop, once, while
        it runs (a bound method, not a closure: fewer GC-tracked objects a turn)."""
        task = self._guarded_task
        if task is not None and not self._abort_cancelled:
            self._abort_cancelled = True
            task.cancel()

    async def loop(self) -> AttemptTerminal:
        """Model turns and tool rounds until a final answer or a bound."""
        max_steps = max(1, self.p.max_steps)
        steps = 0
        try:
            while True:
                steps += 1
                self.phase = "prompt"
                if steps > 1 and self.p.spend_check is not None:
                    # the turn's budgets: a spent one ends the turn before this call
                    stop = await self.p.spend_check.before_model_call(self.usage,
                                                                      self.context)
                    if stop is not None:
                        return stop
                context = self.p.prompt_context
                if context is not None and context.wants_compaction(self.context):
                    await self.compact_context(overflow=False)
                try:
                    assistant = await self.model_turn()
                except ProviderError as raw:
                    if (getattr(raw, "code", None) == "context_overflow"
                            and not self.overflow_retried and context is not None):
                        self.overflow_retried = True
                        self.builder = None
                        if await self.compact_context(overflow=True):
                            steps -= 1
                            continue
                    exc = locate_provider_error(raw, self.p.model, self.transport.api)
                    builder = self.builder or self.new_builder()
                    self.builder = None
                    await self.settle(builder.message("error", error=str(exc)))
                    return AttemptTerminal("failed", source="prompt", error=str(exc),
                                           details=provider_failure_details(exc))
                await self.settle(assistant)
                calls = [b for b in assistant["content"] if b["type"] == "toolCall"]
                if not calls:
                    return _OK
                if steps >= max_steps:
                    self.pending = calls
                    note = f"not run: the attempt reached its limit of {max_steps} model steps"
                    await self.settle_pending(note)
                    return AttemptTerminal(
                        "aborted", source="runtime",
                        error=f"max steps ({max_steps}) reached before a final answer",
                    )
                self.phase = "tool_execution"
                host_calls = [c for c in calls if c["name"] not in self.caller_tools]
                self.pending = host_calls
                for call in host_calls:
                    await self.run_tool(call)
                    loop = None if self.p.tool_loops is None else self.p.tool_loops.tripped
                    if loop is not None:
                        await self.settle_pending(f"not run: {loop.message}")
                        return AttemptTerminal("aborted", source="tool_loop",
                                               error=loop.message, details=loop.details())
                self.pending = []
                if len(host_calls) < len(calls):
                    # the caller runs these: the attempt ends with them pending
                    self.client_calls = [
                        {"id": c["id"], "name": c["name"], "arguments": c["arguments"]}
                        for c in calls if c["name"] in self.caller_tools]
                    return _OK
                await self.take_steering()
        except _Aborted:
            raise
        except Exception as exc:
            # a host-side failure (a capability, an observer, a callback) ends the attempt
            _log.exception("embedded attempt %s failed", self.p.run_id)
            return AttemptTerminal("failed", source="prompt", error=f"{type(exc).__name__}: {exc}")

    async def compact_context(self, *, overflow: bool) -> bool:
        """Have the host summarise the oldest span of the context (stored as a summary
        entry); the shorter context replaces it. False when nothing was compacted."""
        context = self.p.prompt_context
        assert context is not None
        shorter = await context.compact(self.context, self.new_messages, overflow=overflow)
        if shorter is None:
            return False
        self.context = shorter
        pending = self.emit("compaction", {"phase": "end", "overflow": overflow,
                                           "messages": len(shorter)})
        if pending is not None:
            await pending
        return True

    def new_builder(self) -> AssistantBuilder:
        """An empty assistant message for the next model call."""
        model = self.p.model
        return AssistantBuilder(self.p.provider, model.model_id, self.transport.api)

    async def model_turn(self) -> Message:
        """Stream one model call into an assistant message (a `chat <model>` span)."""
        p = self.p
        model = p.model
        started = time.perf_counter()
        with chat_span(p.provider, model.model_id, session_id=p.session_id) as span:
            try:
                message = await self.stream_model_turn()
            except ProviderError as exc:
                end_chat(span, provider=p.provider, model=model.model_id,
                         duration=time.perf_counter() - started,
                         error_type=type(exc).__name__, error=str(exc))
                raise
            usage = self.last_usage
            end_chat(span, provider=p.provider, model=model.model_id,
                     duration=time.perf_counter() - started,
                     usage=usage,
                     response_model=model.model_id, finish_reason=str(message["stopReason"]))
            return message

    async def stream_model_turn(self) -> Message:
        """Stream one model call into an assistant message."""
        p = self.p
        model = p.model
        context = p.prompt_context
        messages = self.context if context is None else context.shape(self.context)
        request = make_model_request(model.model_id, p.system_prompt, messages, self.schemas,
                               model.max_tokens, model.params)
        builder = self.builder = self.new_builder()
        partial = p.on_partial_reply
        events = p.on_agent_event is not None
        streams = p.agent_event_streams
        # (the events of a stream no one reads are not built)
        text_events = events and (streams is None or "assistant" in streams)
        thinking_events = events and (streams is None or "thinking" in streams)
        usage_events = events and (streams is None or "usage" in streams)
        done: Done | None = None
        abort = p.abort
        async for event in self.transport.stream(request):
            if abort.is_set():
                # buffered events arrive without a suspension, so the watcher may not run
                raise _Aborted
            kind = type(event)
            if kind is TextDelta:
                assert isinstance(event, TextDelta)
                text = builder.add_text(event.text)
                if partial is not None:
                    result = partial(text)
                    if result is not None and inspect.isawaitable(result):
                        await result
                if text_events:
                    pending = self.emit("assistant", {"text": text, "delta": event.text})
                    if pending is not None:
                        await pending
            elif kind is ToolCall:
                assert isinstance(event, ToolCall)
                builder.add_call(event)
                if event.parse_error:
                    self.arg_errors[event.id] = event.parse_error
            elif kind is ThinkingDelta:
                assert isinstance(event, ThinkingDelta)
                builder.add_thinking(event.text, event.signature)
                if thinking_events and event.text:
                    pending = self.emit("thinking", {"delta": event.text})
                    if pending is not None:
                        await pending
            elif kind is Done:
                assert isinstance(event, Done)
                done = event
        if done is None:
            raise ProviderError(STREAM_CUT_MESSAGE)
        self.builder = None
        self.last_usage = done.usage
        self.usage = self.usage.plus(done.usage)
        if usage_events:
            pending = self.emit("usage", {**done.usage.to_wire(),
                                          "attempt": self.usage.to_wire()})
            if pending is not None:
                await pending
        message = builder.message(done.stop_reason, done.usage)
        if builder.text:
            self.assistant_texts.append(builder.text)
        return message

    async def take_steering(self) -> None:
        """At a tool boundary (the round's results settled, the next model call not yet
        made): the messages steered into the turn since, as user messages, in order."""
        take = self.p.take_steering
        if take is None:
            return
        messages = await take()
        if messages:
            for text in messages:
                await self.settle(user_message(text))
            pending = self.emit("steer", {"messages": len(messages)})
            if pending is not None:
                await pending
        if self.p.abort.is_set():
            # the take found an interrupt for this turn (docs/steering.md), or an abort
            # came meanwhile: no next model call
            raise _Aborted

    # --- tools ----------------------------------------------------------------------

    def place_tool_result(self, message: Message,
                          outcome: ToolCallOutcome) -> Coroutine[Any, Any, None]:
        """A settled call's result goes into the model's context and the transcript (the
        routine awaits what this answers: `settle`'s coroutine, not one of its own)."""
        return self.settle(message)

    def run_tool(self, call: ContentBlock) -> Coroutine[Any, Any, ToolCallOutcome]:
        """One tool call through the SDK's routine (policy and approval, execute,
        observe, middleware, settle): the routine's coroutine, for the loop to await."""
        call_id = call["id"]
        return self.tool_calls.run_host_tool(
            ToolCallRequest(call_id, call["name"], call["arguments"]),
            invalid_arguments=self.arg_errors.get(call_id))

    async def settle_pending(self, note: str) -> None:
        """Give every unanswered call of the last assistant turn an error result."""
        for call in self.pending:
            if call["id"] in self.tool_calls.settled:
                continue
            await self.tool_calls.settle_unfinished(
                ToolCallRequest(call["id"], call["name"], call["arguments"]), f"Tool call {note}.")
        self.pending = []

    async def settle_interrupted(self, terminal: AttemptTerminal) -> None:
        """After abort or timeout: flush unmirrored messages, settle what was in flight."""
        if terminal.kind not in ("aborted", "timeout"):
            return
        mirror = self.p.mirror
        if mirror is not None and self.mirrored < len(self.new_messages):
            await mirror(self.new_messages[self.mirrored:])
            self.mirrored = len(self.new_messages)
        note = "aborted" if terminal.kind == "aborted" else "stopped: the attempt timed out"
        if self.builder is not None:
            builder, self.builder = self.builder, None
            await self.settle(builder.message("aborted", error=terminal.error or note))
        if self.pending:
            await self.settle_pending(note)
        self.tool_calls.in_flight = None

