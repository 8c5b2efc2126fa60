"""A scripted model server on loopback: OpenAI Responses, Chat Completions, Anthropic Messages.

It answers every model request from a script (see `clawharness.providers.script`), so agent
turns run with no API key and no network, through the official SDKs and the real native
runtimes alike. Endpoints:

    GET|HEAD /                          200 (Claude Code's preflight)
    GET  /v1/models, /models            a small model list (OpenAI and Anthropic shapes)
    POST /v1/responses, /responses      OpenAI Responses API, `stream` true or false
    POST /v1/chat/completions, /chat/completions
    POST /v1/messages[?beta=true]       Anthropic Messages, `stream` true or false
    POST /v1/messages/count_tokens      {"input_tokens": N} (uses no script item)

Every request is kept in `requests` (credentials redacted) and, with `log_path`, appended
to that file as one JSON line `{ts, method, path, query, headers, body}`.

Note that the SDKs retry 429 and 5xx answers by default and each retry takes the next
script item; build clients with `max_retries=0` when a script scripts errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import importlib
import ipaddress
import json
import logging
import os
import socket
import threading
import time
import zlib
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from clawharness.errors import ConfigError
from clawharness.providers.script import (
    Script,
    ScriptError,
    ScriptPlayer,
    load_script,
    parse_script,
)
from clawharness.testing.sse_anthropic import anthropic_error_body, messages_object, messages_stream
from clawharness.testing.sse_openai import (
    chat_completion,
    chat_stream,
    openai_error_body,
    responses_object,
    responses_stream,
)
from clawharness.testing.wire import Api, estimate_tokens, latest_text, make_reply

__all__ = ["LoggedRequest", "ScriptedModelServer"]

_REDACTED_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})
_MODELS = ("scripted", "gpt-5.5", "claude-sonnet-4-5")


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


class _CutStream(Exception):
    """Raised inside a response body so uvicorn drops the connection mid-answer."""


class _QuietCuts(logging.Filter):
    """Hides uvicorn's traceback for the connection drops a script asked for."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not _is_cut(exc)


def _is_cut(exc: BaseException | None) -> bool:
    seen: set[int] = set()
    stack = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, _CutStream):
            return True
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        stack.extend([current.__cause__, current.__context__])
    return False


_cut_filter = _QuietCuts()


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


