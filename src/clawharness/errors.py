"""The one error tree of clawharness.

    ClawHarnessError
    ├── ConfigError                      config file unreadable, malformed or invalid
    ├── ConfirmationRequiredError        a destructive command got no yes (no terminal to ask)
    ├── ExtraMissingError                a feature whose optional dependencies are not installed
    ├── InputLimitError                  a parsed input over its size or nesting limit
    ├── ModelRefError                    a model ref that names no configured model
    ├── BudgetExceededError              a budget has no room for the turn (not started)
    ├── ClusterError                     the Temporal cluster could not take the work
    │   ├── ClusterUnreachableError      no cluster answers at the configured URL
    │   ├── ClusterNoWorkersError        no worker polls the cluster's task queue
    │   └── ClusterRefusedError          a worker refuses to start (store, server version)
    ├── StoreError                       the store could not read or write
    │   ├── StoreCorruptError            the database file is not a database
    │   └── ConditionalWriteConflict     a conditional write found other state
    │       └── SessionLeaseLostError    a write under a session writer lease that was taken over
    ├── SessionError
    │   ├── InvalidSessionKeyError       a session key of the wrong shape
    │   ├── SessionNotFoundError
    │   ├── SessionBusyError             the session's writer was not free in time
    │   ├── SessionForkError             a fork point or fork target that cannot be used
    │   ├── SubagentError                a sub-agent that cannot be spawned, found or killed
    │   └── NativeSessionError           adopting or handing off a native session failed
    │       ├── NativeSessionFormatError     a file that is not that runtime's session
    │       ├── NativeSessionNotFoundError   no native session by that id or path
    │       ├── NativeSessionBoundError      already adopted by (or bound to) another one
    │       └── NativeSessionUnsupportedError  the runtime cannot do what was asked
    ├── HarnessError
    │   ├── AgentHarnessNotRegisteredError   (MissingAgentHarnessError)
    │   ├── AgentHarnessUnsupportedError     an explicit runtime refused the route
    │   ├── AgentHarnessPreflightError       failed before any model work
    │   ├── AgentHarnessSessionSupersededError
    │   ├── ToolPolicyRejectedError          restricted turn, harness cannot enforce it
    │   ├── RuntimeArtifactMismatchError
    │   ├── AttemptSettledError              a capability used after its attempt settled
    │   └── ClientToolError                  a caller's tool or tool result the turn cannot take
    │       └── ClientToolsUnsupportedError  the selected runtime cannot stop for a caller's tool
    ├── PluginError
    │   └── PluginApiFloorError          a plugin needs a newer plugin API than this host
    ├── ProviderError                    a model transport failed
    │   ├── ProviderAuthError
    │   ├── ProviderRateLimitError
    │   ├── ProviderContextOverflowError
    │   └── ProviderServerError
    │       ├── ProviderConnectionError  the model server could not be reached
    │       └── ProviderTimeoutError     the model server did not answer in time
    ├── RealModelError                   the local real model (tests, demos) could not serve
    │   └── RealModelNotInstalledError   its runtime is not installed at the pinned versions
    ├── McpError                         an MCP server could not be used
    │   ├── McpServerNotFoundError       no configured (enabled) server of that name
    │   ├── McpConnectError              the server could not be started or initialised
    │   └── McpCallError                 one call to a server failed (server, tool, cause)
    └── ToolError
        ├── ToolPolicyDeniedError
        ├── ToolApprovalRefusedError
        └── WorkspacePathEscapeError

Every error carries a human message that says what was wrong and where; `hint`, when
set, says what to do about it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clawharness.problems import ConfigProblem, render_problems, try_parse_key_path

__all__ = [
    "AgentHarnessNotRegisteredError",
    "AgentHarnessPreflightError",
    "AgentHarnessSessionSupersededError",
    "AgentHarnessUnsupportedError",
    "AttemptSettledError",
    "BudgetExceededError",
    "ClawHarnessError",
    "ClientToolError",
    "ClientToolsUnsupportedError",
    "ClusterError",
    "ClusterNoWorkersError",
    "ClusterRefusedError",
    "ClusterUnreachableError",
    "ConditionalWriteConflict",
    "ConfigError",
    "ConfirmationRequiredError",
    "ExtraMissingError",
    "HarnessError",
    "InputLimitError",
    "InvalidSessionKeyError",
    "McpCallError",
    "McpConnectError",
    "McpError",
    "McpServerNotFoundError",
    "MessageWithdrawnError",
    "MissingAgentHarnessError",
    "ModelRefError",
    "NativeSessionBoundError",
    "NativeSessionError",
    "NativeSessionFormatError",
    "NativeSessionNotFoundError",
    "NativeSessionUnsupportedError",
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
    "SessionBusyError",
    "SessionError",
    "SessionForkError",
    "SessionLeaseLostError",
    "SessionNotFoundError",
    "StoreCorruptError",
    "StoreError",
    "SubagentError",
    "SubagentForbiddenError",
    "ToolApprovalRefusedError",
    "ToolError",
    "ToolPolicyDeniedError",
    "ToolPolicyRejectedError",
    "UnknownAgentError",
    "WorkspaceInvalidError",
    "WorkspacePathEscapeError",
]


class ClawHarnessError(Exception):
    """Root of every error clawharness raises on purpose."""

    #: a stable machine-readable name, used in `--json` error output
    code: str = "error"
    #: what to do about it, when that is known (the CLI shows it under the message)
    hint: str | None = None


class ConfigError(ClawHarnessError):
    """A config problem, or several (`problems`: every one found, each with its key path).

    Every message is built as a `clawharness.problems.ConfigProblem`, the one point
    where config text is redacted, so a secret in the config never reaches the message.
    """

    code = "config_invalid"

    def __init__(self, message: str = "", *, path: str | None = None,
                 key_path: str | None = None, hint: str | None = None,
                 problems: Sequence[ConfigProblem] = ()):
        source = path
        if problems:
            found = tuple(problems)
        else:
            parts = try_parse_key_path(key_path) if key_path else ()
            found = (ConfigProblem(message, path=parts or (), hint=hint),)
            if key_path and parts is None:
                # an unparsable key path is still shown, as the caller wrote it
                source = f"{path} at {key_path}" if path else f"at {key_path}"
        self.problems: tuple[ConfigProblem, ...] = found
        self.path = path
        self.key_path = key_path if key_path is not None else (found[0].key_path or None)
        super().__init__(render_problems(found, source))
        self.detail = found[0].message


class ConfirmationRequiredError(ClawHarnessError):
    code = "confirmation_required"

    def __init__(self, message: str, *, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


class BudgetExceededError(ClawHarnessError):
    """A budget (`budgets` in config) has no room for the turn, which is not started.

    `budget` is the ledger key (`day:2026-12-01`, `agent:main:total`, ...), `measure`
    what ran out (usd, tokens, turns, seconds), `key_path` the config key that sets the
    limit; the message names them and the hint says how to raise it (docs/budgets.md)."""

    code = "budget_exceeded"

    def __init__(self, message: str, *, budget: str, measure: str, key_path: str,
                 hint: str | None = None) -> None:
        super().__init__(message)
        self.budget = budget
        self.measure = measure
        self.key_path = key_path
        self.hint = hint


class ExtraMissingError(ClawHarnessError):
    """A feature needs an optional part of the install (an extra, `clawharness[NAME]`)
    that is not installed; `extra` names it and the hint says how to install it."""

    code = "extra_missing"

    def __init__(self, message: str, *, extra: str, module: str | None = None) -> None:
        super().__init__(message)
        self.extra = extra
        #: the module that could not be imported
        self.module = module
        self.hint = f"pip install 'clawharness[{extra}]'"


class InputLimitError(ClawHarnessError, ValueError):
    """An input (a JSON-RPC frame, tool arguments, a script) is larger or nested deeper
    than its limit. Also a ValueError, so a reader that drops malformed input drops it."""

    code = "input_too_large"


class ModelRefError(ClawHarnessError):
    code = "model_ref_invalid"


class ClusterError(ClawHarnessError):
    code = "cluster_error"


class ClusterUnreachableError(ClusterError):
    """No Temporal cluster answered at the configured URL: the turn fails, it never runs
    in-process behind the cluster's back."""

    code = "cluster_unreachable"


