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
import json
import logging
import os
import re
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from clawharness.providers.script import (
    Script,
    ScriptError,
    ScriptPlayer,
    load_script,
    parse_script,
)
from clawharness.testing.loopback import LoggedRequest, LoopbackApp, log_request, loopback_host
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

_MODELS = ("scripted", "gpt-5.5", "claude-sonnet-4-5")


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
        self.host = loopback_host(host, what="the scripted model server")
        if isinstance(script, Script):
            self.script = script
        elif isinstance(script, Mapping):
            self.script = parse_script(script)
        else:
            self.script = load_script(script)
        self.log_path = Path(log_path) if log_path is not None else None
        self._player = ScriptPlayer(self.script)
        self._lock = threading.Lock()
        self._requests: list[LoggedRequest] = []
        #: requests whose latest text matches wait here until their event is set
        self._holds: list[tuple[re.Pattern[str], threading.Event]] = []
        self.app = self._build_app()
        self._serving = LoopbackApp(self.app, self.host, port, name="scripted model server")

    def hold(self, pattern: str) -> threading.Event:
        """From now on, a request whose latest text matches `pattern` (a regex) is
        answered only once the returned event is set (by a test, from any thread)."""
        released = threading.Event()
        with self._lock:
            self._holds.append((re.compile(pattern), released))
        return released

    # --- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the port and serve; returns once the server accepts connections."""
        uv_logger = logging.getLogger("uvicorn.error")
        if _cut_filter not in uv_logger.filters:
            uv_logger.addFilter(_cut_filter)
        await self._serving.start()

    async def stop(self) -> None:
        """Stop serving and release the port (idempotent); held requests are let go."""
        with self._lock:
            for _, released in self._holds:
                released.set()
        await self._serving.stop()

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
        return self._serving.port

    @property
    def url(self) -> str:
        """`http://HOST:PORT`, the Anthropic-style base URL."""
        return self._serving.url

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
        entry = await log_request(request)
        with self._lock:
            self._requests.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry.to_json()) + "\n")
        return entry.body

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
        latest = latest_text(api, body)
        if self._holds:
            with self._lock:
                holds = [event for pattern, event in self._holds if pattern.search(latest)]
            for event in holds:
                if not event.is_set():
                    await asyncio.get_running_loop().run_in_executor(None, event.wait)
        item = self._player.choose(latest)
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


def _error_response(api: Api, error: ScriptError) -> Response:
    body = anthropic_error_body(error) if api == "anthropic" else openai_error_body(error)
    return JSONResponse(body, status_code=error.status)


async def _body(chunks: list[str], cut: bool) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk.encode("utf-8")
    if cut:
        raise _CutStream("the script cut this answer short")
