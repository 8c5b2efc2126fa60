"""The state of one CLI turn and what it does with each event the CLI sends
(`CliTurnEvents`): the assistant message being built, the tools and their permission
questions, the host's tool server, steering, usage and cost.

`CliTurn` (`turn`) derives from it and adds the process and the turn's lifecycle."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from clawharness.plugin_sdk._cli_backend.events import (
    AssistantMessage,
    CliEvent,
    ControlAnswer,
    HostMcpMessage,
    NativeSessionMissing,
    PermissionRequest,
    SessionStarted,
    TextBlock,
    TextDelta,
    ToolResult,
    TurnFinished,
    UnknownControlRequest,
)
from clawharness.plugin_sdk._cli_backend.host_mcp import (
    HostToolServer,
    host_tools_for,
    native_tool_name,
)
from clawharness.plugin_sdk._cli_backend.live import (
    LiveProcess,
    ProcessStopped,
    TurnTool,
    maybe_await,
    now_ms,
    usage_of,
    user_message,
)
from clawharness.plugin_sdk._cli_backend.spec import CliAgentSpec
from clawharness.plugin_sdk._native_turn import NativeTurn
from clawharness.plugin_sdk._tool_calls import ToolCallOutcome, ToolCallRequest, text_result
from clawharness.plugin_sdk.agent_harness import AttemptParams, ContentBlock, Message
from clawharness.plugin_sdk.agent_harness_process import SupervisedProcesses
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionBindings,
)
from clawharness.records import Usage

__all__ = ["CliTurnEvents", "CliTurnOwner"]

log = logging.getLogger("clawharness.harnesses.cli")


class CliTurnOwner(Protocol):
    """What a turn needs of the harness that owns its process (`CliBackendHarness`)."""

    @property
    def spec(self) -> CliAgentSpec: ...

    @property
    def bindings(self) -> SessionBindings[NativeSessionRecord]: ...

    @property
    def processes(self) -> SupervisedProcesses[LiveProcess]: ...

    def agent_dir(self, params: AttemptParams) -> Path: ...

    def next_request_id(self, prefix: str) -> str: ...


class CliTurnEvents(NativeTurn):
    """One CLI turn's state, and its answer to each event the CLI sends."""

    def __init__(self, harness: CliTurnOwner, params: AttemptParams) -> None:
        super().__init__(params, harness_id=harness.spec.id)
        self.h = harness
        self.spec = harness.spec
        self.session_id: str | None = None
        self.tools: dict[str, TurnTool] = {}
        self.pending: Message | None = None
        self.pending_id: str | None = None
        self.pending_streamed = False
        self.stream_text = ""
        self.finished: TurnFinished | None = None
        self.live: LiveProcess | None = None
        #: this turn's cost as the runtime reported it (`add_cost`), None when it did not
        self.cost_usd: float | None = None
        self.gone: NativeSessionMissing | None = None
        self.recovery: NativeSessionRecovery[NativeSessionRecord] | None = None
        #: messages steered into the running turn, written to the CLI as one user line
        #: per batch, that it has not answered yet (it takes each as its next turn)
        self.steer_batches: list[list[str]] = []
        self.steered = 0
        #: the host tools the runtime lacks, served to it for this turn only (None: the
        #: runtime takes none, or the policy leaves none to offer)
        self.host_server = self._host_server()

    def _host_server(self) -> HostToolServer | None:
        channel = self.spec.host_tools
        if channel is None or not self.p.tools:
            return None
        lacking = host_tools_for(self.p.tools, tuple(self.spec.tool_names.values()))
        offered = self.p.host_capabilities.bind_tool_surface(lacking) if lacking else ()
        if not offered:
            return None
        return HostToolServer(channel.server, offered, self.run_host_tool,
                              is_turn_call=self.tools.__contains__)

    # --- callbacks ---------------------------------------------------------------------

    def message_key(self, suffix: str) -> str:
        """Keyed by the native session, so a message the CLI replays is stored once."""
        return f"{self.spec.id}:{self.session_id or self.p.run_id}:{suffix}"

    # --- process input and place -------------------------------------------------------

    async def write(self, obj: Mapping[str, Any]) -> None:
        assert self.live is not None
        stdin = self.live.child.process.stdin
        if stdin is None or stdin.is_closing():
            raise ProcessStopped("stdin closed")
        stdin.write((json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))
        try:
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise ProcessStopped(str(exc)) from exc

    def live_cwd(self) -> str:
        return self.live.cwd if self.live is not None else self.p.workspace_dir

    # --- events ----------------------------------------------------------------------------

    async def handle(self, event: CliEvent) -> bool:
        """Apply one event; True when the turn is over."""
        if isinstance(event, SessionStarted):
            self.session_id = event.session_id
        elif isinstance(event, TextDelta):
            await self.on_delta(event.text)
        elif isinstance(event, AssistantMessage):
            await self.on_assistant(event)
        elif isinstance(event, ToolResult):
            await self.flush_assistant(terminal_error=None)
            await self.on_tool_result(event)
            await self.steer_in()
        elif isinstance(event, PermissionRequest):
            await self.on_permission(event)
        elif isinstance(event, HostMcpMessage):
            await self.on_host_mcp(event)
        elif isinstance(event, UnknownControlRequest):
            await self.write(self.spec.control.error_reply(
                event.request_id, f"unsupported control request {event.subtype!r}"))
        elif isinstance(event, ControlAnswer):
            if not event.ok:
                log.warning("%s: control request %s failed: %s", self.spec.id,
                            event.request_id, event.error)
        elif isinstance(event, NativeSessionMissing):
            await self.flush_assistant(terminal_error=None)
            if self.live is not None and self.live.resumed == event.session_id:
                self.gone = event
            else:  # not the session we resumed: an ordinary failure of this turn
                self.finished = TurnFinished(None, True, error=event.detail)
            return True
        elif isinstance(event, TurnFinished):
            await self.flush_assistant(terminal_error=event.error if event.is_error else None)
            if event.session_id:
                self.session_id = event.session_id
            self.finished = event
            self.add_usage(event.usage)
            if event.cost_usd is not None:
                self.add_cost(event.cost_usd)
            if self.steer_batches and not event.is_error and not self.p.abort.is_set():
                # the CLI takes a line sent mid-turn as its next turn: this attempt goes
                # on until it has answered every steered line, which starts here
                for text in self.steer_batches.pop(0):
                    await self.settle(user_message(text, ()),
                                      self.message_key(f"steer:{self.steered}"))
                    self.steered += 1
                return False
            return True
        return False

    async def steer_in(self) -> None:
        """At a tool boundary: the messages steered into the host's turn since, as user
        lines on the CLI's input (streamed input), and into the transcript."""
        take = self.p.take_steering
        if take is None or self.live is None or self.p.abort.is_set():
            return
        messages = list(await take())
        if not messages:
            return
        self.steer_batches.append(messages)
        await self.write(self.spec.control.user_turn("\n\n".join(messages), ()))
        await self.emit("steer", {"messages": len(messages)})

    async def unanswered_steering(self) -> None:
        """The turn ended before the CLI answered steered lines: they go back to the
        host to run as the next turn (the process, which still holds them, is closed)."""
        batches, self.steer_batches = self.steer_batches, []
        give_back = self.p.return_steering
        if give_back is not None and batches:
            await give_back([text for batch in batches for text in batch])

    def add_usage(self, usage: Mapping[str, Any] | None) -> None:
        if usage:
            self.usage = self.usage.plus(usage_of(usage))

    def add_cost(self, total: float) -> None:
        """The process's reported running total of its cost: this turn's part of it (what
        it grew by since the process's last report) is the turn's cost."""
        live = self.live
        before = 0.0 if live is None else live.cost_usd
        if live is not None:
            live.cost_usd = total
        self.cost_usd = (self.cost_usd or 0.0) + max(0.0, total - before)

    def note_progress(self, *, tool: bool) -> None:
        if self.recovery is not None:
            if tool:
                self.recovery.progress.note_tool()
            else:
                self.recovery.progress.note_output()

    async def on_delta(self, text: str) -> None:
        if not text:
            return
        self.note_progress(tool=False)
        self.stream_text += text
        self.pending_streamed = True
        if self.p.on_partial_reply is not None:
            await maybe_await(self.p.on_partial_reply(self.stream_text))
        await self.emit("assistant", {"text": self.stream_text, "delta": text})

    async def on_assistant(self, event: AssistantMessage) -> None:
        if self.pending is not None and (event.message_id is None
                                         or event.message_id != self.pending_id):
            await self.flush_assistant(terminal_error=None)
        if self.pending is None:
            self.pending = {
                "role": "assistant", "content": [], "stopReason": "stop",
                "usage": Usage.zero().to_wire(),
                "provider": self.p.provider, "model": self.p.model_id, "api": self.spec.api,
                "timestamp": now_ms()}
            self.pending_id = event.message_id
        content: list[ContentBlock] = self.pending["content"]
        for block in event.blocks:
            if isinstance(block, TextBlock):
                if not block.text:
                    continue
                self.note_progress(tool=False)
                content.append({"type": "text", "text": block.text})
            else:
                self.note_progress(tool=True)
                canonical = self.spec.canonical_tool(block.name)
                content.append({"type": "toolCall", "id": block.id, "name": canonical,
                                "arguments": dict(block.input)})
                if block.id not in self.tools:
                    self.tools[block.id] = TurnTool(block.id, block.name, canonical,
                                                 dict(block.input))
                    if self.host_server is not None and self.spec.host_tool(block.name) is not None:
                        continue  # a host tool: the host announces it when it runs it
                    await self.emit("tool", {"phase": "start", "name": canonical,
                                             "toolCallId": block.id, "args": dict(block.input)})
        if event.usage:
            self.pending["usage"] = usage_of(event.usage).to_wire()
        if event.error:
            self.pending["stopReason"] = "error"
            self.pending["errorMessage"] = event.error

    async def flush_assistant(self, *, terminal_error: str | None) -> None:
        message, self.pending = self.pending, None
        message_id, self.pending_id = self.pending_id, None
        streamed, self.pending_streamed = self.pending_streamed, False
        self.stream_text = ""
        if message is None:
            return
        content = message["content"]
        if terminal_error and message.get("stopReason") != "error":
            message["stopReason"] = "error"
            message["errorMessage"] = terminal_error
        elif any(b["type"] == "toolCall" for b in content) and message["stopReason"] != "error":
            message["stopReason"] = "toolUse"
        text = "".join(b["text"] for b in content if b["type"] == "text")
        if text and message["stopReason"] != "error":
            self.assistant_texts.append(text)
            if not streamed and self.p.on_partial_reply is not None:
                await maybe_await(self.p.on_partial_reply(text))
        suffix = f"msg:{message_id}" if message_id else f"assistant:{len(self.new_messages)}"
        await self.settle(message, self.message_key(suffix))

    async def on_host_mcp(self, event: HostMcpMessage) -> None:
        """A message to the host's tool server: answered by this turn's server, refused
        when the turn has none (or names another server)."""
        channel, server = self.spec.host_tools, self.host_server
        if channel is None or server is None or event.server_name != server.name:
            await self.write(self.spec.control.error_reply(
                event.request_id, f"no MCP server {event.server_name!r} in this turn"))
            return
        await self.write(channel.reply(event.request_id, await server.handle(event.message)))

    async def run_host_tool(self, call: ToolCallRequest) -> ToolCallOutcome:
        """A host tool the runtime called through the host's server: run and recorded by
        the SDK's routine (policy, approval, ledger, transcript), the runtime's own
        report of the call then skipped."""
        self.note_progress(tool=True)
        await self.flush_assistant(terminal_error=None)  # the call before its result
        tool = self.tools.get(call.call_id)
        if tool is None:
            assert self.spec.host_tools is not None
            tool = self.tools[call.call_id] = TurnTool(
                call.call_id, native_tool_name(self.spec.host_tools.server, call.name),
                call.name, dict(call.arguments))
        tool.settled = True
        return await self.tool_calls.run_host_tool(call)

    async def on_permission(self, event: PermissionRequest) -> None:
        self.note_progress(tool=True)
        canonical = self.spec.canonical_tool(event.tool_name)
        call_id = event.tool_use_id or ""
        if event.tool_use_id and event.tool_use_id not in self.tools:
            self.tools[event.tool_use_id] = TurnTool(
                event.tool_use_id, event.tool_name, canonical, dict(event.input))
        if self.host_server is not None and self.spec.host_tool(event.tool_name) is not None:
            # a host tool: its policy and approval run once, when the server runs it
            await self.write(self.spec.control.permission_reply(
                event, allow=True, updated_input=dict(event.input), message=None))
            return
        permission = await self.tool_calls.ask(
            ToolCallRequest(call_id, canonical, dict(event.input)), cwd=self.live_cwd())
        allow = permission.allowed
        message = None if allow else (permission.reason or "blocked by the host's tool policy")
        await self.write(self.spec.control.permission_reply(
            event, allow=allow, updated_input=dict(permission.arguments) if allow else None,
            message=message))

    async def on_tool_result(self, event: ToolResult) -> None:
        self.note_progress(tool=True)
        tool = self.tools.get(event.tool_use_id)
        if tool is None:
            tool = self.tools[event.tool_use_id] = TurnTool(event.tool_use_id, "unknown",
                                                        "unknown", {})
        if tool.settled:
            return
        await self.tool_done(tool, event.text, event.is_error, event.details)

    async def tool_done(self, tool: TurnTool, text: str, is_error: bool, details: Any) -> None:
        tool.settled = True
        await self.tool_calls.settle_native(
            ToolCallRequest(tool.id, tool.name, tool.arguments),
            result=text_result(text, details=details), is_error=is_error)
