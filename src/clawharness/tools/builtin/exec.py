"""`exec`: run a shell command in the workspace with `bash -c`, in its own process group.

Not a login shell: no profile or rc file runs, so a command starts the same on every
machine and is never held up by what a profile does (a version manager's rehash lock).

Where the agent's sandbox applies (`agents.*.sandbox`, `clawharness.tools.sandbox`), the
command runs inside it (bubblewrap or Docker) instead of directly on the host; where the
sandbox is required and no backend works, the command is refused.

The whole group is killed on timeout, on abort (the task is cancelled) and, once the shell
has exited, to reap background children that would otherwise hold the output pipe open.
Output (stdout and stderr together) keeps its last `max_output_chars` characters.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.harness.workspace import display_path, resolve_workspace_path
from clawharness.redaction.env import is_secret_variable
from clawharness.tools.builtin._common import ToolInputError, require_str, text_result
from clawharness.tools.exec_env_names import is_inherited_startup_variable
from clawharness.tools.sandbox.runner import AgentSandbox, Launch, PreparedExec

__all__ = [
    "ExecOutcome",
    "command_timeout",
    "command_workdir",
    "exec_result",
    "exec_tool",
    "run_command",
]


@dataclass(frozen=True, slots=True)
class ExecOutcome:
    """What one command did."""

    output: str
    exit_code: int | None
    timed_out: bool
    truncated: bool
    pid: int
    duration_ms: int


class _Tail:
    """Keeps the last bytes of a stream without growing without bound."""

    __slots__ = ("buf", "keep", "total")

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.buf = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.buf += chunk
        if len(self.buf) > 2 * self.keep:
            del self.buf[: len(self.buf) - self.keep]


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


#: clean-ups still running after their call was cancelled (kept from the collector)
_pending: set[asyncio.Task[None]] = set()


def _after(launch: Launch | None, *, killed: bool) -> None:
    """Run the launch's clean-up in the background (the call itself may be cancelled)."""
    if launch is None or (launch.on_end is None and (launch.on_kill is None or not killed)):
        return

    async def clean() -> None:
        if killed and launch.on_kill is not None:
            await launch.on_kill()
        if launch.on_end is not None:
            await launch.on_end()

    task = asyncio.get_running_loop().create_task(clean())
    _pending.add(task)
    task.add_done_callback(_pending.discard)


def _kill_spawned_group(
    spawn: asyncio.Future[tuple[asyncio.SubprocessTransport, _ExitProtocol]],
    launch: Launch | None,
) -> None:
    if spawn.cancelled() or spawn.exception() is not None:
        _after(launch, killed=True)
        return
    transport, _ = spawn.result()
    _kill_group(transport.get_pid())
    transport.close()
    _after(launch, killed=True)


class _ExitProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Signals the child's exit at once; `Process.wait()` also waits for the pipes to close,
    which a background grandchild can hold open indefinitely."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


