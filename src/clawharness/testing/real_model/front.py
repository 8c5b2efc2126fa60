"""`RealModelServer`: the real model behind a recording front on loopback.

The front passes every request to the llama.cpp server unchanged and its answer back as
it streams, and keeps both: `requests` (what the host sent, as the scripted model server
records it) and `exchanges` (each request with the status and the full answer text, SSE
included). Tests assert on those (what the model was asked, with which tools and
history), never on the model's wording.

A front is cheap; the llama.cpp server behind it loads a model. So a test session starts
one `LlamaServer` and gives each test a front of its own over it:
`RealModelServer(llama)`. Without one, the front starts (and stops) its own.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from clawharness.testing.loopback import LoggedRequest, LoopbackApp, log_request, loopback_host
from clawharness.testing.real_model.process import LlamaServer, LlamaSettings
from clawharness.testing.real_model.runtime import RealModelRuntime

__all__ = ["DEFAULT_MAX_TOKENS", "Exchange", "RealModelServer"]

#: a provider config's `maxTokens` for this model: enough for a tool call or a sentence
DEFAULT_MAX_TOKENS = 64

#: headers that describe one connection, not the message: never passed on
_HOP_BY_HOP = frozenset({"host", "connection", "keep-alive", "transfer-encoding", "te",
                         "upgrade", "proxy-connection", "content-length"})


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request through the front, with the model server's answer."""

    request: LoggedRequest
    status: int
    #: the answer's body as text: one JSON document, or the SSE stream as sent
    response: str
    seconds: float

    @property
    def streamed(self) -> bool:
        return self.response.lstrip().startswith("data:")

    def events(self) -> list[dict[str, Any]]:
        """The answer as JSON documents: each SSE `data:` event, or the one body."""
        if not self.streamed:
            try:
                value = json.loads(self.response)
            except ValueError:
                return []
            return [value] if isinstance(value, dict) else []
        found: list[dict[str, Any]] = []
        for line in self.response.splitlines():
            data = line[5:].strip() if line.startswith("data:") else ""
            if data and data != "[DONE]":
                try:
                    value = json.loads(data)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    found.append(value)
        return found

    def timings(self) -> dict[str, Any] | None:
        """llama.cpp's `timings` of this answer (tokens and tokens per second), if any."""
        for event in reversed(self.events()):
            timings = event.get("timings")
            if isinstance(timings, dict):
                return timings
        return None

    def tool_call_names(self) -> list[str]:
        """The names of the tool calls the model answered with (Chat Completions)."""
        names: list[str] = []
        for event in self.events():
            for choice in event.get("choices") or ():
                part = choice.get("message") or choice.get("delta") or {}
                for call in part.get("tool_calls") or ():
                    name = (call.get("function") or {}).get("name")
                    if name:
                        names.append(name)
        return names


