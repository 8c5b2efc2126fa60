"""The `acp` harness's wire: a turn on one agent process (updates, tool calls,
permissions), and the public face of `_connection` (the `acp` library's
`ClientSideConnection` to that process and the client side it serves).
Imported when a turn runs, so loading the plugin does not import the library."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from acp import RequestError
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)
from acp.schema import Usage as AcpUsage

from clawharness.harnesses.acp._connection import (
    COST_KEY,
    AcpTurnOwner,
    Live,
    guard,
    open_live,
)
from clawharness.harnesses.acp.common import (
    HARNESS_ID,
    AcpAgentConfig,
    AcpHarnessError,
    canonical_tool_name,
    now_ms,
    user_message,
)
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ContentBlock,
    Message,
)
from clawharness.plugin_sdk.agent_harness_process import kill_stray_groups
from clawharness.plugin_sdk.agent_harness_runtime import NativeTurn
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionRecord,
    NativeSessionRecovery,
    native_session_recovery,
)
from clawharness.plugin_sdk.agent_harness_telemetry import trace_carrier
from clawharness.plugin_sdk.agent_harness_tool_runtime import (
    ToolCallRequest,
    text_result,
)

__all__ = ["AcpTurn", "AcpTurnOwner", "Live", "guard", "open_live"]

log = logging.getLogger("clawharness.harnesses.acp")


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [_dump(v) for v in value]
    return value


def _content_text(content: Any) -> str:
    """Text of tool-call content (ACP `content` items) or raw output."""
    parts: list[str] = []
    for item in content or []:
        inner = getattr(item, "content", None)
        text = getattr(inner, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


def _raw_text(raw: Any) -> str:
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        texts = [b.get("text") for b in raw if isinstance(b, Mapping)]
        if texts and all(isinstance(t, str) for t in texts):
            return "\n".join(str(t) for t in texts)
    try:
        return json.dumps(raw, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(raw)


@dataclass(slots=True)
class _Tool:
    id: str
    kind: str | None = None
    title: str | None = None
    raw_input: Any = None
    raw_output: Any = None
    content: Any = None
    status: str | None = None
    settled: bool = False
    block: ContentBlock | None = None

    @property
    def name(self) -> str:
        return canonical_tool_name(self.kind, self.title)

    def arguments(self) -> dict[str, Any]:
        return dict(self.raw_input) if isinstance(self.raw_input, Mapping) else {}


class AcpTurn(NativeTurn):
    """One prompt on one binding."""

    def __init__(self, harness: AcpTurnOwner, params: AttemptParams, key: str,
                 agent: AcpAgentConfig, grace: float) -> None:
        super().__init__(params, harness_id=HARNESS_ID, details_in_message=False)
        self.h = harness
        self.key = key
        self.agent = agent
        self.grace = grace
        self.started = False
        self.live: Live | None = None
        self.tools: dict[str, _Tool] = {}
        self.pending: Message | None = None
        self.text = ""
        self.count = 0
        self.recovery: NativeSessionRecovery[NativeSessionRecord] | None = None
        #: the turn's token counts, when the agent reports them (`PromptResponse.usage`)
        self.reported_usage: dict[str, int] | None = None
        #: the session's cumulative cost in USD before the prompt (None: unknown), and
        #: how many costs the agent had reported then (None until the prompt is sent)
        self.cost_before: float | None = None
        self.cost_reports: int | None = None

    def message_key(self, suffix: str) -> str:
        """Keyed by the ACP session and the run."""
        sid = self.live.session_id if self.live is not None else None
        return f"{HARNESS_ID}:{sid or self.p.run_id}:{self.p.run_id}:{suffix}"

    # --- the turn --------------------------------------------------------------------------

    async def run(self, bound: BoundSession[NativeSessionRecord]) -> AttemptResult:
        p = self.p
        assert_lease = bound.assert_lease
        record = bound.record
        self.recovery = native_session_recovery(
            p, harness_id=HARNESS_ID, lifecycle=await self.h.bindings.lifecycle(),
            key=bound.key, logger=log)
        await self.emit("lifecycle", {"phase": "start", "runId": p.run_id,
                                      "sessionId": p.session_id, "harnessId": HARNESS_ID})
        await self.settle(user_message(p.prompt), f"{p.run_id}:user")
        if p.abort.is_set():
            return await self.finish(AttemptTerminal("aborted", source="external",
                                                     error="aborted before start"), None)
        try:
            self.live = await open_live(self.h, p, self.key, self.agent, record, self.recovery)
        except (AcpHarnessError, RequestError) as exc:
            return await self.finish(AttemptTerminal("failed", source="precheck",
                                                     error=str(exc)), None)
        self.started = True
        assert_lease()
        live = self.live
        stop_reason: str | None = None
        error: str | None = None
        live.turn = self
        try:
            stop_reason, error = await self.prompt(live)
        except BaseException:
            self.h.processes.pop(self.key)
            live.child.kill()
            raise
        finally:
            live.turn = None
        if live.child.alive and error is None:
            kill_stray_groups(live.child.pid, live.child.pgid)
        else:
            await self.h.processes.close(self.key)
        terminal = self.terminal(stop_reason, error)
        if live.session_id:
            new_record: NativeSessionRecord = {
                "nativeSessionId": live.session_id, "hostSessionId": p.session_id,
                "agent": self.agent.name, "cwd": live.cwd, "harness": HARNESS_ID}
            if live.cost_usd is not None:  # the next turn's baseline, after a restart too
                new_record[COST_KEY] = live.cost_usd
            await bound.write(new_record)
        return await self.finish(terminal, live.session_id)

    async def prompt(self, live: Live) -> tuple[str | None, str | None]:
        """Run `session/prompt` beside the abort watcher; (stop reason, error)."""
        conn = live.conn
        assert conn is not None and live.session_id is not None
        session_id = live.session_id
        blocks = [TextContentBlock(type="text", text=self.p.prompt)]
        if live.fresh:
            live.fresh = False
            context = self.recovery.context() if self.recovery is not None else None
            if context:
                blocks.insert(0, TextContentBlock(type="text", text=context))
        self.cost_before, self.cost_reports = live.cost_usd, live.cost_reports
        # the attempt's trace goes on in the agent: ACP carries W3C trace context in a
        # request's `_meta` (`traceparent`, `tracestate`)
        task = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=list(blocks),
                                                 **trace_carrier()))
        exited = asyncio.ensure_future(live.child.process.wait())
        watcher = asyncio.ensure_future(self.watch())
        try:
            while True:
                done, _ = await asyncio.wait({task, exited, watcher},
                                             return_when=asyncio.FIRST_COMPLETED)
                if task in done:
                    try:
                        response = task.result()
                    except RequestError as exc:
                        return None, f"ACP agent error: {exc}"
                    except ConnectionError:
                        if live.stopped_reading():
                            return None, live.stopped_reading()
                        raise
                    self.reported_usage = reported_usage(response.usage)
                    return str(response.stop_reason), None
                if exited in done:
                    tail = live.child.stderr_text()
                    return None, (f"ACP agent {live.agent.name!r} exited "
                                  f"(code {live.child.process.returncode})"
                                  + (f": {tail[-600:]}" if tail else ""))
                if watcher in done:
                    watcher.result()
                    # cancel sent: give the agent its grace, then the whole tree goes
                    try:
                        await asyncio.wait_for(asyncio.shield(task), self.grace)
                    except TimeoutError:
                        live.child.kill()
                        return "cancelled", "the agent did not stop after session/cancel"
                    except RequestError:
                        return "cancelled", None
                    return str(task.result().stop_reason), None
        finally:
            for pending in (task, exited, watcher):
                if not pending.done():
                    pending.cancel()
                    with contextlib.suppress(BaseException):
                        await pending

    async def watch(self) -> None:
        """Return after abort or the deadline, once `session/cancel` was sent."""
        await self.wait_for_stop()
        live = self.live
        if live is not None and live.conn is not None and live.session_id is not None:
            with contextlib.suppress(Exception):
                await live.conn.cancel(session_id=live.session_id)

    def terminal(self, stop_reason: str | None, error: str | None) -> AttemptTerminal:
        if self.stop_kind == "aborted":
            return AttemptTerminal("aborted", source="external", error=error or "aborted")
        if self.stop_kind == "timeout":
            return AttemptTerminal("timeout", source="runtime", phase="prompt",
                                   error="the attempt deadline passed")
        if error is not None:
            return AttemptTerminal("failed", source="prompt", error=error)
        if stop_reason == "cancelled":
            return AttemptTerminal("aborted", source="runtime", error="the agent cancelled")
        if stop_reason == "refusal":
            return AttemptTerminal("failed", source="prompt", error="the agent refused")
        return AttemptTerminal.ok()

    async def finish(self, terminal: AttemptTerminal, native: str | None) -> AttemptResult:
        await self.flush_assistant()
        note = "aborted" if terminal.kind == "aborted" else (
            "stopped: the attempt timed out" if terminal.kind == "timeout"
            else "the agent stopped before the tool finished")
        for tool in list(self.tools.values()):
            if not tool.settled:
                await self.tool_done(tool, f"Tool call {note}.", True)
        end: dict[str, Any] = {"phase": "end", "terminal": terminal.kind}
        if terminal.error:
            end["error"] = terminal.error
        await self.emit("lifecycle", end)
        result = self.result(terminal, native_session_id=native, usage=False)
        usage: dict[str, Any] | None = (None if self.reported_usage is None
                                        else dict(self.reported_usage))
        cost = self.reported_cost()
        if cost is not None:  # kept as reported: the config's price is for turns without
            usage = {**(usage or {}), "cost": {"total": cost}}
        if usage is not None:
            result.attempt_usage = usage
        return self.recovery.annotate(result) if self.recovery is not None else result

    def reported_cost(self) -> float | None:
        """The turn's cost in USD as the agent reported it: what the session's cumulative
        cost (`usage_update`'s `cost`) grew by over the turn; None when the agent reported
        none in USD during the turn, or the amount before it is not known."""
        live = self.live
        if live is None or self.cost_reports is None or live.cost_reports == self.cost_reports:
            return None
        before, now = self.cost_before, live.cost_usd
        assert now is not None
        if before is None:
            log.debug("ACP agent %r reported its session's cost ($%s) but not what it was "
                      "before this turn (a resumed session): the config's cost prices the "
                      "turn", self.agent.name, now)
            return None
        if now < before:
            log.debug("ACP agent %r reported its session's cost as $%s, less than the $%s "
                      "seen before: not the same count; the config's cost prices the turn",
                      self.agent.name, now, before)
            return None
        return round(now - before, 12)  # no float noise past the ledger's nano-dollars

    # --- updates ---------------------------------------------------------------------------

    def assistant(self) -> Message:
        if self.pending is None:
            self.pending = {"role": "assistant", "content": [], "stopReason": "stop",
                            "provider": self.p.provider, "model": self.p.model_id,
                            "api": "acp", "timestamp": now_ms()}
            self.text = ""
        return self.pending

    async def flush_assistant(self) -> None:
        message, self.pending = self.pending, None
        self.text = ""
        if message is None or not message["content"]:
            return
        content = message["content"]
        if any(b["type"] == "toolCall" for b in content):
            message["stopReason"] = "toolUse"
        text = "".join(b["text"] for b in content if b["type"] == "text")
        if text:
            self.assistant_texts.append(text)
        self.count += 1
        await self.settle(message, self.message_key(f"assistant:{self.count}"))

    async def on_update(self, update: Any) -> None:
        if isinstance(update, AgentMessageChunk):
            text = getattr(update.content, "text", None)
            if not isinstance(text, str) or not text:
                return
            message = self.assistant()
            content = message["content"]
            if content and content[-1]["type"] == "text":
                content[-1]["text"] += text
            else:
                content.append({"type": "text", "text": text})
            self.text += text
            if self.p.on_partial_reply is not None:
                await _maybe_await(self.p.on_partial_reply(self.text))
            await self.emit("assistant", {"text": self.text, "delta": text})
        elif isinstance(update, ToolCallStart | ToolCallProgress):
            await self.on_tool(update)
        elif isinstance(update, AgentThoughtChunk):
            thought = getattr(update.content, "text", None)
            if isinstance(thought, str) and thought:
                await self.emit("thinking", {"delta": thought})
        elif isinstance(update, AgentPlanUpdate):
            await self.emit("plan", {"entries": [
                {"content": e.content, "status": e.status, "priority": e.priority}
                for e in update.entries]})

    def merge(self, update: Any) -> _Tool:
        tool_id = str(update.tool_call_id)
        tool = self.tools.get(tool_id)
        if tool is None:
            tool = self.tools[tool_id] = _Tool(tool_id)
        for attr in ("kind", "title", "status", "content"):
            value = getattr(update, attr, None)
            if value is not None and value != []:
                setattr(tool, attr, str(value) if attr != "content" else value)
        raw_input = getattr(update, "raw_input", None)
        if raw_input is not None and raw_input != {}:
            tool.raw_input = raw_input
        raw_output = getattr(update, "raw_output", None)
        if raw_output is not None:
            tool.raw_output = raw_output
        if tool.block is not None:
            tool.block["name"] = tool.name
            tool.block["arguments"] = tool.arguments()
        return tool

    async def on_tool(self, update: Any) -> None:
        known = str(update.tool_call_id) in self.tools
        tool = self.merge(update)
        if tool.settled:
            return
        if not known:
            tool.block = {"type": "toolCall", "id": tool.id, "name": tool.name,
                          "arguments": tool.arguments()}
            self.assistant()["content"].append(tool.block)
            self.text = ""
            await self.emit("tool", {"phase": "start", "name": tool.name, "toolCallId": tool.id,
                                     "args": tool.arguments()})
        if tool.status in ("completed", "failed"):
            text = _content_text(tool.content) or _raw_text(tool.raw_output)
            await self.flush_assistant()
            await self.tool_done(tool, text or tool.status, tool.status == "failed")

    async def on_permission(self, tool_call: ToolCallUpdate,
                            options: list[PermissionOption]) -> RequestPermissionResponse:
        tool = self.merge(tool_call)
        if tool.block is None:
            tool.block = {"type": "toolCall", "id": tool.id, "name": tool.name,
                          "arguments": tool.arguments()}
            self.assistant()["content"].append(tool.block)
        permission = await self.tool_calls.ask(
            ToolCallRequest(tool.id, tool.name, tool.arguments()),
            cwd=self.live.cwd if self.live else self.p.workspace_dir)
        if permission.cancelled:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        kinds = (("allow_once", "allow_always") if permission.allowed
                 else ("reject_once", "reject_always"))
        for kind in kinds:
            option = next((o for o in options if str(o.kind) == kind), None)
            if option is not None:
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(outcome="selected", option_id=option.option_id))
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def tool_done(self, tool: _Tool, text: str, is_error: bool) -> None:
        tool.settled = True
        # the agent's raw output goes to the observer, not into the transcript message
        details = _dump(tool.raw_output) if tool.raw_output is not None else None
        await self.tool_calls.settle_native(
            ToolCallRequest(tool.id, tool.name, tool.arguments()),
            result=text_result(text, details=details), is_error=is_error)


def reported_usage(usage: AcpUsage | None) -> dict[str, int] | None:
    """The turn's token counts an agent reports on its prompt's answer (ACP's `usage`,
    unstable), in the transcript's usage shape; None when it reports none. ACP's counts
    are of disjoint kinds (its total is their sum): `inputTokens` is uncached input,
    cache reads and writes beside it, thought tokens part of the output."""
    if usage is None:
        return None
    counts = {"input": usage.input_tokens, "output": usage.output_tokens,
              "totalTokens": usage.total_tokens}
    for name, value in (("cacheRead", usage.cached_read_tokens),
                        ("cacheWrite", usage.cached_write_tokens),
                        ("reasoningTokens", usage.thought_tokens)):
        if value is not None:
            counts[name] = value
    return counts
