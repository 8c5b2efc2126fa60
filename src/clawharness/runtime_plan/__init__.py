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

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
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
__getattr__, __dir__ = lazy_face(__name__, {
    "GENERIC_EXTERNAL_RUN_FAILURE_TEXT": "clawharness.runtime_plan.classify",
    "classify_agent_harness_terminal_outcome": "clawharness.runtime_plan.classify",
    "classify_embedded_agent_run_result_for_model_fallback": "clawharness.runtime_plan.classify",
    "has_committed_outbound_delivery_evidence": "clawharness.runtime_plan.classify",
    "has_visible_agent_payload": "clawharness.runtime_plan.classify",
    "is_reply_payload_terminal_content": "clawharness.runtime_plan.classify",
    "FailoverReason": "clawharness.runtime_plan.failover",
    "classify_failover_reason": "clawharness.runtime_plan.failover",
    "AgentRuntimeAuthPlan": "clawharness.runtime_plan.plan",
    "AgentRuntimeDeliveryPlan": "clawharness.runtime_plan.plan",
    "AgentRuntimeObservability": "clawharness.runtime_plan.plan",
    "AgentRuntimeOutcomePlan": "clawharness.runtime_plan.plan",
    "AgentRuntimePlan": "clawharness.runtime_plan.plan",
    "AgentRuntimePromptPlan": "clawharness.runtime_plan.plan",
    "AgentRuntimeToolsPlan": "clawharness.runtime_plan.plan",
    "AgentRuntimeTranscriptPlan": "clawharness.runtime_plan.plan",
    "AgentRuntimeTransportPlan": "clawharness.runtime_plan.plan",
    "ResolvedRef": "clawharness.runtime_plan.plan",
    "build_agent_runtime_plan": "clawharness.runtime_plan.plan",
    "normalize_embedded_agent_runtime": "clawharness.runtime_plan.plan",
    "EmbeddedRunClassificationParams": "clawharness.runtime_plan.run_result",
    "EmbeddedRunResult": "clawharness.runtime_plan.run_result",
    "HarnessTurnOutcome": "clawharness.runtime_plan.run_result",
    "ModelFallbackClassification": "clawharness.runtime_plan.run_result",
    "ProviderRefusal": "clawharness.runtime_plan.run_result",
    "RunError": "clawharness.runtime_plan.run_result",
    "RunMeta": "clawharness.runtime_plan.run_result",
    "RunPayload": "clawharness.runtime_plan.run_result",
    "TerminalClassification": "clawharness.runtime_plan.run_result",
    "TtsSupplement": "clawharness.runtime_plan.run_result",
    "AcceptedSessionSpawn": "clawharness.runtime_plan.spawns",
    "has_accepted_session_spawn": "clawharness.runtime_plan.spawns",
    "normalize_accepted_session_spawn_result": "clawharness.runtime_plan.spawns",
    "ThoughtSignaturePolicy": "clawharness.runtime_plan.transcript_policy",
    "TranscriptPolicy": "clawharness.runtime_plan.transcript_policy",
    "normalize_provider_id": "clawharness.runtime_plan.transcript_policy",
    "resolve_transcript_policy": "clawharness.runtime_plan.transcript_policy",
})
