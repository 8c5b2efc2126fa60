"""The gateway server: WebSocket transport, handshake, dispatch, ticks, shutdown.

    async with GatewayServer(host, settings).running() as server:
        print(server.port)
        await server.wait_closed()

Built on the `websockets` asyncio server. Each connection gets a `Connection` (bounded
send queue, one writer task) and its requests run concurrently; runs started by a
request belong to the run service (`clawharness.runs`), so they outlive the connection.
The server composes the fronts on its port: the WebSocket protocol here, and the HTTP
app (the OpenAI-compatible API and the Control UI), which gets the run service and a
narrow view of the host and settings, never the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from clawharness.gateway.approvals import ApprovalBroker, GatewayApprovalGate
from clawharness.gateway.browser_guard import browser_refusal
from clawharness.gateway.connection import Connection
from clawharness.gateway.handshake import handle_preconnect, is_request_frame
from clawharness.gateway.host_port import GatewayHost
from clawharness.gateway.http_front import HttpFront
from clawharness.gateway.hub import ConnectionHub
from clawharness.gateway.methods import default_methods, health_snapshot
from clawharness.gateway.metrics_route import METRICS_PATH, metrics_response
from clawharness.gateway.protocol import (
    CLOSE_PREAUTH_TOO_LARGE,
    MAX_BUFFERED_BYTES,
    MAX_PAYLOAD_BYTES,
    MAX_PREAUTH_PAYLOAD_BYTES,
    PROTOCOL_VERSION,
    ConnectParams,
    GatewayError,
    decode_json,
    error_shape,
    event_frame,
    response_frame,
)
from clawharness.gateway.request import NO_RESPONSE, Handler, RequestContext
from clawharness.gateway.runs import GatewayRunEvents
from clawharness.gateway.scopes import authorize_method
from clawharness.gateway.settings import GatewaySettings
from clawharness.runs import RunHandle, RunService

if TYPE_CHECKING:
    from clawharness.gateway.openai_http.context import HttpApi

__all__ = ["GATEWAY_EVENTS", "GatewayServer", "RequestContext"]

log = logging.getLogger("clawharness.gateway")

#: events this gateway emits (`hello-ok.features.events`)
GATEWAY_EVENTS: Final = (
    "connect.challenge", "agent", "chat", "sessions.changed", "tick", "shutdown",
    "plugin.approval.requested", "plugin.approval.resolved",
)
#: requests one connection may have in flight before it is told to retry
MAX_INFLIGHT_PER_CONNECTION: Final = 256


def _now_ms() -> int:
    return int(time.time() * 1000)


class _GatewayProtocol(ServerProtocol):
    """Reports an oversized frame before `connect` with the original's close reason."""

    preauth = True

    def fail(self, code: CloseCode | int, reason: str = "") -> None:
        if code == CloseCode.MESSAGE_TOO_BIG and self.preauth:
            reason = CLOSE_PREAUTH_TOO_LARGE[1]
        super().fail(code, reason)


class _GatewayConnection(ServerConnection):
    def __init__(self, protocol: ServerProtocol, server: Server, **kwargs: Any) -> None:
        protocol.__class__ = _GatewayProtocol
        super().__init__(protocol, server, **kwargs)


class _Socket:
    """Adapts a websockets connection to `Connection`'s `WebSocketLike`."""

    __slots__ = ("_ws",)

    def __init__(self, ws: ServerConnection) -> None:
        self._ws = ws

    async def send(self, message: str) -> None:
        await self._ws.send(message)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        await self._ws.close(code, reason)

    def abort(self) -> None:
        self._ws.transport.abort()


