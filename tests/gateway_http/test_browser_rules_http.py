"""The gateway's browser rules on a live port (issue 31): with `auth.mode: "none"` the
Host must be a loopback name, in every mode an Origin must be the gateway's own, and a
JSON body must say `application/json`. Requests are written by hand, as a browser or an
attacker would send them, over HTTP and as WebSocket upgrades; no turn may run."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from http_support import TOKEN, ServeFactory

HELLO = {"responses": [{"text": "must never run"}]}
NO_AUTH = {"port": 0, "auth": {"mode": "none"},
           "http": {"endpoints": {"chatCompletions": {"enabled": True}}}}
WITH_TOKEN = {"port": 0, "auth": {"mode": "token", "token": TOKEN},
              "http": {"endpoints": {"chatCompletions": {"enabled": True}}}}
CHAT = json.dumps({"model": "openclaw", "messages": [{"role": "user", "content": "hi"}]})


async def raw(port: int, head: str, body: str = "") -> tuple[int, str]:
    """Send one request as written; the status code and the rest of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        data = body.encode()
        head = "\r\n".join(line for line in head.split("\n") if line)  # no empty header
        writer.write(head.encode() + b"\r\n"
                     + (f"Content-Length: {len(data)}\r\n" if data else "").encode()
                     + b"Connection: close\r\n\r\n" + data)
        await writer.drain()
        answer_head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        length = next((int(line.split(b":", 1)[1]) for line in answer_head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        answer_body = await asyncio.wait_for(reader.readexactly(length), 20) if length else b""
        answer = (answer_head + answer_body).decode(errors="replace")
    finally:
        writer.close()
    status = int(answer.split(" ", 2)[1])
    return status, answer


def post(host: str, *extra: str, content_type: str = "application/json",
         path: str = "/v1/chat/completions") -> str:
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", f"Content-Type: {content_type}", *extra]
    return "\n".join(lines)


def upgrade(host: str, *extra: str) -> str:
    return "\n".join(["GET / HTTP/1.1", f"Host: {host}", "Upgrade: websocket",
                      "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", *extra])


async def no_turn_ran(served: Any) -> None:
    assert served.model.requests == []
    assert await served.host.list_sessions() == []


async def test_without_auth_a_rebound_host_name_is_refused(serve: ServeFactory) -> None:
    async with serve(HELLO, gateway=NO_AUTH) as served:
        port = served.server.port
        for head in (post(f"rebind.example:{port}"),
                     post(f"rebind.example:{port}", f"Origin: http://rebind.example:{port}"),
                     f"GET /v1/models HTTP/1.1\nHost: rebind.example:{port}",
                     f"GET / HTTP/1.1\nHost: rebind.example:{port}",
                     upgrade(f"rebind.example:{port}"),
                     upgrade(f"rebind.example:{port}", f"Origin: http://rebind.example:{port}")):
            status, answer = await raw(port, head, CHAT if head.startswith("POST") else "")
            assert status == 403, answer
            assert "not a loopback name" in answer
        # the same requests to a loopback name are served
        status, _ = await raw(port, f"GET /v1/models HTTP/1.1\nHost: localhost:{port}")
        assert status == 200
        status, answer = await raw(port, upgrade(f"127.0.0.1:{port}"))
        assert status == 101, answer
        await no_turn_ran(served)


@pytest.mark.parametrize("gateway", [NO_AUTH, WITH_TOKEN], ids=["none", "token"])
async def test_another_origin_is_refused_over_http_and_websocket(serve: ServeFactory,
                                                                 gateway: Any) -> None:
    auth = "" if gateway is NO_AUTH else f"Authorization: Bearer {TOKEN}"
    async with serve(HELLO, gateway=gateway) as served:
        port = served.server.port
        host = f"127.0.0.1:{port}"
        for origin in (f"http://127.0.0.1:{port + 1}", f"http://localhost:{port}", "null",
                       "http://evil.example"):
            for head in (post(host, f"Origin: {origin}", auth),
                         post(host, f"Origin: {origin}", auth, content_type="text/plain"),
                         upgrade(host, f"Origin: {origin}")):
                status, answer = await raw(port, head, CHAT if head.startswith("POST") else "")
                assert status == 403, (origin, answer)
                assert "Origin" in answer
        # fetch metadata: a no-cors request from another site carries no Origin
        status, answer = await raw(port, "\n".join([
            "GET /v1/models HTTP/1.1", f"Host: {host}", "Sec-Fetch-Site: same-site",
            "Sec-Fetch-Mode: no-cors", auth]))
        assert status == 403, answer
        # the gateway's own origin (its Control UI) is served
        status, answer = await raw(port, upgrade(host, f"Origin: http://{host}"))
        assert status == 101, answer
        await no_turn_ran(served)


@pytest.mark.parametrize("gateway", [NO_AUTH, WITH_TOKEN], ids=["none", "token"])
async def test_a_json_body_must_say_application_json(serve: ServeFactory, gateway: Any) -> None:
    auth = "" if gateway is NO_AUTH else f"Authorization: Bearer {TOKEN}"
    async with serve(HELLO, gateway=gateway) as served:
        port = served.server.port
        host = f"127.0.0.1:{port}"
        for content_type in ("text/plain", "text/plain; charset=json",
                             "application/x-www-form-urlencoded", "multipart/form-data"):
            status, answer = await raw(port, post(host, auth, content_type=content_type), CHAT)
            assert status == 415, answer
            assert "application/json" in answer
        status, answer = await raw(port, "\n".join([
            "POST /v1/chat/completions HTTP/1.1", f"Host: {host}", auth]), CHAT)
        assert status == 415, answer
        await no_turn_ran(served)
        status, answer = await raw(port, post(host, auth, content_type="application/json; "
                                                                       "charset=utf-8"), CHAT)
        assert status == 200, answer
        assert len(served.model.requests) == 1
