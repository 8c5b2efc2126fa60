"""One client session per MCP server, over the official `mcp` SDK.

A connection starts on first use: a runner task enters the transport and a
`ClientSession`, initialises once and lists the tools, then holds the session open until
the connection is closed or found broken. Calls from any turn share that session.

A broken connection (the process died, the transport closed, a call hung past its
timeout, the server flooded notifications or sent malformed JSON-RPC) is closed and
started again on the next use, after a back-off that doubles with each consecutive
failure (capped). A call that fails raises `McpCallError` naming the server, the tool and
the cause; nothing else is affected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio
import mcp.types as mcp_types
from mcp import ClientSession, MCPError
from mcp.client._transport import TransportStreams
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from clawharness.errors import McpCallError, McpConnectError
from clawharness.mcp._tool_listing import (
    MAX_TOOL_PAGES,
    MAX_TOOLS,
    MAX_TOOLS_PER_PAGE,
    ToolListing,
    read_pages,
    read_pages_leniently,
)
from clawharness.mcp.catalog import McpServerTool
from clawharness.mcp.specs import McpServerSpec, resolve_secrets
from clawharness.redaction import redact_tool_payload_text

__all__ = ["BACKOFF_CAP_SECONDS", "MAX_TOOLS", "MAX_TOOLS_PER_PAGE", "MAX_TOOL_PAGES",
           "McpConnection", "ServerInfo"]

_log = logging.getLogger("clawharness.mcp")
_T = TypeVar("_T")

#: the first restart waits this long, each consecutive failure doubles it, up to the cap
BACKOFF_BASE_SECONDS: Final = 0.2
BACKOFF_CAP_SECONDS: Final = 30.0
#: a call waits out a back-off this short; a longer one fails the call at once
BACKOFF_WAIT_IN_CALL_SECONDS: Final = 1.0
#: more notifications than this within one second closes the connection
NOTIFICATION_FLOOD_PER_SECOND: Final = 2_000


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What `initialize` told about the server."""

    name: str
    version: str
    protocol_version: str
    capabilities: Mapping[str, Any]


