"""A generic CLI-backend harness: describe a CLI agent, get a harness.

A CLI agent is described by three things (`CliAgentSpec`):

- its **command line** (`CommandLine.argv(launch)`): the base command (configured or the
  default) plus the flags for streaming, the model, and continuation (`resume`, `fork`);
  and its **environment** (`CommandLine.environment(ctx)`): the runtime-specific variables
  (the base adds PATH, a scratch HOME and the plugin's configured `env`; nothing is
  inherited from the host);
- its **stream-json event mapping** (`EventMapper.map(obj)`): one JSON object read from the
  agent's stdout becomes zero or more normalized `CliEvent`s;
- its **control protocol** (`ControlProtocol`): the objects written to its stdin: the
  handshake, a user turn, the answer to a permission question, an interrupt.

`CliBackendHarness(spec)` does the rest: one process per native binding (kept between
turns, re-spawned with `resume` when it is gone), the native session id kept as the binding
through the SDK's binding lifecycle and re-captured every turn, a resumed session the agent
no longer has (`NativeSessionMissing`) dropped with one warning and the turn run on a fresh
one that gets the host transcript (`NativeSessionRecovery`), streamed text to
`on_partial_reply`, assistant and tool messages mirrored into the transcript with
idempotency keys, every permission question decided by the host's `run_before_tool_call`,
every tool reported to `observe_tool_terminal`, and abort/deadline handled as an interrupt
followed, as a last resort, by killing the whole process tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from clawharness.plugin_sdk.agent_harness import (
    AgentEvent,
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
from clawharness.plugin_sdk.agent_harness_mcp import McpServerLaunch
from clawharness.plugin_sdk.agent_harness_process import (
    ChildProcess,
    InputLimitError,
    SupervisedProcesses,
    decode_json_frame,
    kill_stray_groups,
    read_frame_line,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_runtime import HarnessError
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionGone,
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionBindings,
    Store,
    native_session_bindings,
    native_session_recovery,
)

__all__ = [
    "AssistantMessage",
    "CliAgentSpec",
    "CliBackendError",
    "CliBackendHarness",
    "CliEvent",
    "CommandLine",
    "ControlAnswer",
    "ControlProtocol",
    "EnvContext",
    "EventMapper",
    "LaunchRequest",
    "NativeSessionMissing",
    "PermissionRequest",
    "SessionStarted",
    "TextBlock",
    "TextDelta",
    "ToolResult",
    "ToolUseBlock",
    "TurnFinished",
    "UnknownControlRequest",
    "resolve_command",
]

log = logging.getLogger("clawharness.harnesses.cli")


class CliBackendError(HarnessError):
    code = "cli_backend_error"


# --- normalized events ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionStarted:
    """The agent announced (or re-announced) its native session id."""

    session_id: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of streamed assistant text."""

    text: str


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """Settled assistant content. Events with the same `message_id` are one message."""

    blocks: tuple[TextBlock | ToolUseBlock, ...]
    message_id: str | None = None
    error: str | None = None
    usage: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_use_id: str
    text: str
    is_error: bool
    details: Any = None


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """The agent asks whether it may run a tool; it waits for the answer."""

    request_id: str
    tool_name: str
    input: Mapping[str, Any]
    tool_use_id: str | None = None


@dataclass(frozen=True, slots=True)
class UnknownControlRequest:
    """A control request this harness does not serve (answered with an error)."""

    request_id: str
    subtype: str


@dataclass(frozen=True, slots=True)
class ControlAnswer:
    """The agent's answer to one of our control requests."""

    request_id: str
    ok: bool
    error: str | None = None


@dataclass(frozen=True, slots=True)
class NativeSessionMissing:
    """The agent says the session it was asked to resume does not exist (its own error
    for an unknown session, not any failure): the binding is stale."""

    session_id: str
    detail: str


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn ended (the agent waits for the next user turn)."""

    session_id: str | None
    is_error: bool
    text: str | None = None
    error: str | None = None
    usage: Mapping[str, Any] | None = None
    interrupted: bool = False


CliEvent = (SessionStarted | TextDelta | AssistantMessage | ToolResult | PermissionRequest
            | UnknownControlRequest | ControlAnswer | NativeSessionMissing | TurnFinished)


# --- the description of a CLI agent -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """What a command line is built from."""

    command: tuple[str, ...]
    model_id: str
    cwd: str
    resume_session_id: str | None = None
    fork: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the host's configured MCP servers (`AttemptParams.mcp_servers`) for the runtime
    mcp_servers: Sequence[McpServerLaunch] = ()
    #: this agent's private directory under the harness state (for files a command line
    #: names, e.g. a config holding secrets that must not sit in argv)
    agent_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class EnvContext:
    """What a runtime's environment variables are built from."""

    home: Path
    agent_dir: Path
    params: AttemptParams


