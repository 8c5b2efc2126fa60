"""`GET /metrics` on the gateway port: the host's metrics as Prometheus text.

Auth is the gateway's: with `auth.mode "token"` the scraper sends the gateway token as
`Authorization: Bearer <token>` (compared in constant time); a missing or wrong token
gets 401 and nothing else.
"""

from __future__ import annotations

import hmac
from typing import Any, Final

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from clawharness.gateway.settings import GatewaySettings
from clawharness.observability.prometheus import CONTENT_TYPE

__all__ = ["METRICS_PATH", "metrics_response"]

METRICS_PATH: Final = "/metrics"


def _authorized(request: Request, settings: GatewaySettings) -> bool:
    if settings.auth_mode == "none":
        return True
    expected = settings.token or ""
    scheme, _, provided = request.headers.get("Authorization", "").partition(" ")
    return bool(expected) and scheme.lower() == "bearer" and hmac.compare_digest(
        provided.strip().encode(), expected.encode())


def metrics_response(connection: ServerConnection, request: Request, host: Any,
                     settings: GatewaySettings) -> Response:
    """The answer to one `/metrics` request."""
    if not _authorized(request, settings):
        response = connection.respond(401, "unauthorized: send the gateway token as "
                                           "Authorization: Bearer <token>\n")
        response.headers["WWW-Authenticate"] = 'Bearer realm="clawharness"'
        return response
    render = getattr(host, "metrics_text", None)
    body = render() if callable(render) else b""
    return Response(200, "OK", Headers([("Content-Type", CONTENT_TYPE),
                                        ("Content-Length", str(len(body))),
                                        ("Cache-Control", "no-store")]), body)
