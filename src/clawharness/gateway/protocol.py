"""OpenClaw's gateway protocol (version 4): frames, limits, error codes, handshake shapes.

Facts carried over from the original (`openclaw@2026.9.6`):

- WebSocket text frames of JSON. Request `{type:"req", id, method, params}`, response
  `{type:"res", id, ok, payload | error}`, event `{type:"event", event, payload, seq?}`.
- The server speaks first with `connect.challenge {nonce, ts, capabilities}`; the first
  request must be `connect`. Frames before `connect` are capped at 64 KiB (close 1009).
- Errors are `{code, message, details?, retryable?, retryAfterMs?}` with the codes below;
  a missing scope is `FORBIDDEN` with `details {code:"MISSING_SCOPE", missingScope,
  requiredScopes}`; a wrong shared token is `INVALID_REQUEST` with
  `details.code:"AUTH_TOKEN_MISMATCH"`.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from clawharness.limits import loads_bounded

__all__ = [
    "AUTH_TOKEN_MISMATCH",
    "CLOSE_INVALID_HANDSHAKE",
    "CLOSE_POLICY",
    "CLOSE_PREAUTH_TOO_LARGE",
    "CLOSE_PROTOCOL_MISMATCH",
    "DEFAULT_TICK_INTERVAL_MS",
    "MAX_BUFFERED_BYTES",
    "MAX_PAYLOAD_BYTES",
    "MAX_PREAUTH_PAYLOAD_BYTES",
    "PROTOCOL_VERSION",
    "ClientInfo",
    "ConnectAuth",
    "ConnectParams",
    "ErrorCode",
    "ErrorShape",
    "GatewayError",
    "RequestFrame",
    "decode_json",
    "encode",
    "error_shape",
    "event_frame",
    "format_validation_error",
    "missing_scope_error",
    "response_frame",
]

PROTOCOL_VERSION: Final = 4
#: a frame's size cap once connected (`hello-ok.policy.maxPayload`)
MAX_PAYLOAD_BYTES: Final = 26_214_400
#: buffered bytes per connection before a slow client is dropped (`maxBufferedBytes`)
MAX_BUFFERED_BYTES: Final = 52_428_800
#: a frame's size cap before `connect` succeeds
MAX_PREAUTH_PAYLOAD_BYTES: Final = 65_536
DEFAULT_TICK_INTERVAL_MS: Final = 30_000

#: WebSocket close codes and reasons the original uses
CLOSE_PREAUTH_TOO_LARGE: Final = (1009, "preauth payload too large")
CLOSE_PROTOCOL_MISMATCH: Final = (1002, "protocol mismatch")
CLOSE_POLICY: Final = 1008
CLOSE_INVALID_HANDSHAKE: Final = "invalid handshake: first request must be connect"

AUTH_TOKEN_MISMATCH: Final = "AUTH_TOKEN_MISMATCH"

ErrorCode = Literal[
    "INVALID_REQUEST", "FORBIDDEN", "UNAVAILABLE", "NOT_PAIRED", "APPROVAL_NOT_FOUND",
]


class ErrorShape(BaseModel):
    """`{code, message, details?, retryable?, retryAfterMs?}`."""

    model_config = ConfigDict(populate_by_name=True)

    code: str
    message: str
    details: Any = None
    retryable: bool | None = None
    retry_after_ms: int | None = Field(default=None, alias="retryAfterMs")

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)


class GatewayError(Exception):
    """Raised by a method handler; answered as `{ok:false, error}`."""

    def __init__(self, code: str, message: str, *, details: Any = None,
                 retryable: bool | None = None, retry_after_ms: int | None = None) -> None:
        super().__init__(message)
        self.shape = ErrorShape(code=code, message=message, details=details,
                                retryable=retryable, retryAfterMs=retry_after_ms)


def error_shape(code: str, message: str, *, details: Any = None,
                retryable: bool | None = None) -> dict[str, Any]:
    return ErrorShape(code=code, message=message, details=details, retryable=retryable).wire()


def missing_scope_error(missing: str, required: list[str] | None = None) -> dict[str, Any]:
    """The original's FORBIDDEN shape for a method the connection's scopes do not cover."""
    return error_shape("FORBIDDEN", f"missing scope: {missing}", details={
        "code": "MISSING_SCOPE", "missingScope": missing,
        "requiredScopes": list(required) if required else [missing],
    })


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class RequestFrame(BaseModel):
    """`{type:"req", id, method, params?}` (extra envelope fields are tolerated)."""

    model_config = ConfigDict(extra="allow")

    type: Literal["req"]
    id: str = Field(min_length=1)
    method: str = Field(min_length=1)
    params: Any = None


class ClientInfo(_Wire):
    id: str = Field(min_length=1)
    display_name: str | None = Field(default=None, alias="displayName")
    version: str = Field(min_length=1)
    build_id: str | None = Field(default=None, alias="buildId")
    platform: str = Field(min_length=1)
    device_family: str | None = Field(default=None, alias="deviceFamily")
    model_identifier: str | None = Field(default=None, alias="modelIdentifier")
    time_zone: str | None = Field(default=None, alias="timeZone")
    mode: str = Field(min_length=1)
    instance_id: str | None = Field(default=None, alias="instanceId")


class ConnectAuth(_Wire):
    token: str | None = None
    bootstrap_token: str | None = Field(default=None, alias="bootstrapToken")
    device_token: str | None = Field(default=None, alias="deviceToken")
    password: str | None = None
    approval_runtime_token: str | None = Field(default=None, alias="approvalRuntimeToken")
    agent_runtime_identity_token: str | None = Field(default=None,
                                                     alias="agentRuntimeIdentityToken")


class DeviceIdentity(_Wire):
    id: str = Field(min_length=1)
    public_key: str = Field(min_length=1, alias="publicKey")
    signature: str = Field(min_length=1)
    signed_at: int = Field(ge=0, alias="signedAt")
    nonce: str = Field(min_length=1)


class ConnectParams(_Wire):
    """The `connect` request's params (a closed schema in the original)."""

    min_protocol: int = Field(ge=1, alias="minProtocol")
    max_protocol: int = Field(ge=1, alias="maxProtocol")
    client: ClientInfo
    caps: list[str] = Field(default_factory=list)
    commands: list[str] | None = None
    computer_use: Any = Field(default=None, alias="computerUse")
    worker_runs: Any = Field(default=None, alias="workerRuns")
    permissions: dict[str, bool] | None = None
    path_env: str | None = Field(default=None, alias="pathEnv")
    role: str | None = None
    scopes: list[str] | None = None
    model_catalog: Any = Field(default=None, alias="modelCatalog")
    device: DeviceIdentity | None = None
    auth: ConnectAuth | None = None
    locale: str | None = None
    user_agent: str | None = Field(default=None, alias="userAgent")


