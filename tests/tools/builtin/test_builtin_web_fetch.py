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
