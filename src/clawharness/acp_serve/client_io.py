"""The client's files and terminals as the host tools' backends
(`clawharness.tools.backends`), for clients that offer them in `initialize`.

- `read` asks `fs/read_text_file` (the editor answers from its buffer, unsaved changes
  included); `write` and `edit` end in `fs/write_text_file`, so the editor sees every
  change as it is made. Offered only when the client can do both (edit needs both).
- `exec` runs `bash -c <command>` through `terminal/create` in the client, embeds the
  terminal in the tool call (the user watches it run), waits for it to exit (killing it
  on the call's timeout or the turn's abort), reads its output and releases it.

Each request waits until the client has heard of the tool call it belongs to (the
session's update queue is flushed first).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    ClientCapabilities,
    TerminalExitStatus,
    TerminalToolCallContent,
    ToolCallProgress,
)

from clawharness.acp_serve.session import AcpSession
from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext
from clawharness.tools import CommandOutcome, ToolBackends

__all__ = ["ClientFiles", "ClientTerminals", "client_backends"]

log = logging.getLogger("clawharness.acp")

#: how long a killed terminal may take to say it exited
_KILL_GRACE_SECONDS: Final = 5.0
#: output bytes a terminal keeps per character of the exec output cap (UTF-8 worst case)
_BYTES_PER_CHAR: Final = 4

SessionLookup = Callable[[str], AcpSession | None]


def _why(exc: RequestError) -> str:
    detail = exc.data.get("details") if isinstance(exc.data, dict) else None
    return f"{exc}" + (f": {detail}" if isinstance(detail, str) and detail else "")


class _ClientPart:
    def __init__(self, client: Client, sessions: SessionLookup) -> None:
        self._client = client
        self._sessions = sessions

    async def _ready(self, context: ToolCallContext) -> AcpSession:
        """The call's ACP session, once the client has every update about it so far."""
        session = self._sessions(context.session_key)
        if session is None:
            raise ToolError(f"the ACP session {context.session_key} is no longer open")
        await session.sender.flush()
        return session


class ClientFiles(_ClientPart):
    """`FileAccess` over `fs/read_text_file` and `fs/write_text_file`."""

    async def read_text(self, path: str, context: ToolCallContext) -> str:
        session = await self._ready(context)
        try:
            response = await self._client.read_text_file(session_id=session.id, path=path)
        except RequestError as exc:
            raise ToolError(f"the editor could not read {path}: {_why(exc)}") from None
        return response.content

    async def write_text(self, path: str, content: str, context: ToolCallContext) -> None:
        session = await self._ready(context)
        try:
            await self._client.write_text_file(session_id=session.id, path=path,
                                               content=content)
        except RequestError as exc:
            raise ToolError(f"the editor could not write {path}: {_why(exc)}") from None


class ClientTerminals(_ClientPart):
    """`CommandRunner` over `terminal/*`."""

    async def run(self, command: str, *, cwd: str, timeout_sec: float, max_output_chars: int,
                  context: ToolCallContext) -> CommandOutcome:
        session = await self._ready(context)
        try:
            created = await self._client.create_terminal(
                session_id=session.id, command="bash", args=["-c", command], cwd=cwd,
                output_byte_limit=max_output_chars * _BYTES_PER_CHAR)
        except RequestError as exc:
            raise ToolError(f"the editor could not start a terminal: {_why(exc)}") from None
        terminal = created.terminal_id
        # the user watches the command run in the tool call
        session.rich_calls.add(context.call_id)
        session.sender.send(ToolCallProgress(
            session_update="tool_call_update", tool_call_id=context.call_id,
            status="in_progress",
            content=[TerminalToolCallContent(type="terminal", terminal_id=terminal)]))
        released = False
        try:
            status, timed_out = await self._wait(session.id, terminal, timeout_sec,
                                                 context.abort)
            output = await self._client.terminal_output(session_id=session.id,
                                                        terminal_id=terminal)
            await self._release(session.id, terminal)
            released = True
        except RequestError as exc:
            raise ToolError(f"the editor's terminal failed: {_why(exc)}") from None
        finally:
            if not released:  # cancelled, or the client failed: end it in the background
                _background(self._release(session.id, terminal, kill=True))
        final = output.exit_status or status
        return CommandOutcome(
            output=output.output, exit_code=None if timed_out or final is None
            else final.exit_code, timed_out=timed_out, truncated=output.truncated,
            signal=final.signal if final is not None else None)

    async def _wait(self, session_id: str, terminal: str, timeout_sec: float,
                    abort: asyncio.Event) -> tuple[TerminalExitStatus | None, bool]:
        """(exit status, timed out): the command's end, or its kill after the timeout
        or the turn's abort."""
        exited = asyncio.ensure_future(self._client.wait_for_terminal_exit(
            session_id=session_id, terminal_id=terminal))
        aborted = asyncio.ensure_future(abort.wait())
        try:
            done, _ = await asyncio.wait({exited, aborted}, timeout=timeout_sec,
                                         return_when=asyncio.FIRST_COMPLETED)
            if exited in done:
                response = exited.result()
                return TerminalExitStatus(exit_code=response.exit_code,
                                          signal=response.signal), False
            timed_out = aborted not in done
            with contextlib.suppress(RequestError):
                await self._client.kill_terminal(session_id=session_id, terminal_id=terminal)
            with contextlib.suppress(RequestError, asyncio.TimeoutError):
                response = await asyncio.wait_for(exited, _KILL_GRACE_SECONDS)
                return TerminalExitStatus(exit_code=response.exit_code,
                                          signal=response.signal), timed_out
            return None, timed_out
        finally:
            aborted.cancel()
            if not exited.done():
                exited.cancel()

    async def _release(self, session_id: str, terminal: str, *, kill: bool = False) -> None:
        with contextlib.suppress(RequestError, ConnectionError):
            if kill:
                await self._client.kill_terminal(session_id=session_id, terminal_id=terminal)
            await self._client.release_terminal(session_id=session_id, terminal_id=terminal)


_pending: set[asyncio.Task[Any]] = set()


def _background(work: Any) -> None:
    task = asyncio.get_running_loop().create_task(work)
    _pending.add(task)
    task.add_done_callback(_pending.discard)


def client_backends(client: Client, capabilities: ClientCapabilities | None,
                    sessions: SessionLookup) -> ToolBackends:
    """The backends a client's advertised capabilities allow (none for one that offers
    neither files nor terminals)."""
    fs = capabilities.fs if capabilities is not None else None
    files = ClientFiles(client, sessions) if (
        fs is not None and fs.read_text_file and fs.write_text_file) else None
    terminals = ClientTerminals(client, sessions) if (
        capabilities is not None and capabilities.terminal) else None
    return ToolBackends(files=files, commands=terminals)