def format_validation_error(exc: ValidationError) -> str:
    """A short, stable rendering of pydantic errors: `at /path: message; ...`."""
    parts: list[str] = []
    for err in exc.errors()[:5]:
        loc = "/".join(str(p) for p in err.get("loc", ()))
        if err.get("type") == "extra_forbidden":
            parts.append(f"at /{loc.rsplit('/', 1)[0] if '/' in loc else ''}: unexpected "
                         f"property '{loc.rsplit('/', 1)[-1]}'")
        else:
            parts.append(f"at /{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


def encode(frame: dict[str, Any]) -> str:
    """Compact JSON text for one frame."""
    return _dumps(frame)


def decode_json(text: str | bytes) -> Any:
    """Parse a frame; raises ValueError on malformed JSON, and `InputLimitError` (a
    ValueError too) on a frame nested deeper than `MAX_JSON_DEPTH`."""
    return loads_bounded(text, what="gateway frame", max_size=MAX_PAYLOAD_BYTES)


def response_frame(req_id: str, ok: bool, payload: Any = None,
                   error: dict[str, Any] | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "res", "id": req_id, "ok": ok}
    if ok:
        frame["payload"] = payload
    else:
        frame["error"] = error
    return frame


def event_frame(event: str, payload: Any, seq: int | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "event", "event": event, "payload": payload}
    if seq is not None:
        frame["seq"] = seq
    return frame
