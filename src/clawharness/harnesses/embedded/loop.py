"""One attempt of the built-in runtime: model -> tool calls -> results -> model, until done.

The loop runs inside a task group next to an abort watcher and under the attempt's
deadline, so `params.abort` or the deadline cancels the model stream or the running tool
at once. Whatever was in flight is then settled: a partial assistant message is recorded
with stopReason "aborted", and every tool call left without a result gets an error result,
so the transcript stays well paired.

Per turn the loop builds one `ModelRequest` over one growing context list; tool schemas
are made once per attempt.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Mapping
from typing import Any

from clawharness.harnesses.embedded.messages import (
    AssistantBuilder,
    Message,
    model_context,
    tool_result_message,
    user_message,
)
from clawharness.plugin_sdk.agent_harness import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ContentBlock,
    ToolCallContext,
)
from clawharness.plugin_sdk.agent_harness_runtime import (
    is_replay_safe_tool_call,
    report_tool_terminal,
    tool_observation,
)
from clawharness.plugin_sdk.agent_harness_telemetry import (
    chat_span,
    content_attribute,
    end_chat,
    end_tool,
    tool_span,
)
from clawharness.providers import (
    STREAM_CUT_MESSAGE,
    Done,
    ModelRequest,
    ModelTransport,
    ProviderError,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolSchema,
    Usage,
    locate_provider_error,
    provider_failure_details,
)

__all__ = ["HARNESS_ID", "EmbeddedAttempt"]

HARNESS_ID = "openclaw"
_log = logging.getLogger("clawharness.harnesses.embedded")


class _Aborted(Exception):
    """Raised by the abort watcher to stop the task group."""


class EmbeddedAttempt:
    """Runs one prepared attempt against one model transport."""

    def __init__(self, params: AttemptParams, transport: ModelTransport) -> None:
        self.p = params
        self.transport = transport
        self.tools = {spec.name: spec for spec in params.tools}
        self.schemas = tuple(ToolSchema(t.name, t.description, t.parameters)
                             for t in params.tools)
        self.context: list[Message] = model_context(params.history)
        self.new_messages: list[Message] = []
        self.mirrored = 0
        self.builder: AssistantBuilder | None = None
        self.pending: list[ContentBlock] = []
        self.resolved: set[str] = set()
        self.running: str | None = None
        self.running_args: Mapping[str, Any] = {}
        self.phase = "prompt"
        self.assistant_texts: list[str] = []
        self.tool_metas: list[dict[str, Any]] = []
        self.last_tool_error: dict[str, Any] | None = None
        self.usage = {"input": 0, "output": 0, "cacheRead": 0, "totalTokens": 0}
        self.arg_errors: dict[str, str] = {}
        self.tool_started = False
        self.last_usage = Usage()

    # --- callbacks ------------------------------------------------------------------

    async def emit(self, stream: str, data: Mapping[str, Any]) -> None:
        """Send an agent event to `on_agent_event`, if set."""
        sink = self.p.on_agent_event
        if sink is None:
            return
        result = sink(AgentEvent(stream, data))
        if result is not None and inspect.isawaitable(result):
            await result

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
        p = self.p
        await self.emit("lifecycle", {"phase": "start", "runId": p.run_id,
                                      "sessionId": p.session_id, "harnessId": HARNESS_ID})
        await self.settle(user_message(p.prompt, p.images))
        terminal = await self.guarded()
        await self.settle_interrupted(terminal)
        end: dict[str, Any] = {"phase": "end", "terminal": terminal.kind}
        if terminal.error:
            end["error"] = terminal.error
        await self.emit("lifecycle", end)
        last = next((m for m in reversed(self.new_messages) if m["role"] == "assistant"), None)
        return AttemptResult(
            terminal=terminal,
            session_id_used=p.session_id,
            messages_snapshot=list(self.new_messages),
            assistant_texts=self.assistant_texts,
            last_assistant=last,
            tool_metas=self.tool_metas,
            last_tool_error=self.last_tool_error,
            attempt_usage=dict(self.usage),
            agent_harness_id=HARNESS_ID,
            transcript_mirrored=p.mirror is not None,
        )

    async def guarded(self) -> AttemptTerminal:
        """The loop, stopped by abort or the deadline."""
        p = self.p
        if p.abort.is_set():
            return AttemptTerminal("aborted", source="external", error="aborted before start")
        body: asyncio.Task[AttemptTerminal] | None = None
        try:
            async with asyncio.timeout_at(p.deadline):
                async with asyncio.TaskGroup() as group:
                    body = group.create_task(self.loop())
                    watcher = group.create_task(self.watch_abort())
                    body.add_done_callback(lambda _: watcher.cancel())
        except TimeoutError:
            phase = "tool_execution" if self.phase == "tool_execution" else "prompt"
            return AttemptTerminal("timeout", source="runtime", phase=phase,
                                   error="the attempt deadline passed")
        except BaseExceptionGroup as group_error:
            if group_error.subgroup(_Aborted) is not None:
                return AttemptTerminal("aborted", source="external", error="aborted")
            raise
        assert body is not None
        return body.result()

    async def watch_abort(self) -> None:
        """Raise `_Aborted` once the attempt's abort event is set."""
        await self.p.abort.wait()
        raise _Aborted

    async def loop(self) -> AttemptTerminal:
        """Model turns and tool rounds until a final answer or a bound."""
        max_steps = max(1, self.p.max_steps)
        steps = 0
        try:
            while True:
                steps += 1
                self.phase = "prompt"
                try:
                    assistant = await self.model_turn()
                except ProviderError as raw:
                    exc = locate_provider_error(raw, self.p.model, self.transport.api)
                    builder = self.builder or self.new_builder()
                    self.builder = None
                    await self.settle(builder.message("error", error=str(exc)))
                    return AttemptTerminal("failed", source="prompt", error=str(exc),
                                           details=provider_failure_details(exc))
                await self.settle(assistant)
                calls = [b for b in assistant["content"] if b["type"] == "toolCall"]
                if not calls:
                    return AttemptTerminal.ok()
                if steps >= max_steps:
                    self.pending = calls
                    note = f"not run: the attempt reached its limit of {max_steps} model steps"
                    await self.settle_pending(note, started_id=None)
                    return AttemptTerminal(
                        "aborted", source="runtime",
                        error=f"max steps ({max_steps}) reached before a final answer",
                    )
                self.phase = "tool_execution"
                self.pending = calls
                for call in calls:
                    await self.run_tool(call)
                self.pending = []
        except _Aborted:
            raise
        except Exception as exc:
            # a host-side failure (a capability, an observer, a callback) ends the attempt
            _log.exception("embedded attempt %s failed", self.p.run_id)
            return AttemptTerminal("failed", source="prompt", error=f"{type(exc).__name__}: {exc}")

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
                     input_tokens=usage.input, output_tokens=usage.output,
                     response_model=model.model_id, finish_reason=str(message["stopReason"]))
            return message

    async def stream_model_turn(self) -> Message:
        """Stream one model call into an assistant message."""
        p = self.p
        model = p.model
        request = ModelRequest(model.model_id, p.system_prompt, self.context, self.schemas,
                               model.max_tokens, model.params)
        builder = self.builder = self.new_builder()
        partial = p.on_partial_reply
        events = p.on_agent_event is not None
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
                if events:
                    await self.emit("assistant", {"text": text, "delta": event.text})
            elif kind is ToolCall:
                assert isinstance(event, ToolCall)
                builder.add_call(event)
                if event.parse_error:
                    self.arg_errors[event.id] = event.parse_error
            elif kind is ThinkingDelta:
                assert isinstance(event, ThinkingDelta)
                builder.add_thinking(event.text, event.signature)
            elif kind is Done:
                assert isinstance(event, Done)
                done = event
        if done is None:
            raise ProviderError(STREAM_CUT_MESSAGE)
        self.builder = None
        self.last_usage = done.usage
        self.add_usage(done.usage)
        if events:
            await self.emit("usage", {**done.usage.as_dict(), "attempt": dict(self.usage)})
        message = builder.message(done.stop_reason, done.usage)
        if builder.text:
            self.assistant_texts.append(builder.text)
        return message

    def add_usage(self, usage: Usage) -> None:
        """Add one call's tokens to the attempt's totals."""
        totals = self.usage
        totals["input"] += usage.input
        totals["output"] += usage.output
        totals["cacheRead"] += usage.cache_read
        totals["totalTokens"] += usage.total

    # --- tools ----------------------------------------------------------------------

    def tool_context(self, call_id: str) -> ToolCallContext:
        """What a tool's `execute` receives besides its arguments."""
        p = self.p
        return ToolCallContext(call_id=call_id, workspace_dir=p.workspace_dir, abort=p.abort,
                               session_key=p.session_key, run_id=p.run_id)

    async def run_tool(self, call: ContentBlock) -> None:
        """Policy and approval, then execute, observe and settle one tool call (an
        `execute_tool <tool>` span)."""
        with tool_span(call["name"], call["id"], session_id=self.p.session_id) as span:
            content_attribute(span, "gen_ai.tool.call.arguments", call["arguments"])
            await self.run_tool_call(call)
            if self.new_messages and self.new_messages[-1]["role"] == "toolResult":
                content_attribute(span, "gen_ai.tool.call.result",
                                  self.new_messages[-1]["content"])
            meta = self.tool_metas[-1] if self.tool_metas else {}
            ok = meta.get("toolCallId") == call["id"] and not meta.get("isError")
            end_tool(span, call["name"], ok=ok, started=self.tool_started,
                     error=meta.get("error"))

    async def run_tool_call(self, call: ContentBlock) -> None:
        """Policy and approval, then execute, observe and settle one tool call."""
        call_id, name = call["id"], call["name"]
        args: Mapping[str, Any] = call["arguments"]
        self.tool_started = False
        await self.emit("tool", {"phase": "start", "name": name, "toolCallId": call_id,
                                 "args": args})
        started = False
        error: str | None = None
        result: dict[str, Any] | None = None
        spec = self.tools.get(name)
        if spec is None:
            reason = self.p.host_capabilities.unavailable_tool_reason(name)
            error = f"Tool {name!r} is not available in this session: {reason}."
        elif call_id in self.arg_errors:
            error = f"Tool {name!r} was not run: {self.arg_errors[call_id]}"
        else:
            decision = await self.p.host_capabilities.run_before_tool_call(
                name, args, tool_call_id=call_id)
            if not decision.allowed:
                error = f"Tool {name!r} was not run: {decision.reason or 'blocked by policy'}"
            else:
                args = decision.arguments or args
                barrier = self.p.mirror_barrier
                if barrier is not None and not is_replay_safe_tool_call(name, args):
                    await barrier()  # the call is on record before it can change anything
                started = self.tool_started = True
                ledger = self.p.tool_outcomes
                verdict = None if ledger is None else await ledger.begin(call_id, name, args)
                if verdict is not None and verdict.action != "run":
                    # a retried turn: the outcome an earlier attempt committed, or the
                    # call it started and lost; either way the tool does not run again
                    result, error = verdict.result, verdict.error
                else:
                    self.running, self.running_args = call_id, args
                    try:
                        raw = await spec.execute(args, self.tool_context(call_id))
                    except Exception as exc:  # a tool's failure is the model's to see
                        error = str(exc) or type(exc).__name__
                    else:
                        result = raw if isinstance(raw, dict) else {"content": raw}
                    # not in a finally: after a cancellation the interrupted call must
                    # stay known
                    self.running = None
                    if ledger is not None:
                        await ledger.commit(call_id, result, error)  # before the model sees it
        await self.finish_tool(call_id, name, args, started, result, error)

    async def finish_tool(
        self, call_id: str, name: str, args: Mapping[str, Any], started: bool,
        result: dict[str, Any] | None, error: str | None,
    ) -> None:
        """Observe the outcome, settle the tool result message and report it."""
        if result is None:
            result = {"content": [{"type": "text", "text": error or "Tool failed."}],
                      "isError": True}
        content = result.get("content")
        if not isinstance(content, list):
            content = [{"type": "text", "text": "" if content is None else str(content)}]
        is_error = error is not None or bool(result.get("isError"))
        self.last_tool_error = await report_tool_terminal(
            self.p.observe_tool_terminal, tool_observation(
                tool_call_id=call_id, tool_name=name, arguments=args, execution_started=started,
                is_error=is_error, result=result, failure_error=error or _text_of(content)),
            self.last_tool_error)
        transform = self.p.transform_tool_result
        if transform is not None and started:
            # the observer saw the original; the model sees what middleware makes of it
            result = await transform(name, call_id, dict(args), result, is_error)
            content = result.get("content")
            if not isinstance(content, list):
                content = [{"type": "text", "text": "" if content is None else str(content)}]
        meta: dict[str, Any] = {"toolName": name, "toolCallId": call_id, "isError": is_error}
        if is_error:
            meta["error"] = error or _text_of(content)
        self.tool_metas.append(meta)
        self.resolved.add(call_id)
        await self.settle(tool_result_message(call_id, name, content, is_error=is_error,
                                              details=result.get("details")))
        await self.emit("tool", {"phase": "result", "name": name, "toolCallId": call_id,
                                 "isError": is_error})

    async def settle_pending(self, note: str, *, started_id: str | None) -> None:
        """Give every unanswered call of the last assistant turn an error result."""
        for call in self.pending:
            call_id = call["id"]
            if call_id in self.resolved:
                continue
            started = call_id == started_id
            args = self.running_args if started else call["arguments"]
            await self.finish_tool(call_id, call["name"], args, started, None,
                                   f"Tool call {note}.")
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
            await self.settle_pending(note, started_id=self.running)
        self.running = None


def _text_of(content: list[Any]) -> str:
    return "".join(b.get("text", "") for b in content
                   if isinstance(b, dict) and b.get("type") == "text")
