"""SDK names the Codex harness uses, gathered in one place.

Everything here comes from `clawharness.plugin_sdk`, like any third-party plugin.
"""

from __future__ import annotations

from clawharness.plugin_sdk.agent_harness_runtime import HarnessError
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BindingOperationParams,
    DictRecordCodec,
    LeaseTimings,
    NativeSessionBindingLifecycle,
    NativeSessionGone,
    NativeSessionRecovery,
    SessionHookParams,
    Store,
    create_native_session_binding_lifecycle,
)

__all__ = [
    "BindingOperationParams",
    "DictRecordCodec",
    "HarnessError",
    "LeaseTimings",
    "NativeSessionBindingLifecycle",
    "NativeSessionGone",
    "NativeSessionRecovery",
    "SessionHookParams",
    "Store",
    "create_native_session_binding_lifecycle",
]
