"""`clawharness.plugin_sdk.agent_harness_session_runtime`: native session bindings.

A native harness remembers, per host session, which native session (thread, resume
token) serves it: its *binding*. docs/writing-a-harness.md shows the whole pattern and
docs/native-bindings.md the machinery.

Bindings
    `SessionBindings` (made by `PluginApi.session_bindings(harness_id)`, or
    `native_session_bindings(harness_id, ...)` for `NativeSessionRecord`s
    `{"nativeSessionId": ...}`) keeps one record per host session in the host's store,
    under the row key `<agent id>:<session key>`: `read` / `write` / `delete` it, or
    `with_turn(params, run)` to hold its lease for one attempt and get a `BoundSession`
    (`record`, `write`, `clear`, `assert_lease`). Records are JSON objects
    (`JsonRecordCodec`, validated: a bad one raises `InvalidRecordError`). The host resets,
    deletes and rewinds the bindings with their sessions; `on_removed(callback)` then
    gets a `RemovedBinding` naming the session, the row and the record dropped (the
    native thread to drop with it).

A native session the runtime no longer has
    `native_session_recovery(...)` -> `NativeSessionRecovery`: report the runtime's own
    "unknown session" as `NativeSessionGone`; it warns once, drops the binding and says
    whether the turn may start a fresh session, whose first prompt carries
    `transcript_context(history)`.

State directory
    `resolve_state_dir(...)`: an explicit dir, or the default with a one-time move from a
    former default.

A harness that owns its binding lifecycle itself (the bundled Codex harness)
    `create_native_session_binding_lifecycle(store, namespace, codec=, timings=)` ->
    `NativeSessionBindingLifecycle` (leases, fences, transactional deletion) over the
    host's `Store` (`PluginApi.store`), with `DictRecordCodec` records and
    `LeaseTimings`; its host hooks take `SessionHookParams` and pass
    `BindingOperationParams` to the lifecycle.

Portable sessions (docs/portable-sessions.md)
    A harness whose runtime's sessions can move implements `adopt_native_session`
    (an `AdoptRequest` in, a `NativeAdoption` out: the session's messages as
    `NativeEntry`s with stable keys, and `bind` / `unbind`) and `handoff_native_session`
    (a `HandoffRequest` in, a `NativeHandoff` out: the native session made from the host
    transcript and the command that resumes it). `read_session_lines` reads a JSON-lines
    session file; bad input is `NativeSessionFormatError` or `NativeSessionNotFoundError`,
    and what the runtime cannot do `NativeSessionUnsupportedError`, each naming what and
    where.

The bindings library is the host's own; the SDK publishes these names as its contract.
"""

from __future__ import annotations

import typing

from clawharness import _faces
from clawharness.errors import (
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    NativeSessionUnsupportedError,
)

# each name loads its module when first asked for (a plugin that keeps bindings imports
# them, not the generations, recovery and initialization machinery beside them)
if typing.TYPE_CHECKING:
    from clawharness.harness import (
        AdoptRequest,
        HandoffRequest,
        NativeAdoption,
        NativeEntry,
        NativeHandoff,
        read_session_lines,
    )
    from clawharness.sessions.bindings.bootstrap import transcript_context
    from clawharness.sessions.bindings.errors import InvalidRecordError
    from clawharness.sessions.bindings.leases import LeaseTimings
    from clawharness.sessions.bindings.lifecycle import (
        BindingOperationParams,
        NativeSessionBindingLifecycle,
        create_native_session_binding_lifecycle,
    )
    from clawharness.sessions.bindings.namespace import DictRecordCodec
    from clawharness.sessions.bindings.recovery import (
        NativeSessionGone,
        NativeSessionRecovery,
        native_session_recovery,
    )
    from clawharness.sessions.bindings.session_bindings import (
        BoundSession,
        JsonRecordCodec,
        NativeSessionRecord,
        RemovedBinding,
        SessionBindings,
        native_session_bindings,
    )
    from clawharness.sessions.bindings.state_dir import resolve_state_dir
    from clawharness.sessions.lifecycle import SessionHookParams
from clawharness.store import Store

__all__ = [
    "AdoptRequest",
    "BindingOperationParams",
    "BoundSession",
    "DictRecordCodec",
    "HandoffRequest",
    "InvalidRecordError",
    "JsonRecordCodec",
    "LeaseTimings",
    "NativeAdoption",
    "NativeEntry",
    "NativeHandoff",
    "NativeSessionBindingLifecycle",
    "NativeSessionFormatError",
    "NativeSessionGone",
    "NativeSessionNotFoundError",
    "NativeSessionRecord",
    "NativeSessionRecovery",
    "NativeSessionUnsupportedError",
    "RemovedBinding",
    "SessionBindings",
    "SessionHookParams",
    "Store",
    "create_native_session_binding_lifecycle",
    "native_session_bindings",
    "native_session_recovery",
    "read_session_lines",
    "resolve_state_dir",
    "transcript_context",
]

__getattr__, __dir__ = _faces.lazy_face(__name__, {
    "AdoptRequest": "clawharness.harness",
    "BindingOperationParams": "clawharness.sessions.bindings.lifecycle",
    "BoundSession": "clawharness.sessions.bindings.session_bindings",
    "DictRecordCodec": "clawharness.sessions.bindings.namespace",
    "HandoffRequest": "clawharness.harness",
    "InvalidRecordError": "clawharness.sessions.bindings.errors",
    "JsonRecordCodec": "clawharness.sessions.bindings.session_bindings",
    "LeaseTimings": "clawharness.sessions.bindings.leases",
    "NativeAdoption": "clawharness.harness",
    "NativeEntry": "clawharness.harness",
    "NativeHandoff": "clawharness.harness",
    "NativeSessionBindingLifecycle": "clawharness.sessions.bindings.lifecycle",
    "NativeSessionGone": "clawharness.sessions.bindings.recovery",
    "NativeSessionRecord": "clawharness.sessions.bindings.session_bindings",
    "NativeSessionRecovery": "clawharness.sessions.bindings.recovery",
    "RemovedBinding": "clawharness.sessions.bindings.session_bindings",
    "SessionBindings": "clawharness.sessions.bindings.session_bindings",
    "SessionHookParams": "clawharness.sessions.lifecycle",
    "create_native_session_binding_lifecycle": "clawharness.sessions.bindings.lifecycle",
    "native_session_bindings": "clawharness.sessions.bindings.session_bindings",
    "native_session_recovery": "clawharness.sessions.bindings.recovery",
    "read_session_lines": "clawharness.harness",
    "resolve_state_dir": "clawharness.sessions.bindings.state_dir",
    "transcript_context": "clawharness.sessions.bindings.bootstrap",
})
