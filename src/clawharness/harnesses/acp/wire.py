"""The `acp` harness's wire: the `acp` library's `ClientSideConnection` to one agent
process, the client side it serves (updates, permissions, files), and a turn on it.
Imported when a turn runs, so loading the plugin does not import the library."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from acp import Client, RequestError
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AcpMcpServer,
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    HttpMcpServer,
    Implementation,
    McpServerStdio,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SseMcpServer,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from clawharness.harnesses.acp.common import (
    ACP_PROTOCOL_VERSION,
    HARNESS_ID,
    AcpAgentConfig,
    AcpHarnessError,
    agent_environment,
    canonical_tool_name,
    load_refused_as_gone,
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
from clawharness.plugin_sdk.agent_harness_mcp import acp_mcp_servers
from clawharness.plugin_sdk.agent_harness_process import (
    BoundedLineReader,
    ChildProcess,
    SupervisedProcesses,
    kill_stray_groups,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_runtime import NativeTurn
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionGone,
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionBindings,
    native_session_recovery,
)
from clawharness.plugin_sdk.agent_harness_tool_runtime import (
    ToolCallRequest,
    WorkspacePathEscapeError,
    resolve_workspace_path,
    text_result,
)

__all__ = ["AcpTurn", "AcpTurnOwner", "Live", "guard", "open_live"]

log = logging.getLogger("clawharness.harnesses.acp")


class AcpTurnOwner(Protocol):
    """What the wire needs of the harness that owns the agents' processes (`AcpHarness`)."""

    @property
    def bindings(self) -> SessionBindings[NativeSessionRecord]: ...

    @property
    def processes(self) -> SupervisedProcesses[Live]: ...

    def native_state_dir(self, params: AttemptParams) -> Path: ...

CLIENT_INFO = Implementation(name="clawharness", title="clawharness", version="0.1")


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


# --- the client side of the connection ---------------------------------------------------


class _Client:
    """`acp.Client` for one agent process; routes to the turn currently attached."""

    def __init__(self, live: Live) -> None:
        self.live = live

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        turn = self.live.turn
        if turn is None or session_id != self.live.session_id:
            return  # e.g. history replayed by session/load: already in the transcript
        await turn.on_update(update)

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                 options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        turn = self.live.turn
        if turn is None or session_id != self.live.session_id:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return await turn.on_permission(tool_call, options)

    def _path(self, path: str) -> Path:
        try:
            return resolve_workspace_path(self.live.cwd, path)
        except (WorkspacePathEscapeError, ValueError) as exc:
            raise RequestError.invalid_params({"path": path, "message": str(exc)}) from exc

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        target = self._path(path)
        try:
            text = await asyncio.to_thread(target.read_text, encoding="utf-8")
        except FileNotFoundError as exc:
            raise RequestError.invalid_params({"path": path, "message": "file not found"}) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise RequestError.internal_error({"path": path, "message": str(exc)}) from exc
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            end = len(lines) if limit is None else start + max(0, limit)
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse | None:
        target = self._path(path)

        def write() -> None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")

        try:
            await asyncio.to_thread(write)
        except OSError as exc:
            raise RequestError.internal_error({"path": path, "message": str(exc)}) from exc
        return WriteTextFileResponse()


@dataclass(slots=True)
class Live:
    """One binding's agent process and connection."""

    agent: AcpAgentConfig
    child: ChildProcess
    cwd: str
    fingerprint: str
    conn: ClientSideConnection | None = None
    session_id: str | None = None
    turn: AcpTurn | None = None
    load_session: bool = False
    #: a session made by `session/new` for this turn: its first prompt carries the
    #: host transcript
    fresh: bool = False
    #: the agent's stdout, read within the frame limits
    lines: BoundedLineReader | None = None

    def stopped_reading(self) -> str | None:
        """Why the agent's output stopped being read (a frame past a limit), if it did."""
        return self.lines.problem if self.lines is not None else None