def _loopback(host: str) -> str:
    """`host` if it is a loopback address ("localhost" becomes 127.0.0.1), else ConfigError."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ConfigError(
            f"the scripted model server binds to loopback only (127.0.0.1, ::1 or localhost), "
            f"not {host!r}",
            key_path="host",
        )
    return host


class ScriptedModelServer:
    """An HTTP model server on loopback answering from a script.

    Use `async with ScriptedModelServer(script) as server:` or, from synchronous code that
    drives subprocesses, `with ScriptedModelServer(script).run_in_thread() as server:`.
    `script` is a `Script`, a dict in the script format, or the path of a JSON/YAML file.
    `port=0` picks a free port; `url` and `port` give the real one once started. A host
    that is not loopback raises `ConfigError`.
    """

    def __init__(
        self,
        script: Script | Mapping[str, Any] | str | os.PathLike[str],
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.host = _loopback(host)
        if isinstance(script, Script):
            self.script = script
        elif isinstance(script, Mapping):
            self.script = parse_script(script)
        else:
            self.script = load_script(script)
        self._requested_port = port
        self.log_path = Path(log_path) if log_path is not None else None
        self._player = ScriptPlayer(self.script)
        self._lock = threading.Lock()
        self._requests: list[LoggedRequest] = []
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None
        self._port: int | None = None
        self.app = self._build_app()

    # --- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the port and serve; returns once the server accepts connections."""
        if self._server is not None:
            raise RuntimeError("the scripted model server is already running")
        uv_logger = logging.getLogger("uvicorn.error")
        if _cut_filter not in uv_logger.filters:
            uv_logger.addFilter(_cut_filter)
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
            raise RuntimeError("the scripted model server stopped during startup")
        self._server, self._task = server, task

    async def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        server, task = self._server, self._task
        if server is None or task is None:
            return
        server.should_exit = True
        await task
        self._server = self._task = None

    async def __aenter__(self) -> ScriptedModelServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @contextlib.contextmanager
    def run_in_thread(self, timeout: float = 10.0) -> Iterator[ScriptedModelServer]:
        """Serve from a background thread with its own event loop for the `with` block."""
        ready = threading.Event()
        failure: list[BaseException] = []
        holder: dict[str, Any] = {}

        async def main() -> None:
            try:
                await self.start()
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                return
            stop = asyncio.Event()
            holder["loop"], holder["stop"] = asyncio.get_running_loop(), stop
            ready.set()
            await stop.wait()
            await self.stop()

        thread = threading.Thread(
            target=asyncio.run, args=(main(),), name="scripted-model-server", daemon=True
        )
        thread.start()
        if not ready.wait(timeout):
            raise TimeoutError(f"the scripted model server did not start within {timeout} s")
        if failure:
            thread.join(timeout)
            raise failure[0]
        try:
            yield self
        finally:
            holder["loop"].call_soon_threadsafe(holder["stop"].set)
            thread.join(timeout)

    # --- addresses and log --------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (after `start`)."""
        if self._port is None:
            raise RuntimeError("the scripted model server is not started")
        return self._port

    @property
    def url(self) -> str:
        """`http://HOST:PORT`, the Anthropic-style base URL."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url_openai(self) -> str:
        """`http://HOST:PORT/v1`, the OpenAI-style base URL."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[LoggedRequest]:
        """A snapshot of every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def used_items(self) -> frozenset[int]:
        """Indexes of the script items answered so far."""
        return self._player.used

    async def _record(self, request: Request) -> Any:
        raw = _decode(await request.body(), request.headers.get("content-encoding", ""))
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
        entry = LoggedRequest(
            ts=time.time(),
            method=request.method,
            path=request.url.path,
            query=request.url.query,
            headers=headers,
            body=body,
        )
        with self._lock:
            self._requests.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry.to_json()) + "\n")
        return body

    # --- the app ------------------------------------------------------------------------

    def _build_app(self) -> Starlette:
        post = ["POST"]
        routes = [
            Route("/", self._root, methods=["GET", "HEAD"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/models", self._models, methods=["GET"]),
            Route("/v1/responses", self._responses, methods=post),
            Route("/responses", self._responses, methods=post),
            Route("/v1/chat/completions", self._chat, methods=post),
            Route("/chat/completions", self._chat, methods=post),
            Route("/v1/messages", self._messages, methods=post),
            Route("/v1/messages/count_tokens", self._count_tokens, methods=post),
            Route("/{path:path}", self._unknown),
        ]
        return Starlette(routes=routes)

    async def _root(self, request: Request) -> Response:
        await self._record(request)
        return PlainTextResponse("clawharness scripted model server\n")

    async def _models(self, request: Request) -> Response:
        await self._record(request)
        data = [
            {
                "id": name,
                "object": "model",
                "type": "model",
                "created": 0,
                "created_at": "2025-01-01T00:00:00Z",
                "owned_by": "clawharness",
                "display_name": name,
            }
            for name in _MODELS
        ]
        return JSONResponse(
            {"object": "list", "data": data, "has_more": False,
             "first_id": _MODELS[0], "last_id": _MODELS[-1]}
        )

    async def _unknown(self, request: Request) -> Response:
        await self._record(request)
        message = f"the scripted model server has no {request.method} {request.url.path}"
        return JSONResponse(openai_error_body(ScriptError(404, message)), status_code=404)

    async def _count_tokens(self, request: Request) -> Response:
        body = await self._record(request)
        if not isinstance(body, dict):
            return _error_response("anthropic", ScriptError(400, "body must be a JSON object"))
        counted = {k: body.get(k) for k in ("system", "messages", "tools")}
        return JSONResponse({"input_tokens": estimate_tokens(counted)})

    async def _responses(self, request: Request) -> Response:
        return await self._answer(request, "responses")

    async def _chat(self, request: Request) -> Response:
        return await self._answer(request, "chat")

    async def _messages(self, request: Request) -> Response:
        return await self._answer(request, "anthropic")

    async def _answer(self, request: Request, api: Api) -> Response:
        body = await self._record(request)
        if not isinstance(body, dict):
            return _error_response(api, ScriptError(400, "request body must be a JSON object"))
        item = self._player.choose(latest_text(api, body))
        if item.delay_ms > 0:
            await asyncio.sleep(item.delay_ms / 1000)
        if item.error is not None:
            return _error_response(api, item.error)
        reply = make_reply(item, body, api)
        if body.get("stream") is True:
            if api == "responses":
                frames = responses_stream(reply, self.script.responses_stream)
            elif api == "chat":
                options = body.get("stream_options")
                usage = isinstance(options, dict) and options.get("include_usage") is True
                frames = chat_stream(reply, include_usage=usage)
            else:
                frames = messages_stream(reply)
            return StreamingResponse(
                _body(frames, reply.cut),
                media_type="text/event-stream",
                headers={"cache-control": "no-cache"},
            )
        if api == "responses":
            obj = responses_object(reply)
        elif api == "chat":
            obj = chat_completion(reply)
        else:
            obj = messages_object(reply)
        if reply.cut:
            text = json.dumps(obj)
            half = [text[: len(text) // 2]]
            return StreamingResponse(_body(half, cut=True), media_type="application/json")
        return JSONResponse(obj)


def _decode(raw: bytes, encoding: str) -> bytes:
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


def _error_response(api: Api, error: ScriptError) -> Response:
    body = anthropic_error_body(error) if api == "anthropic" else openai_error_body(error)
    return JSONResponse(body, status_code=error.status)


async def _body(chunks: list[str], cut: bool) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk.encode("utf-8")
    if cut:
        raise _CutStream("the script cut this answer short")
