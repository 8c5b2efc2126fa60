"""`clawharness.plugin_sdk.agent_harness_session_runtime`: native session bindings.

A native harness remembers, per host session, which native session (thread, resume
token) serves it: its *binding*. docs/writing-a-harness.md shows the whole pattern.

Bindings
    `SessionBindings` (made by `PluginApi.session_bindings(harness_id)`) keeps one
    record per host session in the host's store: `read` / `write` / `delete` it, or
    `with_turn(params, run)` to hold its lease for one attempt and get a `BoundSession`
    (`record`, `write`, `clear`, `assert_lease`). The host resets, deletes and rewinds
    the bindings with their sessions; `on_removed(callback)` (`RemovedCallback`) runs
    cleanup after. Records are `JsonObject`s (`JsonRecordCodec`); a native-session
    binding is a `NativeSessionRecord` (`native_session_bindings`).

A native session the runtime no longer has
    `native_session_recovery(...)` -> `NativeSessionRecovery`: report the runtime's own
    "unknown session" as `NativeSessionGone`; it warns once, drops the binding and says
    (`GoneOutcome`) whether the turn may start a fresh session, whose first prompt
    carries `transcript_context(history)`.

State directory
    `resolve_state_dir(...)` -> `StateDirResolution`: an explicit dir, or the new
    default with a one-time move from a former default.

The host's session hooks, for a harness that owns its bindings itself
    `SessionHookParams`, `HostRun` (the host's `run(commit, rollback)`); the binding
    lifecycle underneath `SessionBindings`: `create_native_session_binding_lifecycle`
    -> `NativeSessionBindingLifecycle` (`BindingOperationParams`, `LeaseTimings`,
    `RecordCodec`, `DictRecordCodec`, on a `Store`), and its errors
    (`LeaseTimeoutError`, `LostLeaseError`, `AcquisitionRejectedError`,
    `MutationBlockedError`, `InvalidRecordError`, `UnsupportedRecordVersionError`,
    `ValueTooLargeError`).
"""

from __future__ import annotations

from clawharness._json import JsonObject
from clawharness.sessions.bindings.bootstrap import transcript_context
from clawharness.sessions.bindings.errors import (
    AcquisitionRejectedError,
    InvalidRecordError,
    LeaseTimeoutError,
    LostLeaseError,
    MutationBlockedError,
    UnsupportedRecordVersionError,
    ValueTooLargeError,
)
from clawharness.sessions.bindings.hooks import HostRun
from clawharness.sessions.bindings.leases import LeaseTimings
from clawharness.sessions.bindings.lifecycle import (
    BindingOperationParams,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
)
from clawharness.sessions.bindings.namespace import DictRecordCodec, RecordCodec
from clawharness.sessions.bindings.recovery import (
    GoneOutcome,
    NativeSessionGone,
    NativeSessionRecovery,
    native_session_recovery,
)
from clawharness.sessions.bindings.session_bindings import (
    BoundSession,
    JsonRecordCodec,
    NativeSessionRecord,
    RemovedCallback,
    SessionBindings,
    native_session_bindings,
)
from clawharness.sessions.bindings.state_dir import StateDirResolution, resolve_state_dir
from clawharness.sessions.lifecycle import SessionHookParams
from clawharness.store import Store

__all__ = [
    "AcquisitionRejectedError",
    "BindingOperationParams",
    "BoundSession",
    "DictRecordCodec",
    "GoneOutcome",
    "HostRun",
    "InvalidRecordError",
    "JsonObject",
    "JsonRecordCodec",
    "LeaseTimeoutError",
    "LeaseTimings",
    "LostLeaseError",
    "MutationBlockedError",
    "NativeSessionBindingLifecycle",
    "NativeSessionGone",
    "NativeSessionRecord",
    "NativeSessionRecovery",
    "RecordCodec",
    "RemovedCallback",
    "SessionBindings",
    "SessionHookParams",
    "StateDirResolution",
    "Store",
    "UnsupportedRecordVersionError",
    "ValueTooLargeError",
    "create_native_session_binding_lifecycle",
    "native_session_bindings",
    "native_session_recovery",
    "resolve_state_dir",
    "transcript_context",
]
