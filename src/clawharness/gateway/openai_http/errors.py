"""OpenAI's error shape: `{"error": {"message", "type", "param", "code"}}`."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

__all__ = ["OpenAiHttpError", "error_body", "error_response"]


class OpenAiHttpError(Exception):
    """An answer in OpenAI's error shape; raised by a handler, rendered by the app."""

    def __init__(self, status: int, message: str, *, type_: str = "invalid_request_error",
                 param: str | None = None, code: str | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_
        self.param = param
        self.code = code
        self.headers = headers or {}


def error_body(message: str, *, type_: str = "invalid_request_error", param: str | None = None,
               code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def error_response(exc: OpenAiHttpError) -> JSONResponse:
    return JSONResponse(error_body(exc.message, type_=exc.type, param=exc.param, code=exc.code),
                        status_code=exc.status, headers=exc.headers)
