"""`tools` (and an agent's `tools`): the tool policy (profile, allow, deny), exec, web,
loop detection."""

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from clawharness.config._factories import made
from clawharness.config._node import PositiveInt, PositiveSeconds, _empty, _Node
from clawharness.config.checks import check_tool_policy_entry, check_tool_profile
from clawharness.config.spend import LoopDetectionConfig

__all__ = [
    "ExecToolConfig",
    "ToolsConfig",
]


ToolPolicyEntry = Annotated[str, AfterValidator(check_tool_policy_entry)]


class ExecToolConfig(_Node):
    security: Literal["deny", "allowlist", "full"] = "allowlist"
    ask: Literal["off", "on-miss", "always"] = "on-miss"
    allowlist: list[str] = Field(default_factory=_empty)
    timeout_sec: PositiveSeconds = Field(default=60.0, alias="timeoutSec")
    max_output_chars: PositiveInt = Field(default=20_000, alias="maxOutputChars")


class WebFetchConfig(_Node):
    enabled: bool = False


class WebToolsConfig(_Node):
    fetch: WebFetchConfig = Field(default_factory=made(WebFetchConfig))


class ToolsConfig(_Node):
    #: an unknown profile would restrict nothing, so it is refused (fail closed)
    profile: Annotated[str | None, AfterValidator(check_tool_profile)] = None
    allow: list[ToolPolicyEntry] | None = None
    deny: list[ToolPolicyEntry] = Field(default_factory=_empty)
    also_allow: list[ToolPolicyEntry] = Field(default_factory=_empty, alias="alsoAllow")
    exec: ExecToolConfig = Field(default_factory=made(ExecToolConfig))
    web: WebToolsConfig = Field(default_factory=made(WebToolsConfig))
    loop_detection: LoopDetectionConfig = Field(default_factory=made(LoopDetectionConfig),
                                                alias="loopDetection")