async def open_live(harness: AcpTurnOwner, params: AttemptParams, key: str, agent: AcpAgentConfig,
                    record: NativeSessionRecord | None,
                    recovery: NativeSessionRecovery[NativeSessionRecord]) -> Live:
    """The binding's live agent: reused, or spawned + initialized + session new/load.

    A bound session the agent says it does not have (or cannot load at all) is
    dropped through `recovery` before `session/new`; any other load failure fails
    the turn and keeps the binding."""
    _home, env = agent_environment(harness.native_state_dir(params), params.agent_id, agent)
    cwd = params.workspace_dir
    # a change of the host's MCP servers needs a new process (a session keeps its own)
    fingerprint = json.dumps([list(agent.command), sorted(env.items()), cwd,
                              [dataclasses.asdict(s) for s in params.mcp_servers]],
                             default=str)
    native = record.get("nativeSessionId") if record else None
    live = harness.processes.get(key)
    if live is not None and (not live.child.alive or live.fingerprint != fingerprint
                             or live.conn is None or live.session_id != native):
        await harness.processes.close(key)
        live = None
    if live is not None:
        return live
    try:
        child = await spawn(agent.command, env=env, cwd=cwd)
    except OSError as exc:
        raise AcpHarnessError(f"could not start ACP agent {agent.name!r}: {exc}") from exc
    live = Live(agent, child, cwd, fingerprint)
    harness.processes.put(key, live)
    try:
        process = child.process
        assert process.stdin is not None and process.stdout is not None
        # terminals and elicitation are not offered (capabilities), so `_Client` serves
        # only the fs / permission / update part of `acp.Client`
        client = cast(Client, _Client(live))
        live.lines = BoundedLineReader(process.stdout, what=f"ACP agent {agent.name!r}")
        live.conn = ClientSideConnection(client, process.stdin,
                                         cast(asyncio.StreamReader, live.lines))
        init = await guard(live, live.conn.initialize(
            protocol_version=ACP_PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=False),
            client_info=CLIENT_INFO))
        caps = getattr(init, "agent_capabilities", None)
        live.load_session = bool(getattr(caps, "load_session", False))
        mcp_servers = _mcp_servers(params, getattr(caps, "mcp_capabilities", None))
        if isinstance(native, str) and native:
            gone: str | None = None
            if not live.load_session:
                gone = (f"ACP agent {agent.name!r} does not offer session/load, so the "
                        "session cannot be resumed in a new process")
            else:
                try:
                    live.session_id = native  # replayed updates route nowhere: no turn
                    await guard(live, live.conn.load_session(
                        cwd=cwd, session_id=native, mcp_servers=mcp_servers))
                except RequestError as exc:
                    live.session_id = None
                    gone = load_refused_as_gone(exc)
                    if gone is None:
                        raise AcpHarnessError(
                            f"ACP agent {agent.name!r} could not load session {native} "
                            f"({exc.code}: {exc}; {exc.data}); the binding is kept and "
                            "the next turn tries again") from exc
            if gone is not None:
                outcome = await recovery.session_gone(NativeSessionGone(native, gone))
                if not outcome.start_fresh:
                    raise AcpHarnessError(outcome.error or outcome.warning)
        if live.session_id is None:
            created = await guard(live, live.conn.new_session(
                cwd=cwd, mcp_servers=mcp_servers))
            live.session_id = str(created.session_id)
            live.fresh = True
    except BaseException:
        await harness.processes.close(key)
        raise
    return live


async def guard(live: Live, request: Any) -> Any:
    """Await an agent request, failing fast if the agent process exits meanwhile."""
    task = asyncio.ensure_future(request)
    exited = asyncio.ensure_future(live.child.process.wait())
    try:
        done, _ = await asyncio.wait({task, exited}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            if isinstance(task.exception(), ConnectionError) and live.stopped_reading():
                raise AcpHarnessError(str(live.stopped_reading()))
            return task.result()
        raise AcpHarnessError(
            f"ACP agent {live.agent.name!r} exited (code {live.child.process.returncode})"
            + (f": {live.child.stderr_text()[-600:]}" if live.child.stderr_text() else ""))
    finally:
        for pending in (task, exited):
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending


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
        task = asyncio.ensure_future(conn.prompt(session_id=session_id, prompt=list(blocks)))
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
        return self.recovery.annotate(result) if self.recovery is not None else result

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


AcpMcpServerParam = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def _mcp_servers(params: AttemptParams, caps: Any) -> list[AcpMcpServerParam]:
    """The host's configured MCP servers as ACP `mcpServers`, by the agent's
    `mcpCapabilities` (a server it cannot take is left out, with a warning)."""
    if not params.mcp_servers:
        return []
    listed, left_out = acp_mcp_servers(params.mcp_servers,
                                       http=bool(getattr(caps, "http", False)),
                                       sse=bool(getattr(caps, "sse", False)))
    for note in left_out:
        log.warning("%s", note)
    out: list[AcpMcpServerParam] = []
    for entry in listed:
        kind = entry.get("type")
        model = HttpMcpServer if kind == "http" else SseMcpServer if kind == "sse" else McpServerStdio
        out.append(model.model_validate(entry))
    return out