class ClusterNoWorkersError(ClusterError):
    """The cluster answers, but no worker has polled its task queue lately: the turn
    would only wait in the queue, so it fails at once instead."""

    code = "cluster_no_workers"


class ClusterRefusedError(ClusterError):
    """A worker that refuses to start (a SQLite store, an unsupported Temporal server)."""

    code = "cluster_refused"


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


class MessageWithdrawnError(SessionError):
    """A message waiting behind its session's running turn was aborted before it ran
    (`clawharness.sessions.queue`): it was never run and is not in the transcript."""

    code = "message_withdrawn"


class UnknownAgentError(SessionError):
    """A session key names an agent the config does not define (`agent:ghost:x`): its
    turn would otherwise run under `agents.defaults` and escape the agent's own policy."""

    code = "unknown_agent"


class SessionForkError(SessionError):
    """A fork that cannot be made: a fork point the transcript does not have (or one that
    cuts a tool call from its result), a target key already in use, a runtime the
    chosen model's route does not allow. Nothing was written."""

    code = "session_fork"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class SubagentError(SessionError):
    """A sub-agent that cannot be spawned (a limit, an agent not allowed), found or
    killed (docs/portable-sessions.md, sub-agents)."""

    code = "subagent_error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class SubagentForbiddenError(SubagentError):
    """A spawn a limit or the policy refuses: the depth limit, too many active children,
    an agent the parent may not spawn (`sessions_spawn` answers `status: "forbidden"`)."""

    code = "subagent_forbidden"


class NativeSessionError(SessionError):
    """Adopting a native runtime's session into the host, or handing a host session to a
    native runtime, failed (docs/portable-sessions.md). Nothing was stored: an adoption
    is all or nothing."""

    code = "native_session_error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class NativeSessionFormatError(NativeSessionError):
    """A file that is not a session of the runtime named (another runtime's, not JSON
    lines, cut off mid-line); the message names the file and the line."""

    code = "native_session_format"


class NativeSessionNotFoundError(NativeSessionError):
    """No native session by that id, or no file at that path, where the runtime keeps
    its sessions; the message names where it looked."""

    code = "native_session_not_found"


class NativeSessionBoundError(NativeSessionError):
    """The native session is already adopted by another host session, or the host
    session holds another conversation."""

    code = "native_session_bound"


class NativeSessionUnsupportedError(NativeSessionError):
    """The runtime (or its harness) cannot adopt or hand off sessions, or not this way."""

    code = "native_session_unsupported"


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


class WorkspaceInvalidError(ClawHarnessError):
    """A turn was asked to work in a directory it cannot use (not absolute, missing, not
    a directory)."""

    code = "workspace_invalid"


class RealModelError(ClawHarnessError):
    """The real model for tests and demos (llama.cpp with SmolLM2) could not serve."""

    code = "real_model_error"


class RealModelNotInstalledError(RealModelError):
    code = "real_model_not_installed"
    hint = ("install it with `bash scripts/real-model.sh` (or `python -m "
            "clawharness.testing.real_model install`): about 130 MB to download")
