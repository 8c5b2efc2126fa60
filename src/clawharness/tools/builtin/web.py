"""`web_fetch`: fetch a URL over HTTP(S) and return its text (HTML reduced to text).

Offered only when `tools.web.fetch.enabled` is true. Hosts that resolve to loopback,
private or link-local addresses are refused unless the tool is built with
`allow_private_network=True`.

The body is streamed and read only up to a byte cap (`max_bytes`, 5 MiB; for text that
is not HTML, no more than `maxChars` could need): a huge or endless response costs
what the cap allows, never its whole size. A body that is not text, or an HTTP error,
is refused from its headers, before any of it is read.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass
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
#: the most of a response body web_fetch reads
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
_HTML_TYPES = ("text/html", "application/xhtml+xml")
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


@dataclass(frozen=True, slots=True)
class _Fetched:
    """A response whose body was read up to the cap."""

    url: str
    status: int
    content_type: str
    body: bytes
    encoding: str
    #: the body went on past the cap (or past what `maxChars` could use)
    cut: bool


def _is_text(content_type: str) -> bool:
    return (content_type in _HTML_TYPES or content_type.startswith("text/")
            or content_type in ("application/json", "application/xml", ""))


async def _read_capped(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    body = bytearray()
    # decoded as it arrives (gzip, deflate, ...): the cap bounds what is kept; one
    # compressed chunk of the stream inflates to at most about a thousand times its size
    async for chunk in response.aiter_bytes():
        room = cap - len(body)
        if len(chunk) > room:
            body += chunk[:room]
            return bytes(body), True
        body += chunk
    return bytes(body), False


async def _fetch(client: httpx.AsyncClient, url: str, *, check: bool, max_bytes: int,
                 text_cap: int) -> _Fetched:
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
            response = await client.send(client.build_request("GET", target), stream=True)
        except httpx.HTTPError as exc:
            raise ToolError(f"fetching {target} failed: {exc}") from exc
        try:
            if response.is_redirect:
                target = str(response.url.join(response.headers.get("location", "")))
                continue
            if response.status_code >= 400:
                raise ToolError(f"fetching {url} failed: HTTP {response.status_code}")
            ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if not _is_text(ctype):
                raise ToolError(f"{url} returned {ctype}, which is not text")
            cap = max_bytes if ctype in _HTML_TYPES else min(max_bytes, text_cap)
            try:
                raw, cut = await _read_capped(response, cap)
            except httpx.HTTPError as exc:
                raise ToolError(f"fetching {target} failed while reading: {exc}") from exc
            return _Fetched(str(response.url), response.status_code, ctype, raw,
                            response.charset_encoding or "utf-8", cut)
        finally:
            await response.aclose()
    raise ToolError(f"fetching {url} failed: more than {_MAX_REDIRECTS} redirects")


def web_fetch_tool(
    *,
    timeout_sec: float = 30.0,
    allow_private_network: bool = False,
    transport: httpx.AsyncBaseTransport | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ToolSpec:
    """`web_fetch {url, maxChars?}`; `transport` lets tests serve requests in process;
    `max_bytes` caps how much of a body is read."""

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
            # UTF-8 takes at most 4 bytes a character: more than that is never shown
            fetched = await _fetch(client, url, check=not allow_private_network,
                                   max_bytes=max_bytes, text_cap=limit * 4 + 4)
        try:
            decoded = fetched.body.decode(fetched.encoding, errors="replace")
        except LookupError:  # a charset Python does not know
            decoded = fetched.body.decode("utf-8", errors="replace")
        title = None
        if fetched.content_type in _HTML_TYPES:
            text, title = html_to_text(decoded)
        else:
            text = decoded
        truncated = len(text) > limit or fetched.cut
        if len(text) > limit:
            text = text[:limit] + f"\n\n[truncated at {limit} characters]"
        elif fetched.cut:
            text += (f"\n\n[truncated: only the first {len(fetched.body)} bytes of the body "
                     "were read]")
        return text_result(
            text,
            url=url,
            finalUrl=fetched.url,
            status=fetched.status,
            contentType=fetched.content_type,
            title=title,
            truncated=truncated,
            bytesRead=len(fetched.body),
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
