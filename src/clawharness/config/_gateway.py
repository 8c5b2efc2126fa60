"""`gateway`: its port and bind, auth (refused off loopback without it), the
OpenAI-compatible HTTP endpoints, the Control UI."""

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from clawharness.config._factories import made
from clawharness.config._node import _Node
from clawharness.config.checks import CheckFailed, bind_host, check_bind, is_loopback_host

__all__ = [
    "DEFAULT_HTTP_MAX_BODY_BYTES",
    "GatewayConfig",
]


class GatewayAuthConfig(_Node):
    mode: Literal["token", "none"] = "token"
    token: str | None = None


#: the original's default request body limit for its OpenAI-compatible endpoints
DEFAULT_HTTP_MAX_BODY_BYTES = 20 * 1024 * 1024


class GatewayHttpEndpointConfig(_Node):
    """One OpenAI-compatible endpoint (`gateway.http.endpoints.<name>`): off by default."""

    enabled: bool = False
    max_body_bytes: int = Field(default=DEFAULT_HTTP_MAX_BODY_BYTES, ge=1024,
                                le=256 * 1024 * 1024, alias="maxBodyBytes")


class GatewayHttpEndpointsConfig(_Node):
    chat_completions: GatewayHttpEndpointConfig = Field(
        default_factory=made(GatewayHttpEndpointConfig), alias="chatCompletions")
    responses: GatewayHttpEndpointConfig = Field(default_factory=made(GatewayHttpEndpointConfig))


class GatewayHttpConfig(_Node):
    endpoints: GatewayHttpEndpointsConfig = Field(default_factory=made(GatewayHttpEndpointsConfig))


class GatewayControlUiConfig(_Node):
    """The browser Control UI at `/` on the gateway's port."""

    enabled: bool = True


class GatewayConfig(_Node):
    port: int = Field(default=18789, ge=0, le=65535)
    bind: Annotated[str, AfterValidator(check_bind)] = "loopback"
    auth: GatewayAuthConfig = Field(default_factory=made(GatewayAuthConfig))
    http: GatewayHttpConfig = Field(default_factory=made(GatewayHttpConfig))
    control_ui: GatewayControlUiConfig = Field(default_factory=made(GatewayControlUiConfig),
                                               alias="controlUi")

    @model_validator(mode="after")
    def _auth_beyond_loopback(self) -> "GatewayConfig":
        host = bind_host(self.bind)
        if self.auth.mode == "none" and host is not None and not is_loopback_host(host):
            raise CheckFailed(
                f'auth.mode "none" with bind {self.bind!r} would open the gateway to the '
                "network without auth, so it is refused", code="gateway-open-without-auth",
                hint='set auth.mode "token" with auth.token, or bind "loopback"',
                show_value=False)
        return self
