"""The Control UI's routes: its page and modules, and `/ui/api/...`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from clawharness.gateway.control_ui import api as ui_api
from clawharness.gateway.openai_http.context import HttpApi

__all__ = ["control_ui_routes"]

STATIC: Final = Path(__file__).parent / "static"
#: the page's files: ES modules and one stylesheet, served as they are (no build step)
_FILES: Final = {path.name: ("text/css" if path.suffix == ".css" else "text/javascript")
                 for path in STATIC.iterdir() if path.suffix in (".js", ".css")}


async def _index(_request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html",
                        headers={"cache-control": "no-cache"})


async def _asset(request: Request) -> Response:
    name = request.path_params["name"]
    media_type = _FILES.get(name)
    if media_type is None:
        return Response("Not Found\n", status_code=404, media_type="text/plain")
    return FileResponse(STATIC / name, media_type=media_type,
                        headers={"cache-control": "no-cache"})


def control_ui_routes(api: HttpApi, api_route: Callable[..., Route]) -> list[BaseRoute]:
    """The pages and `/ui/api`; `api_route` wraps an endpoint in the HTTP side's auth and
    error handling (handed in, so this package does not import the app that mounts it)."""
    return [
        Route("/", _index, methods=["GET", "HEAD"]),
        Route("/ui/{name}", _asset, methods=["GET", "HEAD"]),
        api_route(api, "/ui/api/status", {"GET": ui_api.status}),
        api_route(api, "/ui/api/search", {"GET": ui_api.search}),
        api_route(api, "/ui/api/sessions", {"GET": ui_api.sessions}),
        api_route(api, "/ui/api/sessions/{key}/conversation", {"GET": ui_api.conversation}),
        api_route(api, "/ui/api/turns/{run_id}", {"GET": ui_api.turn}),
    ]
