"""One attempt of a CLI agent on one binding's process (`CliTurn`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import replace
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
from clawharness.plugin_sdk._cli_backend.spec import (
    CliAgentSpec,
    CliBackendError,
    EnvContext,
    LaunchRequest,
)
from clawharness.plugin_sdk._native_turn import NativeTurn
from clawharness.plugin_sdk._tool_calls import ToolCallOutcome, ToolCallRequest, text_result
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ContentBlock,
    Message,
)
from clawharness.plugin_sdk.agent_harness_process import (
    InputLimitError,
    SupervisedProcesses,
    decode_json_frame,
    kill_stray_groups,
    read_frame_line,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionGone,
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionBindings,
    native_session_recovery,
)
from clawharness.records import Usage, UsageCost

__all__ = ["CliTurn", "CliTurnOwner"]

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


class CliTurn(NativeTurn):
    """One attempt on one binding."""

    def __init__(self, harness: CliTurnOwner, params: AttemptParams, key: str,
                 command: tuple[str, ...], env_extra: Mapping[str, str], grace: float,
                 idle: float, config: Mapping[str, Any]) -> None:
        super().__init__(params, harness_id=harness.spec.id)
        self.h = harness
        self.spec = harness.spec
        self.key = key
        self.command = command
        self.env_extra = env_extra
        self.grace = grace
        self.idle = idle
        self.config = config
        self.started = False
        self.session_id: str | None = None
        self.tools: dict[str, TurnTool] = {}
        self.pending: Message | None = None
        self.pending_id: str | None = None
        self.pending_streamed = False
        self.stream_text = ""
        self.killed = False
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

    # --- process -------------------------------------------------------------------------

    def environment(self, agent_dir: Path) -> dict[str, str]:
        home = agent_dir / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
               "HOME": str(home)}
        env.update(self.spec.command_line.environment(EnvContext(home, agent_dir, self.p)))
        env.update(self.env_extra)
        return env

    async def ensure_process(self, record: NativeSessionRecord | None) -> LiveProcess:
        p = self.p
        agent_dir = self.h.agent_dir(p)
        cwd = str(record.get("cwd")) if record and record.get("cwd") else p.workspace_dir
        if not os.path.isdir(cwd):
            cwd = p.workspace_dir
        env = self.environment(agent_dir)
        native = record.get("nativeSessionId") if record else None
        fork = bool(native and record and record.get("hostSessionId")
                    and record.get("hostSessionId") != p.session_id)
        host_tools = self.host_server.tool_names if self.host_server is not None else ()
        base = LaunchRequest(self.command, p.model_id, cwd, options=self.config,
                             mcp_servers=tuple(p.mcp_servers), agent_dir=agent_dir,
                             host_tools=host_tools)
        # the runtime lists the host's tools once per process: another set, another one
        fingerprint = json.dumps([self.spec.command_line.argv(base), sorted(env.items()), cwd,
                                  host_tools])
        live = self.h.processes.get(self.key)
        if live is not None and (not live.child.alive or live.fingerprint != fingerprint
                                 or fork or live.session_id != native):
            await self.h.processes.close(self.key)
            live = None
        if live is not None:
            return live
        launch = LaunchRequest(self.command, p.model_id, cwd,
                               resume_session_id=native if isinstance(native, str) else None,
                               fork=fork, options=self.config,
                               mcp_servers=tuple(p.mcp_servers), agent_dir=agent_dir,
                               host_tools=host_tools)
        argv = self.spec.command_line.argv(launch)
        try:
            child = await spawn(argv, env=env, cwd=cwd)
        except OSError as exc:
            raise CliBackendError(f"could not start {argv[0]}: {exc}") from exc
        resumed = native if isinstance(native, str) else None
        live = LiveProcess(child, fingerprint, cwd, resumed, resumed=resumed, fresh=resumed is None)
        self.h.processes.put(self.key, live)
        return live

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

    # --- the turn --------------------------------------------------------------------------

    async def run(self, bound: BoundSession[NativeSessionRecord]) -> AttemptResult:
        p = self.p
        assert_lease = bound.assert_lease
        record = bound.record
        self.recovery = native_session_recovery(
            p, harness_id=self.spec.id, lifecycle=await self.h.bindings.lifecycle(),
            key=bound.key, logger=log)
        await self.emit("lifecycle", {"phase": "start", "runId": p.run_id,
                                      "sessionId": p.session_id, "harnessId": self.spec.id})
        await self.settle(user_message(p.prompt, p.images), f"{p.run_id}:user")
        if p.abort.is_set():
            return await self.finish(AttemptTerminal("aborted", source="external",
                                                     error="aborted before start"))
        self.live = await self.ensure_process(record)
        self.session_id = self.live.session_id
        self.started = True
        assert_lease()
        error = await self.guarded_drive()
        terminal: AttemptTerminal | None = None
        if self.gone is not None:
            terminal, error = await self.recover(assert_lease)
        if terminal is None:
            terminal = await self.terminal(error)
        if self.session_id is not None:
            self.live.session_id = self.session_id
            new_record: NativeSessionRecord = {
                "nativeSessionId": self.session_id, "hostSessionId": p.session_id,
                "cwd": self.live_cwd(), "harness": self.spec.id}
            with contextlib.suppress(Exception):
                assert_lease()
            await bound.write(new_record)
        return await self.finish(terminal)

    async def guarded_drive(self) -> str | None:
        assert self.live is not None
        live = self.live
        try:
            return await self.drive()
        except BaseException:
            # cancelled from outside (or a host callback failed): nothing may outlive us
            self.h.processes.pop(self.key)
            live.child.kill()
            raise

    async def recover(self, assert_lease: Any) -> tuple[AttemptTerminal | None, str | None]:
        """The session this process resumed is gone: drop the binding, and run the turn on
        a fresh native session unless that would replay output or a tool. Returns the
        terminal when the attempt ends here, else the fresh run's stop error."""
        gone, self.gone = self.gone, None
        assert gone is not None and self.recovery is not None
        await self.h.processes.close(self.key)
        self.session_id = None  # the stale id is never written back
        outcome = await self.recovery.session_gone(NativeSessionGone(gone.session_id,
                                                                     gone.detail))
        if not outcome.start_fresh:
            return AttemptTerminal("failed", source="prompt", error=outcome.error), None
        if self.stop_kind is not None or self.p.abort.is_set():
            self.stop_kind = self.stop_kind or "aborted"
            return None, None  # stopped meanwhile: the next turn starts the fresh session
        assert_lease()
        self.live = await self.ensure_process(None)
        self.session_id = self.live.session_id
        return None, await self.guarded_drive()

    def turn_context(self) -> str | None:
        """The host transcript, for the first turn of a fresh native session."""
        assert self.live is not None
        if not self.live.fresh:
            return None
        self.live.fresh = False
        return self.recovery.context() if self.recovery is not None else None

    async def drive(self) -> str | None:
        """Handshake (once per process), send the turn, read it to its end."""
        assert self.live is not None
        stopped_with: list[str] = []
        try:
            if not self.live.handshake_sent:
                for obj in self.spec.control.handshake():
                    await self.write(obj)
                self.live.handshake_sent = True
            await self.write(self.spec.control.user_turn(self.p.prompt, self.p.images,
                                                         context=self.turn_context()))
            async with asyncio.TaskGroup() as group:
                reader = group.create_task(self.read_turn())
                watcher = group.create_task(self.watch())
                reader.add_done_callback(lambda _: watcher.cancel())
        except* ProcessStopped as stopped:
            stopped_with.append(str(stopped.exceptions[0]))
        return stopped_with[0] if stopped_with else None

    def live_cwd(self) -> str:
        return self.live.cwd if self.live is not None else self.p.workspace_dir

    async def terminal(self, error: str | None) -> AttemptTerminal:
        live = self.live
        assert live is not None
        done = self.finished
        unanswered = bool(self.steer_batches)
        if unanswered:
            await self.unanswered_steering()
        if done is None or not live.child.alive or unanswered:
            # the process is gone or unusable: reap it and whatever it left behind
            await self.h.processes.close(self.key)
        else:
            kill_stray_groups(live.child.pid, live.child.pgid)
            if self.h.processes.get(self.key) is live:
                self.h.processes.expire_after(self.key, self.idle)
        if self.stop_kind == "aborted":
            return AttemptTerminal("aborted", source="external", error="aborted")
        if self.stop_kind == "timeout":
            return AttemptTerminal("timeout", source="runtime", phase="prompt",
                                   error="the attempt deadline passed")
        if done is None:
            tail = live.child.stderr_text()
            detail = error or "the process ended before the turn finished"
            code = live.child.process.returncode
            message = f"{self.spec.id} exited (code {code}): {detail}"
            if tail:
                message += f"; stderr: {tail[-600:]}"
            return AttemptTerminal("failed", source="prompt", error=message)
        if done.is_error:
            return AttemptTerminal("failed", source="prompt",
                                   error=done.error or done.text or "the turn failed")
        return AttemptTerminal.ok()

    async def finish(self, terminal: AttemptTerminal) -> AttemptResult:
        if self.host_server is not None:
            self.host_server.close()  # nothing the runtime sends after the turn is served
        await self.flush_assistant(terminal_error=None)
        note = "aborted" if terminal.kind == "aborted" else (
            "stopped: the attempt timed out" if terminal.kind == "timeout"
            else "the runtime stopped before the tool finished")
        for tool in list(self.tools.values()):
            if not tool.settled:
                await self.tool_done(tool, f"Tool call {note}.", True, None)
        end: dict[str, Any] = {"phase": "end", "terminal": terminal.kind}
        if terminal.error:
            end["error"] = terminal.error
        await self.emit("lifecycle", end)
        if self.cost_usd is not None and self.p.auth.api_key:
            # what the provider bills the key the host gave the runtime; without one (a
            # local server, a proxy) the runtime's own prices are not what anyone pays
            self.usage = replace(self.usage, cost=UsageCost(total=self.cost_usd))
        result = self.result(terminal, native_session_id=self.session_id)
        return self.recovery.annotate(result) if self.recovery is not None else result

    async def watch(self) -> None:
        """Wait for abort or the deadline; then interrupt, and kill as a last resort."""
        await self.wait_for_stop()
        request = self.spec.control.interrupt(self.h.next_request_id("interrupt"))
        if request is not None:
            with contextlib.suppress(ProcessStopped, OSError):
                await self.write(request)
            await asyncio.sleep(self.grace)  # the reader cancels us once the turn ends
        assert self.live is not None
        self.killed = True
        self.live.child.kill()

    async def read_turn(self) -> None:
        assert self.live is not None
        stdout = self.live.child.process.stdout
        assert stdout is not None
        what = f"the {self.spec.id} CLI's output"
        while True:
            try:
                line = await read_frame_line(stdout, what=what)
            except InputLimitError as exc:
                raise ProcessStopped(str(exc)) from exc
            if not line:
                raise ProcessStopped("the process closed its output" if not self.killed
                            else "the process was killed")
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                obj = decode_json_frame(text, what=what)
            except InputLimitError as exc:
                raise ProcessStopped(str(exc)) from exc
            except ValueError:
                log.debug("%s: non-JSON output: %s", self.spec.id, text[:200])
                continue
            if not isinstance(obj, Mapping):
                continue
            for event in self.spec.events.map(obj):
                if await self.handle(event):
                    return

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
