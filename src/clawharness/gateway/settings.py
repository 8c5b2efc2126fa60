"""Where and how the gateway listens: port, bind address, auth, limits.

Resolved as the original does: the command line wins, then the config file
(`gateway.port`, `gateway.bind`, `gateway.auth.{mode, token}`), then the environment
(`CLAWHARNESS_GATEWAY_TOKEN`, `OPENCLAW_GATEWAY_TOKEN`, `OPENCLAW_GATEWAY_PORT`). Token
auth without a token refuses to start, and so does binding beyond loopback without auth.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from clawharness.config.checks import bind_host, is_loopback_host
from clawharness.config.schema import DEFAULT_HTTP_MAX_BODY_BYTES, ClawConfig
from clawharness.errors import ConfigError
from clawharness.gateway.connection import SendLimits
from clawharness.gateway.protocol import DEFAULT_TICK_INTERVAL_MS

__all__ = ["GatewaySettings", "resolve_bind_host", "resolve_settings", "token_source"]

TOKEN_ENV_VARS: Final = ("CLAWHARNESS_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_TOKEN")
PORT_ENV_VAR: Final = "OPENCLAW_GATEWAY_PORT"


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    """Everything the server needs besides the host."""

    host: str = "127.0.0.1"
    port: int = 18789
    auth_mode: Literal["token", "none"] = "token"
    token: str | None = None
    tick_interval_ms: int = DEFAULT_TICK_INTERVAL_MS
    handshake_timeout_s: float = 15.0
    send_limits: SendLimits = field(default_factory=SendLimits)
    approval_timeout_s: float = 120.0
    version: str = "clawharness"
    #: `gateway.http.endpoints.chatCompletions.enabled` (off by default, as in the original)
    chat_completions_enabled: bool = False
    #: `gateway.http.endpoints.responses.enabled`
    responses_enabled: bool = False
    #: the largest request body each endpoint reads (`...<endpoint>.maxBodyBytes`)
    chat_completions_max_body: int = DEFAULT_HTTP_MAX_BODY_BYTES
    responses_max_body: int = DEFAULT_HTTP_MAX_BODY_BYTES
    #: `gateway.controlUi.enabled`: the browser Control UI at `/`
    control_ui_enabled: bool = True

    @property
    def loopback(self) -> bool:
        return _is_loopback(self.host)


def _is_loopback(host: str) -> bool:
    return is_loopback_host(host)


def resolve_bind_host(bind: str) -> str:
    """`loopback` -> 127.0.0.1, `lan` -> 0.0.0.0, else an address as given."""
    host = bind_host(bind)
    if host is None:
        raise ConfigError(f"gateway.bind {bind!r} is not loopback, lan or an address",
                          key_path="gateway.bind")
    return host


def resolve_settings(config: ClawConfig, env: Mapping[str, str], *, port: int | None = None,
                     bind: str | None = None, token: str | None = None,
                     tick_interval_ms: int | None = None, version: str | None = None,
                     ) -> GatewaySettings:
    """Settings from the command line, the config and the environment (in that order)."""
    gateway = config.gateway
    mode = gateway.auth.mode
    resolved_token = token or gateway.auth.token
    if not resolved_token:
        resolved_token = next((env[name] for name in TOKEN_ENV_VARS if env.get(name)), None)
    if token and mode == "none":
        mode = "token"
    resolved_port = port
    if resolved_port is None:
        env_port = env.get(PORT_ENV_VAR, "").strip()
        resolved_port = int(env_port) if env_port.isdigit() else gateway.port
    if not 0 <= resolved_port <= 65535:
        raise ConfigError(f"gateway port {resolved_port} is out of range", key_path="gateway.port")
    host = resolve_bind_host(bind or gateway.bind)
    if mode == "token" and not resolved_token:
        raise ConfigError(
            "gateway.auth.mode is \"token\" but no token is set: set gateway.auth.token, "
            "OPENCLAW_GATEWAY_TOKEN or pass --token", key_path="gateway.auth.token")
    if mode == "none" and not _is_loopback(host):
        raise ConfigError(f"refusing to bind {host} without auth: set gateway.auth.mode "
                          "\"token\" with a token, or bind loopback", key_path="gateway.auth.mode")
    endpoints = gateway.http.endpoints
    return GatewaySettings(
        host=host, port=resolved_port, auth_mode=mode, token=resolved_token,
        tick_interval_ms=tick_interval_ms or DEFAULT_TICK_INTERVAL_MS,
        version=version or _package_version(),
        chat_completions_enabled=endpoints.chat_completions.enabled,
        responses_enabled=endpoints.responses.enabled,
        chat_completions_max_body=endpoints.chat_completions.max_body_bytes,
        responses_max_body=endpoints.responses.max_body_bytes,
        control_ui_enabled=gateway.control_ui.enabled,
    )


def token_source(config: ClawConfig, env: Mapping[str, str], *,
                 token: str | None = None) -> str | None:
    """Where `resolve_settings` takes the token from, in the words of the serve record
    (`clawharness._serve_record`): `command-line`, `config`, `env:NAME`, or None."""
    if token:
        return "command-line"
    if config.gateway.auth.token:
        return "config"
    return next((f"env:{name}" for name in TOKEN_ENV_VARS if env.get(name)), None)


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("clawharness")
    except Exception:
        return "0.0.0"