def exec_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a model-run command gets: the host's, minus anything that looks
    like a credential by its name or its value (`clawharness.redaction.env`: provider
    keys, `DATABASE_URL` with a password, `*_PAT`, OTLP headers must never reach a command
    the model chose, and from its output the transcript), and minus what makes bash or
    the loader run code first (`exec_env_names.is_inherited_startup_variable`: exported
    functions `BASH_FUNC_*%%`, `BASH_ENV`, `PROMPT_COMMAND`, `IFS`, `LD_PRELOAD`, ...)."""
    source = os.environ if base is None else base
    return {k: v for k, v in source.items()
            if not is_inherited_startup_variable(k) and not is_secret_variable(k, v)}


async def run_command(
    command: str, *, cwd: str, timeout_sec: float, max_output_chars: int,
    launch: Launch | None = None,
) -> ExecOutcome:
    """Run `command` with `bash -c` in `cwd` (or as `launch` says: a sandbox's argv);
    cancellation kills its process group."""
    if launch is None:
        argv: tuple[str, ...] = (shutil.which("bash") or "/bin/bash", "-c", command)
        env = exec_environment()
    else:
        argv, env, cwd = launch.argv, dict(launch.env), launch.cwd
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    spawn = asyncio.ensure_future(loop.subprocess_exec(
        lambda: _ExitProtocol(2**16, loop),
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    ))
    try:
        # the command runs before the pipes are connected; a cancellation in between would
        # make asyncio kill the shell alone and leave its children running
        transport, protocol = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        spawn.add_done_callback(lambda done: _kill_spawned_group(done, launch))
        raise
    except BaseException:
        _after(launch, killed=False)
        raise
    pid = transport.get_pid()
    pgid = pid  # a new session makes the child its group's leader
    tail = _Tail(max(1024, max_output_chars * 4))
    stdout = protocol.stdout
    assert stdout is not None

    async def pump() -> None:
        while chunk := await stdout.read(65536):
            tail.add(chunk)

    reader = asyncio.create_task(pump())
    exit_code: int | None = None
    timed_out = False
    try:
        async with asyncio.timeout(timeout_sec):
            await protocol.exited.wait()
            exit_code = transport.get_returncode()
            # leftovers of the group would hold the pipe open; the call is over
            _kill_group(pgid)
            await reader
    except TimeoutError:
        # a command that exited but left a detached writer on the pipe did not time out
        timed_out = exit_code is None
        _kill_group(pgid)
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        if exit_code is None:
            await protocol.exited.wait()
            exit_code = transport.get_returncode()
    except BaseException:
        _kill_group(pgid)
        reader.cancel()
        transport.close()
        _after(launch, killed=True)
        raise
    transport.close()
    if launch is not None:
        if timed_out and launch.on_kill is not None:
            await launch.on_kill()
        if launch.on_end is not None:
            await launch.on_end()
    text = tail.buf.decode("utf-8", errors="replace")
    truncated = tail.total > len(tail.buf) or len(text) > max_output_chars
    if len(text) > max_output_chars:
        text = text[-max_output_chars:]
    return ExecOutcome(
        output=text,
        exit_code=None if timed_out else exit_code,
        timed_out=timed_out,
        truncated=truncated,
        pid=pid,
        duration_ms=int((time.monotonic() - started) * 1000),
    )


def exec_result(output: str, *, exit_code: int | None, timed_out: bool, truncated: bool,
                limit: float, max_output_chars: int, cwd: str, notice: str | None = None,
                **details: Any) -> dict[str, Any]:
    """What `exec` answers for a command that ran (here, in a sandbox or in an editor's
    terminal): its output, how it ended, and `details` for the record."""
    body = output.rstrip("\n") or "(no output)"
    if truncated:
        body = f"[output truncated: showing the last {max_output_chars} characters]\n{body}"
    if timed_out:
        body += f"\n\nCommand timed out after {limit:g} seconds; its process group was killed."
    elif exit_code:
        body += f"\n\nCommand exited with code {exit_code}"
    if notice is not None:
        body += f"\n\n[note: {notice}]"
    return text_result(
        body, is_error=timed_out or bool(exit_code), exitCode=None if timed_out else exit_code,
        timedOut=timed_out, truncated=truncated, cwd=cwd, **details)


def command_timeout(args: Mapping[str, Any], timeout_sec: float) -> float:
    requested = args.get("timeout")
    if isinstance(requested, int | float) and not isinstance(requested, bool) and requested > 0:
        # the model may shorten the configured timeout, never extend it
        return min(float(requested), timeout_sec)
    return timeout_sec


def command_workdir(workspace: str, workdir: object) -> Path | None:
    """The directory a call's `workdir` names inside `workspace` (None: the workspace)."""
    if workdir is not None and not isinstance(workdir, str):
        raise ToolInputError("argument 'workdir' must be a string")
    cwd = resolve_workspace_path(workspace, workdir) if workdir else None
    try:
        is_dir = cwd is None or cwd.is_dir()
    except OSError as exc:  # a name too long, say
        raise ToolInputError(f"workdir {workdir!r}: {exc.strerror or exc}") from exc
    if not is_dir:
        raise ToolInputError(f"workdir {workdir!r} is not a directory")
    return cwd


def exec_tool(*, timeout_sec: float = 60.0, max_output_chars: int = 20_000,
              sandbox: AgentSandbox | None = None) -> ToolSpec:
    """`exec {command, workdir?, timeout?}` with the configured timeout and output cap,
    in `sandbox` where it applies to the calling session (None: always on the host)."""

    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        command = require_str(args, "command")
        if not command.strip():
            raise ToolInputError("argument 'command' must not be blank")
        workspace = ctx.workspace_dir
        if sandbox is not None:
            workspace = sandbox.file_workspace(ctx.session_key, workspace).path
        cwd = command_workdir(workspace, args.get("workdir"))
        limit = command_timeout(args, timeout_sec)
        run_dir = str(cwd) if cwd is not None else os.path.realpath(workspace)
        prepared: PreparedExec | None = None
        if sandbox is not None:
            prepared = await sandbox.prepare_exec(
                session_key=ctx.session_key, workspace=os.path.realpath(workspace),
                workdir=run_dir, command=command)
        outcome = await run_command(
            command, cwd=run_dir, timeout_sec=limit, max_output_chars=max_output_chars,
            launch=prepared.launch if prepared is not None else None)
        extra: dict[str, Any] = {"durationMs": outcome.duration_ms, "pid": outcome.pid}
        if prepared is not None:
            extra["sandbox"] = dict(prepared.details)
        return exec_result(
            outcome.output, exit_code=outcome.exit_code, timed_out=outcome.timed_out,
            truncated=outcome.truncated, limit=limit, max_output_chars=max_output_chars,
            cwd=display_path(workspace, cwd) if cwd is not None else ".",
            notice=prepared.notice if prepared is not None else None, **extra)

    return ToolSpec(
        name="exec",
        description=(
            "Run a shell command (bash) in the workspace. stdout and stderr are returned "
            f"together (last {max_output_chars} characters); the command is killed after "
            f"{timeout_sec:g} seconds."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command to run"},
                "workdir": {
                    "type": "string",
                    "description": "Directory to run in, relative to the workspace",
                },
                "timeout": {
                    "type": "number",
                    "description": f"Timeout in seconds (at most {timeout_sec:g})",
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        },
        execute=execute,
    )
