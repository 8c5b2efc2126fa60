"""The runtime plan: the host's decisions a harness shares with the built-in runtime, and
the pure rules they are made with.

The host builds one `AgentRuntimePlan` per attempt and hands it to the harness as
`AttemptParams.runtime_plan` (read-only): tool schema normalisation, transcript policy,
silent-reply suppression, and how a run's result is classified for model fallback. The
rules sit here, below the harness contract that carries the plan, so the contract, the
host's turn and every harness read one copy of them.

    plan.py               AgentRuntimePlan and its parts; build_agent_runtime_plan
    classify.py           a run's result or a harness's terminal outcome, classified for
                          model fallback
    run_result.py         the facts classification reads (EmbeddedRunResult, ...)
    spawns.py             accepted session spawns in a run's result
    transcript_policy.py  per-provider transcript repairs
    failover.py           a provider error's failover reason (`failover_patterns.py`: the
                          patterns)
"""

from __future__ import annotations

from clawharness.runtime_plan.classify import (
    GENERIC_EXTERNAL_RUN_FAILURE_TEXT,
    classify_agent_harness_terminal_outcome,
    classify_embedded_agent_run_result_for_model_fallback,
    has_committed_outbound_delivery_evidence,
    has_visible_agent_payload,
    is_reply_payload_terminal_content,
)
from clawharness.runtime_plan.failover import FailoverReason, classify_failover_reason
from clawharness.runtime_plan.plan import (
    AgentRuntimeAuthPlan,
    AgentRuntimeDeliveryPlan,
    AgentRuntimeObservability,
    AgentRuntimeOutcomePlan,
    AgentRuntimePlan,
    AgentRuntimePromptPlan,
    AgentRuntimeToolsPlan,
    AgentRuntimeTranscriptPlan,
    AgentRuntimeTransportPlan,
    ResolvedRef,
    build_agent_runtime_plan,
    normalize_embedded_agent_runtime,
)
from clawharness.runtime_plan.run_result import (
    EmbeddedRunClassificationParams,
    EmbeddedRunResult,
    HarnessTurnOutcome,
    ModelFallbackClassification,
    ProviderRefusal,
    RunError,
    RunMeta,
    RunPayload,
    TerminalClassification,
    TtsSupplement,
)
from clawharness.runtime_plan.spawns import (
    AcceptedSessionSpawn,
    has_accepted_session_spawn,
    normalize_accepted_session_spawn_result,
)
from clawharness.runtime_plan.transcript_policy import (
    ThoughtSignaturePolicy,
    TranscriptPolicy,
    normalize_provider_id,
    resolve_transcript_policy,
)

__all__ = [
    "GENERIC_EXTERNAL_RUN_FAILURE_TEXT",
    "AcceptedSessionSpawn",
    "AgentRuntimeAuthPlan",
    "AgentRuntimeDeliveryPlan",
    "AgentRuntimeObservability",
    "AgentRuntimeOutcomePlan",
    "AgentRuntimePlan",
    "AgentRuntimePromptPlan",
    "AgentRuntimeToolsPlan",
    "AgentRuntimeTranscriptPlan",
    "AgentRuntimeTransportPlan",
    "EmbeddedRunClassificationParams",
    "EmbeddedRunResult",
    "FailoverReason",
    "HarnessTurnOutcome",
    "ModelFallbackClassification",
    "ProviderRefusal",
    "ResolvedRef",
    "RunError",
    "RunMeta",
    "RunPayload",
    "TerminalClassification",
    "ThoughtSignaturePolicy",
    "TranscriptPolicy",
    "TtsSupplement",
    "build_agent_runtime_plan",
    "classify_agent_harness_terminal_outcome",
    "classify_embedded_agent_run_result_for_model_fallback",
    "classify_failover_reason",
    "has_accepted_session_spawn",
    "has_committed_outbound_delivery_evidence",
    "has_visible_agent_payload",
    "is_reply_payload_terminal_content",
    "normalize_accepted_session_spawn_result",
    "normalize_embedded_agent_runtime",
    "normalize_provider_id",
    "resolve_transcript_policy",
]
