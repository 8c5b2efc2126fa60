"""One port, two protocols: WebSocket upgrades go to `websockets`, plain HTTP to an ASGI app.

The WebSocket side is built on the `websockets` asyncio server, whose HTTP parser only
takes `GET` without a body, so the HTTP API (`POST /v1/chat/completions`, streamed
answers) cannot ride on its `process_request` hook. Instead every accepted connection
starts with a `_Sniffer` protocol that reads the request head (bounded in size and time)
and then hands the transport, with the bytes already read, to the protocol that speaks
it: the `websockets` connection for an `Upgrade: websocket` request, uvicorn's h11
protocol (serving the Starlette app) for anything else. Nothing is parsed twice and no
second port is opened.

`HttpFront` also keeps each HTTP connection's transport by peer address, so a handler
can drop a client that stopped reading a stream (`abort_client`) instead of buffering
for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

__all__ = ["HEAD_LIMIT_BYTES", "HttpFront"]

log = logging.getLogger("clawharness.gateway")

#: a request head larger than this is refused before any protocol sees it
HEAD_LIMIT_BYTES: Final = 32 * 1024
#: how long a connection may take to send its request head
HEAD_TIMEOUT_SECONDS: Final = 15.0

_BAD_REQUEST: Final = (b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                       b"Content-Length: 0\r\nConnection: close\r\n\r\n")

Peer = tuple[str, int]


def _is_websocket_upgrade(head: bytes) -> bool:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"upgrade" and b"websocket" in value.lower():
            return True
    return False


class HttpFront:
    """The HTTP half of the gateway's port: uvicorn's protocol over a Starlette app."""

    def __init__(self, app: Any, *, server_header: str) -> None:
        self._config = uvicorn.Config(app, lifespan="off", ws="none", log_config=None,
                                      access_log=False, server_header=False,
                                      date_header=False, timeout_keep_alive=30)
        self._config.load()
        self._state = ServerState()
        self._state.default_headers = [(b"server", server_header.encode())]
        self._app_state: dict[str, Any] = {}
        self._transports: dict[Peer, asyncio.Transport] = {}
        self._sniffers: set[_Sniffer] = set()

    def protocol_for(self, websocket_factory: Callable[[], asyncio.Protocol]) -> asyncio.Protocol:
        """The protocol a new connection starts with."""
        return _Sniffer(self, websocket_factory)

    def _http_protocol(self, transport: asyncio.Transport) -> asyncio.Protocol:
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple) and len(peer) >= 2:
            key = (str(peer[0]), int(peer[1]))
            self._transports[key] = transport
            protocol = _TrackedH11(self._config, self._state, self._app_state,
                                   on_lost=lambda: self._transports.pop(key, None))
        else:
            protocol = _TrackedH11(self._config, self._state, self._app_state)
        return protocol

    def open_connections(self) -> int:
        """HTTP connections currently open (for tests and status)."""
        return len(self._state.connections)

    def abort_client(self, client: Any) -> bool:
        """Drop the HTTP connection of `scope["client"]` at once (True when it was open)."""
        if not isinstance(client, (tuple, list)) or len(client) < 2:
            return False
        transport = self._transports.pop((str(client[0]), int(client[1])), None)
        if transport is None:
            return False
        transport.abort()
        return True

    async def shutdown(self, grace: float = 3.0) -> None:
        """Close idle connections, let answers in flight finish (bounded), then abort."""
        for sniffer in list(self._sniffers):
            sniffer.close()
        for connection in list(self._state.connections):
            connection.shutdown()
        tasks = list(self._state.tasks)
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=grace)
            for task in pending:
                task.cancel()
        for transport in list(self._transports.values()):
            transport.abort()
        self._transports.clear()


class _TrackedH11(H11Protocol):  # type: ignore[misc]
    def __init__(self, config: Any, state: ServerState, app_state: dict[str, Any], *,
                 on_lost: Callable[[], object] | None = None) -> None:
        super().__init__(config, state, app_state)
        self._on_lost = on_lost

    def connection_lost(self, exc: Exception | None) -> None:
        if self._on_lost is not None:
            self._on_lost()
        super().connection_lost(exc)


class _Sniffer(asyncio.Protocol):
    """Reads the request head, then hands the connection to the protocol that speaks it."""

    def __init__(self, front: HttpFront,
                 websocket_factory: Callable[[], asyncio.Protocol]) -> None:
        self._front = front
        self._websocket_factory = websocket_factory
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._front._sniffers.add(self)
        self._timer = asyncio.get_running_loop().call_later(HEAD_TIMEOUT_SECONDS, self.close)

    def data_received(self, data: bytes) -> None:
        transport = self._transport
        if transport is None:
            return
        self._buffer += data
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self._buffer) > HEAD_LIMIT_BYTES:
                transport.write(_BAD_REQUEST)
                self.close()
            return
        self._settle()
        head = bytes(self._buffer[:end])
        protocol = (self._websocket_factory() if _is_websocket_upgrade(head)
                    else self._front._http_protocol(transport))
        transport.set_protocol(protocol)
        protocol.connection_made(transport)
        protocol.data_received(bytes(self._buffer))
        self._buffer.clear()

    def connection_lost(self, exc: Exception | None) -> None:
        self._settle()
        self._transport = None

    def _settle(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._front._sniffers.discard(self)

    def close(self) -> None:
        self._settle()
        if self._transport is not None:
            with contextlib.suppress(Exception):
                self._transport.close()
