"""Sessions: keys (`keys`, `agents`), one writer per session across processes (`writers`),
the lifecycle with the harness hooks (`lifecycle`: reset, delete, rewind), the
transcript mirror (`transcript`), user-turn facts (`user_turn`), subagent keys; and
`bindings/`, the native session binding library every native harness uses (leases,
fences, generations, recovery).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.sessions.agents import (
        configured_default_agent,
        known_agent_ids,
        require_known_agent,
    )
    from clawharness.sessions.bindings.bootstrap import transcript_context
    from clawharness.sessions.bindings.errors import InvalidRecordError
    from clawharness.sessions.bindings.leases import LeaseTimings
    from clawharness.sessions.bindings.lifecycle import (
        BindingOperationParams,
        Commit,
        NativeSessionBindingLifecycle,
        Rollback,
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
    from clawharness.sessions.fork import (
        FORKED_FROM,
        ForkResult,
        fork_prefix,
        parse_fork_point,
        write_fork,
    )
    from clawharness.sessions.keys import normalize_session_key, parse_session_key
    from clawharness.sessions.lifecycle import (
        SessionHookParams,
        SessionLifecycle,
        SessionParticipant,
    )
    from clawharness.sessions.portable import (
        HANDOFFS,
        AdoptionResult,
        HandoffNote,
        adopt_into,
        adopt_native,
        copied_entry,
        handed_off,
        handoff_native,
        plan_adoption,
    )
    from clawharness.sessions.queue import (
        DEFAULT_QUEUE_MODE,
        QUEUE_MODES,
        SessionQueues,
        Steering,
        parse_queue_mode,
        resolve_queue_mode,
    )
    from clawharness.sessions.steering_inbox import Offer, SteeringInbox
    from clawharness.sessions.subagent import is_subagent_session_key
    from clawharness.sessions.transcript import (
        RUN_ID_META,
        HistoryCache,
        SessionCreation,
        TranscriptMirror,
        entry_run_id,
        entry_to_message,
    )
    from clawharness.sessions.user_turn import (
        normalize_input_provenance,
        restore_prepared_user_turn_operational_meta_for_runtime,
    )
    from clawharness.sessions.writers import SessionWriters, WriterTimings

__all__ = [
    "DEFAULT_QUEUE_MODE",
    "FORKED_FROM",
    "HANDOFFS",
    "QUEUE_MODES",
    "RUN_ID_META",
    "AdoptionResult",
    "BindingOperationParams",
    "BoundSession",
    "Commit",
    "DictRecordCodec",
    "ForkResult",
    "HandoffNote",
    "HistoryCache",
    "InvalidRecordError",
    "JsonRecordCodec",
    "LeaseTimings",
    "NativeSessionBindingLifecycle",
    "NativeSessionGone",
    "NativeSessionRecord",
    "NativeSessionRecovery",
    "Offer",
    "RemovedBinding",
    "Rollback",
    "SessionBindings",
    "SessionCreation",
    "SessionHookParams",
    "SessionLifecycle",
    "SessionParticipant",
    "SessionQueues",
    "SessionWriters",
    "Steering",
    "SteeringInbox",
    "TranscriptMirror",
    "WriterTimings",
    "adopt_into",
    "adopt_native",
    "configured_default_agent",
    "copied_entry",
    "create_native_session_binding_lifecycle",
    "entry_run_id",
    "entry_to_message",
    "fork_prefix",
    "handed_off",
    "handoff_native",
    "is_subagent_session_key",
    "known_agent_ids",
    "native_session_bindings",
    "native_session_recovery",
    "normalize_input_provenance",
    "normalize_session_key",
    "parse_fork_point",
    "parse_queue_mode",
    "parse_session_key",
    "plan_adoption",
    "require_known_agent",
    "resolve_queue_mode",
    "resolve_state_dir",
    "restore_prepared_user_turn_operational_meta_for_runtime",
    "transcript_context",
    "write_fork",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "HandoffNote": "clawharness.sessions.portable",
    "adopt_native": "clawharness.sessions.portable",
    "handoff_native": "clawharness.sessions.portable",
    "handed_off": "clawharness.sessions.portable",
    "HANDOFFS": "clawharness.sessions.portable",
    "AdoptionResult": "clawharness.sessions.portable",
    "adopt_into": "clawharness.sessions.portable",
    "plan_adoption": "clawharness.sessions.portable",
    "copied_entry": "clawharness.sessions.portable",
    "FORKED_FROM": "clawharness.sessions.fork",
    "ForkResult": "clawharness.sessions.fork",
    "fork_prefix": "clawharness.sessions.fork",
    "parse_fork_point": "clawharness.sessions.fork",
    "write_fork": "clawharness.sessions.fork",
    "BindingOperationParams": "clawharness.sessions.bindings.lifecycle",
    "BoundSession": "clawharness.sessions.bindings.session_bindings",
    "Commit": "clawharness.sessions.bindings.lifecycle",
    "DictRecordCodec": "clawharness.sessions.bindings.namespace",
    "HistoryCache": "clawharness.sessions.transcript",
    "InvalidRecordError": "clawharness.sessions.bindings.errors",
    "JsonRecordCodec": "clawharness.sessions.bindings.session_bindings",
    "LeaseTimings": "clawharness.sessions.bindings.leases",
    "NativeSessionBindingLifecycle": "clawharness.sessions.bindings.lifecycle",
    "NativeSessionGone": "clawharness.sessions.bindings.recovery",
    "NativeSessionRecord": "clawharness.sessions.bindings.session_bindings",
    "NativeSessionRecovery": "clawharness.sessions.bindings.recovery",
    "RemovedBinding": "clawharness.sessions.bindings.session_bindings",
    "Rollback": "clawharness.sessions.bindings.lifecycle",
    "SessionBindings": "clawharness.sessions.bindings.session_bindings",
    "SessionCreation": "clawharness.sessions.transcript",
    "SessionHookParams": "clawharness.sessions.lifecycle",
    "SessionLifecycle": "clawharness.sessions.lifecycle",
    "SessionParticipant": "clawharness.sessions.lifecycle",
    "SessionWriters": "clawharness.sessions.writers",
    "TranscriptMirror": "clawharness.sessions.transcript",
    "WriterTimings": "clawharness.sessions.writers",
    "configured_default_agent": "clawharness.sessions.agents",
    "create_native_session_binding_lifecycle": "clawharness.sessions.bindings.lifecycle",
    "entry_to_message": "clawharness.sessions.transcript",
    "is_subagent_session_key": "clawharness.sessions.subagent",
    "known_agent_ids": "clawharness.sessions.agents",
    "native_session_bindings": "clawharness.sessions.bindings.session_bindings",
    "native_session_recovery": "clawharness.sessions.bindings.recovery",
    "normalize_input_provenance": "clawharness.sessions.user_turn",
    "normalize_session_key": "clawharness.sessions.keys",
    "parse_session_key": "clawharness.sessions.keys",
    "require_known_agent": "clawharness.sessions.agents",
    "resolve_state_dir": "clawharness.sessions.bindings.state_dir",
    "restore_prepared_user_turn_operational_meta_for_runtime": "clawharness.sessions.user_turn",
    "transcript_context": "clawharness.sessions.bindings.bootstrap",
    "Offer": "clawharness.sessions.steering_inbox",
    "RUN_ID_META": "clawharness.sessions.transcript",
    "entry_run_id": "clawharness.sessions.transcript",
    "SteeringInbox": "clawharness.sessions.steering_inbox",
    "DEFAULT_QUEUE_MODE": "clawharness.sessions.queue",
    "QUEUE_MODES": "clawharness.sessions.queue",
    "SessionQueues": "clawharness.sessions.queue",
    "Steering": "clawharness.sessions.queue",
    "parse_queue_mode": "clawharness.sessions.queue",
    "resolve_queue_mode": "clawharness.sessions.queue",
})
