"""The host as an MCP server (`clawharness mcp serve`): other MCP clients drive
clawharness through its sessions.

Tools (all through `Host`, the one door):

- `sessions_list(limit)`: sessions, most recently used first
- `session_history(session_key, last)`: a session's transcript (text of each entry)
- `message_send(message, session_key)`: run one agent turn and return its reply

Served over stdio: stdout carries the protocol only (logs go to stderr). A turn runs
through the run service (`clawharness.runs`), like every front's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from clawharness.errors import ClawHarnessError
from clawharness.host import Host
from clawharness.runs import RunOptions, RunService
from clawharness.sessions.keys import parse_session_key

__all__ = ["build_server", "serve_stdio"]

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
                                                 "its reply.")
    async def message_send(message: str, session_key: str = "main") -> dict[str, Any]:
        with _told():
            key = host.session_key(session_key)
            run = turns.start(key, message, RunOptions(agent_id=parse_session_key(key).agent_id))
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
        return reply

    return server


async def serve_stdio(host: Host) -> None:
    """Serve `host` over stdin/stdout until the client closes the connection."""
    async with host:
        runs = RunService(host)
        try:
            await build_server(host, runs).run_stdio_async()
        finally:
            await runs.shutdown()
