"""Bearer auth for the HTTP side, with the WebSocket side's token and scopes.

`Authorization: Bearer <gateway token>` (compared in constant time) authenticates an
operator. The shared token grants the scopes the original's CLI asks for; a caller may
narrow them with `x-openclaw-scopes: operator.read,...`, and each endpoint then needs
the scope of the WebSocket method it mirrors (`models.list`, `agent`, ...).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any, Final

from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.scopes import ADMIN, APPROVALS, PAIRING, READ, WRITE, authorize_method
from clawharness.gateway.settings import GatewaySettings

__all__ = ["DEFAULT_HTTP_SCOPES", "SCOPES_HEADER", "authorize", "bearer_token"]

SCOPES_HEADER: Final = "x-openclaw-scopes"
#: what the shared token grants over HTTP unless the caller narrows it
DEFAULT_HTTP_SCOPES: Final = (ADMIN, READ, WRITE, APPROVALS, PAIRING)


def bearer_token(headers: Mapping[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _unauthorized() -> OpenAiHttpError:
    return OpenAiHttpError(401, "Unauthorized", type_="unauthorized", code="invalid_api_key",
                           headers={"www-authenticate": 'Bearer realm="clawharness"'})


def authorize(settings: GatewaySettings, headers: Mapping[str, str], method: str,
              params: Any = None) -> tuple[str, ...]:
    """The caller's scopes, or OpenAiHttpError (401 without the token, 403 without the
    scope `method` needs)."""
    if settings.auth_mode == "token":
        given = bearer_token(headers)
        expected = settings.token or ""
        if given is None or not expected or not hmac.compare_digest(
                given.encode(), expected.encode()):
            raise _unauthorized()
    requested = headers.get(SCOPES_HEADER)
    scopes: tuple[str, ...] = DEFAULT_HTTP_SCOPES
    if requested is not None and requested.strip():
        asked = tuple(s.strip() for s in requested.split(",") if s.strip())
        scopes = tuple(s for s in asked if s in DEFAULT_HTTP_SCOPES)
    denied = authorize_method(method, "operator", scopes, params)
    if denied is not None:
        raise OpenAiHttpError(403, str(denied.get("message") or "missing scope"),
                              type_="forbidden", code="missing_scope")
    return scopes
