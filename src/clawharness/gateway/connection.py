"""One client connection: identity, per-connection event `seq`, and a bounded send queue.

Every frame to a client goes through `Connection.send`, which only appends to the
connection's queue; one writer task per connection drains it to the socket. The queue
is bounded in frames and bytes: a client that stops reading makes its writer stall on
the socket, the queue fills, and the connection is dropped (`1008 slow consumer`, as the
original) instead of growing memory without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from clawharness.gateway.protocol import encode, event_frame

__all__ = ["Connection", "SendLimits", "WebSocketLike"]

log = logging.getLogger("clawharness.gateway")

#: how long a closing handshake may take before the transport is aborted
CLOSE_GRACE_SECONDS = 1.0


class WebSocketLike(Protocol):
    """The part of a websockets `ServerConnection` a `Connection` uses."""

    async def send(self, message: str) -> None: ...

    async def close(self, code: int = 1000, reason: str = "") -> None: ...

    def abort(self) -> None: ...


@dataclass(frozen=True, slots=True)
class SendLimits:
    """Per-connection outbound bounds."""

    max_frames: int = 10_000
    max_bytes: int = 52_428_800


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Connection:
    """A connected client: handshake state, scopes, subscriptions and its send queue."""

    def __init__(self, ws: WebSocketLike, conn_id: str, *, limits: SendLimits,
                 remote: str | None = None) -> None:
        self.ws = ws
        self.conn_id = conn_id
        self.remote = remote
        self.limits = limits
        self.authenticated = False
        self.client_id = ""
        self.client_mode = ""
        self.client_version = ""
        self.role = "operator"
        self.scopes: tuple[str, ...] = ()
        self.caps: frozenset[str] = frozenset()
        #: `sessions.subscribe`: session change events and every session's run events
        self.sessions_subscribed = False
        #: `sessions.messages.subscribe`: run events of these session keys
        self.session_keys: set[str] = set()
        self.close_code: int | None = None
        self.close_reason = ""
        self._seq = 0
        self._queue: deque[str | _Close] = deque()
        self._queued_bytes = 0
        #: the most bytes ever waiting in the queue (bounded by `limits.max_bytes`)
        self.peak_queued_bytes = 0
        self._wake = asyncio.Event()
        self._closing = False
        self._abort_writer = False
        self.closed = asyncio.Event()

    # --- identity ---------------------------------------------------------------------

    def has_scope(self, scope: str) -> bool:
        from clawharness.gateway.scopes import scope_satisfied

        return scope_satisfied(scope, self.scopes)

    @property
    def is_open(self) -> bool:
        return not self._closing and not self.closed.is_set()

    # --- sending ----------------------------------------------------------------------

    def send(self, frame: dict[str, Any]) -> bool:
        """Queue one frame; False when the connection is closing or was just dropped."""
        if self._closing:
            return False
        text = encode(frame)
        size = len(text)
        if (len(self._queue) >= self.limits.max_frames
                or self._queued_bytes + size > self.limits.max_bytes):
            self.drop("slow consumer")
            return False
        self._queue.append(text)
        self._queued_bytes += size
        if self._queued_bytes > self.peak_queued_bytes:
            self.peak_queued_bytes = self._queued_bytes
        self._wake.set()
        return True

    def send_event(self, event: str, payload: Any) -> bool:
        """Queue an event with this connection's next `seq` (after the handshake)."""
        if self._closing:
            return False
        seq: int | None = None
        if self.authenticated:
            self._seq += 1
            seq = self._seq
        return self.send(event_frame(event, payload, seq))

    def close_after_flush(self, code: int, reason: str = "") -> None:
        """Send what is queued, then close with `code`/`reason`."""
        if self._closing:
            return
        self._closing = True
        self.close_code, self.close_reason = code, reason
        self._queue.append(_Close(code, reason))
        self._wake.set()

    def drop(self, reason: str, code: int = 1008) -> None:
        """Close now, discarding what is queued (a slow or misbehaving client)."""
        if self._closing and not self._queue:
            return
        log.warning("dropping connection %s (%s, %d bytes queued): %s", self.conn_id,
                    self.client_id or "unauthenticated", self._queued_bytes, reason)
        self._closing = True
        self.close_code, self.close_reason = code, reason
        self._queue.clear()
        self._queued_bytes = 0
        self._queue.append(_Close(code, reason))
        self._abort_writer = True
        self._wake.set()

    @property
    def queued_bytes(self) -> int:
        return self._queued_bytes

    # --- the writer -------------------------------------------------------------------

    async def run_writer(self) -> None:
        """Drain the queue to the socket until a close marker or the socket closes."""
        ws = self.ws
        try:
            while True:
                while self._queue:
                    item = self._queue.popleft()
                    if isinstance(item, _Close):
                        await self._close_socket(item)
                        return
                    self._queued_bytes -= len(item)
                    send = asyncio.ensure_future(ws.send(item))
                    try:
                        await self._race(send)
                    finally:
                        if not send.done():
                            send.cancel()
                self._wake.clear()
                await self._wake.wait()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the socket went away under us
            log.debug("writer of %s stopped: %s", self.conn_id, exc)
        finally:
            self._closing = True
            self.closed.set()

    async def _race(self, send: asyncio.Future[None]) -> None:
        """Await one send, but give up on it when the connection is dropped meanwhile."""
        while not send.done():
            wake: asyncio.Future[None] = asyncio.ensure_future(self._wait_wake())
            try:
                await asyncio.wait({send, wake}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                wake.cancel()
            if self._abort_writer:
                return
            self._wake.clear()
            if self._queue and not send.done():
                # more frames arrived while the socket is stalled; keep waiting
                continue
        if send.done() and not send.cancelled():
            send.result()

    async def _wait_wake(self) -> None:
        await self._wake.wait()

    async def _close_socket(self, item: _Close) -> None:
        try:
            async with asyncio.timeout(CLOSE_GRACE_SECONDS):
                await self.ws.close(item.code, item.reason)
        except (TimeoutError, Exception):
            with contextlib.suppress(Exception):
                self.ws.abort()
