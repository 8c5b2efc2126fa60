"""`GET /v1/models` and `GET /v1/models/{id}`: the agents, served as models."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from clawharness.gateway.openai_http.auth import authorize
from clawharness.gateway.openai_http.context import HttpApi
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.routing import served_model_ids

__all__ = ["model_object", "models_get", "models_list"]


def model_object(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "openclaw",
            "permission": []}


async def models_list(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "models.list")
    ids = served_model_ids(api.agent_ids(), api.host.default_agent_id())
    return JSONResponse({"object": "list", "data": [model_object(i) for i in ids]})


async def models_get(api: HttpApi, request: Request) -> Response:
    authorize(api.settings, request.headers, "models.list")
    raw = request.path_params.get("model_id", "")
    model_id = unquote(raw)
    ids = served_model_ids(api.agent_ids(), api.host.default_agent_id())
    if model_id not in ids:
        raise OpenAiHttpError(404, f"Model '{model_id}' not found.", param="model",
                              code="model_not_found")
    return JSONResponse(model_object(model_id))
