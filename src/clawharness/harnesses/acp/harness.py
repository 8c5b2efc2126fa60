"""The `acp` harness: any Agent Client Protocol agent over stdio.

Model refs `acp/<name>` select it; `<name>` names a configured agent
(`plugins.entries.acp.config.agents.<name>.command` / `.env`). The wire is the `acp`
library's `ClientSideConnection` and pydantic types; this module only spawns the agent
(in its own process group, with an environment built from nothing: the library's
`spawn_agent_process` inherits part of the host environment and cannot start a new
process group) and implements the client side:

- `initialize` once per process; `session/new`, or `session/load` of the bound session
  id in a new process (its replayed history arrives before any turn is attached, so it is
  never mirrored twice). A session the agent says it does not have, or cannot load at
  all, is dropped through the SDK's `NativeSessionRecovery` with one warning and a new one
  made; a new session's first prompt gets the host transcript as a block before it;
- `session/prompt`, with `session/update` streamed into partial replies and the transcript
  (`tool_call` updates merged by id);
- `session/request_permission` decided by the host's `run_before_tool_call`, the option
  chosen by its `kind`;
- `fs/read_text_file` / `fs/write_text_file` served from the workspace under the host's
  path rules;
- `session/cancel` for abort (then the tools' stray process groups are killed, and the
  whole tree if the agent does not stop), and shutdown by closing stdin, waiting,
  SIGTERM, SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import Client, RequestError
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AcpMcpServer,
    AgentMessageChunk,
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

from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ContentBlock,
    Message,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)
from clawharness.plugin_sdk.agent_harness_mcp import acp_mcp_servers
from clawharness.plugin_sdk.agent_harness_process import (
    BoundedLineReader,
    ChildProcess,
    SupervisedProcesses,
    kill_stray_groups,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_runtime import (
    HarnessError,
    NativeTurn,
    WorkspacePathEscapeError,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionGone,
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionBindings,
    Store,
    native_session_bindings,
    native_session_recovery,
    resolve_state_dir,
)
from clawharness.plugin_sdk.agent_harness_tool_runtime import resolve_workspace_path

__all__ = ["ACP_PROTOCOL_VERSION", "HARNESS_ID", "AcpAgentConfig", "AcpHarness", "AcpHarnessError",
           "canonical_tool_name", "load_refused_as_gone"]

log = logging.getLogger("clawharness.harnesses.acp")

HARNESS_ID = "acp"
ACP_PROTOCOL_VERSION = 1
CLIENT_INFO = Implementation(name="clawharness", title="clawharness", version="0.1")

#: ACP tool kinds -> canonical host tool names (policy ids)
TOOL_KINDS: Mapping[str, str] = {
    "read": "read", "search": "read", "edit": "edit", "delete": "edit", "move": "edit",
    "execute": "exec", "fetch": "web_fetch",
}


class AcpHarnessError(HarnessError):
    code = "acp_harness_error"


#: JSON-RPC codes an agent answers `session/load` with when it has no such session (ACP's
#: "resource not found") or no `session/load` at all ("method not found")
_GONE_CODES = frozenset({-32002, -32601})
#: an agent's own words for an unknown session, in the message or the error's data
#: (claude-code-acp 0.16 throws "Session not found", sent as -32603 with data.details)
_GONE_WORDS = ("session not found", "unknown session", "no such session")


def load_refused_as_gone(error: RequestError) -> str | None:
    """What the agent said, when its refusal of `session/load` means the session does not
    exist (or cannot be loaded at all); None for any other failure, which must keep the
    binding."""
    data = error.data
    said = " ".join(str(part) for part in (
        str(error), *(data.values() if isinstance(data, Mapping) else (data,)))
        if part is not None)
    if error.code in _GONE_CODES or any(word in said.lower() for word in _GONE_WORDS):
        return f"session/load failed ({error.code}): {said}"
    return None


def canonical_tool_name(kind: str | None, title: str | None) -> str:
    """The policy id of an ACP tool call: by its kind, else a name from its title."""
    if kind and kind in TOOL_KINDS:
        return TOOL_KINDS[kind]
    if kind and kind not in ("other", "think", "switch_mode"):
        return kind
    word = (title or "tool").strip().split(" ")[0].strip("`").lower()
    return word or "tool"


@dataclass(frozen=True, slots=True)
class AcpAgentConfig:
    """One configured agent (`agents.<name>`)."""

    name: str
    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def parse(name: str, raw: Any) -> AcpAgentConfig:
        if not isinstance(raw, Mapping):
            raise AcpHarnessError(f"acp agent {name!r}: config must be an object")
        command = raw.get("command")
        if (not isinstance(command, list) or not command
                or not all(isinstance(p, str) and p for p in command)):
            raise AcpHarnessError(
                f"acp agent {name!r}: command must be a non-empty list of strings")
        env = raw.get("env") or {}
        if not isinstance(env, Mapping):
            raise AcpHarnessError(f"acp agent {name!r}: env must be a mapping")
        return AcpAgentConfig(name, tuple(command), {str(k): str(v) for k, v in env.items()})


def _now_ms() -> int:
    return int(time.time() * 1000)


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

    def __init__(self, live: _Live) -> None:
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
class _Live:
    """One binding's agent process and connection."""

    agent: AcpAgentConfig
    child: ChildProcess
    cwd: str
    fingerprint: str
    conn: ClientSideConnection | None = None
    session_id: str | None = None
    turn: _Turn | None = None
    load_session: bool = False
    #: a session made by `session/new` for this turn: its first prompt carries the
    #: host transcript
    fresh: bool = False
    #: the agent's stdout, read within the frame limits
    lines: BoundedLineReader | None = None

    def stopped_reading(self) -> str | None:
        """Why the agent's output stopped being read (a frame past a limit), if it did."""
        return self.lines.problem if self.lines is not None else None