class CommandLine(Protocol):
    def argv(self, launch: LaunchRequest) -> list[str]:
        """The full argv: `launch.command` plus the runtime's flags."""
        ...

    def environment(self, ctx: EnvContext) -> dict[str, str]:
        """Runtime-specific variables (PATH, HOME and the configured env come from the base)."""
        ...


class EventMapper(Protocol):
    def map(self, obj: Mapping[str, Any]) -> Sequence[CliEvent]:
        """The normalized events of one JSON object read from stdout."""
        ...


class ControlProtocol(Protocol):
    def handshake(self) -> Sequence[Mapping[str, Any]]:
        """Objects to write once after spawning (before the first user turn)."""
        ...

    def user_turn(self, prompt: str, images: Sequence[Mapping[str, Any]], *,
                  context: str | None = None) -> Mapping[str, Any]:
        """The object that starts one turn; `context` (the host transcript, for a fresh
        native session's first turn) goes before the prompt."""
        ...

    def permission_reply(self, request: PermissionRequest, *, allow: bool,
                         updated_input: Mapping[str, Any] | None,
                         message: str | None) -> Mapping[str, Any]:
        """The answer to a permission question."""
        ...

    def error_reply(self, request_id: str, message: str) -> Mapping[str, Any]:
        """The answer to a control request we do not serve."""
        ...

    def interrupt(self, request_id: str) -> Mapping[str, Any] | None:
        """The object that interrupts the running turn (None: the agent has none)."""
        ...


@dataclass(frozen=True, slots=True)
class CliAgentSpec:
    """Everything the generic harness needs to know about one CLI agent."""

    id: str
    label: str
    default_command: tuple[str, ...]
    command_line: CommandLine
    events: EventMapper
    control: ControlProtocol
    #: providers this harness serves when explicitly requested (`agentRuntime.id`)
    providers: tuple[str, ...] = ()
    #: native tool name -> canonical host tool name (unknown names are lower-cased)
    tool_names: Mapping[str, str] = field(default_factory=dict)
    #: "harness" when the runtime owns authentication
    auth_bootstrap: Literal["harness"] | None = None
    #: the `api` recorded on mirrored assistant messages
    api: str = "cli"

    def canonical_tool(self, native: str) -> str:
        if native in self.tool_names:
            return self.tool_names[native]
        if native.startswith("mcp__"):
            return native
        return native.lower()


def resolve_command(value: Any, default: Sequence[str]) -> tuple[str, ...]:
    """`command` config: a list of strings, a shell-quoted string, or unset (the default)."""
    if value is None or value == "" or value == []:
        return tuple(default)
    if isinstance(value, str):
        parts = shlex.split(value)
    elif isinstance(value, Sequence) and all(isinstance(p, str) for p in value):
        parts = list(value)
    else:
        raise CliBackendError(f"command must be a list of strings or a string, got {value!r}")
    if not parts:
        raise CliBackendError("command is empty")
    return tuple(parts)


