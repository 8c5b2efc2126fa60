"""The ACP harness's portable sessions (docs/portable-sessions.md): adopt a session an
agent keeps by having the agent replay it.

An ACP agent keeps its sessions itself; a client sees one only through `session/load`,
which replays its history as `session/update` notifications before it answers. Adopting
runs the agent as the harness runs it for that host agent (the same command, `env`, HOME
and working directory, so the same sessions), loads the session, and turns the replay
into host messages: the user's chunks, the agent's chunks, tool calls merged by id and
their results. Binding writes the session's id; the next turn `session/load`s it again.

ACP has no request that makes a session holding a given history (`session/new` starts
empty, `session/load` replays only what the agent stored), so a handoff is refused.
Imported when used: it loads the `acp` library.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from acp import Client, RequestError
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from clawharness.harnesses.acp.common import (
    ACP_PROTOCOL_VERSION,
    HARNESS_ID,
    AcpAgentConfig,
    AcpHarnessError,
    agent_environment,
    canonical_tool_name,
    load_refused_as_gone,
)
from clawharness.plugin_sdk.agent_harness import ContentBlock, Message
from clawharness.plugin_sdk.agent_harness_process import (
    BoundedLineReader,
    ChildProcess,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    AdoptRequest,
    NativeAdoption,
    NativeEntry,
    NativeSessionNotFoundError,
    NativeSessionRecord,
    NativeSessionUnsupportedError,
    SessionBindings,
)

__all__ = ["ReplayOwner", "adopt_acp_session", "replay_messages"]

CLIENT_INFO = Implementation(name="clawharness", title="clawharness", version="0.1")


class ReplayOwner(Protocol):
    """What an adoption needs of the harness (`AcpHarness`)."""

    @property
    def bindings(self) -> SessionBindings[NativeSessionRecord]: ...

    def native_state_dir_for(self, state_dir: str | None, workspace_dir: str,
                             plugin_config: Mapping[str, Any] | None = None) -> Any: ...


class _Replay:
    """`acp.Client` that only listens: the updates of one session, in arrival order."""

    def __init__(self) -> None:
        self.session_id: str | None = None
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if session_id == self.session_id:
            self.updates.append(update)

    async def request_permission(self, *args: Any, **kwargs: Any) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


async def _guard(child: ChildProcess, agent: AcpAgentConfig, request: Awaitable[Any],
                 timeout: float) -> Any:
    """Await an agent request, failing fast when the agent exits, and after `timeout`."""
    task = asyncio.ensure_future(request)
    exited = asyncio.ensure_future(child.process.wait())
    try:
        done, _ = await asyncio.wait({task, exited}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            return task.result()
        if exited in done:
            tail = child.stderr_text()
            raise AcpHarnessError(f"ACP agent {agent.name!r} exited (code "
                                  f"{child.process.returncode})"
                                  + (f": {tail[-600:]}" if tail else ""))
        raise AcpHarnessError(f"ACP agent {agent.name!r} did not answer within {timeout:g}s")
    finally:
        for pending in (task, exited):
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending


async def _replay(agent: AcpAgentConfig, session_id: str, *, cwd: str, env: dict[str, str],
                  timeout: float) -> list[Any]:
    """The updates `session/load` replays for `session_id`, from a process of its own."""
    try:
        child = await spawn(agent.command, env=env, cwd=cwd)
    except OSError as exc:
        raise AcpHarnessError(f"could not start ACP agent {agent.name!r}: {exc}") from exc
    client = _Replay()
    lines: BoundedLineReader | None = None
    conn: ClientSideConnection | None = None
    try:
        process = child.process
        assert process.stdin is not None and process.stdout is not None
        lines = BoundedLineReader(process.stdout, what=f"ACP agent {agent.name!r}")
        conn = ClientSideConnection(cast(Client, client), process.stdin,
                                    cast(asyncio.StreamReader, lines))
        init = await _guard(child, agent, conn.initialize(
            protocol_version=ACP_PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
                terminal=False),
            client_info=CLIENT_INFO), timeout)
        caps = getattr(init, "agent_capabilities", None)
        if not getattr(caps, "load_session", False):
            raise NativeSessionUnsupportedError(
                f"ACP agent {agent.name!r} does not offer session/load, so no session of it "
                "can be read or resumed")
        client.session_id = session_id
        try:
            await _guard(child, agent, conn.load_session(cwd=cwd, session_id=session_id,
                                                         mcp_servers=[]), timeout)
        except RequestError as exc:
            gone = load_refused_as_gone(exc)
            if gone is not None:
                raise NativeSessionNotFoundError(
                    f"ACP agent {agent.name!r} has no session {session_id} for {cwd} "
                    f"({gone})") from exc
            raise AcpHarnessError(f"ACP agent {agent.name!r} could not load session "
                                  f"{session_id}: {exc.code}: {exc}") from exc
        # the replayed notifications are dispatched as tasks started before the answer
        # was read; one turn of the loop lets the last of them record its update
        await asyncio.sleep(0)
        return list(client.updates)
    finally:
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
        await child.shutdown(grace=2.0)
        if lines is not None:
            await lines.aclose()


@dataclass(slots=True)
class _Tool:
    block: ContentBlock
    kind: str | None = None
    title: str | None = None
    raw_input: Any = None
    settled: bool = False
    notes: list[str] = field(default_factory=list)


def _chunk_block(content: Any) -> ContentBlock | None:
    text = getattr(content, "text", None)
    if isinstance(text, str):
        return {"type": "text", "text": text} if text else None
    data, mime = getattr(content, "data", None), getattr(content, "mime_type", None)
    if isinstance(data, str) and getattr(content, "type", None) == "image":
        return {"type": "image", "data": data, "mimeType": str(mime or "image/png")}
    return None


def _tool_text(update: Any) -> str:
    parts: list[str] = []
    for item in getattr(update, "content", None) or []:
        text = getattr(getattr(item, "content", None), "text", None)
        if isinstance(text, str):
            parts.append(text)
    if parts:
        return "\n".join(parts)
    raw = getattr(update, "raw_output", None)
    return raw if isinstance(raw, str) else ("" if raw is None else str(raw))


class _Assembler:
    """Replayed updates -> host messages, keyed by their place in the session."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, Message]] = []
        self.user: list[ContentBlock] = []
        self.reply: Message | None = None
        self.tools: dict[str, _Tool] = {}
        self.left_out: dict[str, int] = {}
        self.users = self.replies = 0

    def flush_user(self) -> None:
        if self.user:
            self.users += 1
            self.messages.append((f"user:{self.users}", {"role": "user",
                                                          "content": self.user}))
            self.user = []

    def flush_reply(self) -> None:
        if self.reply is not None and self.reply["content"]:
            self.replies += 1
            if any(b.get("type") == "toolCall" for b in self.reply["content"]):
                self.reply["stopReason"] = "toolUse"
            self.messages.append((f"reply:{self.replies}", self.reply))
        self.reply = None

    def reply_content(self) -> list[ContentBlock]:
        if self.reply is None:
            self.reply = {"role": "assistant", "content": [], "stopReason": "stop",
                          "api": "acp"}
        return self.reply["content"]

    def add(self, update: Any) -> None:
        if isinstance(update, UserMessageChunk):
            self.flush_reply()
            block = _chunk_block(update.content)
            if block is not None:
                _append(self.user, block)
        elif isinstance(update, AgentMessageChunk):
            self.flush_user()
            block = _chunk_block(update.content)
            if block is not None:
                _append(self.reply_content(), block)
        elif isinstance(update, AgentThoughtChunk):
            self.left_out["the agent's thoughts"] = self.left_out.get(
                "the agent's thoughts", 0) + 1
        elif isinstance(update, ToolCallStart | ToolCallProgress):
            self.flush_user()
            self.tool(update)

    def tool(self, update: Any) -> None:
        tool_id = str(update.tool_call_id)
        tool = self.tools.get(tool_id)
        if tool is None:
            tool = self.tools[tool_id] = _Tool({"type": "toolCall", "id": tool_id,
                                                "name": "tool", "arguments": {}})
            self.reply_content().append(tool.block)
        for attr in ("kind", "title"):
            value = getattr(update, attr, None)
            if value is not None:
                setattr(tool, attr, str(value))
        raw = getattr(update, "raw_input", None)
        if isinstance(raw, Mapping) and raw:
            tool.raw_input = dict(raw)
        tool.block["name"] = canonical_tool_name(tool.kind, tool.title)
        tool.block["arguments"] = tool.raw_input or {}
        status = str(getattr(update, "status", "") or "")
        if status in ("completed", "failed") and not tool.settled:
            tool.settled = True
            self.flush_reply()
            text = _tool_text(update) or status
            self.messages.append((f"tool:{tool_id}", {
                "role": "toolResult", "toolCallId": tool_id, "toolName": tool.block["name"],
                "content": [{"type": "text", "text": text}], "isError": status == "failed"}))

    def finish(self) -> list[tuple[str, Message]]:
        self.flush_user()
        self.flush_reply()
        return self.messages


