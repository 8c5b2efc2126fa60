"""web_fetch: text out of HTML, private hosts refused, redirects checked hop by hop."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from clawharness.errors import ToolError
from clawharness.harness.types import ToolCallContext
from clawharness.tools.builtin.web import html_to_text, web_fetch_tool

CTX = ToolCallContext(call_id="c", workspace_dir="/tmp", abort=asyncio.Event(),
                      session_key="agent:main:main", run_id="r")

PAGE = """<html><head><title>Greeting</title><style>p{}</style></head>
<body><h1>Hello</h1><script>var x=1;</script><p>World &amp; friends</p></body></html>"""


def handler(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/page":
        return httpx.Response(200, text=PAGE, headers={"content-type": "text/html"})
    if request.url.path == "/bounce":
        return httpx.Response(302, headers={"location": "http://127.0.0.1/page"})
    if request.url.path == "/img":
        return httpx.Response(200, content=b"\x89PNG", headers={"content-type": "image/png"})
    return httpx.Response(404, text="nope")


def text(result: dict[str, Any]) -> str:
    return "".join(b["text"] for b in result["content"])


def test_html_to_text_drops_scripts_and_styles() -> None:
    body, title = html_to_text(PAGE)
    assert title == "Greeting"
    assert body == "Hello\nWorld & friends"


async def test_fetches_html_as_text() -> None:
    tool = web_fetch_tool(allow_private_network=True, transport=httpx.MockTransport(handler))
    result = await tool.execute({"url": "http://example.test/page"}, CTX)
    assert text(result) == "Hello\nWorld & friends"
    assert result["details"]["title"] == "Greeting"
    assert result["details"]["status"] == 200


async def test_http_errors_and_binary_are_tool_errors() -> None:
    tool = web_fetch_tool(allow_private_network=True, transport=httpx.MockTransport(handler))
    with pytest.raises(ToolError, match="HTTP 404"):
        await tool.execute({"url": "http://example.test/missing"}, CTX)
    with pytest.raises(ToolError, match="not text"):
        await tool.execute({"url": "http://example.test/img"}, CTX)


async def test_only_http_urls() -> None:
    with pytest.raises(ToolError, match="http"):
        await web_fetch_tool().execute({"url": "file:///etc/passwd"}, CTX)


async def test_private_addresses_are_refused() -> None:
    tool = web_fetch_tool(transport=httpx.MockTransport(handler))
    with pytest.raises(ToolError, match="private address"):
        await tool.execute({"url": "http://127.0.0.1/page"}, CTX)


async def test_redirect_to_a_private_address_is_refused() -> None:
    calls: list[str] = []

    def public_then_bounce(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        return handler(request)

    tool = web_fetch_tool(transport=httpx.MockTransport(public_then_bounce))
    # 93.184.215.14 is a public address literal, so no DNS lookup is needed
    with pytest.raises(ToolError, match="private address"):
        await tool.execute({"url": "http://93.184.215.14/bounce"}, CTX)
    assert calls == ["http://93.184.215.14/bounce"]


class EndlessServer:
    """A real HTTP server on 127.0.0.1 whose one answer claims `size` bytes and writes
    them as fast as the client takes them; `sent` counts what it managed to write."""

    def __init__(self, size: int, content_type: str) -> None:
        self.size = size
        self.content_type = content_type
        self.sent = 0
        self.server: asyncio.Server | None = None

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(f"HTTP/1.1 200 OK\r\ncontent-type: {self.content_type}\r\n"
                     f"content-length: {self.size}\r\n\r\n".encode())
        chunk = b"<p>word</p>" * 6000 if "html" in self.content_type else b"a" * 65536
        try:
            while self.sent < self.size:
                writer.write(chunk)
                self.sent += len(chunk)
                await writer.drain()
        except ConnectionError:
            pass  # the client stopped reading: what the test wants
        finally:
            writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._answer, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/huge"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()


@pytest.mark.parametrize("content_type", ["text/plain", "text/html"])
async def test_a_huge_body_is_read_only_up_to_the_cap(content_type: str) -> None:
    huge = 1_500_000_000
    server = EndlessServer(huge, content_type)
    tool = web_fetch_tool(allow_private_network=True, max_bytes=1024 * 1024)
    async with server as url:
        result = await asyncio.wait_for(tool.execute({"url": url, "maxChars": 1000}, CTX), 60)
    assert result["details"]["truncated"] is True
    assert len(text(result)) < 1200
    # what was read, and what the server got rid of (socket buffers included), is a
    # sliver of the body it offered
    assert result["details"]["bytesRead"] <= 1024 * 1024
    assert server.sent < 64 * 1024 * 1024


async def test_plain_text_reads_no_more_than_max_chars_could_need() -> None:
    server = EndlessServer(1_500_000_000, "text/plain")
    async with server as url:
        result = await web_fetch_tool(allow_private_network=True).execute(
            {"url": url, "maxChars": 100}, CTX)
    assert result["details"]["bytesRead"] <= 4 * 100 + 4
    assert text(result).startswith("a" * 100)


async def test_a_body_that_is_not_text_is_refused_unread() -> None:
    server = EndlessServer(1_500_000_000, "application/octet-stream")
    async with server as url:
        with pytest.raises(ToolError, match="not text"):
            await web_fetch_tool(allow_private_network=True).execute({"url": url}, CTX)
    assert server.sent < 64 * 1024 * 1024
