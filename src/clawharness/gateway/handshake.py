"""The frames before `connect` succeeds, answered and closed as the original does.

- malformed JSON: close (1000, no reason), nothing answered;
- not a request frame: close 1008 `invalid request frame`;
- a request other than `connect`: `INVALID_REQUEST` "invalid handshake: first request must
  be connect", then close 1008 with that reason;
- `connect` with invalid params: `INVALID_REQUEST` "invalid connect params: ...", close 1008;
- a protocol range without 4: `INVALID_REQUEST` "protocol mismatch" with
  `details.code:"PROTOCOL_MISMATCH"`, close 1002;
- a missing or wrong token: `INVALID_REQUEST` "unauthorized: gateway token mismatch (...)"
  with `details.code:"AUTH_TOKEN_MISMATCH"` (or `AUTH_TOKEN_MISSING`), close 1008.
The token is compared in constant time (`hmac.compare_digest`).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Callable
from typing import Any, Final

from pydantic import ValidationError

from clawharness.gateway.connection import Connection
from clawharness.gateway.protocol import (
    CLOSE_INVALID_HANDSHAKE,
    CLOSE_POLICY,
    CLOSE_PROTOCOL_MISMATCH,
    PROTOCOL_VERSION,
    ConnectParams,
    decode_json,
    error_shape,
    format_validation_error,
    response_frame,
)
from clawharness.gateway.scopes import OPERATOR_SCOPES
from clawharness.gateway.settings import GatewaySettings

__all__ = ["check_shared_secret", "handle_preconnect", "is_request_frame"]

#: WebSocket close reasons are limited to 123 bytes
_MAX_CLOSE_REASON = 120


def _truncate_reason(reason: str) -> str:
    data = reason.encode()
    if len(data) <= _MAX_CLOSE_REASON:
        return reason
    return data[:_MAX_CLOSE_REASON].decode(errors="ignore")


def _is_loopback(address: str | None) -> bool:
    if not address:
        return False
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def is_request_frame(value: Any) -> bool:
    """The original's `validateRequestFrame`: type req, non-empty string id and method."""
    return (isinstance(value, dict) and value.get("type") == "req"
            and isinstance(value.get("id"), str) and bool(value["id"])
            and isinstance(value.get("method"), str) and bool(value["method"]))


#: where the token of a running `clawharness serve` comes from (the names exist: its flag,
#: its config key and the environment variables `gateway.settings` reads)
_TOKEN_SOURCES: Final = ("the token clawharness serve runs with: its --token, gateway.auth.token "
                         "in its config, or CLAWHARNESS_GATEWAY_TOKEN / OPENCLAW_GATEWAY_TOKEN "
                         "in its environment")


def _token_hint(params: ConnectParams, local: bool) -> str:
    """What to send instead, in the words of the client that connected."""
    if params.client.mode in ("ui", "webchat"):
        return f"sign in on the Control UI page with {_TOKEN_SOURCES}"
    where = "" if local else " (this gateway is not on your machine: ask its operator)"
    if params.client.mode == "cli":
        return (f"send {_TOKEN_SOURCES}; an openclaw client takes it as --token or "
                f"OPENCLAW_GATEWAY_TOKEN{where}")
    return f"send {_TOKEN_SOURCES}{where}"


def check_shared_secret(settings: GatewaySettings, params: ConnectParams, *,
                        local: bool = True) -> dict[str, Any] | None:
    """None when the connect's credentials pass, else the error shape."""
    if settings.auth_mode == "none":
        return None
    expected = settings.token or ""
    auth = params.auth
    provided = (auth.token or auth.password) if auth is not None else None
    hint = _token_hint(params, local)
    if not provided:
        return error_shape("INVALID_REQUEST", f"unauthorized: gateway token missing ({hint})",
                           details={"code": "AUTH_TOKEN_MISSING", "authReason": "token_missing",
                                    "canRetryWithDeviceToken": False,
                                    "recommendedNextStep": "update_auth_configuration"})
    if not expected or not hmac.compare_digest(provided.encode(), expected.encode()):
        return error_shape("INVALID_REQUEST", f"unauthorized: gateway token mismatch ({hint})",
                           details={"code": "AUTH_TOKEN_MISMATCH", "authReason": "token_mismatch",
                                    "canRetryWithDeviceToken": False,
                                    "recommendedNextStep": "update_auth_credentials"})
    return None


def _reject(conn: Connection, req_id: str, error: dict[str, Any], code: int,
            reason: str) -> bool:
    conn.send(response_frame(req_id, False, error=error))
    conn.close_after_flush(code, _truncate_reason(reason))
    return False


def handle_preconnect(conn: Connection, raw: str | bytes, settings: GatewaySettings,
                      accept: Callable[[Connection, str, ConnectParams], None]) -> bool:
    """Handle one frame of an unauthenticated connection; True once it is connected.

    `accept(conn, request_id, params)` answers `hello-ok` and marks the connection
    authenticated.
    """
    try:
        parsed = decode_json(raw)
    except ValueError:
        conn.close_after_flush(1000, "")
        return False
    if not is_request_frame(parsed):
        conn.close_after_flush(CLOSE_POLICY, "invalid request frame")
        return False
    req_id: str = parsed["id"]
    if parsed["method"] != "connect":
        return _reject(conn, req_id, error_shape("INVALID_REQUEST", CLOSE_INVALID_HANDSHAKE),
                       CLOSE_POLICY, CLOSE_INVALID_HANDSHAKE)
    try:
        params = ConnectParams.model_validate(parsed.get("params"))
    except ValidationError as exc:
        message = f"invalid connect params: {format_validation_error(exc)}"
        return _reject(conn, req_id, error_shape("INVALID_REQUEST", message), CLOSE_POLICY,
                       message)
    if not params.min_protocol <= PROTOCOL_VERSION <= params.max_protocol:
        details = {"code": "PROTOCOL_MISMATCH", "clientMinProtocol": params.min_protocol,
                   "clientMaxProtocol": params.max_protocol,
                   "expectedProtocol": PROTOCOL_VERSION, "minimumProbeProtocol": 3}
        code, reason = CLOSE_PROTOCOL_MISMATCH
        return _reject(conn, req_id, error_shape("INVALID_REQUEST", "protocol mismatch",
                                                 details=details), code, reason)
    role = params.role or "operator"
    if role != "operator":
        message = "invalid role" if role not in ("node", "worker") else f"unsupported role: {role}"
        return _reject(conn, req_id, error_shape("INVALID_REQUEST", message), CLOSE_POLICY,
                       message)
    denied = check_shared_secret(settings, params, local=_is_loopback(conn.remote))
    if denied is not None:
        return _reject(conn, req_id, denied, CLOSE_POLICY, denied["message"])
    conn.role = role
    conn.scopes = tuple(dict.fromkeys(s for s in (params.scopes or []) if s in OPERATOR_SCOPES))
    conn.caps = frozenset(params.caps)
    conn.client_id = params.client.id
    conn.client_mode = params.client.mode
    conn.client_version = params.client.version
    accept(conn, req_id, params)
    return True
