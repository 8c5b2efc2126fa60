"""What a browser may send the gateway's port: the rules against cross-site requests and
DNS rebinding, for WebSocket upgrades and every HTTP request alike.

A browser lets any page send requests to `127.0.0.1`: a WebSocket has no CORS at all,
and a "simple" `POST` (a form, or `fetch` with `text/plain`) goes out without asking.
So a gateway must tell its own pages from everyone else's by what the browser adds:

- `Origin`: absent (not a browser, or a top-level navigation), or the gateway's own
  origin, i.e. the same host and port as the request's `Host` (http or https, so a TLS
  proxy in front changes nothing; only the gateway serves its own port). A page on any
  other origin, another port of `localhost` included, and the opaque `null` origin
  (sandboxed frames, `file:`) are refused. This holds in every auth mode: the gateway
  sends no CORS headers, so no other origin is meant to reach it.
- `Sec-Fetch-Site` (sent by current browsers even where `Origin` is not, e.g. an
  `<img>` or `<script>` request): `cross-site` or `same-site` is refused, except a
  top-level `GET`/`HEAD` navigation (a link to the Control UI), which acts on nothing.
- With `gateway.auth.mode: "none"` (loopback only) the `Host` must be a loopback name
  (`localhost`, `*.localhost`, `127.x.y.z`, `[::1]`): a page whose own domain was made to
  resolve to 127.0.0.1 (DNS rebinding) is same-origin with itself and would pass the
  rules above, but its requests carry its own domain as `Host`.

The rule is pure (`browser_refusal`); `BrowserGuard` applies it to the HTTP app and the
WebSocket server's upgrade hook applies it to upgrades. A JSON body must also be sent as
`application/json` (`clawharness.gateway.openai_http.context.read_json_body`), which no
page of another origin can send without a CORS preflight this gateway never grants.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BrowserGuard", "browser_refusal", "is_loopback_name"]

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_NAVIGATION_METHODS: Final = frozenset({"GET", "HEAD"})


def is_loopback_name(host: str) -> bool:
    """`localhost`, a name under `.localhost`, or a loopback address (brackets allowed)."""
    name = host.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_and_port(authority: str) -> tuple[str, int | None] | None:
    """`host[:port]` as a lower-case host and its port (None when not written), or None
    when it is not one."""
    parsed = urlsplit(f"//{authority.strip()}")
    try:
        port = parsed.port
    except ValueError:
        return None
    host = parsed.hostname
    if not host or parsed.username is not None or parsed.path or parsed.query:
        return None
    return host.lower().rstrip("."), port


def _origin(value: str) -> tuple[str, int] | None:
    """`(host, port)` of an http(s) `Origin`, None for `null` or anything else."""
    parsed = urlsplit(value.strip())
    scheme = parsed.scheme.lower()
    if scheme not in ("http", "https") or parsed.path not in ("", "/") or parsed.query:
        return None
    split = _host_and_port(parsed.netloc)
    if split is None:
        return None
    return split[0], split[1] if split[1] is not None else _DEFAULT_PORTS[scheme]


def _same_origin(origin: tuple[str, int], host: tuple[str, int | None]) -> bool:
    """The page's origin is where the request went: the same host, and the same port (a
    `Host` without a port, as behind a TLS proxy, is the origin's scheme's default)."""
    if origin[0] != host[0]:
        return False
    if host[1] is None:
        return origin[1] in (80, 443)
    return origin[1] == host[1]


def browser_refusal(method: str, headers: Mapping[str, str], *,
                    auth_mode: str) -> str | None:
    """None when the request may go on; else why it is refused (see the module docstring).
    `headers` has lower-case names."""
    raw_host = headers.get("host")
    host = None if raw_host is None else _host_and_port(raw_host)
    if auth_mode == "none":
        if host is None:
            return ("the Host header is missing or malformed; with gateway.auth.mode \"none\" "
                    "only requests to a loopback name are served")
        if not is_loopback_name(host[0]):
            return (f"the Host header names {host[0]!r}, not a loopback name; with "
                    "gateway.auth.mode \"none\" only requests to localhost or a loopback "
                    "address are served (a page's own domain resolved to this machine, DNS "
                    "rebinding, is refused)")
    origin_header = headers.get("origin")
    if origin_header is not None:
        origin = _origin(origin_header)
        if origin is None:
            return f"the Origin {origin_header.strip()[:80]!r} is not allowed on this gateway"
        if host is None or not _same_origin(origin, host):
            return (f"the Origin {origin_header.strip()[:80]!r} is not this gateway's own "
                    "origin: pages of other origins (other ports of localhost too) may not "
                    "use it")
    site = headers.get("sec-fetch-site", "").strip().lower()
    if site in ("cross-site", "same-site"):
        navigation = headers.get("sec-fetch-mode", "").strip().lower() == "navigate"
        if not (navigation and method.upper() in _NAVIGATION_METHODS):
            return (f"a {site} request (Sec-Fetch-Site) from a page of another origin is not "
                    "allowed on this gateway")
    return None


class BrowserGuard:
    """ASGI middleware: refuses with 403 every HTTP request `browser_refusal` refuses."""

    def __init__(self, app: ASGIApp, *, auth_mode: str) -> None:
        self.app = app
        self.auth_mode = auth_mode

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        repeated = False
        for raw_name, raw_value in scope.get("headers", []):
            name = raw_name.decode("latin-1").lower()
            if name in ("host", "origin") and name in headers:
                repeated = True
            headers[name] = raw_value.decode("latin-1")
        reason = ("the Host or Origin header is sent twice" if repeated else
                  browser_refusal(str(scope.get("method", "GET")), headers,
                                  auth_mode=self.auth_mode))
        if reason is None:
            await self.app(scope, receive, send)
            return
        await _refuse(send, reason)


async def _refuse(send: Send, reason: str) -> None:
    body = json.dumps({"error": {"message": f"Forbidden: {reason}", "type": "forbidden",
                                 "param": None, "code": "origin_not_allowed"}}).encode()
    await send({"type": "http.response.start", "status": 403, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"), (b"cache-control", b"no-store"),
        (b"vary", b"Origin")]})
    await send({"type": "http.response.body", "body": body})
