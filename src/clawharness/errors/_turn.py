"""The errors of the parts a turn runs on: the harness (`HarnessError`, with the
caller's tools), plugins, model providers, the local real model, MCP servers, tools.
Import them from `clawharness.errors`."""

from __future__ import annotations

from typing import Any

from clawharness.errors._root import ClawHarnessError

__all__ = [
    "AgentHarnessNotRegisteredError",
    "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError",
    "AgentHarnessUnsupportedError",
    "AttemptSettledError",
    "ClientToolError",
    "ClientToolsUnsupportedError",
    "HarnessError",
    "McpCallError",
    "McpConnectError",
    "McpError",
    "McpServerNotFoundError",
    "MissingAgentHarnessError",
    "PluginApiFloorError",
    "PluginError",
    "ProviderAuthError",
    "ProviderConnectionError",
    "ProviderContextOverflowError",
    "ProviderError",
    "ProviderRateLimitError",
    "ProviderServerError",
    "ProviderTimeoutError",
    "RealModelError",
    "RealModelNotInstalledError",
    "RuntimeArtifactMismatchError",
    "ToolApprovalRefusedError",
    "ToolError",
    "ToolPolicyDeniedError",
    "ToolPolicyRejectedError",
    "WorkspacePathEscapeError",
]


class HarnessError(ClawHarnessError):
    code = "harness_error"


class AgentHarnessNotRegisteredError(HarnessError):
    code = "agent_harness_not_registered"

    def __init__(self, harness_id: str):
        super().__init__(f'Requested agent harness "{harness_id}" is not registered.')
        self.harness_id = harness_id
        self.hint = (f'install and enable the plugin that provides "{harness_id}" '
                     f"(plugins.entries.<plugin>.enabled: true); `clawharness status` lists "
                     "the registered harnesses")


MissingAgentHarnessError = AgentHarnessNotRegisteredError


class AgentHarnessUnsupportedError(HarnessError):
    code = "agent_harness_unsupported"

    def __init__(self, harness_id: str, provider: str, model_id: str, reason: str | None):
        suffix = f" ({reason})" if reason else ""
        super().__init__(
            f'Requested agent harness "{harness_id}" does not support {provider}/{model_id}{suffix}'
        )
        self.harness_id = harness_id
        self.reason = reason


class AgentHarnessPreflightError(HarnessError):
    """A harness failed before any model work started.

    `scope="harness"` says retrying another model on the same harness would fail the
    same way; the fallback chain then skips only the candidates on that harness.
    """

    code = "agent_harness_preflight"

    def __init__(
        self,
        message: str,
        options: dict[str, Any] | None = None,
        *,
        scope: str | None = None,
        user_message: str | None = None,
    ):
        super().__init__(message)
        opts = options or {}
        self.scope = scope if scope is not None else opts.get("scope")
        self.user_message = user_message if user_message is not None else opts.get("userMessage")


class AgentHarnessSessionSupersededError(HarnessError):
    code = "agent_harness_session_superseded"


class ToolPolicyRejectedError(HarnessError):
    code = "tool_policy_rejected"


class RuntimeArtifactMismatchError(HarnessError):
    code = "runtime_artifact_mismatch"


class AttemptSettledError(HarnessError):
    code = "attempt_settled"


class ClientToolError(HarnessError):
    """A caller's tool (an HTTP client's function tool) or its result that the turn cannot
    take: a name clash, a result for a call that is not pending (docs/http-api.md)."""

    code = "client_tool_invalid"


class ClientToolsUnsupportedError(ClientToolError):
    """The runtime selected for the turn runs its own tool loop and cannot stop for a
    caller's tool (only the built-in runtime can)."""

    code = "client_tools_unsupported"


class PluginError(ClawHarnessError):
    code = "plugin_error"


class PluginApiFloorError(PluginError):
    code = "plugin_api_floor"


class ProviderError(ClawHarnessError):
    """A model transport failed. `provider`, `model` and `url` say which endpoint, once
    known (`clawharness.providers.diagnostics.locate_provider_error` fills them in)."""

    code = "provider_error"

    def __init__(self, message: str, *, status: int | None = None, provider: str | None = None,
                 model: str | None = None, url: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.status = status
        self.provider = provider
        self.model = model
        self.url = url
        self.hint = hint


class ProviderAuthError(ProviderError):
    code = "auth"


class ProviderRateLimitError(ProviderError):
    code = "rate_limit"


class ProviderContextOverflowError(ProviderError):
    code = "context_overflow"


class ProviderServerError(ProviderError):
    code = "server_error"


class ProviderConnectionError(ProviderServerError):
    code = "provider_unreachable"


class ProviderTimeoutError(ProviderServerError):
    code = "provider_timeout"


class McpError(ClawHarnessError):
    code = "mcp_error"

    def __init__(self, message: str, *, server: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message)
        #: the configured server's name (`mcp.servers.<name>`)
        self.server = server
        self.hint = hint


class McpServerNotFoundError(McpError):
    code = "mcp_server_not_found"


class McpConnectError(McpError):
    code = "mcp_connect_failed"


class McpCallError(McpError):
    code = "mcp_call_failed"


class ToolError(ClawHarnessError):
    code = "tool_error"


class ToolPolicyDeniedError(ToolError):
    code = "tool_denied"

    def __init__(self, message: str, *, rule: str | None = None):
        super().__init__(message)
        #: the config key path of the rule that refused the tool
        self.rule = rule


class ToolApprovalRefusedError(ToolError):
    code = "tool_approval_refused"


class WorkspacePathEscapeError(ToolError):
    code = "path_escape"


class RealModelError(ClawHarnessError):
    """The real model for tests and demos (llama.cpp with SmolLM2) could not serve."""

    code = "real_model_error"


class RealModelNotInstalledError(RealModelError):
    code = "real_model_not_installed"
    hint = ("install it with `bash scripts/real-model.sh` (or `python -m "
            "clawharness.testing.real_model install`): about 130 MB to download")
