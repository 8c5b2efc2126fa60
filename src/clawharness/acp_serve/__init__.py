"""The host as an Agent Client Protocol agent (`clawharness acp`): editors (Zed,
JetBrains, VS Code extensions) and ACP clients (acpx) drive clawharness sessions over
stdio. docs/acp.md says what is mapped and how to point a client at it.

    agent.py       HostAgent: initialize, session/new|load|list|resume|close|set_mode,
                   session/prompt and session/cancel over the run service
    session.py     an ACP session (its id is the host session key) and its update queue
    updates.py     turn events and stored transcripts as session updates (pure)
    answers.py     host errors as JSON-RPC errors, the checks on what a client sends,
                   session/list cursors, a turn's usage
    modes.py       the session modes: narrowings of the agent's tool policy
    approvals.py   the host's approval questions as session/request_permission
    client_io.py   the client's fs/* and terminal/* as the file and exec tools' backends

Over stdio, stdout carries the protocol only: the process's own stdout (fd 1) is
pointed at stderr while it serves, so a stray print (a plugin's, a library's) cannot
corrupt the stream.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading

from clawharness.acp_serve.agent import AcpServeOptions, HostAgent
from clawharness.acp_serve.modes import known_mode
from clawharness.errors import ClawHarnessError
from clawharness.host import Host

__all__ = ["AcpServeOptions", "HostAgent", "known_mode", "serve", "serve_stdio"]


class _PipeWriterProtocol(asyncio.BaseProtocol):
    """A write pipe's flow control, as `asyncio.StreamWriter.drain` expects it."""

    def __init__(self) -> None:
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)
        self._resumed = None

    async def _drain_helper(self) -> None:
        if self._paused:
            self._resumed = asyncio.get_running_loop().create_future()
            await self._resumed


def _watchable(fd: int) -> bool:
    """Whether the event loop can watch `fd` (a pipe, a socket, a terminal)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


def _feed_in_thread(reader: asyncio.StreamReader) -> None:
    """Feed `reader` from stdin in a thread (stdin is a file or /dev/null, which the
    event loop cannot watch)."""
    loop = asyncio.get_running_loop()

    def pump() -> None:
        while line := sys.stdin.buffer.readline():
            loop.call_soon_threadsafe(reader.feed_data, line)
        loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="acp-stdin", daemon=True).start()


async def _protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """(stdin reader, writer to the original stdout); fd 1 then points at stderr."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    if _watchable(sys.stdin.fileno()):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        _feed_in_thread(reader)
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    protocol = _PipeWriterProtocol()
    try:
        transport, _ = await loop.connect_write_pipe(lambda: protocol, protocol_out)
    except (ValueError, PermissionError):
        protocol_out.close()
        raise ClawHarnessError(
            "clawharness acp speaks the Agent Client Protocol on stdout, which must be a "
            "pipe or a socket (it is a file here): start it from an editor or an ACP client "
            "such as acpx (docs/acp.md)") from None
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


async def serve(host: Host, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                options: AcpServeOptions | None = None) -> None:
    """Serve `host` (started by the caller) to the ACP client at the other end of
    `reader`/`writer` until it closes the connection."""
    from acp import run_agent

    agent = HostAgent(host, options)
    try:
        # the library routes its unstable methods to the agent, which serves or refuses
        # them as `options.unstable` says (the library would only warn)
        await run_agent(agent, writer, reader, use_unstable_protocol=True)
    finally:
        await agent.close()


async def serve_stdio(host: Host, options: AcpServeOptions | None = None) -> None:
    """Serve `host` over stdin/stdout until the client closes stdin."""
    reader, writer = await _protocol_streams()  # before plugins load: they may print
    async with host:
        await serve(host, reader, writer, options)
