"""The Starlette app for plain HTTP on the gateway's port.

Routes: `/health`; the OpenAI-compatible `/v1/...` endpoints (chat completions and
responses only when enabled in the config, as in the original); and, when the Control UI
is on, its pages at `/` (mounted by `clawharness.gateway.control_ui`). Every answer carries
the security headers (`SECURITY_HEADERS`); every error under `/v1/` is in OpenAI's shape.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from clawharness.gateway.browser_guard import BrowserGuard
from clawharness.gateway.openai_http.chat import chat_completions
from clawharness.gateway.openai_http.context import HttpApi
from clawharness.gateway.openai_http.errors import OpenAiHttpError, error_body, error_response
from clawharness.gateway.openai_http.models import models_get, models_list
from clawharness.gateway.openai_http.responses import responses

__all__ = ["SECURITY_HEADERS", "api_route", "build_http_app"]

log = logging.getLogger("clawharness.gateway")

SECURITY_HEADERS: Final = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
     b"object-src 'none'"),
)

Endpoint = Callable[[HttpApi, Request], Awaitable[Response]]


class SecurityHeaders:
    """Adds `SECURITY_HEADERS` (and `no-store` on API answers) to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        api = path.startswith(("/v1/", "/ui/api/"))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [h for h in SECURITY_HEADERS if h[0] not in present]
                if api and b"cache-control" not in present:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _endpoint(api: HttpApi, handler: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        try:
            return await handler(api, request)
        except OpenAiHttpError as exc:
            return error_response(exc)
        except Exception as exc:
            log.exception("HTTP %s %s failed", request.method, request.url.path)
            return JSONResponse(error_body(f"internal error: {type(exc).__name__}",
                                           type_="api_error"), status_code=500)

    return run


def _disabled(key: str) -> Endpoint:
    async def refuse(_api: HttpApi, request: Request) -> Response:
        raise OpenAiHttpError(404, f"{request.url.path} is disabled on this gateway: set "
                              f"{key} to true to enable it", code="endpoint_disabled")

    return refuse


def _method_not_allowed(allow: str) -> Endpoint:
    async def refuse(_api: HttpApi, request: Request) -> Response:
        raise OpenAiHttpError(405, f"{request.method} is not allowed on {request.url.path}: "
                              f"use {allow}", code="method_not_allowed",
                              headers={"allow": allow})

    return refuse


async def _not_found(_api: HttpApi, request: Request) -> Response:
    raise OpenAiHttpError(404, f"no such endpoint: {request.method} {request.url.path}",
                          code="not_found")


def _metrics_endpoint(api: HttpApi) -> Callable[[Request], Awaitable[Response]]:
    """`GET /metrics`: Prometheus text behind the gateway token (docs/observability.md)."""
    from clawharness.observability.prometheus import CONTENT_TYPE

    async def metrics(request: Request) -> Response:
        settings = api.settings
        if settings.auth_mode != "none":
            expected = settings.token or ""
            scheme, _, provided = request.headers.get("authorization", "").partition(" ")
            if not (expected and scheme.lower() == "bearer" and hmac.compare_digest(
                    provided.strip().encode(), expected.encode())):
                return PlainTextResponse(
                    "unauthorized: send the gateway token as Authorization: Bearer <token>\n",
                    status_code=401, headers={"WWW-Authenticate": 'Bearer realm="clawharness"'})
        render = getattr(api.host, "metrics_text", None)
        body = render() if callable(render) else b""
        return Response(body, media_type=CONTENT_TYPE, headers={"cache-control": "no-store"})

    return metrics


async def _health(_request: Request) -> Response:
    return JSONResponse({"ok": True})


def api_route(api: HttpApi, path: str, methods: dict[str, Endpoint]) -> Route:
    allow = ", ".join(sorted(methods))
    handlers = {m: _endpoint(api, h) for m, h in methods.items()}
    fallback = _endpoint(api, _method_not_allowed(allow))

    async def dispatch(request: Request) -> Response:
        return await handlers.get(request.method, fallback)(request)

    return Route(path, dispatch, methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"])


def build_http_app(api: HttpApi, *, extra_routes: list[BaseRoute] | None = None) -> Any:
    """The ASGI app the gateway's HTTP front serves."""
    settings = api.settings
    chat: Endpoint = (chat_completions if settings.chat_completions_enabled
                      else _disabled("gateway.http.endpoints.chatCompletions.enabled"))
    resp: Endpoint = (responses if settings.responses_enabled
                      else _disabled("gateway.http.endpoints.responses.enabled"))
    routes: list[BaseRoute] = [
        Route("/health", _health), Route("/healthz", _health),
        Route("/metrics", _metrics_endpoint(api), methods=["GET"]),
        api_route(api, "/v1/models", {"GET": models_list}),
        api_route(api, "/v1/models/{model_id:path}", {"GET": models_get}),
        api_route(api, "/v1/chat/completions", {"POST": chat}),
        api_route(api, "/v1/responses", {"POST": resp}),
        api_route(api, "/v1/{rest:path}", {m: _not_found for m in ("GET", "POST")}),
        *(extra_routes or []),
    ]
    if settings.control_ui_enabled:
        from clawharness.gateway.control_ui.routes import control_ui_routes

        routes += control_ui_routes(api, api_route)
    app = Starlette(routes=routes)

    async def not_found(request: Request, _exc: Exception) -> Response:
        return PlainTextResponse("Not Found\n", status_code=404)

    app.add_exception_handler(404, not_found)
    return SecurityHeaders(BrowserGuard(app, auth_mode=settings.auth_mode))
