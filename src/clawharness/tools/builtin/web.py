"""`web_fetch`: fetch a URL over HTTP(S) and return its text (HTML reduced to text).

Offered only when `tools.web.fetch.enabled` is true. Hosts that resolve to loopback,
private or link-local addresses are refused unless the tool is built with
`allow_private_network=True`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.tools.builtin._common import ToolInputError, optional_int, require_str, text_result

if TYPE_CHECKING:
    import httpx

__all__ = ["html_to_text", "web_fetch_tool"]

DEFAULT_MAX_CHARS = 50_000
_MAX_REDIRECTS = 5
_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_BLOCK = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "section",
        "article",
        "header",
        "footer",
        "pre",
        "blockquote",
        "table",
    }
)


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.title: str | None = None
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _SKIP:
            self.skip_depth += 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIP and self.skip_depth:
            self.skip_depth -= 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title and self.title is None:
            self.title = data.strip() or None
        if not self.skip_depth:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str | None]:
    """(readable text, title) of an HTML document."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    text = "\n".join(line for line in lines if line)
    return text, parser.title


async def _check_host(host: str) -> None:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ToolError(f"cannot resolve {host}: {exc}") from exc
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if (
            address.is_private
            or address.is_loopback
            or address.is_link_local
            or address.is_reserved
            or address.is_multicast
            or address.is_unspecified
        ):
            raise ToolError(f"refusing to fetch {host}: it resolves to a private address")


async def _get(client: httpx.AsyncClient, url: str, *, check: bool) -> httpx.Response:
    import httpx  # imported by the first fetch: every host starts without it

    # redirects are followed by hand so every hop's host passes the private-address check
    target = url
    for _ in range(_MAX_REDIRECTS + 1):
        host = urlsplit(target).hostname
        if urlsplit(target).scheme not in ("http", "https") or not host:
            raise ToolError(f"refusing to follow a redirect to {target!r}")
        if check:
            await _check_host(host)
        try:
            response = await client.get(target)
        except httpx.HTTPError as exc:
            raise ToolError(f"fetching {target} failed: {exc}") from exc
        if not response.is_redirect:
            return response
        target = str(response.url.join(response.headers.get("location", "")))
    raise ToolError(f"fetching {url} failed: more than {_MAX_REDIRECTS} redirects")


def web_fetch_tool(
    *,
    timeout_sec: float = 30.0,
    allow_private_network: bool = False,
    transport: httpx.AsyncBaseTransport | None = None,
) -> ToolSpec:
    """`web_fetch {url, maxChars?}`; `transport` lets tests serve requests in process."""

    async def execute(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        url = require_str(args, "url").strip()
        max_chars = optional_int(args, "maxChars", minimum=100, default=DEFAULT_MAX_CHARS)
        limit = max_chars or DEFAULT_MAX_CHARS
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolInputError(f"url must be an http(s) URL, got {url!r}")
        import httpx

        async with httpx.AsyncClient(
            follow_redirects=False,
            timeout=timeout_sec,
            transport=transport,
            headers={"user-agent": "clawharness-web-fetch/0.1"},
        ) as client:
            response = await _get(client, url, check=not allow_private_network)
        ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if response.status_code >= 400:
            raise ToolError(f"fetching {url} failed: HTTP {response.status_code}")
        title = None
        if ctype in ("text/html", "application/xhtml+xml"):
            text, title = html_to_text(response.text)
        elif ctype.startswith("text/") or ctype in ("application/json", "application/xml", ""):
            text = response.text
        else:
            raise ToolError(f"{url} returned {ctype}, which is not text")
        truncated = len(text) > limit
        if truncated:
            text = text[:limit] + f"\n\n[truncated at {limit} characters]"
        return text_result(
            text,
            url=url,
            finalUrl=str(response.url),
            status=response.status_code,
            contentType=ctype,
            title=title,
            truncated=truncated,
        )

    return ToolSpec(
        name="web_fetch",
        description="Fetch a web page or text resource by URL and return its readable text.",
        parameters={
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "An http or https URL"},
                "maxChars": {"type": "integer", "description": "Maximum characters to return"},
            },
            "required": ["url"],
            "additionalProperties": False,
        },
        execute=execute,
    )
