"""SDK names this harness package uses, gathered in one place (all from
`clawharness.plugin_sdk`, as for any third-party plugin)."""

from __future__ import annotations

from clawharness.plugin_sdk.agent_harness_runtime import (
    BeforeToolCallDecision,
    HarnessError,
    WorkspacePathEscapeError,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    DictRecordCodec,
    HostRun,
    NativeSessionBindingLifecycle,
    NativeSessionGone,
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionHookParams,
    Store,
    create_native_session_binding_lifecycle,
    harness_session_hooks,
    native_session_binding_store,
    native_session_recovery,
    native_session_row_key,
    resolve_state_dir,
)
from clawharness.plugin_sdk.agent_harness_tool_runtime import resolve_workspace_path

__all__ = [
    "BeforeToolCallDecision",
    "DictRecordCodec",
    "HarnessError",
    "HostRun",
    "NativeSessionBindingLifecycle",
    "NativeSessionGone",
    "NativeSessionRecord",
    "NativeSessionRecovery",
    "SessionHookParams",
    "Store",
    "WorkspacePathEscapeError",
    "create_native_session_binding_lifecycle",
    "harness_session_hooks",
    "native_session_binding_store",
    "native_session_recovery",
    "native_session_row_key",
    "resolve_state_dir",
    "resolve_workspace_path",
]
