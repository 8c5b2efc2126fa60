"""Serving a test server's ASGI app on loopback, and recording the requests it receives.

Shared by the scripted model server and the real model's recording front: one uvicorn
server in the running event loop on a loopback socket (`LoopbackApp`), and the
`LoggedRequest` record of one request, credentials redacted (`log_request`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import importlib
import ipaddress
import json
import socket
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.types import ASGIApp

from clawharness.errors import ConfigError

__all__ = ["LoggedRequest", "LoopbackApp", "decode_body", "log_request", "loopback_host"]

_REDACTED_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})


@dataclass(frozen=True, slots=True)
class LoggedRequest:
    """One request the server received (`body` is parsed JSON when it was JSON)."""

    ts: float
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Any

    def to_json(self) -> dict[str, Any]:
        """The record as written to the log file."""
        return {
            "ts": self.ts,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": self.headers,
            "body": self.body,
        }


def decode_body(raw: bytes, encoding: str) -> bytes:
    """Undo a compressed request body (some clients compress); unknown codings pass as is."""
    coding = encoding.strip().lower()
    try:
        if coding == "gzip":
            return gzip.decompress(raw)
        if coding == "deflate":
            return zlib.decompress(raw)
        if coding == "zstd":
            zstd: Any = importlib.import_module("zstandard")  # optional: not a dependency
            return bytes(zstd.ZstdDecompressor().decompress(raw, max_output_size=1 << 30))
    except (OSError, ValueError, zlib.error, ImportError):
        pass
    return raw


async def log_request(request: Request) -> LoggedRequest:
    """The record of `request`: its JSON body parsed (else text), credentials redacted."""
    raw = decode_body(await request.body(), request.headers.get("content-encoding", ""))
    body: Any = None
    if raw:
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        value = "<redacted>" if name.lower() in _REDACTED_HEADERS else value
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return LoggedRequest(ts=time.time(), method=request.method, path=request.url.path,
                         query=request.url.query, headers=headers, body=body)


def loopback_host(host: str, *, what: str) -> str:
    """`host` if it is a loopback address ("localhost" becomes 127.0.0.1), else ConfigError."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ConfigError(
            f"{what} binds to loopback only (127.0.0.1, ::1 or localhost), not {host!r}",
            key_path="host",
        )
    return host


class _Uvicorn(uvicorn.Server):  # type: ignore[misc]
    """A uvicorn server that leaves signal handling to its owner and reports readiness."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


class LoopbackApp:
    """An ASGI app served by uvicorn in the running event loop, on a loopback socket."""

    def __init__(self, app: ASGIApp, host: str, port: int = 0, *, name: str = "server") -> None:
        self.app = app
        self.host = host
        self.name = name
        self._requested_port = port
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None
        self._port: int | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        """The bound port (after `start`)."""
        if self._port is None:
            raise RuntimeError(f"the {self.name} is not started")
        return self._port

    @property
    def url(self) -> str:
        """`http://HOST:PORT`."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Bind the port and serve; returns once the server accepts connections."""
        if self._server is not None:
            raise RuntimeError(f"the {self.name} is already running")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        # an explicit IPPROTO_TCP lets asyncio set TCP_NODELAY on accepted connections;
        # without it every kept-alive request waits ~40 ms on delayed ACKs
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.host, self._requested_port))
            sock.listen(128)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self._port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            self.app,
            log_config=None,
            access_log=False,
            lifespan="off",
            http="h11",
            ws="none",
            timeout_graceful_shutdown=1,
        )
        server = _Uvicorn(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        ready = asyncio.create_task(server.ready.wait())
        await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            sock.close()
            self._port = None
            task.result()  # raises the startup failure
            raise RuntimeError(f"the {self.name} stopped during startup")
        self._server, self._task = server, task

    async def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        server, task = self._server, self._task
        if server is None or task is None:
            return
        server.should_exit = True
        await task
        self._server = self._task = None
