"""A streamed JSON-over-HTTP client for OpenAI-compatible APIs, on httpx alone.

The `openai` SDK costs a command-line turn about a second before the model answers:
importing it imports its ~800 type modules, and its first stream builds the pydantic
schemas of the stream-event union. A transport that reads each server-sent event as the
JSON object it is needs neither (`OpenAIResponsesTransport`). This client sends what the
SDK sends that a server reads (the JSON body, `Authorization: Bearer`, the configured
headers) to `base_url` (else `OPENAI_BASE_URL`, else OpenAI's), with the SDK's timeouts
and no retries (the host's failover decides what is retried), and maps failures as the
SDK's errors are mapped (`clawharness.providers.base.error_for_status`): an HTTP error
status with the server's message and type, a connection or timeout error by its httpx
exception.
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, Final

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    # httpx's package imports its own command line (`httpx._main`: click, rich's syntax
    # highlighting, pygments; about a hundred modules) when those are installed, and
    # does without it when that import fails: a turn needs none of it
    sys.modules["httpx._main"] = None  # type: ignore[assignment]
    try:
        import httpx
    finally:
        del sys.modules["httpx._main"]  # a later `import httpx._main` works as usual
import httpx

from clawharness.providers.base import error_for_status, map_provider_error

__all__ = ["DEFAULT_BASE_URL", "JsonStreamClient", "server_sent_events"]

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
#: the SDK's: ten minutes for an answer, five seconds to connect
_TIMEOUT: Final = httpx.Timeout(600.0, connect=5.0)
#: the Responses API's last event of an answer: after it only the body's end is left
_LAST_EVENTS: Final = frozenset({"response.completed", "response.incomplete", "response.failed"})
#: how much is read past an answer's last event to see the body end (else it is dropped)
_TAIL_EVENTS: Final = 8
_TAIL_SECONDS: Final = 1.0


async def server_sent_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str | None, str]]:
    """(event name or None, data) of each event in a `text/event-stream` body."""
    event: str | None = None
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if data:
        yield event, "\n".join(data)


def _verify(base_url: str) -> ssl.SSLContext | bool:
    """What httpx verifies TLS with: the system's trust roots for an `https` server;
    for a plain `http` one (a local server) a context that trusts nothing, which no
    request uses (loading the roots costs every client about 0.1 s) and which fails
    closed if one ever did."""
    if base_url.lower().startswith("http://"):
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return True


def _error_fields(body: Any) -> tuple[str | None, str | None]:
    err = body.get("error", body) if isinstance(body, Mapping) else None
    if not isinstance(err, Mapping):
        return None, None
    message = err.get("message")
    kind = err.get("type") or err.get("code")
    return (message if isinstance(message, str) else None,
            kind if isinstance(kind, str) else None)


class JsonStreamClient:
    """One server's client (its connection pool), shared by the transports that call it."""

    def __init__(self, *, api_key: str, base_url: str | None = None,
                 headers: Mapping[str, str] | None = None) -> None:
        root = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.base_url = root.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}", "Accept": "text/event-stream",
                         **(headers or {})}
        self._http = httpx.AsyncClient(timeout=_TIMEOUT, verify=_verify(self.base_url))

    async def stream(self, path: str,
                     body: Mapping[str, Any]) -> AsyncGenerator[dict[str, Any], None]:
        """POST `body` to `path` and yield each streamed event's JSON object (a `[DONE]`
        ends the stream). An error status raises its `ProviderError` before any event."""
        request = self._http.build_request(
            "POST", self.base_url + path, headers=self._headers,
            content=json.dumps(body, separators=(",", ":")).encode())
        request.headers["Content-Type"] = "application/json"
        answered = False
        try:
            response = await self._http.send(request, stream=True)
        except Exception as exc:
            raise map_provider_error(exc) from exc
        try:
            if response.status_code >= 400:
                text = (await response.aread()).decode(errors="replace").strip()
                try:
                    parsed: Any = json.loads(text)
                except ValueError:
                    parsed = None
                message, kind = _error_fields(parsed)
                raise error_for_status(
                    response.status_code,
                    message or f"Error code: {response.status_code} - {parsed or text}",
                    error_type=kind)
            events = server_sent_events(response.aiter_lines())
            while True:
                try:
                    _event, data = await anext(events)
                    if data.startswith("[DONE]"):
                        answered = True
                        return
                    value = json.loads(data)
                except StopAsyncIteration:
                    return
                except Exception as exc:  # the stream was cut, or is not JSON
                    raise map_provider_error(exc, streaming=True) from exc
                if isinstance(value, dict):
                    if value.get("error"):  # as the SDK: an error object in the stream
                        message, kind = _error_fields(value)
                        raise error_for_status(None, message or "model stream error",
                                               error_type=kind)
                    answered = value.get("type") in _LAST_EVENTS
                    yield value
        finally:
            try:
                if answered:
                    await _read_to_the_end(events)
            finally:
                await response.aclose()

    async def close(self) -> None:
        await self._http.aclose()


async def _read_to_the_end(events: AsyncIterator[tuple[str | None, str]]) -> None:
    """Read what is left of a body whose answer is complete (its end, or a `[DONE]`).

    httpx keeps a connection for the next request only when its response was read to
    the end; closing it earlier closes the connection, and every model call would pay a
    new TCP (and TLS) handshake. A server that sends more than a few events or takes
    longer than a second after the answer has its connection closed as before."""
    try:
        async with asyncio.timeout(_TAIL_SECONDS):
            for _ in range(_TAIL_EVENTS):
                await anext(events)
    except (StopAsyncIteration, TimeoutError, httpx.HTTPError):
        pass