class McpConnection:
    """The host's one session with one configured server."""

    def __init__(self, spec: McpServerSpec, env: Mapping[str, str], *,
                 on_tools_changed: Callable[[], None] | None = None) -> None:
        self.spec = spec
        self._env = env
        self._on_tools_changed = on_tools_changed
        self._session: ClientSession | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._failures = 0
        self._retry_at = 0.0
        self._tools: tuple[McpServerTool, ...] | None = None
        self._tools_stale = False
        self._window_start = 0.0
        self._window_count = 0
        self._broken: str | None = None
        self._closed = False
        #: how many times a session was started (1 after the first start)
        self.starts = 0
        self.info: ServerInfo | None = None
        self.last_error: str | None = None
        #: seconds the last start took (transport up, initialised, tools listed)
        self.connect_seconds: float | None = None
        #: tools the last listing left out, and why
        self.listing_warnings: list[str] = []
        self._dispatcher: JSONRPCDispatcher[Any] | None = None
        self._protocol_version = ""
        #: this server's listing has a tool the SDK refuses: list and call without it
        self._lenient = False

    # --- lifecycle ----------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._session is not None and self._runner is not None and not self._runner.done()

    async def session(self) -> ClientSession:
        """The live session, started (or restarted after its back-off) when there is none."""
        if self.alive and self._broken is None:
            assert self._session is not None
            return self._session
        async with self._lock:
            if self.alive and self._broken is None:
                assert self._session is not None
                return self._session
            await self._stop_runner()
            if self._closed:
                raise McpConnectError(f"MCP server {self.spec.name!r} is closed",
                                      server=self.spec.name)
            wait = self._retry_at - time.monotonic()
            if wait > BACKOFF_WAIT_IN_CALL_SECONDS:
                raise McpConnectError(
                    f"MCP server {self.spec.name!r} failed {self._failures} times in a row "
                    f"(last: {self.last_error}); the next start is in {wait:.1f}s",
                    server=self.spec.name, hint=f"check {self.spec.key_path}")
            if wait > 0:
                await asyncio.sleep(wait)  # a short back-off before a restart
            return await self._start()

    async def _start(self) -> ClientSession:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[ClientSession] = loop.create_future()
        self._stop = asyncio.Event()
        self._broken = None
        started = time.perf_counter()
        self._runner = asyncio.create_task(self._run(ready, self._stop),
                                           name=f"mcp:{self.spec.name}")
        try:
            async with asyncio.timeout(self.spec.connection_timeout):
                session = await asyncio.shield(ready)
        except TimeoutError:
            await self._stop_runner()
            self._failed(f"no answer to initialize within {self.spec.connection_timeout:g}s")
            raise McpConnectError(
                f"MCP server {self.spec.name!r} did not start within "
                f"{self.spec.connection_timeout:g}s", server=self.spec.name,
                hint=f"check {self.spec.key_path} (command, url), or raise its "
                     "connectionTimeoutMs") from None
        except McpConnectError as exc:
            await self._stop_runner()
            self._failed(str(exc))
            raise
        self.connect_seconds = time.perf_counter() - started
        self._failures = 0
        self.starts += 1
        self.last_error = None
        return session

    def _failed(self, cause: str) -> None:
        self._failures += 1
        self.last_error = cause
        delay = min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (self._failures - 1))
        self._retry_at = time.monotonic() + delay

    async def _run(self, ready: asyncio.Future[ClientSession], stop: asyncio.Event) -> None:
        """Own the transport and the session for as long as the connection lives."""
        spec = self.spec
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                # the session reads through a relay, so the end of the server's output (its
                # process died, the stream closed) is seen at once, not at the next call
                ended = asyncio.Event()
                relay_send, relay_recv = anyio.create_memory_object_stream[
                    SessionMessage | Exception](0)
                relay = asyncio.create_task(_relay(read, relay_send, ended))
                stack.push_async_callback(_cancel, relay)
                dispatcher = JSONRPCDispatcher(relay_recv, write)
                session = await stack.enter_async_context(
                    ClientSession(dispatcher=dispatcher, message_handler=self._on_message))
                init = await session.initialize()
                self._dispatcher, self._protocol_version = dispatcher, init.protocol_version
                self._lenient = False
                self.info = ServerInfo(
                    init.server_info.name, init.server_info.version, init.protocol_version,
                    init.capabilities.model_dump(mode="json", exclude_none=True, by_alias=True))
                self.listing_warnings = []
                self._tools = await self._list_tools(session)
                self._session = session
                ready.set_result(session)
                await _first(stop, ended)
                if ended.is_set() and not stop.is_set():
                    self._break("the server closed the connection (did its process exit?)")
        except McpConnectError as exc:
            if not ready.done():
                ready.set_exception(exc)
        except BaseException as exc:  # the runner's failure is reported, never raised
            cause = _describe(exc)
            if not ready.done():
                ready.set_exception(McpConnectError(
                    f"MCP server {spec.name!r} could not be started: {cause}",
                    server=spec.name, hint=f"check {spec.key_path}"))
            elif not stop.is_set():
                _log.warning("MCP server %r: the connection ended: %s", spec.name, cause)
                self._broken = cause
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[TransportStreams]:
        spec = self.spec
        env, headers = resolve_secrets(spec, self._env)
        if spec.transport == "stdio":
            assert spec.command is not None
            params = StdioServerParameters(command=spec.command, args=list(spec.args),
                                           env=env or None, cwd=spec.cwd)
            with open(os.devnull, "w") as errlog:  # the server's stderr is its own log
                async with stdio_client(params, errlog=errlog) as streams:
                    yield streams
            return
        assert spec.url is not None
        from mcp.shared._httpx_utils import create_mcp_http_client

        if spec.transport == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(spec.url, headers=headers or None,
                                  timeout=spec.connection_timeout) as streams:
                yield streams
            return
        from mcp.client.streamable_http import streamable_http_client

        async with create_mcp_http_client(headers=headers or None) as http, \
                streamable_http_client(spec.url, http_client=http) as streams:
            yield streams

    async def _stop_runner(self) -> None:
        """End the runner: a live session closes cleanly (up to 5 s), a start still under
        way is cancelled at once."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        self._stop.set()
        if self._session is None and not runner.done():
            runner.cancel()  # still starting: nothing to close cleanly
        try:
            async with asyncio.timeout(5):
                await asyncio.shield(runner)
        except TimeoutError:
            runner.cancel()
            with contextlib.suppress(BaseException):
                await runner
        except BaseException as exc:  # the runner reported its own failure
            _log.debug("MCP server %r: the runner ended: %r", self.spec.name, exc)

    async def close(self) -> None:
        """Close the session and end the server process; the connection stays closed."""
        self._closed = True
        async with self._lock:
            await self._stop_runner()

    def _break(self, cause: str) -> None:
        """Mark the session unusable; the next use restarts it after the back-off."""
        if self._broken is None:  # one incident counts once toward the back-off
            _log.warning("MCP server %r: closing the connection: %s", self.spec.name, cause)
            self._broken = cause
            self._failed(cause)
        self._stop.set()

    async def _on_message(self, message: Any) -> None:
        """Notifications and transport errors from the server."""
        if isinstance(message, Exception):
            self._break(f"malformed message from the server: {_describe(message)}")
            return
        now = time.monotonic()
        if now - self._window_start > 1.0:
            self._window_start, self._window_count = now, 0
        self._window_count += 1
        if self._window_count > NOTIFICATION_FLOOD_PER_SECOND:
            self._break(f"more than {NOTIFICATION_FLOOD_PER_SECOND} notifications in one "
                        "second")
            return
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._tools_stale = True
            if self._on_tools_changed is not None:
                self._on_tools_changed()

    # --- requests -----------------------------------------------------------------

    async def _list_tools(self, session: ClientSession) -> tuple[McpServerTool, ...]:
        """Every page of `tools/list`. When the SDK refuses a listing because one tool in
        it is malformed, the listing is read again tool by tool, so only that tool is
        lost (with a warning naming it)."""
        if not self._lenient:
            try:
                return await read_pages(session, self._listing())
            except ValidationError:
                # the SDK would refuse every later listing too (it lists again to check a
                # call's structured result), so this session calls tools directly
                self._lenient = True
        assert self._dispatcher is not None
        return await read_pages_leniently(self._dispatcher, self._protocol_version,
                                          self._listing())

    def _listing(self) -> ToolListing:
        return ToolListing(self.spec.name, self.listing_warnings)

    def refresh_tools(self) -> None:
        """List the tools again on the next `tools()`."""
        self._tools_stale = True

    async def tools(self) -> tuple[McpServerTool, ...]:
        """The server's tools (listed again after `notifications/tools/list_changed`)."""
        session = await self.session()
        if self._tools is None or self._tools_stale:
            self._tools_stale = False
            self.listing_warnings = []
            self._tools = await self._request("tools/list", self._list_tools(session))
        return self._tools

    async def _request(self, what: str, request: Awaitable[_T],
                       timeout: float | None = None) -> _T:
        limit = self.spec.tool_timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                return await request
        except TimeoutError:
            self._break(f"{what} got no answer within {limit:g}s")
            raise McpCallError(
                f"MCP server {self.spec.name!r}: {what} got no answer within {limit:g}s "
                "(the connection is restarted for the next call)", server=self.spec.name,
                hint=f"raise {self.spec.key_path}.toolTimeoutMs if the tool is slow") from None
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._break(f"the connection closed ({exc.message})")
            raise McpCallError(f"MCP server {self.spec.name!r}: {what} failed: {exc.message}",
                               server=self.spec.name) from exc
        except (asyncio.CancelledError, McpCallError):
            raise
        except _TRANSPORT_FAILURES as exc:
            cause = _describe(exc)
            self._break(cause)
            raise McpCallError(f"MCP server {self.spec.name!r}: {what} failed: {cause} (the "
                               "connection is restarted for the next call)",
                               server=self.spec.name) from exc
        except Exception as exc:  # a bad answer fails this request only
            raise McpCallError(f"MCP server {self.spec.name!r}: {what} got a bad answer: "
                               f"{_describe(exc)}", server=self.spec.name) from exc

    async def call_tool(self, tool: str, arguments: Mapping[str, Any]
                        ) -> mcp_types.CallToolResult:
        """One `tools/call`; `McpCallError` (server, tool, cause) when it cannot answer."""
        try:
            session = await self.session()
        except McpConnectError as exc:
            raise McpCallError(f"MCP tool {tool!r} of server {self.spec.name!r} was not "
                               f"called: {exc}", server=self.spec.name) from exc
        call = self._call_leniently(tool, arguments) if self._lenient else session.call_tool(
            tool, dict(arguments))
        result = await self._request(f"tool {tool!r}", call)
        if not isinstance(result, mcp_types.CallToolResult):
            raise McpCallError(f"MCP server {self.spec.name!r}: tool {tool!r} answered "
                               f"with a {type(result).__name__}, not a tool result",
                               server=self.spec.name)
        return result

    async def _call_leniently(self, tool: str, arguments: Mapping[str, Any]
                              ) -> mcp_types.CallToolResult:
        assert self._dispatcher is not None
        raw = await self._dispatcher.send_raw_request(
            "tools/call", {"name": tool, "arguments": dict(arguments)},
            {"headers": {MCP_PROTOCOL_VERSION_HEADER: self._protocol_version}})
        return mcp_types.CallToolResult.model_validate(raw)

    async def list_resources(self) -> list[mcp_types.Resource]:
        session = await self.session()
        return list((await self._request("resources/list", session.list_resources())).resources)

    async def list_prompts(self) -> list[mcp_types.Prompt]:
        session = await self.session()
        return list((await self._request("prompts/list", session.list_prompts())).prompts)


async def _relay(source: Any, sink: Any, ended: asyncio.Event) -> None:
    """Forward the transport's messages to the session; set `ended` when they stop."""
    try:
        async with sink:
            async for item in source:
                await sink.send(item)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
        pass
    finally:
        ended.set()


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


async def _first(*events: asyncio.Event) -> None:
    """Return when any of `events` is set."""
    waiters = [asyncio.create_task(e.wait()) for e in events]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


#: what a dead or closed transport raises (any other error is a bad answer to one request)
_TRANSPORT_FAILURES: Final = (anyio.ClosedResourceError, anyio.BrokenResourceError,
                              anyio.EndOfStream, OSError, EOFError)


def _describe(exc: BaseException) -> str:
    """A one-line cause for an exception (a group's first leaf), secrets masked."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return redact_tool_payload_text(f"{type(exc).__name__}: {text}" if str(exc) else text)