# --- the harness ---------------------------------------------------------------------------


class AcpHarness:
    """The `acp` harness: claims provider `acp`; `acp/<name>` runs the agent `<name>`."""

    id = HARNESS_ID
    label = "Agent Client Protocol"

    def __init__(self, *, state_dir: str | os.PathLike[str] | None = None,
                 config: Mapping[str, Any] | None = None, store: Store | None = None,
                 bindings: SessionBindings[NativeSessionRecord] | None = None) -> None:
        """`bindings`: the binding records (from `PluginApi.session_bindings`, which the
        host resets and deletes with each session); without them the harness keeps its
        own in `store` or under `state_dir`."""
        self._config: dict[str, Any] = dict(config or {})
        self.bindings = bindings if bindings is not None else native_session_bindings(
            HARNESS_ID, store=store, state_dir=Path(state_dir) if state_dir else None)
        self._processes: SupervisedProcesses[_Live] = SupervisedProcesses(stop=self._stop_live)
        # a session the host reset, deleted or rewound resumes nothing: stop its agent
        self._processes.close_with(self.bindings)

    def supports(self, ctx: SupportContext) -> SupportResult:
        if ctx.provider != "acp":
            return Unsupported(reason="the acp harness serves only provider acp (acp/<agent>)")
        policy = ctx.model_provider.runtime_policy if ctx.model_provider is not None else None
        if policy is None or HARNESS_ID not in policy.compatible_ids:
            # the plugin's provider declares it; a route that does not is never permission
            return Unsupported(reason="the route of provider acp does not declare the acp "
                                      "runtime (its plugin's provider registration does)")
        return Supported(priority=100, reason="provider acp is served by the acp harness")

    async def binding(self, agent_id: str, session_key: str) -> NativeSessionRecord | None:
        """The stored binding of a host session (None when there is none)."""
        return await self.bindings.read(agent_id, session_key)

    def live_pids(self) -> list[int]:
        return self._processes.pids()

    async def _stop_live(self, live: _Live) -> None:
        conn, live.conn = live.conn, None
        grace = float(self._config.get("shutdownGraceSeconds", 2.0))
        await live.child.shutdown(grace=grace)
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
        if live.lines is not None:
            await live.lines.aclose()

    async def dispose(self) -> None:
        await self._processes.close_all()
        await self.bindings.close()

    # --- state -----------------------------------------------------------------------------

    def native_state_dir(self, params: AttemptParams) -> Path:
        """Where agents keep their native state (HOME), migrated from `<workspace>/state`."""
        config = {**self._config, **dict(params.plugin_config or {})}
        host = Path(params.state_dir) if params.state_dir else Path.home() / ".clawharness"
        resolution = resolve_state_dir(
            explicit=config.get("stateDir"), old_default=Path(params.workspace_dir) / "state",
            new_default=host / "acp", label="acp")
        return resolution.path

    # --- the attempt -----------------------------------------------------------------------

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        config = {**self._config, **dict(params.plugin_config or {})}
        agents = config.get("agents") or {}
        name = params.model_id
        try:
            if not isinstance(agents, Mapping) or name not in agents:
                known = ", ".join(sorted(agents)) if isinstance(agents, Mapping) else ""
                raise AcpHarnessError(
                    f"no ACP agent named {name!r} is configured "
                    f"(plugins.entries.acp.config.agents; known: {known or 'none'})")
            agent = AcpAgentConfig.parse(name, agents[name])
            fallback = (Path(params.state_dir) / "plugins" / HARNESS_ID
                        if params.state_dir else None)
            await self.bindings.lifecycle(fallback)
        except Exception as exc:
            return await _precheck_failure(params, str(exc))
        key = self.bindings.row_key(params.agent_id, params.session_key)
        turn = _Turn(self, params, key, agent, float(config.get("cancelGraceSeconds", 5.0)))
        try:
            return await self.bindings.with_turn(params, turn.run)
        except Exception as exc:
            if turn.started:
                raise
            return await _precheck_failure(params, f"{type(exc).__name__}: {exc}")

    async def open_live(self, params: AttemptParams, key: str, agent: AcpAgentConfig,
                        record: NativeSessionRecord | None,
                        recovery: NativeSessionRecovery[NativeSessionRecord]) -> _Live:
        """The binding's live agent: reused, or spawned + initialized + session new/load.

        A bound session the agent says it does not have (or cannot load at all) is
        dropped through `recovery` before `session/new`; any other load failure fails
        the turn and keeps the binding."""
        state = self.native_state_dir(params)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in params.agent_id)
        home = state / "agents" / (safe or "default") / agent.name / "home"
        home.mkdir(parents=True, exist_ok=True)
        cwd = params.workspace_dir
        env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": str(home),
               **agent.env}
        # a change of the host's MCP servers needs a new process (a session keeps its own)
        fingerprint = json.dumps([list(agent.command), sorted(env.items()), cwd,
                                  [dataclasses.asdict(s) for s in params.mcp_servers]],
                                 default=str)
        native = record.get("nativeSessionId") if record else None
        live = self._processes.get(key)
        if live is not None and (not live.child.alive or live.fingerprint != fingerprint
                                 or live.conn is None or live.session_id != native):
            await self._processes.close(key)
            live = None
        if live is not None:
            return live
        try:
            child = await spawn(agent.command, env=env, cwd=cwd)
        except OSError as exc:
            raise AcpHarnessError(f"could not start ACP agent {agent.name!r}: {exc}") from exc
        live = _Live(agent, child, cwd, fingerprint)
        self._processes.put(key, live)
        try:
            process = child.process
            assert process.stdin is not None and process.stdout is not None
            # terminals and elicitation are not offered (capabilities), so `_Client` serves
            # only the fs / permission / update part of `acp.Client`
            client = cast(Client, _Client(live))
            live.lines = BoundedLineReader(process.stdout, what=f"ACP agent {agent.name!r}")
            live.conn = ClientSideConnection(client, process.stdin,
                                             cast(asyncio.StreamReader, live.lines))
            init = await self._guard(live, live.conn.initialize(
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
                        await self._guard(live, live.conn.load_session(
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
                created = await self._guard(live, live.conn.new_session(
                    cwd=cwd, mcp_servers=mcp_servers))
                live.session_id = str(created.session_id)
                live.fresh = True
        except BaseException:
            await self._processes.close(key)
            raise
        return live

    @staticmethod
    async def _guard(live: _Live, request: Any) -> Any:
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


def _user_message(prompt: str) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": prompt}],
            "timestamp": _now_ms()}


async def _precheck_failure(params: AttemptParams, error: str) -> AttemptResult:
    message = _user_message(params.prompt)
    if params.mirror is not None:
        await params.mirror([{**message, "__meta": {"idempotencyKey": f"{params.run_id}:user"}}])
    return AttemptResult(
        terminal=AttemptTerminal("failed", source="precheck", error=error),
        session_id_used=params.session_id, messages_snapshot=[message],
        agent_harness_id=HARNESS_ID, transcript_mirrored=params.mirror is not None)


@dataclass(slots=True)
class _Tool:
    id: str
    kind: str | None = None
    title: str | None = None
    raw_input: Any = None
    raw_output: Any = None
    content: Any = None
    status: str | None = None
    asked: bool = False
    allowed: bool | None = None
    reason: str | None = None
    settled: bool = False
    block: ContentBlock | None = None

    @property
    def name(self) -> str:
        return canonical_tool_name(self.kind, self.title)

    def arguments(self) -> dict[str, Any]:
        return dict(self.raw_input) if isinstance(self.raw_input, Mapping) else {}


class _Turn(NativeTurn):
    """One prompt on one binding."""

    def __init__(self, harness: AcpHarness, params: AttemptParams, key: str,
                 agent: AcpAgentConfig, grace: float) -> None:
        super().__init__(params)
        self.h = harness
        self.key = key
        self.agent = agent
        self.grace = grace
        self.started = False
        self.live: _Live | None = None
        self.tools: dict[str, _Tool] = {}
        self.pending: Message | None = None
        self.text = ""
        self.count = 0
        self.recovery: NativeSessionRecovery[NativeSessionRecord] | None = None

    def native_key(self, suffix: str) -> str:
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
        await self.settle(_user_message(p.prompt), f"{p.run_id}:user")
        if p.abort.is_set():
            return await self.finish(AttemptTerminal("aborted", source="external",
                                                     error="aborted before start"), None)
        try:
            self.live = await self.h.open_live(p, self.key, self.agent, record, self.recovery)
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
            self.h._processes.pop(self.key)
            live.child.kill()
            raise
        finally:
            live.turn = None
        if live.child.alive and error is None:
            kill_stray_groups(live.child.pid, live.child.pgid)
        else:
            await self.h._processes.close(self.key)
        terminal = self.terminal(stop_reason, error)
        if live.session_id:
            new_record: NativeSessionRecord = {
                "nativeSessionId": live.session_id, "hostSessionId": p.session_id,
                "agent": self.agent.name, "cwd": live.cwd, "harness": HARNESS_ID}
            await bound.write(new_record)
        return await self.finish(terminal, live.session_id)

    async def prompt(self, live: _Live) -> tuple[str | None, str | None]:
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
        last = next((m for m in reversed(self.new_messages) if m["role"] == "assistant"), None)
        result = AttemptResult(
            terminal=terminal, session_id_used=self.p.session_id,
            messages_snapshot=list(self.new_messages), assistant_texts=self.assistant_texts,
            last_assistant=last, tool_metas=self.tool_metas,
            last_tool_error=self.last_tool_error, agent_harness_id=HARNESS_ID,
            transcript_mirrored=self.p.mirror is not None,
            extra={"nativeSessionId": native} if native else {})
        return self.recovery.annotate(result) if self.recovery is not None else result

    # --- updates ---------------------------------------------------------------------------

    def assistant(self) -> Message:
        if self.pending is None:
            self.pending = {"role": "assistant", "content": [], "stopReason": "stop",
                            "provider": self.p.provider, "model": self.p.model_id,
                            "api": "acp", "timestamp": _now_ms()}
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
        await self.settle(message, self.native_key(f"assistant:{self.count}"))

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
        allow, reason = False, None
        if self.stop_kind is not None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        try:
            decision = await self.p.host_capabilities.run_before_tool_call(
                tool.name, tool.arguments(), tool_call_id=tool.id,
                native_operation={"cwd": self.live.cwd if self.live else self.p.workspace_dir})
        except Exception as exc:  # a settled capability fails closed
            reason = f"tool policy unavailable: {exc}"
        else:
            allow, reason = decision.allowed, decision.reason
        tool.asked, tool.allowed, tool.reason = True, allow, reason
        await self.emit("tool", {"phase": "permission", "name": tool.name, "toolCallId": tool.id,
                                 "allowed": allow, **({"reason": reason} if reason else {})})
        kinds = ("allow_once", "allow_always") if allow else ("reject_once", "reject_always")
        for kind in kinds:
            option = next((o for o in options if str(o.kind) == kind), None)
            if option is not None:
                return RequestPermissionResponse(
                    outcome=AllowedOutcome(outcome="selected", option_id=option.option_id))
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def tool_done(self, tool: _Tool, text: str, is_error: bool) -> None:
        tool.settled = True
        # the agent's raw output goes to the observer, not into the transcript message
        await self.settle_tool_result(
            tool_call_id=tool.id, tool_name=tool.name, arguments=tool.arguments(), text=text,
            is_error=is_error, execution_started=not (tool.asked and tool.allowed is False),
            refusal_reason=tool.reason,
            details=_dump(tool.raw_output) if tool.raw_output is not None else None,
            key=self.native_key(f"result:{tool.id}"), details_in_message=False)


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
