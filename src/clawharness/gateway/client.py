"""A small Python client for the gateway protocol (tests, benchmarks, scripts).

    async with await GatewayClient.connect("ws://127.0.0.1:18789", token="T") as client:
        accepted, final = await client.agent("hello", idempotency_key="k1")

It answers `connect.challenge` with a `connect` request, then matches responses to
requests by id. Events are fanned out to every queue from `client.events()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clawharness.gateway.protocol import PROTOCOL_VERSION, decode_json, encode

__all__ = ["AgentCall", "GatewayClient", "GatewayRequestError"]

DEFAULT_SCOPES = ("operator.admin", "operator.read", "operator.write", "operator.approvals")


class GatewayRequestError(Exception):
    """A `res` with `ok:false`."""

    def __init__(self, error: dict[str, Any], payload: Any = None) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error
        self.code = str(error.get("code"))
        self.details = error.get("details")
        self.payload = payload


@dataclass(slots=True)
class _Pending:
    future: asyncio.Future[Any]
    expect_final: bool
    accepted: asyncio.Future[Any] | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class AgentCall:
    """An `agent` request in flight: its two answers."""

    accepted: asyncio.Future[Any]
    final: asyncio.Future[Any]


class GatewayClient:
    """One authenticated connection."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.hello: dict[str, Any] = {}
        self.challenge: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._pending: dict[str, _Pending] = {}
        self._queues: list[asyncio.Queue[dict[str, Any]]] = []
        self._reader: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()

    @classmethod
    async def connect(cls, url: str, *, token: str | None = None,
                      scopes: Sequence[str] = DEFAULT_SCOPES, client_id: str = "cli",
                      mode: str = "cli", caps: Sequence[str] = (),
                      min_protocol: int = PROTOCOL_VERSION, max_protocol: int = PROTOCOL_VERSION,
                      open_timeout: float = 10.0) -> GatewayClient:
        """Connect and complete the handshake; raises GatewayRequestError when refused."""
        ws = await connect(url, max_size=None, compression=None, open_timeout=open_timeout)
        client = cls(ws)
        try:
            async with asyncio.timeout(open_timeout):
                challenge = decode_json(await ws.recv())
                client.challenge = challenge.get("payload") or {}
                params: dict[str, Any] = {
                    "minProtocol": min_protocol, "maxProtocol": max_protocol,
                    "client": {"id": client_id, "version": "0.1.0", "platform": "python",
                               "mode": mode, "instanceId": str(uuid.uuid4())},
                    "caps": list(caps), "role": "operator", "scopes": list(scopes),
                }
                if token is not None:
                    params["auth"] = {"token": token}
                await ws.send(encode({"type": "req", "id": "connect", "method": "connect",
                                      "params": params}))
                reply = decode_json(await ws.recv())
        except BaseException:
            await ws.close()
            raise
        if not reply.get("ok"):
            await ws.close()
            raise GatewayRequestError(reply.get("error") or {})
        client.hello = reply["payload"]
        client._reader = asyncio.create_task(client._read())
        return client

    async def __aenter__(self) -> GatewayClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader

    # --- events -----------------------------------------------------------------------

    def events(self, maxsize: int = 0) -> asyncio.Queue[dict[str, Any]]:
        """A queue receiving every event frame from now on."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize)
        self._queues.append(queue)
        return queue

    @contextlib.asynccontextmanager
    async def subscribe(self) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
        queue = self.events()
        try:
            yield queue
        finally:
            self._queues.remove(queue)

    # --- requests -----------------------------------------------------------------------

    async def request(self, method: str, params: Any = None, *, expect_final: bool = False,
                      timeout: float | None = 30.0) -> Any:
        """Send a request and return its payload (the final one with `expect_final`)."""
        pending = self._send(method, params, expect_final)
        async with asyncio.timeout(timeout):
            return await pending.future

    async def agent(self, message: str, *, idempotency_key: str | None = None,
                    timeout: float | None = 60.0, **params: Any) -> tuple[Any, Any]:
        """`agent`: (the accepted payload or None, the final payload)."""
        call = self.start_agent(message, idempotency_key=idempotency_key, **params)
        async with asyncio.timeout(timeout):
            final = await call.final
        accepted = call.accepted.result() if call.accepted.done() else None
        return accepted, final

    def start_agent(self, message: str, *, idempotency_key: str | None = None,
                    **params: Any) -> AgentCall:
        """Send `agent`; the call's `accepted` and `final` futures resolve as answers come."""
        body = {"message": message, "idempotencyKey": idempotency_key or str(uuid.uuid4()),
                **params}
        pending = self._send("agent", body, True)
        assert pending.accepted is not None
        return AgentCall(pending.accepted, pending.future)

    def _send(self, method: str, params: Any, expect_final: bool) -> _Pending:
        if self.closed.is_set():
            raise ConnectionError("gateway connection is closed")
        req_id = str(next(self._ids))
        loop = asyncio.get_running_loop()
        pending = _Pending(loop.create_future(), expect_final,
                           loop.create_future() if expect_final else None)
        self._pending[req_id] = pending
        frame: dict[str, Any] = {"type": "req", "id": req_id, "method": method}
        if params is not None:
            frame["params"] = params
        task = asyncio.ensure_future(self.ws.send(encode(frame)))
        task.add_done_callback(lambda t: self._sent(req_id, t))
        return pending

    def _sent(self, req_id: str, task: asyncio.Future[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self._fail(req_id, task.exception())

    def _fail(self, req_id: str, exc: BaseException | None) -> None:
        pending = self._pending.pop(req_id, None)
        if pending is not None and not pending.future.done():
            pending.future.set_exception(exc or ConnectionError("send failed"))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                frame = decode_json(raw)
                kind = frame.get("type")
                if kind == "event":
                    for queue in list(self._queues):
                        with contextlib.suppress(asyncio.QueueFull):
                            queue.put_nowait(frame)
                elif kind == "res":
                    self._on_response(frame)
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()
            for pending in self._pending.values():
                if not pending.future.done():
                    pending.future.set_exception(ConnectionError("gateway connection closed"))
            self._pending.clear()

    def _on_response(self, frame: dict[str, Any]) -> None:
        req_id = frame.get("id")
        pending = self._pending.get(req_id) if isinstance(req_id, str) else None
        if pending is None:
            return
        payload = frame.get("payload")
        if (frame.get("ok") and pending.expect_final and isinstance(payload, dict)
                and payload.get("status") == "accepted"):
            if pending.accepted is not None and not pending.accepted.done():
                pending.accepted.set_result(payload)
            return
        self._pending.pop(req_id, None)  # type: ignore[arg-type]
        if pending.future.done():
            return
        if frame.get("ok"):
            pending.future.set_result(payload)
        else:
            pending.future.set_exception(GatewayRequestError(frame.get("error") or {}, payload))
