"""Security headers, disconnects and slow readers on the HTTP side."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Awaitable, Callable

import httpx
import pytest
from http_support import TOKEN, Served, ServeFactory

from clawharness.gateway.openai_http import turns

AUTH = {"authorization": f"Bearer {TOKEN}"}
USER = [{"role": "user", "content": "hi"}]


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 15.0) -> None:
    """Wait until `check()` holds (polling a condition, bounded)."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


async def assistant_text(served: Served, key: str) -> str:
    with contextlib.suppress(Exception):
        for entry in await served.host.history(key):
            if entry.role == "assistant":
                return json.dumps(entry.to_json() if hasattr(entry, "to_json") else str(entry))
    return ""


async def test_every_answer_carries_the_security_headers(serve: ServeFactory) -> None:
    async with serve({"responses": [{"text": "x"}]}) as served, httpx.AsyncClient() as http:
        for response in (await http.get(f"{served.v1}/models", headers=AUTH),
                         await http.get(f"{served.v1}/models"),
                         await http.get(f"{served.base}/health")):
            assert response.headers["x-content-type-options"] == "nosniff"
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
            assert response.headers["x-frame-options"] == "DENY"
        api = await http.get(f"{served.v1}/models", headers=AUTH)
        assert api.headers["cache-control"] == "no-store"


async def test_a_client_that_disconnects_mid_turn_leaves_the_turn_running(
        serve: ServeFactory) -> None:
    script = {"responses": [{"text": "the late answer", "delay_ms": 600}]}
    async with serve(script) as served:
        key = "agent:main:openai-user:leaver"

        async def ask() -> None:
            async with httpx.AsyncClient() as http:
                await http.post(f"{served.v1}/chat/completions", headers=AUTH,
                                json={"model": "openclaw", "user": "leaver", "messages": USER})

        request = asyncio.create_task(ask())

        async def model_was_asked() -> bool:
            return bool(served.model.requests)

        await until(model_was_asked)
        request.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await request

        async def answered() -> bool:
            return "the late answer" in await assistant_text(served, key)

        await until(answered)


async def test_a_stream_reader_that_stops_reading_is_dropped(
        serve: ServeFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(turns, "MAX_PENDING_BYTES", 64 * 1024)
    # one scripted step, repeated until agents.defaults.maxSteps: 40 steps of three
    # deltas each (10 MB in all), far more than the socket buffers of a reader that
    # stopped (its receive window pinned small) and the 64 KiB allowance can hold
    part = "y" * (250 * 1024)
    text = part * 40
    script = {"responses": [{"match": "stream|again", "repeat": True, "text": part,
                             "tool_calls": [{"name": "exec",
                                             "arguments": {"command": "echo again"}}]}]}
    agents = {"defaults": {"model": "scripted/m", "maxSteps": 40},
              "entries": {"main": {"default": True}}}
    # the same call forty times is a tool loop, which would end the turn early
    tools = {"exec": {"security": "full", "ask": "off"}, "loopDetection": {"enabled": False}}
    async with serve(script, agents=agents, tools=tools) as served:
        body = json.dumps({"model": "openclaw", "stream": True, "user": "sleeper",
                           "messages": [{"role": "user", "content": "stream it"}]}).encode()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", served.server.port))
        sock.setblocking(False)
        reader, writer = await asyncio.open_connection(sock=sock)
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
                     b"Content-Type: application/json\r\n"
                     b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()

        async def started() -> bool:
            return bool(served.model.requests)

        async def finished() -> bool:
            return not served.server.runs.active_runs()

        await until(started)
        await until(finished, timeout=90)
        received = 0
        with contextlib.suppress(ConnectionError):
            while chunk := await asyncio.wait_for(reader.read(65536), 10):
                received += len(chunk)
        writer.close()
        assert received < len(text), "the whole answer was buffered for a reader that stopped"
        assert served.server.http_front().open_connections() == 0