class RealModelServer:
    """The real model's recording front: `async with RealModelServer(llama) as model:`.

    `base_url_openai` is what an `openai-completions` provider's `baseUrl` names;
    `model_id` the model id it lists. Without `llama`, the front starts a `LlamaServer`
    of its own from `runtime` (default: `RealModelRuntime.default()`) and `settings`.
    """

    def __init__(self, llama: LlamaServer | None = None, *,
                 runtime: RealModelRuntime | None = None, settings: LlamaSettings | None = None,
                 host: str = "127.0.0.1", port: int = 0,
                 log_path: str | Path | None = None) -> None:
        self.host = loopback_host(host, what="the real model's front")
        self._owns_llama = llama is None
        self.llama = llama if llama is not None else LlamaServer(
            runtime or RealModelRuntime.default(), settings)
        self.log_path = Path(log_path) if log_path is not None else None
        self._lock = threading.Lock()
        self._requests: list[LoggedRequest] = []
        self._exchanges: list[Exchange] = []
        self._client: httpx.AsyncClient | None = None
        routes = [Route("/{path:path}", self._forward,
                        methods=["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"])]
        self._serving = LoopbackApp(Starlette(routes=routes), self.host, port,
                                    name="real model's front")

    # --- lifecycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Start the llama.cpp server (when this front owns it), then the front."""
        if self._owns_llama:
            await asyncio.to_thread(self.llama.start)
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(None, connect=10.0))
        try:
            await self._serving.start()
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Stop the front, and the llama.cpp server when this front started it."""
        await self._serving.stop()
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._owns_llama:
            await asyncio.to_thread(self.llama.stop)

    async def __aenter__(self) -> RealModelServer:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.stop()

    # --- addresses and records ----------------------------------------------------------

    @property
    def url(self) -> str:
        """`http://HOST:PORT` of the front."""
        return self._serving.url

    @property
    def base_url_openai(self) -> str:
        """`http://HOST:PORT/v1`, for `openai-completions` (and `openai-responses`)."""
        return f"{self.url}/v1"

    @property
    def model_id(self) -> str:
        return self.llama.model_id

    def provider_config(self, *, max_tokens: int = DEFAULT_MAX_TOKENS,
                        params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A `models.providers.<name>` entry for this model, as a config file has it.

        `contextWindow` is the server's context size. The params make answers repeatable
        and short: greedy (`temperature` 0, a fixed `seed`), one tool call per answer
        (`parallelToolCalls` false: greedy, the model repeats its call until `maxTokens`
        cuts the last one), and `maxTokens` small, since a greedy small model repeats a
        sentence until stopped.
        """
        return {
            "baseUrl": self.base_url_openai, "api": "openai-completions", "apiKey": "offline",
            "models": [{
                "id": self.model_id, "contextWindow": self.llama.settings.context_window,
                "maxTokens": max_tokens,
                "params": {"temperature": 0, "seed": self.llama.settings.seed,
                           "parallelToolCalls": False, **(params or {})},
            }],
        }

    @property
    def requests(self) -> list[LoggedRequest]:
        """Every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def exchanges(self) -> list[Exchange]:
        """Every answered request so far, in the order the answers ended."""
        with self._lock:
            return list(self._exchanges)

    def chat_requests(self) -> list[LoggedRequest]:
        """The Chat Completions requests (the model calls), oldest first."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # --- the front ----------------------------------------------------------------------

    async def _forward(self, request: Request) -> Response:
        logged = await log_request(request)
        with self._lock:
            self._requests.append(logged)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(logged.to_json()) + "\n")
        client = self._client
        if client is None:
            return JSONResponse({"error": {"message": "the front is stopping"}}, 503)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        outgoing = client.build_request(
            request.method, f"{self.llama.url}{request.url.path}",
            params=request.url.query or None, headers=headers, content=await request.body())
        started = time.monotonic()
        try:
            upstream = await client.send(outgoing, stream=True)
        except httpx.HTTPError as exc:
            message = f"the llama.cpp server did not answer: {type(exc).__name__}: {exc}"
            self._finish(logged, 502, json.dumps({"error": {"message": message}}), started)
            return JSONResponse({"error": {"message": message, "type": "server_error"}}, 502)

        async def body() -> AsyncIterator[bytes]:
            chunks: list[bytes] = []
            try:
                async for chunk in upstream.aiter_raw():
                    chunks.append(chunk)
                    yield chunk
            finally:
                await upstream.aclose()
                self._finish(logged, upstream.status_code,
                             b"".join(chunks).decode("utf-8", "replace"), started)

        answer_headers = {k: v for k, v in upstream.headers.items()
                          if k.lower() not in _HOP_BY_HOP}
        return StreamingResponse(body(), status_code=upstream.status_code,
                                 headers=answer_headers)

    def _finish(self, logged: LoggedRequest, status: int, text: str, started: float) -> None:
        with self._lock:
            self._exchanges.append(Exchange(logged, status, text, time.monotonic() - started))
