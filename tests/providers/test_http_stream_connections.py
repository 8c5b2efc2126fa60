"""The streamed JSON client keeps its connection for the next model call.

httpx returns a connection to its pool only when the response was read to its end. A
Responses API stream's answer ends with `response.completed` (or a `[DONE]`), a moment
before the body does; the client reads that tail, so calls after the first reuse the
connection instead of paying a new TCP and TLS handshake each. A server that keeps the
body going after the answer has its connection closed, without the call waiting on it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clawharness.providers.http_stream import JsonStreamClient

COMPLETED = {"type": "response.completed", "response": {"usage": {}}}


class SseServer:
    """An HTTP/1.1 server on loopback answering every POST with the same event stream;
    `accepted` counts TCP connections. With `tail_never_ends` the body stays open after
    the events (the chunked body's end is never sent)."""

    def __init__(self, events: list[str], *, tail_never_ends: bool = False) -> None:
        self.events = events
        self.tail_never_ends = tail_never_ends
        self.accepted = 0
        self._server: asyncio.Server | None = None
        self._stopping = asyncio.Event()
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> SseServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._stopping.set()
        for writer in self._writers:
            writer.close()
        self._server.close()
        await self._server.wait_closed()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self._writers.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode().split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                await reader.readexactly(length)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n")
                for event in self.events:
                    frame = f"data: {event}\n\n".encode()
                    writer.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                await writer.drain()
                if self.tail_never_ends:
                    await self._stopping.wait()
                    return
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


async def answer(client: JsonStreamClient) -> list[dict[str, Any]]:
    """One call, read as the Responses transport reads it: up to the answer's last event."""
    seen: list[dict[str, Any]] = []
    stream: AsyncIterator[dict[str, Any]] = client.stream("/responses", {"input": "hi"})
    async for event in stream:
        seen.append(event)
        if event.get("type") == "response.completed":
            break
    await stream.aclose()  # type: ignore[attr-defined]
    return seen


@pytest.mark.parametrize("events", [
    [json.dumps({"type": "response.output_text.delta", "delta": "hi"}), json.dumps(COMPLETED)],
    [json.dumps(COMPLETED), "[DONE]"],
], ids=["completed-then-end", "completed-done-end"])
async def test_three_calls_share_one_connection(events: list[str]) -> None:
    async with SseServer(events) as server:
        client = JsonStreamClient(api_key="k", base_url=server.base_url)
        for _ in range(3):
            seen = await answer(client)
            assert seen[-1]["type"] == "response.completed"
        assert server.accepted == 1


async def test_a_body_that_never_ends_costs_a_connection_not_a_wait() -> None:
    async with SseServer([json.dumps(COMPLETED)], tail_never_ends=True) as server:
        client = JsonStreamClient(api_key="k", base_url=server.base_url)
        started = time.monotonic()
        for _ in range(2):
            seen = await answer(client)
            assert seen[-1]["type"] == "response.completed"
        elapsed = time.monotonic() - started
        assert server.accepted == 2
    # each call gives up on the tail after about a second (not the 600 s read timeout)
    assert elapsed < 10


async def test_a_call_stopped_mid_answer_does_not_wait_for_the_rest() -> None:
    delta = json.dumps({"type": "response.output_text.delta", "delta": "x"})
    async with SseServer([delta, delta], tail_never_ends=True) as server:
        client = JsonStreamClient(api_key="k", base_url=server.base_url)
        stream = client.stream("/responses", {"input": "hi"})
        first = await asyncio.wait_for(anext(stream), 5)
        assert first["type"] == "response.output_text.delta"
        await asyncio.wait_for(stream.aclose(), 0.5)  # no tail read: the answer was not over
