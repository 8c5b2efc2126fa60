"""The one error tree of clawharness.

    ClawHarnessError
    ├── ConfigError                      config file unreadable, malformed or invalid
    ├── ModelRefError                    a model ref that names no configured model
    ├── StoreError                       the store could not read or write
    │   ├── StoreCorruptError            the database file is not a database
    │   └── ConditionalWriteConflict     a conditional write found other state
    │       └── SessionLeaseLostError    a write under a session writer lease that was taken over
    ├── SessionError
    │   ├── InvalidSessionKeyError       a session key of the wrong shape
    │   ├── SessionNotFoundError
    │   └── SessionBusyError             the session's writer was not free in time
    ├── HarnessError
    │   ├── AgentHarnessNotRegisteredError   (MissingAgentHarnessError)
    │   ├── AgentHarnessUnsupportedError     an explicit runtime refused the route
    │   ├── AgentHarnessPreflightError       failed before any model work
    │   ├── AgentHarnessSessionSupersededError
    │   ├── ToolPolicyRejectedError          restricted turn, harness cannot enforce it
    │   ├── RuntimeArtifactMismatchError
    │   └── AttemptSettledError              a capability used after its attempt settled
    ├── PluginError
    │   └── PluginApiFloorError          a plugin needs a newer plugin API than this host
    ├── ProviderError                    a model transport failed
    │   ├── ProviderAuthError
    │   ├── ProviderRateLimitError
    │   ├── ProviderContextOverflowError
    │   └── ProviderServerError
    └── ToolError
        ├── ToolPolicyDeniedError
        ├── ToolApprovalRefusedError
        └── WorkspacePathEscapeError

Every error carries a human message that says what was wrong and where.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AgentHarnessNotRegisteredError",
    "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError",
    "AgentHarnessUnsupportedError",
    "AttemptSettledError",
    "ClawHarnessError",
    "ConditionalWriteConflict",
    "ConfigError",
    "HarnessError",
    "InvalidSessionKeyError",
    "MissingAgentHarnessError",
    "ModelRefError",
    "PluginApiFloorError",
    "PluginError",
    "ProviderAuthError",
    "ProviderContextOverflowError",
    "ProviderError",
    "ProviderRateLimitError",
    "ProviderServerError",
    "RuntimeArtifactMismatchError",
    "SessionBusyError",
    "SessionError",
    "SessionLeaseLostError",
    "SessionNotFoundError",
    "StoreCorruptError",
    "StoreError",
    "ToolApprovalRefusedError",
    "ToolError",
    "ToolPolicyDeniedError",
    "ToolPolicyRejectedError",
    "WorkspacePathEscapeError",
]


class ClawHarnessError(Exception):
    """Root of every error clawharness raises on purpose."""

    #: a stable machine-readable name, used in `--json` error output
    code: str = "error"


class ConfigError(ClawHarnessError):
    code = "config_invalid"

    def __init__(self, message: str, *, path: str | None = None, key_path: str | None = None):
        where = ""
        if path:
            where += f"{path}"
        if key_path:
            where += f" at {key_path}" if where else f"at {key_path}"
        super().__init__(f"{where}: {message}" if where else message)
        self.path = path
        self.key_path = key_path
        self.detail = message


class ModelRefError(ClawHarnessError):
    code = "model_ref_invalid"


class StoreError(ClawHarnessError):
    code = "store_error"


class StoreCorruptError(StoreError):
    code = "store_corrupt"


class ConditionalWriteConflict(StoreError):
    code = "conditional_write_conflict"


class SessionLeaseLostError(ConditionalWriteConflict):
    """A write carried a session writer lease that is no longer the session's current one
    (it expired and another writer took the session over, or it was released)."""

    code = "session_lease_lost"


class SessionError(ClawHarnessError):
    code = "session_error"


class InvalidSessionKeyError(SessionError):
    code = "invalid_session_key"


class SessionNotFoundError(SessionError):
    code = "session_not_found"


class SessionBusyError(SessionError):
    code = "session_busy"


class HarnessError(ClawHarnessError):
    code = "harness_error"


class AgentHarnessNotRegisteredError(HarnessError):
    code = "agent_harness_not_registered"

    def __init__(self, harness_id: str):
        super().__init__(f'Requested agent harness "{harness_id}" is not registered.')
        self.harness_id = harness_id


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


class PluginError(ClawHarnessError):
    code = "plugin_error"


class PluginApiFloorError(PluginError):
    code = "plugin_api_floor"


class ProviderError(ClawHarnessError):
    code = "provider_error"

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class ProviderAuthError(ProviderError):
    code = "auth"


class ProviderRateLimitError(ProviderError):
    code = "rate_limit"


class ProviderContextOverflowError(ProviderError):
    code = "context_overflow"


class ProviderServerError(ProviderError):
    code = "server_error"


class ToolError(ClawHarnessError):
    code = "tool_error"


class ToolPolicyDeniedError(ToolError):
    code = "tool_denied"


class ToolApprovalRefusedError(ToolError):
    code = "tool_approval_refused"


class WorkspacePathEscapeError(ToolError):
    code = "path_escape"
