"""The rig of the `clawharness acp` tests: a config on a scripted model, and a real ACP
client for the tests (the `acp` library's client side), standing in for an
editor: it records every session update, answers permission requests as told, keeps
files in "buffers" (an editor's unsaved text) that it writes through to disk, and runs
terminals as real processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    FileSystemCapabilities,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)


def write_config(state: Path, base_url: str, *, context_window: int | None = None,
                 cost: dict[str, float] | None = None, **extra: Any) -> Path:
    """The test host's config: the scripted server's model `scripted/m1` (with its
    `contextWindow` and `cost` when given), and `extra` top-level sections."""
    model: dict[str, Any] = {"id": "m1"}
    if context_window is not None:
        model["contextWindow"] = context_window
    if cost is not None:
        model["cost"] = cost
    config: dict[str, Any] = {
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses", "apiKey": "test-key",
            "models": [model]}}},
        "agents": {"defaults": {"model": "scripted/m1",
                                "workspace": str(state / "agent-workspace")}},
        "store": {"url": str(state / "state.db")},
    }
    for key, value in extra.items():
        config[key] = value
    path = state / "config.json5"
    path.write_text(json.dumps(config))
    return path


def capabilities(*, fs: bool = True, terminal: bool = True) -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal)


#: how a test answers a permission request: an option kind to choose, "cancel", or a
#: function of (tool call, options) to an option id (None: cancelled)
Answer = str | Callable[[ToolCallUpdate, list[PermissionOption]], str | None]


@dataclass
class _Terminal:
    process: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    limit: int | None = None
    reader: asyncio.Task[None] | None = None
    truncated: bool = False


class EditorClient:
    """The client side: `updates` (session id, update) in arrival order; `permission_requests`
    (session id, tool call, options); `fs_reads`, `fs_writes` (path, content); `buffers`
    (path -> text the editor holds, read before the disk); `terminals_made` (command,
    args, cwd)."""

    def __init__(self, answer: Answer = "allow_once") -> None:
        self.answer = answer
        self.updates: list[tuple[str, Any]] = []
        self.permission_requests: list[tuple[str, ToolCallUpdate, list[PermissionOption]]] = []
        self.fs_reads: list[str] = []
        self.fs_writes: list[tuple[str, str]] = []
        self.buffers: dict[str, str] = {}
        self.terminals_made: list[tuple[str, list[str], str | None]] = []
        self._terminals: dict[str, _Terminal] = {}
        self.changed = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        pass

    # --- what the tests read ---------------------------------------------------------

    def kinds(self, session_id: str | None = None) -> list[str]:
        return [u.session_update for s, u in self.updates
                if session_id is None or s == session_id]

    def of(self, kind: str, session_id: str | None = None) -> list[Any]:
        return [u for s, u in self.updates
                if u.session_update == kind and (session_id is None or s == session_id)]

    def text(self, kind: str = "agent_message_chunk", session_id: str | None = None) -> str:
        return "".join(u.content.text for u in self.of(kind, session_id))

    async def wait_for(self, test: Callable[[], bool], timeout: float = 30.0) -> None:
        async with asyncio.timeout(timeout):
            while not test():
                self.changed.clear()
                if test():
                    return
                await self.changed.wait()

    def _note(self) -> None:
        self.changed.set()

    # --- the Client protocol ---------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        self._note()

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                 options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.permission_requests.append((session_id, tool_call, options))
        self._note()
        if callable(self.answer):
            chosen = self.answer(tool_call, options)
        elif self.answer == "cancel":
            chosen = None
        else:
            chosen = next((o.option_id for o in options if o.kind == self.answer), None)
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected",
                                                                option_id=chosen))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        self.fs_reads.append(path)
        self._note()
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse:
        self.fs_writes.append((path, content))
        self.buffers[path] = content
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(content)
        self._note()
        return WriteTextFileResponse()

    async def create_terminal(self, session_id: str, command: str,
                              args: list[str] | None = None,
                              env: list[EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None,
                              **kwargs: Any) -> CreateTerminalResponse:
        self.terminals_made.append((command, list(args or []), cwd))
        process = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, **{e.name: e.value for e in env or []}})
        terminal = _Terminal(process, limit=output_byte_limit)
        terminal.reader = asyncio.create_task(self._pump(terminal))
        terminal_id = f"term-{len(self._terminals) + 1}"
        self._terminals[terminal_id] = terminal
        self._note()
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def _pump(self, terminal: _Terminal) -> None:
        assert terminal.process.stdout is not None
        while chunk := await terminal.process.stdout.read(4096):
            terminal.output += chunk
            if terminal.limit is not None and len(terminal.output) > terminal.limit:
                del terminal.output[:len(terminal.output) - terminal.limit]
                terminal.truncated = True

    def _status(self, terminal: _Terminal) -> TerminalExitStatus | None:
        code = terminal.process.returncode
        if code is None:
            return None
        if code < 0:
            return TerminalExitStatus(exit_code=None, signal=signal.Signals(-code).name)
        return TerminalExitStatus(exit_code=code)

    async def terminal_output(self, session_id: str, terminal_id: str,
                              **kwargs: Any) -> TerminalOutputResponse:
        terminal = self._terminals[terminal_id]
        return TerminalOutputResponse(output=terminal.output.decode(errors="replace"),
                                      truncated=terminal.truncated,
                                      exit_status=self._status(terminal))

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kwargs: Any) -> WaitForTerminalExitResponse:
        terminal = self._terminals[terminal_id]
        await terminal.process.wait()
        if terminal.reader is not None:
            await terminal.reader
        status = self._status(terminal)
        assert status is not None
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str,
                            **kwargs: Any) -> KillTerminalResponse:
        terminal = self._terminals[terminal_id]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(terminal.process.pid, signal.SIGKILL)
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str,
                               **kwargs: Any) -> ReleaseTerminalResponse:
        terminal = self._terminals.pop(terminal_id)
        if terminal.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(terminal.process.pid, signal.SIGKILL)
            await terminal.process.wait()
        return ReleaseTerminalResponse()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        for terminal in self._terminals.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(terminal.process.pid, signal.SIGKILL)
            await terminal.process.wait()
        self._terminals.clear()
