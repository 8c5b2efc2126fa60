"""The one error tree of clawharness.

    ClawHarnessError
    ├── ConfigError                      config file unreadable, malformed or invalid
    ├── ConfirmationRequiredError        a destructive command got no yes (no terminal to ask)
    ├── ExtraMissingError                a feature whose optional dependencies are not installed
    ├── InputLimitError                  a parsed input over its size or nesting limit
    ├── ModelRefError                    a model ref that names no configured model
    ├── BudgetExceededError              a budget has no room for the turn (not started)
    ├── WorkspaceInvalidError            a workspace directory a turn cannot use
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
    │   ├── MessageWithdrawnError        a message waiting behind a turn, aborted before it ran
    │   ├── UnknownAgentError            a session key naming an agent the config lacks
    │   ├── SessionForkError             a fork point or fork target that cannot be used
    │   ├── SubagentError                a sub-agent that cannot be spawned, found or killed
    │   │   └── SubagentForbiddenError   a spawn a limit or the policy refuses
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

The classes live by family in private modules, `_root` (the root and the errors right
under it), `_services` (cluster, store), `_sessions` and `_turn` (harness, plugins,
providers, real model, MCP, tools); import them from here, where each one says it lives
(`__module__`), as before the split.
"""

from __future__ import annotations

from clawharness.errors._root import (
    BudgetExceededError,
    ClawHarnessError,
    ConfigError,
    ConfirmationRequiredError,
    ExtraMissingError,
    InputLimitError,
    ModelRefError,
    WorkspaceInvalidError,
)
from clawharness.errors._services import (
    ClusterError,
    ClusterNoWorkersError,
    ClusterRefusedError,
    ClusterUnreachableError,
    ConditionalWriteConflict,
    SessionLeaseLostError,
    StoreCorruptError,
    StoreError,
)
from clawharness.errors._sessions import (
    InvalidSessionKeyError,
    MessageWithdrawnError,
    NativeSessionBoundError,
    NativeSessionError,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    NativeSessionUnsupportedError,
    SessionBusyError,
    SessionError,
    SessionForkError,
    SessionNotFoundError,
    SubagentError,
    SubagentForbiddenError,
    UnknownAgentError,
)
from clawharness.errors._turn import (
    AgentHarnessNotRegisteredError,
    AgentHarnessPreflightError,
    AgentHarnessSessionSupersededError,
    AgentHarnessUnsupportedError,
    AttemptSettledError,
    ClientToolError,
    ClientToolsUnsupportedError,
    HarnessError,
    McpCallError,
    McpConnectError,
    McpError,
    McpServerNotFoundError,
    MissingAgentHarnessError,
    PluginApiFloorError,
    PluginError,
    ProviderAuthError,
    ProviderConnectionError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
    RealModelError,
    RealModelNotInstalledError,
    RuntimeArtifactMismatchError,
    ToolApprovalRefusedError,
    ToolError,
    ToolPolicyDeniedError,
    ToolPolicyRejectedError,
    WorkspacePathEscapeError,
)

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

# each class says it lives here, its public home (tracebacks, reprs, pickles), as it
# did when the tree was one module
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