class GatewayServer:
    """Serves OpenClaw's gateway protocol over one `Host`."""

    def __init__(self, host: GatewayHost, settings: GatewaySettings,
                 methods: dict[str, Handler] | None = None) -> None:
        self.host = host
        self.settings = settings
        self.hub = ConnectionHub()
        self.approvals = ApprovalBroker(self.hub.publish_approval,
                                        timeout_seconds=settings.approval_timeout_s)
        self.approvals.has_approvers = self.hub.has_approvers
        approvals = self.approvals
        self.runs = RunService(
            host, approvals=lambda agent_id: GatewayApprovalGate(approvals, agent_id),
            listeners=[GatewayRunEvents(self.hub)], on_finished=self._run_finished)
        self.methods: dict[str, Handler] = methods if methods is not None else default_methods()
        self.started_at = time.monotonic()
        self._server: Server | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._front: HttpFront | None = None
        self._http_api: HttpApi | None = None

    def http_front(self) -> HttpFront:
        """Plain HTTP on this port: the OpenAI-compatible API and the Control UI."""
        from clawharness.gateway.openai_http.app import build_http_app
        from clawharness.gateway.openai_http.context import HttpApi

        if self._front is None:
            api = self._http_api = HttpApi(self.host, self.settings, self.runs)
            self._front = HttpFront(build_http_app(api),
                                    server_header=f"clawharness/{self.settings.version}")
            api.front = self._front
        return self._front

    # --- lifecycle ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        for sock in self._server.sockets:
            return int(sock.getsockname()[1])
        raise RuntimeError("server has no socket")

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[GatewayServer]:
        """Listen until the block exits; then stop ticks, runs and connections."""
        front = self.http_front()

        def connection(protocol: ServerProtocol, server: Server, **kwargs: Any) -> Any:
            return front.protocol_for(lambda: _GatewayConnection(protocol, server, **kwargs))

        self._server = await serve(
            self._handle, self.settings.host, self.settings.port,
            create_connection=connection,  # type: ignore[arg-type]
            process_request=self._http,
            max_size=MAX_PREAUTH_PAYLOAD_BYTES, compression=None, close_timeout=2,
            server_header=f"clawharness/{self.settings.version}",
        )
        self._ticker = asyncio.create_task(self._tick_loop(), name="gateway-tick")
        try:
            yield self
        finally:
            await self.shutdown()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def close(self) -> None:
        """Ask a running server to stop (returns at once)."""
        self._closed.set()

    async def shutdown(self) -> None:
        self._closed.set()
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self.hub.broadcast("shutdown", {"reason": "gateway stopping"})
        self.approvals.cancel_all()
        if self._front is not None:
            await self._front.shutdown()
        await self.runs.shutdown()
        if self._http_api is not None:  # the keyed requests' answers, for their retries
            await self._http_api.drain()
        for conn in self.hub.authenticated():
            conn.close_after_flush(1012, "service restart")
        if self._server is not None:
            self._server.close(close_connections=False)
            with contextlib.suppress(Exception):
                async with asyncio.timeout(3):
                    await self._server.wait_closed()
            self._server = None

    async def _tick_loop(self) -> None:
        interval = self.settings.tick_interval_ms / 1000
        while True:
            await asyncio.sleep(interval)
            self.hub.broadcast("tick", {"ts": _now_ms()})

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP on the gateway port: `/health`, `/metrics`; WebSocket upgrades pass
        through, unless a browser rule refuses them (`browser_guard`)."""
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return self._refuse_browser_upgrade(connection, request)
        if request.path.split("?", 1)[0] in ("/health", "/healthz"):
            return connection.respond(200, '{"ok":true}\n')
        if request.path.split("?", 1)[0] == METRICS_PATH:
            return metrics_response(connection, request, self.host, self.settings)
        return connection.respond(426, "Upgrade Required: this is a WebSocket gateway\n")

    def _refuse_browser_upgrade(self, connection: ServerConnection,
                                request: Request) -> Response | None:
        headers = request.headers
        if len(headers.get_all("Host")) > 1 or len(headers.get_all("Origin")) > 1:
            reason: str | None = "the Host or Origin header is sent twice"
        else:
            reason = browser_refusal("GET", {k.lower(): v for k, v in headers.raw_items()},
                                     auth_mode=self.settings.auth_mode)
        if reason is None:
            return None
        log.warning("refused a WebSocket upgrade: %s", reason)
        return connection.respond(403, f"Forbidden: {reason}\n")

    # --- connections --------------------------------------------------------------------

    def hello(self, conn: Connection, params: ConnectParams) -> dict[str, Any]:
        agent_id = self.host.default_agent_id()
        return {
            "type": "hello-ok",
            "protocol": PROTOCOL_VERSION,
            "server": {"version": self.settings.version, "connId": conn.conn_id},
            "features": {"methods": sorted(self.methods), "events": list(GATEWAY_EVENTS)},
            "snapshot": {
                "presence": [],
                "health": health_snapshot(self),
                "stateVersion": {"presence": 0, "health": 0},
                "uptimeMs": int((time.monotonic() - self.started_at) * 1000),
                "stateDir": str(self.host.state_dir),
                "sessionDefaults": {
                    "defaultAgentId": agent_id, "mainKey": "main",
                    "mainSessionKey": f"agent:{agent_id}:main", "scope": "per-sender",
                    "ownership": "sole",
                },
                "authMode": self.settings.auth_mode,
            },
            "auth": {"method": self.settings.auth_mode, "role": conn.role,
                     "scopes": list(conn.scopes)},
            "policy": {"maxPayload": MAX_PAYLOAD_BYTES,
                       "maxBufferedBytes": min(MAX_BUFFERED_BYTES,
                                               self.settings.send_limits.max_bytes),
                       "tickIntervalMs": self.settings.tick_interval_ms},
        }

    def _accept(self, conn: Connection, req_id: str, params: ConnectParams) -> None:
        hello = self.hello(conn, params)
        conn.send(response_frame(req_id, True, hello))
        conn.authenticated = True

    async def _handle(self, ws: ServerConnection) -> None:
        remote = ws.remote_address
        conn = Connection(_Socket(ws), str(uuid.uuid4()), limits=self.settings.send_limits,
                          remote=str(remote[0]) if remote else None)
        self.hub.add(conn)
        writer = asyncio.create_task(conn.run_writer(), name=f"gateway-writer-{conn.conn_id}")
        conn.send(event_frame("connect.challenge", {
            "nonce": str(uuid.uuid4()), "ts": _now_ms(), "capabilities": [],
        }))
        loop = asyncio.get_running_loop()
        timer = loop.call_later(self.settings.handshake_timeout_s,
                                lambda: None if conn.authenticated else conn.close_after_flush(1000))
        tasks: set[asyncio.Task[None]] = set()
        try:
            async for raw in ws:
                if not conn.is_open:
                    break
                if not conn.authenticated:
                    handle_preconnect(conn, raw, self.settings, self._accept)
                    if conn.authenticated:
                        timer.cancel()
                        ws.protocol.max_message_size = MAX_PAYLOAD_BYTES
                        if isinstance(ws.protocol, _GatewayProtocol):
                            ws.protocol.preauth = False
                    continue
                self._dispatch(conn, raw, tasks)
        except ConnectionClosed:
            pass
        finally:
            timer.cancel()
            self.hub.remove(conn)
            for task in tasks:
                task.cancel()
            if not conn.closed.is_set() and conn.is_open:
                conn.close_after_flush(1000)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(conn.closed.wait()), 2.0)
            writer.cancel()
            await asyncio.gather(writer, *tasks, return_exceptions=True)

    # --- requests -----------------------------------------------------------------------

    def _dispatch(self, conn: Connection, raw: str | bytes, tasks: set[asyncio.Task[None]]) -> None:
        try:
            parsed = decode_json(raw)
        except ValueError:
            log.debug("ignoring malformed JSON from %s", conn.conn_id)
            return
        if not is_request_frame(parsed):
            if isinstance(parsed, dict) and parsed.get("type") in ("res", "event"):
                return
            req_id = parsed.get("id") if isinstance(parsed, dict) else None
            conn.send(response_frame(
                req_id if isinstance(req_id, str) and req_id else "invalid", False,
                error=error_shape("INVALID_REQUEST",
                                  "invalid request frame: must be {type:\"req\", id, method}")))
            return
        if len(tasks) >= MAX_INFLIGHT_PER_CONNECTION:
            conn.send(response_frame(parsed["id"], False, error=error_shape(
                "UNAVAILABLE", "The server is busy. Please try again in a moment.",
                retryable=True)))
            return
        task = asyncio.create_task(self._run_request(conn, parsed))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def _run_request(self, conn: Connection, frame: dict[str, Any]) -> None:
        method: str = frame["method"]
        raw_params = frame.get("params")
        log.debug("conn %s req %s %s", conn.conn_id[:8], method, frame["id"])
        ctx = RequestContext(self, conn, frame["id"], method,
                             raw_params if isinstance(raw_params, dict) else {}, raw_params)
        denied = authorize_method(method, conn.role, conn.scopes, raw_params)
        if denied is not None:
            ctx.respond(False, error=denied)
            return
        handler = self.methods.get(method)
        if handler is None:
            ctx.respond(False, error=error_shape("INVALID_REQUEST", f"unknown method: {method}"))
            return
        try:
            payload = await handler(ctx)
        except GatewayError as exc:
            if not ctx.answered:
                ctx.respond(False, error=exc.shape.wire())
            return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("gateway method %s failed", method)
            if not ctx.answered:
                ctx.respond(False, error=error_shape("UNAVAILABLE", f"{type(exc).__name__}: {exc}"))
            return
        if payload is not NO_RESPONSE and not ctx.answered:
            ctx.respond(True, payload)

    # --- session change events ---------------------------------------------------------------

    def session_changed(self, session_key: str, reason: str, **fields: Any) -> None:
        agent = session_key.split(":", 2)[1] if session_key.count(":") >= 2 else None
        payload: dict[str, Any] = {"sessionKey": session_key, "reason": reason, "ts": _now_ms(),
                                   **({"agentId": agent} if agent else {}), **fields}
        self.hub.publish_sessions_changed(payload)

    async def _run_finished(self, run: RunHandle, _result: Any) -> None:
        self.session_changed(run.session_key, "send", phase="end", runId=run.run_id,
                             **({"sessionId": run.session_id} if run.session_id else {}),
                             updatedAt=_now_ms())