def _append(content: list[ContentBlock], block: ContentBlock) -> None:
    last = content[-1] if content else None
    if block.get("type") == "text" and last is not None and last.get("type") == "text":
        last["text"] = last.get("text", "") + block.get("text", "")
    else:
        content.append(block)


def replay_messages(updates: list[Any]) -> tuple[list[tuple[str, Message]], tuple[str, ...]]:
    """The host messages of a replayed session (and what was left out); keyed by their
    place in it (`user:<n>`, `reply:<n>`, `tool:<id>`), stable while the session only
    grows."""
    assembler = _Assembler()
    for update in updates:
        assembler.add(update)
    messages = assembler.finish()
    notes = tuple(f"{why} ({n})" for why, n in assembler.left_out.items())
    return messages, notes


async def adopt_acp_session(owner: ReplayOwner, request: AdoptRequest, agent: AcpAgentConfig,
                            *, timeout: float = 120.0) -> NativeAdoption:
    """An ACP agent's session, replayed, ready to bind to a host session."""
    session_id = request.source.strip()
    if not session_id:
        raise NativeSessionNotFoundError("no ACP session id given")
    state = owner.native_state_dir_for(request.state_dir, request.workspace_dir)
    _home, env = agent_environment(state, request.agent_id, agent)
    cwd = request.workspace_dir
    updates = await _replay(agent, session_id, cwd=cwd, env=env, timeout=timeout)
    messages, notes = replay_messages(updates)
    if not messages:
        raise NativeSessionNotFoundError(
            f"ACP agent {agent.name!r} replayed nothing for session {session_id}: there is "
            "no conversation to adopt")
    bindings = owner.bindings
    found = await bindings.find(lambda r: r.get("nativeSessionId") == session_id
                                and r.get("agent") in (None, agent.name))
    agent_id = request.agent_id
    done: dict[str, Any] = {}

    async def bind(session_key: str, host_session_id: str) -> None:
        record: NativeSessionRecord = {
            "nativeSessionId": session_id, "hostSessionId": host_session_id,
            "agent": agent.name, "cwd": cwd, "harness": HARNESS_ID,
            "adoptedFrom": f"acp/{agent.name}"}
        previous = await bindings.replace(
            agent_id, session_key, record,
            when=lambda current: current is None
            or current.get("nativeSessionId") == session_id)
        done.update(key=session_key, record=record, previous=previous)

    async def unbind() -> None:
        if "key" in done:
            record, previous = done["record"], done["previous"]
            await bindings.replace(agent_id, done["key"],
                                   previous if previous is not None else bindings.empty,
                                   when=lambda current: current == record)
        done.clear()

    return NativeAdoption(
        harness_id=HARNESS_ID, native_session_id=session_id,
        entries=tuple(NativeEntry(key, message) for key, message in messages),
        source=f"acp/{agent.name} session/load", bind=bind, unbind=unbind,
        bound_keys=tuple(key for _agent, key, _record in found),
        model_ref=f"acp/{agent.name}", cwd=cwd, left_out=notes)