def _config_env(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise CliBackendError("env must be a mapping of variable names to strings")
    return {str(k): str(v) for k, v in value.items()}


def _number(config: Mapping[str, Any], key: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise CliBackendError(f"{key} must be a number >= 0")
    return float(value)


# --- live processes -----------------------------------------------------------------------


@dataclass(slots=True)
class _Live:
    """One binding's running process."""

    child: ChildProcess
    fingerprint: str
    cwd: str
    session_id: str | None = None
    handshake_sent: bool = False
    #: the native session this process was started to resume (None: a new one)
    resumed: str | None = None
    #: started without a session to resume and no turn sent yet: its first prompt
    #: carries the host transcript
    fresh: bool = False


def _now_ms() -> int:
    return int(time.time() * 1000)


def _usage_of(usage: Mapping[str, Any]) -> dict[str, int]:
    """Anthropic-style token counts in the host's usage shape."""

    def count(name: str) -> int:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    found = {"input": count("input_tokens"), "output": count("output_tokens"),
             "cacheRead": count("cache_read_input_tokens")}
    found["totalTokens"] = found["input"] + found["output"] + found["cacheRead"]
    return found


class CliBackendHarness:
    """The harness for one described CLI agent."""

    def __init__(self, spec: CliAgentSpec, *, state_dir: str | os.PathLike[str] | None = None,
                 config: Mapping[str, Any] | None = None, store: Store | None = None,
                 bindings: SessionBindings[NativeSessionRecord] | None = None) -> None:
        """`bindings`: the binding records (from `PluginApi.session_bindings`, which the
        host resets and deletes with each session); without them the harness keeps its
        own in `store` or under `state_dir`."""
        self.spec = spec
        self.id = spec.id
        self.label = spec.label
        if spec.auth_bootstrap is not None:
            self.auth_bootstrap = spec.auth_bootstrap
        self._config: dict[str, Any] = dict(config or {})
        self.bindings = bindings if bindings is not None else native_session_bindings(
            spec.id, store=store, state_dir=Path(state_dir) if state_dir is not None else None)
        self._processes: SupervisedProcesses[_Live] = SupervisedProcesses(grace=2.0)
        # a session the host reset, deleted or rewound resumes nothing: stop its process
        self._processes.close_with(self.bindings)
        self._request_seq = 0

    # --- selection ---------------------------------------------------------------------

    def supports(self, ctx: SupportContext) -> SupportResult:
        """Supported only when explicitly requested for a provider it serves."""
        if ctx.requested_runtime != self.id:
            return Unsupported(reason=f"{self.id} runs only when selected explicitly "
                                      f'(agentRuntime.id: "{self.id}")')
        if self.spec.providers and ctx.provider not in self.spec.providers:
            return Unsupported(reason=f"{self.id} serves provider(s) "
                                      f"{', '.join(self.spec.providers)}, not {ctx.provider}")
        return Supported(priority=100, reason=f"explicitly selected {self.id}")

    async def binding(self, agent_id: str, session_key: str) -> NativeSessionRecord | None:
        """The stored binding of a host session (None when there is none)."""
        return await self.bindings.read(agent_id, session_key)

    # --- process ownership ---------------------------------------------------------------

    def live_pids(self) -> list[int]:
        """Pids of the processes this harness keeps (for diagnostics and tests)."""
        return self._processes.pids()

    async def dispose(self) -> None:
        """Shut every process down and close the binding store."""
        await self._processes.close_all()
        await self.bindings.close()

    def next_request_id(self, prefix: str) -> str:
        self._request_seq += 1
        return f"{prefix}_{self._request_seq}"

    # --- the attempt ----------------------------------------------------------------------

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        """Run one turn on the binding's process (spawned or resumed as needed)."""
        config = {**self._config, **dict(params.plugin_config or {})}
        try:
            command = resolve_command(config.get("command"), self.spec.default_command)
            env_extra = _config_env(config.get("env"))
            grace = _number(config, "interruptGraceSeconds", 5.0)
            idle = _number(config, "idleTimeoutSeconds", 300.0)
        except CliBackendError as exc:
            return await _precheck_failure(self.spec, params, str(exc))
        host_state = Path(params.state_dir) if params.state_dir else None
        fallback = host_state / "plugins" / self.id if host_state else None
        try:
            await self.bindings.lifecycle(fallback)
        except Exception as exc:
            return await _precheck_failure(self.spec, params, f"binding store: {exc}")
        key = self.bindings.row_key(params.agent_id, params.session_key)
        turn = _Turn(self, params, key, command, env_extra, grace, idle, config)
        try:
            return await self.bindings.with_turn(params, turn.run)
        except HarnessError as exc:
            return await _precheck_failure(self.spec, params, str(exc))
        except Exception as exc:
            if turn.started:
                raise
            return await _precheck_failure(self.spec, params, f"{type(exc).__name__}: {exc}")

    def agent_dir(self, params: AttemptParams) -> Path:
        """Per-agent runtime state (HOME, config dir) under the host state dir."""
        base = Path(params.state_dir) if params.state_dir else (
            self.bindings.state_dir or Path.home() / ".clawharness" / "plugins" / self.id)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in params.agent_id)
        return base / self.id / "agents" / (safe or "default")


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def _user_message(prompt: str, images: Sequence[Mapping[str, Any]]) -> Message:
    content: list[ContentBlock] = [{"type": "text", "text": prompt}]
    for image in images:
        content.append({"type": "image", "data": image.get("data", ""),
                        "mimeType": image.get("mimeType", "image/png")})
    return {"role": "user", "content": content, "timestamp": _now_ms()}


async def _precheck_failure(spec: CliAgentSpec, params: AttemptParams,
                            error: str) -> AttemptResult:
    message = _user_message(params.prompt, params.images)
    if params.mirror is not None:
        await params.mirror([{**message, "__meta": {"idempotencyKey": f"{params.run_id}:user"}}])
    return AttemptResult(
        terminal=AttemptTerminal("failed", source="precheck", error=error),
        session_id_used=params.session_id, messages_snapshot=[message],
        agent_harness_id=spec.id, transcript_mirrored=params.mirror is not None)


@dataclass(slots=True)
class _Tool:
    id: str
    native_name: str
    name: str
    arguments: Mapping[str, Any]
    asked: bool = False
    allowed: bool | None = None
    reason: str | None = None
    settled: bool = False


class _Stop(Exception):
    """The process ended before the turn did."""


class _Turn:
    """One attempt on one binding."""

    def __init__(self, harness: CliBackendHarness, params: AttemptParams, key: str,
                 command: tuple[str, ...], env_extra: Mapping[str, str], grace: float,
                 idle: float, config: Mapping[str, Any]) -> None:
        self.h = harness
        self.spec = harness.spec
        self.p = params
        self.key = key
        self.command = command
        self.env_extra = env_extra
        self.grace = grace
        self.idle = idle
        self.config = config
        self.started = False
        self.session_id: str | None = None
        self.new_messages: list[Message] = []
        self.assistant_texts: list[str] = []
        self.tool_metas: list[dict[str, Any]] = []
        self.last_tool_error: dict[str, Any] | None = None
        self.tools: dict[str, _Tool] = {}
        self.pending: Message | None = None
        self.pending_id: str | None = None
        self.pending_streamed = False
        self.stream_text = ""
        self.stop_kind: Literal["aborted", "timeout"] | None = None
        self.killed = False
        self.finished: TurnFinished | None = None
        self.live: _Live | None = None
        self.usage: dict[str, int] = {"input": 0, "output": 0, "cacheRead": 0, "totalTokens": 0}
        self.gone: NativeSessionMissing | None = None
        self.recovery: NativeSessionRecovery[NativeSessionRecord] | None = None

    # --- callbacks ---------------------------------------------------------------------

    async def emit(self, stream: str, data: Mapping[str, Any]) -> None:
        sink = self.p.on_agent_event
        if sink is not None:
            await _maybe_await(sink(AgentEvent(stream, data)))

    async def settle(self, message: Message, key: str) -> None:
        if self.p.mirror is not None:
            await self.p.mirror([{**message, "__meta": {"idempotencyKey": key}}])
        self.new_messages.append(message)

    def native_key(self, suffix: str) -> str:
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

    async def ensure_process(self, record: NativeSessionRecord | None) -> _Live:
        p = self.p
        agent_dir = self.h.agent_dir(p)
        cwd = str(record.get("cwd")) if record and record.get("cwd") else p.workspace_dir
        if not os.path.isdir(cwd):
            cwd = p.workspace_dir
        env = self.environment(agent_dir)
        native = record.get("nativeSessionId") if record else None
        fork = bool(native and record and record.get("hostSessionId")
                    and record.get("hostSessionId") != p.session_id)
        base = LaunchRequest(self.command, p.model_id, cwd, options=self.config,
                             mcp_servers=tuple(p.mcp_servers), agent_dir=agent_dir)
        fingerprint = json.dumps([self.spec.command_line.argv(base), sorted(env.items()), cwd])
        live = self.h._processes.get(self.key)
        if live is not None and (not live.child.alive or live.fingerprint != fingerprint
                                 or fork or live.session_id != native):
            await self.h._processes.close(self.key)
            live = None
        if live is not None:
            return live
        launch = LaunchRequest(self.command, p.model_id, cwd,
                               resume_session_id=native if isinstance(native, str) else None,
                               fork=fork, options=self.config,
                               mcp_servers=tuple(p.mcp_servers), agent_dir=agent_dir)
        argv = self.spec.command_line.argv(launch)
        try:
            child = await spawn(argv, env=env, cwd=cwd)
        except OSError as exc:
            raise CliBackendError(f"could not start {argv[0]}: {exc}") from exc
        resumed = native if isinstance(native, str) else None
        live = _Live(child, fingerprint, cwd, resumed, resumed=resumed, fresh=resumed is None)
        self.h._processes.put(self.key, live)
        return live

    async def write(self, obj: Mapping[str, Any]) -> None:
        assert self.live is not None
        stdin = self.live.child.process.stdin
        if stdin is None or stdin.is_closing():
            raise _Stop("stdin closed")
        stdin.write((json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))
        try:
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise _Stop(str(exc)) from exc

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
        await self.settle(_user_message(p.prompt, p.images), f"{p.run_id}:user")
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
            self.h._processes.pop(self.key)
            live.child.kill()
            raise

    async def recover(self, assert_lease: Any) -> tuple[AttemptTerminal | None, str | None]:
        """The session this process resumed is gone: drop the binding, and run the turn on
        a fresh native session unless that would replay output or a tool. Returns the
        terminal when the attempt ends here, else the fresh run's stop error."""
        gone, self.gone = self.gone, None
        assert gone is not None and self.recovery is not None
        await self.h._processes.close(self.key)
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
        except* _Stop as stopped:
            stopped_with.append(str(stopped.exceptions[0]))
        return stopped_with[0] if stopped_with else None

    def live_cwd(self) -> str:
        return self.live.cwd if self.live is not None else self.p.workspace_dir

    async def terminal(self, error: str | None) -> AttemptTerminal:
        live = self.live
        assert live is not None
        done = self.finished
        if done is None or not live.child.alive:
            # the process is gone or unusable: reap it and whatever it left behind
            await self.h._processes.close(self.key)
        else:
            kill_stray_groups(live.child.pid, live.child.pgid)
            if self.h._processes.get(self.key) is live:
                self.h._processes.expire_after(self.key, self.idle)
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
        last = next((m for m in reversed(self.new_messages) if m["role"] == "assistant"), None)
        extra: dict[str, Any] = {}
        if self.session_id:
            extra["nativeSessionId"] = self.session_id
        result = AttemptResult(
            terminal=terminal, session_id_used=self.p.session_id,
            messages_snapshot=list(self.new_messages), assistant_texts=self.assistant_texts,
            last_assistant=last, tool_metas=self.tool_metas,
            last_tool_error=self.last_tool_error, attempt_usage=dict(self.usage),
            agent_harness_id=self.spec.id, transcript_mirrored=self.p.mirror is not None,
            extra=extra)
        return self.recovery.annotate(result) if self.recovery is not None else result

    async def watch(self) -> None:
        """Wait for abort or the deadline; then interrupt, and kill as a last resort."""
        p = self.p
        loop = asyncio.get_running_loop()
        timeout = None if p.deadline is None else max(0.0, p.deadline - loop.time())
        try:
            await asyncio.wait_for(p.abort.wait(), timeout)
            self.stop_kind = "aborted"
        except TimeoutError:
            self.stop_kind = "timeout"
        request = self.spec.control.interrupt(self.h.next_request_id("interrupt"))
        if request is not None:
            with contextlib.suppress(_Stop, OSError):
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
                raise _Stop(str(exc)) from exc
            if not line:
                raise _Stop("the process closed its output" if not self.killed
                            else "the process was killed")
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                obj = decode_json_frame(text, what=what)
            except InputLimitError as exc:
                raise _Stop(str(exc)) from exc
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
        elif isinstance(event, PermissionRequest):
            await self.on_permission(event)
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
            return True
        return False

    def add_usage(self, usage: Mapping[str, Any] | None) -> None:
        if not usage:
            return

        def count(name: str) -> int:
            value = usage.get(name)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        self.usage["input"] += count("input_tokens")
        self.usage["output"] += count("output_tokens")
        self.usage["cacheRead"] += count("cache_read_input_tokens")
        self.usage["totalTokens"] = (self.usage["input"] + self.usage["output"]
                                     + self.usage["cacheRead"])

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
            await _maybe_await(self.p.on_partial_reply(self.stream_text))
        await self.emit("assistant", {"text": self.stream_text, "delta": text})

    async def on_assistant(self, event: AssistantMessage) -> None:
        if self.pending is not None and (event.message_id is None
                                         or event.message_id != self.pending_id):
            await self.flush_assistant(terminal_error=None)
        if self.pending is None:
            self.pending = {
                "role": "assistant", "content": [], "stopReason": "stop",
                "usage": {"input": 0, "output": 0, "cacheRead": 0, "totalTokens": 0},
                "provider": self.p.provider, "model": self.p.model_id, "api": self.spec.api,
                "timestamp": _now_ms()}
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
                    self.tools[block.id] = _Tool(block.id, block.name, canonical,
                                                 dict(block.input))
                    await self.emit("tool", {"phase": "start", "name": canonical,
                                             "toolCallId": block.id, "args": dict(block.input)})
        if event.usage:
            self.pending["usage"] = _usage_of(event.usage)
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
                await _maybe_await(self.p.on_partial_reply(text))
        suffix = f"msg:{message_id}" if message_id else f"assistant:{len(self.new_messages)}"
        await self.settle(message, self.native_key(suffix))

    async def on_permission(self, event: PermissionRequest) -> None:
        self.note_progress(tool=True)
        canonical = self.spec.canonical_tool(event.tool_name)
        tool = self.tools.get(event.tool_use_id or "")
        if tool is None and event.tool_use_id:
            tool = self.tools[event.tool_use_id] = _Tool(
                event.tool_use_id, event.tool_name, canonical, dict(event.input))
        allow, reason, updated = False, None, dict(event.input)
        if self.stop_kind is not None:
            reason = "the turn is being stopped"
        else:
            try:
                decision = await self.p.host_capabilities.run_before_tool_call(
                    canonical, dict(event.input), tool_call_id=event.tool_use_id,
                    native_operation={"cwd": self.live_cwd()})
            except Exception as exc:  # a settled capability fails closed
                reason = f"tool policy unavailable: {exc}"
            else:
                allow = decision.allowed
                reason = decision.reason
                if decision.arguments:
                    updated = dict(decision.arguments)
        if tool is not None:
            tool.asked = True
            tool.allowed = allow
            tool.reason = reason
            tool.arguments = updated
        await self.emit("tool", {"phase": "permission", "name": canonical,
                                 "toolCallId": event.tool_use_id, "allowed": allow,
                                 **({"reason": reason} if reason else {})})
        message = None if allow else (reason or "blocked by the host's tool policy")
        await self.write(self.spec.control.permission_reply(
            event, allow=allow, updated_input=updated if allow else None, message=message))

    async def on_tool_result(self, event: ToolResult) -> None:
        self.note_progress(tool=True)
        tool = self.tools.get(event.tool_use_id)
        if tool is None:
            tool = self.tools[event.tool_use_id] = _Tool(event.tool_use_id, "unknown",
                                                        "unknown", {})
        if tool.settled:
            return
        await self.tool_done(tool, event.text, event.is_error, event.details)

    async def tool_done(self, tool: _Tool, text: str, is_error: bool, details: Any) -> None:
        tool.settled = True
        started = not (tool.asked and tool.allowed is False)
        content: list[ContentBlock] = [{"type": "text", "text": text}]
        result: dict[str, Any] = {"content": content, "isError": is_error}
        if details is not None:
            result["details"] = details
        observe = self.p.observe_tool_terminal
        if observe is not None:
            observation: dict[str, Any] = {
                "toolCallId": tool.id, "toolName": tool.name, "arguments": dict(tool.arguments),
                "executionStarted": started, "outcome": "failure" if is_error else "success",
                "result": result}
            if is_error:
                observation["failure"] = {"error": tool.reason if not started and tool.reason
                                          else text}
            resolution = await _maybe_await(observe(observation))
            if isinstance(resolution, Mapping):
                last = resolution.get("lastToolError")
                self.last_tool_error = dict(last) if isinstance(last, Mapping) else None
        self.tool_metas.append({"toolName": tool.name, "toolCallId": tool.id,
                                "isError": is_error})
        message: Message = {
            "role": "toolResult", "toolCallId": tool.id, "toolName": tool.name,
            "content": content, "isError": is_error, "timestamp": _now_ms()}
        if details is not None:
            message["details"] = details
        await self.settle(message, self.native_key(f"result:{tool.id}"))
        await self.emit("tool", {"phase": "result", "name": tool.name, "toolCallId": tool.id,
                                 "isError": is_error})
