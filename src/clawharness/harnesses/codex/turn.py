"""One Codex turn on a bound thread: `turn/start`, then its notifications to the end.

The turn subscribes to its thread on the client before `turn/start`, so nothing the
server says about it is missed. It streams `item/agentMessage/delta` to
`on_partial_reply` (the item's text so far), mirrors every completed item into the
transcript, reports native commands and file changes to `observe_tool_terminal`,
answers approvals through the host's policy, runs host tools called as dynamic tools,
and maps `turn/completed` (or the process's death) to the attempt's terminal. An abort
or the deadline sends `turn/interrupt` and waits for Codex to settle the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from clawharness.harnesses.codex.approvals import APPROVAL_METHODS, decide_approval
from clawharness.harnesses.codex.client import NO_RESPONSE, AppServerClient
from clawharness.harnesses.codex.errors import CodexAppServerError, CodexProcessExitedError
from clawharness.harnesses.codex.items import item_messages, native_settlement, user_message
from clawharness.harnesses.codex.protocol import Notification, Request
from clawharness.plugin_sdk.agent_harness import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    Message,
    ToolSpec,
)
from clawharness.plugin_sdk.agent_harness_telemetry import capture_trace_context
from clawharness.plugin_sdk.agent_harness_tool_runtime import ToolCallRequest, ToolCalls

__all__ = ["HARNESS_ID", "INTERRUPT_GRACE_SECONDS", "CodexTurn"]

log = logging.getLogger("clawharness.harnesses.codex")

HARNESS_ID = "codex"
#: how long an interrupted turn may take to report `turn/completed`
INTERRUPT_GRACE_SECONDS = 10.0

_ABORT = object()
_DEADLINE = object()
#: items whose completion is a tool boundary: the turn's steered messages go in then
_TOOL_ITEMS = frozenset({"commandExecution", "fileChange", "mcpToolCall", "dynamicToolCall"})


def _content_items(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    content = result.get("content")
    if isinstance(content, str):
        return [{"type": "inputText", "text": content}]
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text":
            items.append({"type": "inputText", "text": str(block.get("text", ""))})
        elif block.get("type") == "image" and block.get("data"):
            mime = block.get("mimeType", "image/png")
            items.append({"type": "inputImage", "imageUrl": f"data:{mime};base64,{block['data']}"})
    return items or [{"type": "inputText", "text": ""}]


#: the host's thinking levels as Codex's reasoning efforts (docs/thinking.md): Codex has
#: no "off", so the least it takes stands for it
_EFFORTS: dict[str, str] = {"off": "minimal", "minimal": "minimal", "low": "low",
                            "medium": "medium", "high": "high", "xhigh": "xhigh"}


def _effort(level: str | None) -> str | None:
    return None if level is None else _EFFORTS.get(level)


class CodexTurn:
    """Runs one turn; implements the client's `ThreadListener` for its thread."""

    def __init__(self, params: AttemptParams, client: AppServerClient, thread_id: str, *,
                 cwd: str, tools: Sequence[ToolSpec], context: str | None = None) -> None:
        self.p = params
        #: host-tool requests arrive on the client's reader task: they resume this trace
        self._resume_trace = capture_trace_context()
        #: the host transcript, for the first turn of a thread started for this turn
        self.context = context
        self.client = client
        self.thread_id = thread_id
        self.cwd = cwd
        #: Codex records each item itself (`item/completed` is mirrored), so a settled
        #: call's result has no transcript placement here
        self.tool_calls = ToolCalls(params, tools=list(tools))
        self.turn_id: str | None = None
        self._turn_known = asyncio.Event()
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self.items: dict[str, Mapping[str, Any]] = {}
        self.texts: dict[str, str] = {}
        self.messages: list[Message] = []
        self.assistant_texts: list[str] = []
        #: the turn's token totals (`thread/tokenUsage/updated`, per model call), reported
        #: in the original's spelling (the host reads them as a `Usage`)
        self.usage = {"input": 0, "output": 0, "cacheRead": 0, "totalTokens": 0,
                      "reasoningTokens": 0}
        self.error_message: str | None = None
        self.interrupt_reason: object | None = None
        self.mirrored_items: set[str] = set()
        self.process_failure: CodexProcessExitedError | None = None
        #: an interrupt Codex never confirmed; the harness retires the process
        self.unconfirmed_interrupt = False
        #: the turn's prompt is mirrored (later `userMessage` items are steered input,
        #: mirrored when Codex took it)
        self.prompt_mirrored = False
        self.steered = 0

    # --- ThreadListener ---------------------------------------------------------------------

    def on_notification(self, note: Notification) -> None:
        self._queue.put_nowait(note)

    def on_closed(self, error: CodexProcessExitedError) -> None:
        self._queue.put_nowait(error)

    async def on_request(self, request: Request) -> Any:
        turn_bound = request.method in APPROVAL_METHODS or request.method == "item/tool/call"
        if turn_bound and self.turn_id is None:
            await self._turn_known.wait()
        if request.method == "item/tool/call":
            return await self._call_tool(request.params)
        if request.method == "item/tool/requestUserInput":
            ask = self.p.request_user_input
            if ask is None:
                return {"answers": {}}
            questions = request.params.get("questions")
            return dict(await ask(questions if isinstance(questions, list) else [],
                                  request.params.get("timeoutSeconds")))
        if request.method == "mcpServer/elicitation/request":
            return {"action": "decline"}
        item_id = request.params.get("itemId")
        answer = await decide_approval(
            request.method, request.params, thread_id=self.thread_id, turn_id=self.turn_id,
            tool_calls=self.tool_calls, default_cwd=self.cwd,
            item=self.items.get(item_id) if isinstance(item_id, str) else None)
        if answer is None:
            return NO_RESPONSE
        await self._emit("approval", {"method": request.method, "itemId": item_id,
                                      "answer": answer})
        return answer

    # --- callbacks --------------------------------------------------------------------------

    async def _emit(self, stream: str, data: Mapping[str, Any]) -> None:
        sink = self.p.on_agent_event
        if sink is None:
            return
        result = sink(AgentEvent(stream, data))
        if result is not None and inspect.isawaitable(result):
            await result

    async def _mirror(self, messages: list[Message]) -> None:
        if not messages:
            return
        self.messages.extend(messages)
        mirror = self.p.mirror
        if mirror is not None:
            await mirror(messages)

    # --- host tools as dynamic tools ----------------------------------------------------------

    async def _call_tool(self, params: Mapping[str, Any]) -> Any:
        """A host tool Codex calls as a dynamic tool, through the SDK's routine; the
        reply is what the model sees (after middleware)."""
        if params.get("threadId") != self.thread_id or params.get("turnId") != self.turn_id:
            return NO_RESPONSE
        raw = params.get("arguments")
        args: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {"input": raw}
        call = ToolCallRequest(str(params.get("callId", "")), str(params.get("tool", "")), args)
        with self._resume_trace():
            outcome = await self.tool_calls.run_host_tool(call)
        return {"success": not outcome.is_error, "contentItems": _content_items(outcome.result)}

    # --- the turn -------------------------------------------------------------------------------

    def _input(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if self.context:
            items.append({"type": "text", "text": self.context, "text_elements": []})
        items.append({"type": "text", "text": self.p.prompt, "text_elements": []})
        continuation = self.p.continuation
        if continuation:
            items.append({"type": "text", "text_elements": [],
                          "text": _continuation_text(continuation)})
        for image in self.p.images:
            data = image.get("data")
            if data:
                mime = image.get("mimeType", image.get("mime_type", "image/png"))
                items.append({"type": "image", "url": f"data:{mime};base64,{data}"})
        return items

    async def _watch(self) -> None:
        """Turn the abort event and the deadline into queue entries."""
        try:
            async with asyncio.timeout_at(self.p.deadline):
                await self.p.abort.wait()
            self._queue.put_nowait(_ABORT)
        except TimeoutError:
            self._queue.put_nowait(_DEADLINE)

    async def run(self) -> AttemptResult:
        """Run the turn to its terminal; never raises for native failures."""
        self.client.subscribe(self.thread_id, self)
        watcher = asyncio.get_running_loop().create_task(self._watch())
        try:
            await self._emit("lifecycle", {"phase": "start", "runId": self.p.run_id,
                                           "sessionId": self.p.session_id,
                                           "harnessId": HARNESS_ID, "threadId": self.thread_id})
            try:
                terminal = await self._drive()
            except asyncio.CancelledError:
                await self._stop_native_turn()
                raise
            except Exception as exc:  # a host callback failed: the attempt ends here
                log.exception("codex turn on thread %s failed", self.thread_id)
                await self._stop_native_turn()
                terminal = AttemptTerminal("failed", source="prompt",
                                           error=f"{type(exc).__name__}: {exc}")
        finally:
            self._turn_known.set()  # release approval handlers still waiting for a turn id
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            self.client.unsubscribe(self.thread_id, self)
        end: dict[str, Any] = {"phase": "end", "terminal": terminal.kind}
        if terminal.error:
            end["error"] = terminal.error
        await self._emit("lifecycle", end)
        return self._result(terminal)

    async def _drive(self) -> AttemptTerminal:
        try:
            start: dict[str, Any] = {"threadId": self.thread_id, "input": self._input()}
            effort = _effort(self.p.thinking_level)
            if effort is not None:
                start["effort"] = effort
            started = await self.client.request("turn/start", start)
        except CodexAppServerError as exc:
            if isinstance(exc, CodexProcessExitedError):
                self.process_failure = exc
            return AttemptTerminal("failed", source="prompt", error=str(exc))
        self.turn_id = str(started["turn"]["id"])
        self._turn_known.set()
        interrupt_deadline: float | None = None
        loop = asyncio.get_running_loop()
        while True:
            if interrupt_deadline is None:
                entry = await self._queue.get()
            else:
                try:
                    async with asyncio.timeout_at(interrupt_deadline):
                        entry = await self._queue.get()
                except TimeoutError:
                    # the native turn may still run: its process must not serve again
                    self.unconfirmed_interrupt = True
                    return self._interrupted_terminal(confirmed=False)
            if entry is _ABORT or entry is _DEADLINE:
                if self.interrupt_reason is None:
                    self.interrupt_reason = entry
                    interrupt_deadline = loop.time() + INTERRUPT_GRACE_SECONDS
                    with contextlib.suppress(CodexAppServerError):
                        await self.client.request("turn/interrupt", {
                            "threadId": self.thread_id, "turnId": self.turn_id},
                            timeout=INTERRUPT_GRACE_SECONDS)
                continue
            if isinstance(entry, CodexProcessExitedError):
                self.process_failure = entry
                return AttemptTerminal("failed", source="prompt", error=str(entry))
            terminal = await self._handle(entry)
            if terminal is not None:
                return terminal

    async def _stop_native_turn(self) -> None:
        """Leaving mid-turn: ask Codex to interrupt (without waiting for it to settle),
        and flag the process, which may still be running the turn, for retirement."""
        if self.turn_id is None:
            return
        self.unconfirmed_interrupt = True
        with contextlib.suppress(CodexAppServerError, TimeoutError, asyncio.CancelledError):
            await asyncio.shield(self.client.request(
                "turn/interrupt", {"threadId": self.thread_id, "turnId": self.turn_id},
                timeout=2.0))

    def _interrupted_terminal(self, *, confirmed: bool) -> AttemptTerminal:
        note = "" if confirmed else " (Codex did not confirm the interrupt)"
        if self.interrupt_reason is _DEADLINE:
            return AttemptTerminal("timeout", source="runtime", phase="prompt",
                                   error="the attempt deadline passed" + note)
        if self.interrupt_reason is _ABORT:
            return AttemptTerminal("aborted", source="external", error="aborted" + note)
        return AttemptTerminal("aborted", source="runtime", error="Codex interrupted the turn")

    async def _handle(self, note: Notification) -> AttemptTerminal | None:
        method, params = note.method, note.params
        turn = params.get("turnId")
        if method == "item/agentMessage/delta":
            item_id = str(params.get("itemId", ""))
            text = self.texts.get(item_id, "") + str(params.get("delta", ""))
            self.texts[item_id] = text
            partial = self.p.on_partial_reply
            if partial is not None:
                result = partial(text)
                if result is not None and inspect.isawaitable(result):
                    await result
            return None
        if method in ("item/started", "item/completed"):
            item = params.get("item")
            if turn != self.turn_id or not isinstance(item, Mapping):
                return None
            item_id = str(item.get("id", ""))
            self.items[item_id] = item
            if method == "item/completed":
                await self._completed(item)
            elif item.get("type") in ("commandExecution", "fileChange"):
                await self._emit("tool", {"phase": "start", "toolCallId": item_id,
                                          "name": "exec" if item.get("type") ==
                                          "commandExecution" else "apply_patch"})
            return None
        if method == "turn/plan/updated" and turn == self.turn_id:
            steps = params.get("plan")
            if isinstance(steps, list):  # Codex's update_plan: the whole plan each time
                await self._emit("plan", {
                    "entries": [{"content": s.get("step"), "status": s.get("status")}
                                for s in steps if isinstance(s, Mapping)],
                    "explanation": params.get("explanation")})
            return None
        if (method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta")
                and turn == self.turn_id):
            delta = params.get("delta")
            if isinstance(delta, str) and delta:
                await self._emit("thinking", {"delta": delta})
            return None
        if method == "thread/tokenUsage/updated" and turn == self.turn_id:
            last = (params.get("tokenUsage") or {}).get("last") or {}
            # Codex counts cached input inside inputTokens (as OpenAI does): the usage's
            # input is the uncached part, so cached tokens are priced once, as cache reads
            whole = int(last.get("inputTokens") or 0)
            cached = min(int(last.get("cachedInputTokens") or 0), whole)
            self.usage["input"] += whole - cached
            self.usage["output"] += int(last.get("outputTokens") or 0)
            self.usage["cacheRead"] += cached
            # the part of the output spent reasoning (priced at a reasoning rate, if any)
            self.usage["reasoningTokens"] += int(last.get("reasoningOutputTokens") or 0)
            self.usage["totalTokens"] += int(last.get("totalTokens") or 0)
            return None
        if method == "error" and turn == self.turn_id:
            error = params.get("error")
            if isinstance(error, Mapping) and not params.get("willRetry"):
                self.error_message = str(error.get("message") or "Codex turn failed")
            return None
        if method == "turn/completed":
            turn_obj = params.get("turn")
            if not isinstance(turn_obj, Mapping) or turn_obj.get("id") != self.turn_id:
                return None
            return self._terminal(turn_obj)
        return None

    async def _completed(self, item: Mapping[str, Any]) -> None:
        item_id = str(item.get("id", ""))
        if item_id in self.mirrored_items:
            return
        self.mirrored_items.add(item_id)
        kind = item.get("type")
        if kind == "userMessage":
            if not self.prompt_mirrored:
                self.prompt_mirrored = True
                await self._mirror([user_message(self.p.prompt, self.thread_id, item_id)])
            return
        await self._mirror(item_messages(item, self.thread_id, model=self.p.model_id,
                                         provider=self.p.provider))
        if kind == "agentMessage" and item.get("text"):
            self.assistant_texts.append(str(item["text"]))
        settled = native_settlement(item)
        if settled is not None:
            await self.tool_calls.settle_native(
                settled.call, result=settled.result, is_error=settled.is_error,
                error=settled.error, execution_started=settled.execution_started,
                arguments_reported=True, failure=settled.failure,
                native_mutation=settled.native_mutation)
        if kind in _TOOL_ITEMS:
            await self._steer()

    async def _steer(self) -> None:
        """At a tool boundary: the messages steered into the host's turn since go to
        Codex's running turn (`turn/steer`, one request, in arrival order) and into the
        transcript; ones Codex refuses (its turn ended, or cannot be steered) are handed
        back to run as the next turn."""
        take = self.p.take_steering
        if take is None or self.turn_id is None or self.interrupt_reason is not None:
            return
        messages = list(await take())
        if not messages:
            return
        try:
            await self.client.request("turn/steer", {
                "threadId": self.thread_id, "expectedTurnId": self.turn_id,
                "input": [{"type": "text", "text": text, "text_elements": []}
                          for text in messages]})
        except (CodexAppServerError, TimeoutError) as exc:
            log.info("codex turn %s refused steering (%s): it runs as the next turn",
                     self.turn_id, exc)
            give_back = self.p.return_steering
            if give_back is not None:
                await give_back(messages)
            return
        first = self.steered
        self.steered += len(messages)
        await self._mirror([user_message(text, self.thread_id, f"{self.turn_id}:steer:{n}")
                            for n, text in enumerate(messages, start=first)])
        await self._emit("steer", {"messages": len(messages)})

    def _terminal(self, turn: Mapping[str, Any]) -> AttemptTerminal:
        status = turn.get("status")
        if status == "completed":
            return AttemptTerminal.ok()
        if status == "interrupted":
            return self._interrupted_terminal(confirmed=True)
        error = turn.get("error")
        message = (str(error.get("message")) if isinstance(error, Mapping) and error.get("message")
                   else self.error_message or f"Codex turn ended with status {status!r}")
        return AttemptTerminal("failed", source="prompt", error=message)

    def _result(self, terminal: AttemptTerminal) -> AttemptResult:
        last = next((m for m in reversed(self.messages) if m.get("role") == "assistant"
                     and any(b.get("type") == "text" for b in m.get("content", ()))), None)
        extra: dict[str, Any] = {"codexThreadId": self.thread_id, "codexTurnId": self.turn_id}
        if self.process_failure is not None:
            extra["codexAppServerFailure"] = {
                "kind": "client_closed_before_turn_completed", "transport": "stdio",
                "replaySafe": False, "threadId": self.thread_id, "turnId": self.turn_id,
                "diagnostics": {"returncode": self.process_failure.returncode}}
        return AttemptResult(
            terminal=terminal, session_id_used=self.p.session_id,
            messages_snapshot=list(self.messages), assistant_texts=list(self.assistant_texts),
            last_assistant=last, tool_metas=list(self.tool_calls.metas),
            last_tool_error=self.tool_calls.last_tool_error, attempt_usage=dict(self.usage),
            agent_harness_id=HARNESS_ID, transcript_mirrored=self.p.mirror is not None,
            extra=extra)


def _continuation_text(continuation: Mapping[str, Any]) -> str:
    """The same-turn retry carrier as context: completed work, not a new request."""
    lines = ["[Continuation: an earlier attempt at this request was interrupted. Work it "
             "already completed is listed below; do not repeat its side effects.]"]
    for message in continuation.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        for block in message.get("content") or ():
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text" and block.get("text"):
                lines.append(f"{role}: {str(block['text'])[:2000]}")
            elif block.get("type") == "toolCall":
                lines.append(f"tool call {block.get('name')}: "
                             f"{str(block.get('arguments'))[:500]}")
    return "\n".join(lines)
