"""The host as an MCP server (`clawharness mcp serve`): other MCP clients drive
clawharness through its sessions.

Tools (all through `Host`, the one door):

- `sessions_list(limit)`: sessions, most recently used first
- `session_history(session_key, last)`: a session's transcript (text of each entry)
- `message_send(message, session_key)`: run one agent turn and return its reply

Served over stdio: stdout carries the protocol only (logs go to stderr). A turn runs
through the run service (`clawharness.runs`), like every front's.

A frame (one line of stdin) is at most `MAX_FRAME_BYTES`: the MCP library reads whole
lines without a bound, so stdin passes a pump first that hands on only frames within the
limit. A longer one is never held in memory: it is dropped as it streams in, and if its
start named a request id, a small request with that id and the method
`clawharness/frame_too_large` takes its place, so the client gets an error answer
(`Method not found`) instead of waiting forever, and stderr says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import threading
from collections.abc import Iterator
from typing import Any, Final

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from clawharness.errors import ClawHarnessError
from clawharness.host import Host
from clawharness.runs import RunOptions, RunService
from clawharness.sessions.keys import parse_session_key
from clawharness.sessions.queue import parse_queue_mode

__all__ = ["MAX_FRAME_BYTES", "build_server", "capped_stdin", "serve_stdio"]

_log = logging.getLogger("clawharness.mcp")

#: at most this many transcript entries per `session_history` answer
MAX_HISTORY_ENTRIES = 200


@contextlib.contextmanager
def _told() -> Iterator[None]:
    """A clawharness error reaches the client as the tool's error text (not a crash)."""
    try:
        yield
    except ClawHarnessError as exc:
        raise ToolError(f"{exc.code}: {exc}") from exc


def build_server(host: Host, runs: RunService | None = None) -> MCPServer:
    """An MCP server whose tools act on `host` (started by the caller); its turns run on
    `runs` (default: a run service of its own over `host`)."""
    from clawharness import __version__

    turns = runs if runs is not None else RunService(host)

    server: MCPServer = MCPServer(
        name="clawharness", version=__version__,
        instructions="Drive clawharness agent sessions: list sessions, read a session's "
                     "history, send a message that runs an agent turn and returns its reply.")

    @server.tool(name="sessions_list", description="The agent sessions, most recently used "
                                                  "first.")
    async def sessions_list(limit: int = 50) -> dict[str, Any]:
        with _told():
            records = await host.list_sessions(limit=max(1, min(limit, 500)))
        return {"sessions": [{"sessionKey": r.key, "sessionId": r.session_id,
                              "agentId": r.agent_id, "model": r.model_ref,
                              "runtime": r.agent_harness_id, "updatedAt": r.updated_at}
                             for r in records]}

    @server.tool(name="session_history", description="A session's transcript: each entry's "
                                                    "role and text, oldest first.")
    async def session_history(session_key: str, last: int = 20) -> dict[str, Any]:
        with _told():
            entries = await host.history(session_key,
                                         last=max(1, min(last, MAX_HISTORY_ENTRIES)))
        return {"sessionKey": host.session_key(session_key),
                "entries": [{"seq": e.seq, "role": e.role, "text": e.text} for e in entries]}

    @server.tool(name="message_send", description="Send a message to a session (created on "
                                                 "first use): runs one agent turn and returns "
                                                 "its reply. While a turn of the session runs, "
                                                 "queue_mode says what the message does: steer "
                                                 "(into the running turn), followup, collect "
                                                 "or interrupt (default: the agent's).")
    async def message_send(message: str, session_key: str = "main",
                           queue_mode: str | None = None) -> dict[str, Any]:
        with _told():
            key = host.session_key(session_key)
            run = turns.start(key, message, RunOptions(
                agent_id=parse_session_key(key).agent_id,
                queue_mode=parse_queue_mode(queue_mode)))
            try:
                ended = await run.wait()
            except asyncio.CancelledError:  # the client cancelled the call: stop the turn
                run.abort("cancelled")
                raise
            if ended.exception is not None:
                raise ended.exception
            result = ended.result
            assert result is not None
        reply: dict[str, Any] = {"sessionKey": result.session_key, "text": result.text,
                                 "terminal": result.terminal, "runtime": result.runtime}
        if result.error:
            reply["error"] = result.error
        if result.queue is not None:
            reply["queue"] = result.queue.to_wire()
        return reply

    return server


async def serve_stdio(host: Host) -> None:
    """Serve `host` over stdin/stdout until the client closes the connection."""
    async with host:
        runs = RunService(host)
        try:
            with capped_stdin(MAX_FRAME_BYTES):
                await build_server(host, runs).run_stdio_async()
        finally:
            await runs.shutdown()


# --- a bound on stdin's frames ---------------------------------------------------------

#: the longest frame `mcp serve` reads (a tool call's arguments are capped at 8 MiB too)
MAX_FRAME_BYTES: Final = 8 * 1024 * 1024
_CHUNK: Final = 64 * 1024
_REQUEST_ID: Final = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def _stand_in(head: bytes) -> bytes:
    """What replaces a frame over the limit: a request with its id, when its start
    names one (answered `Method not found`), else nothing."""
    found = _REQUEST_ID.search(head)
    if found is None:
        return b""
    return (b'{"jsonrpc":"2.0","id":' + found.group(1)
            + b',"method":"clawharness/frame_too_large","params":{}}\n')


def _pump(source: int, sink: int, max_bytes: int) -> None:
    """Copy frames from `source` to `sink`, dropping each one over `max_bytes` as it
    streams in (memory stays within one frame)."""
    pending = bytearray()
    dropping: bytes | None = None  # the start of a frame being dropped
    try:
        while chunk := os.read(source, _CHUNK):
            pending += chunk
            while (end := pending.find(b"\n")) >= 0:
                line = bytes(pending[:end + 1])
                del pending[:end + 1]
                if dropping is None and len(line) > max_bytes + 1:  # over by its last chunk
                    dropping = line[:4096]
                    _log.warning("mcp serve: a frame over the limit of %s bytes was dropped",
                                 f"{max_bytes:,}")
                if dropping is not None:
                    _write_all(sink, _stand_in(dropping))
                    dropping = None
                else:
                    _write_all(sink, line)
            if dropping is None and len(pending) > max_bytes:
                dropping = bytes(pending[:4096])
                _log.warning("mcp serve: a frame over the limit of %s bytes was dropped",
                             f"{max_bytes:,}")
            if dropping is not None:
                pending.clear()
        if pending and dropping is None:
            _write_all(sink, bytes(pending))
    except OSError:
        pass
    finally:
        os.close(sink)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@contextlib.contextmanager
def capped_stdin(max_bytes: int) -> Iterator[None]:
    """Serve fd 0 through `_pump` for the block: what reads stdin sees only frames within
    `max_bytes`."""
    source = os.dup(0)
    saved = os.dup(0)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    pump = threading.Thread(target=_pump, args=(source, write_end, max_bytes),
                            name="mcp-serve-stdin", daemon=True)
    pump.start()
    try:
        yield
    finally:
        os.dup2(saved, 0)
        os.close(saved)
