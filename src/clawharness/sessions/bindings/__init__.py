"""Native session bindings: the shared library every native harness uses.

A native harness keeps its native session id / thread id / resume token as a *binding*
in plugin state, associated with the host session. This package owns how such rows are
stored (`namespace`), kept per host session for a harness (`session_bindings`), leased across processes (`leases`), fenced (`fences`), deleted and
reset together with the host session (`lifecycle`, `hooks`, `journal`), carried across
session generations (`generations`, `initialization`), recovered when the runtime lost the
native session (`recovery`, `bootstrap`), plus state-dir migration (`state_dir`) and
user-turn persistence facts (`user_turn`). See docs/native-bindings.md.
"""

from __future__ import annotations

from clawharness.sessions.bindings.bootstrap import (
    DEFAULT_CONTEXT_CHARS,
    transcript_context,
)
from clawharness.sessions.bindings.errors import (
    AcquisitionRejectedError,
    DeletionChangedError,
    InitializationChangedError,
    InvalidRecordError,
    LeaseTimeoutError,
    LostLeaseError,
    MutationBlockedError,
    RollbackChangedError,
    UnsupportedRecordVersionError,
    ValueTooLargeError,
)
from clawharness.sessions.bindings.fences import MutationFence
from clawharness.sessions.bindings.generations import (
    AdoptionResult,
    GenerationOperations,
    GenerationRecord,
    GenerationRecordCodec,
    HostGenerationAuthority,
    ReclaimPlan,
    ResolvedNativeSessionBinding,
    RetirementResult,
    SessionGenerationBindings,
    SessionIdentity,
    capture_native_session_generation_authority,
    reclaim_native_session_generation,
    resolve_native_session_binding,
    session_binding_key,
)
from clawharness.sessions.bindings.hooks import (
    HarnessSessionHooks,
    HostRun,
    harness_session_hooks,
)
from clawharness.sessions.bindings.initialization import (
    NativeSessionInitializationOwner,
    PreparedInitialization,
    SessionInitialization,
    SessionInitializationHandle,
    UpstreamLink,
    UpstreamLinks,
    create_native_session_initialization_owner,
)
from clawharness.sessions.bindings.journal import (
    JOURNAL_SUFFIX,
    DeletionJournal,
    RecoveredDeletion,
)
from clawharness.sessions.bindings.leases import (
    CODEX_LEASE_TIMINGS,
    LeaseOwner,
    LeaseTimings,
    NativeSessionBindingLeases,
)
from clawharness.sessions.bindings.lifecycle import (
    BindingOperationParams,
    Commit,
    NativeSessionBindingLifecycle,
    Rollback,
    create_native_session_binding_lifecycle,
)
from clawharness.sessions.bindings.namespace import (
    MAX_VALUE_BYTES,
    DictRecordCodec,
    Lease,
    PluginStateNamespace,
    RecordCodec,
    Row,
    bound_fingerprint,
    canonical_json,
    fingerprint,
    is_fingerprint,
)
from clawharness.sessions.bindings.recovery import (
    NATIVE_SESSION_GONE,
    WARNING_STREAM,
    GoneOutcome,
    NativeSessionGone,
    NativeSessionRecovery,
    TurnProgress,
    native_session_cleared,
    native_session_names,
    native_session_recovery,
)
from clawharness.sessions.bindings.session_bindings import (
    BoundSession,
    JsonRecordCodec,
    NativeSessionRecord,
    SessionBindings,
    native_session_bindings,
    session_binding_row_key,
)
from clawharness.sessions.bindings.state_dir import (
    StateDirResolution,
    forget_state_dir_decisions,
    resolve_state_dir,
)
from clawharness.sessions.bindings.user_turn import (
    PersistedUserTurn,
    UserTurnTranscriptRecorder,
    reimport_native_entries,
)

__all__ = [
    "CODEX_LEASE_TIMINGS",
    "DEFAULT_CONTEXT_CHARS",
    "JOURNAL_SUFFIX",
    "MAX_VALUE_BYTES",
    "NATIVE_SESSION_GONE",
    "WARNING_STREAM",
    "AcquisitionRejectedError",
    "AdoptionResult",
    "BindingOperationParams",
    "BoundSession",
    "Commit",
    "DeletionChangedError",
    "DeletionJournal",
    "DictRecordCodec",
    "GenerationOperations",
    "GenerationRecord",
    "GenerationRecordCodec",
    "GoneOutcome",
    "HarnessSessionHooks",
    "HostGenerationAuthority",
    "HostRun",
    "InitializationChangedError",
    "InvalidRecordError",
    "JsonRecordCodec",
    "Lease",
    "LeaseOwner",
    "LeaseTimeoutError",
    "LeaseTimings",
    "LostLeaseError",
    "MutationBlockedError",
    "MutationFence",
    "NativeSessionBindingLeases",
    "NativeSessionBindingLifecycle",
    "NativeSessionGone",
    "NativeSessionInitializationOwner",
    "NativeSessionRecord",
    "NativeSessionRecovery",
    "PersistedUserTurn",
    "PluginStateNamespace",
    "PreparedInitialization",
    "ReclaimPlan",
    "RecordCodec",
    "RecoveredDeletion",
    "ResolvedNativeSessionBinding",
    "RetirementResult",
    "Rollback",
    "RollbackChangedError",
    "Row",
    "SessionBindings",
    "SessionGenerationBindings",
    "SessionIdentity",
    "SessionInitialization",
    "SessionInitializationHandle",
    "StateDirResolution",
    "TurnProgress",
    "UnsupportedRecordVersionError",
    "UpstreamLink",
    "UpstreamLinks",
    "UserTurnTranscriptRecorder",
    "ValueTooLargeError",
    "bound_fingerprint",
    "canonical_json",
    "capture_native_session_generation_authority",
    "create_native_session_binding_lifecycle",
    "create_native_session_initialization_owner",
    "fingerprint",
    "forget_state_dir_decisions",
    "harness_session_hooks",
    "is_fingerprint",
    "native_session_bindings",
    "native_session_cleared",
    "native_session_names",
    "native_session_recovery",
    "reclaim_native_session_generation",
    "reimport_native_entries",
    "resolve_native_session_binding",
    "resolve_state_dir",
    "session_binding_key",
    "session_binding_row_key",
    "transcript_context",
]
