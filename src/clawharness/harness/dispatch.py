"""Running the selected harness: the machinery around the pure selection decision.

Once a plugin harness is dispatched its failures propagate unchanged ("<label> failed;
not falling back" is logged); the same turn is never replayed through another runtime.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import replace
from typing import Any

from clawharness.errors import HarnessError
from clawharness.harness.gates import (
    ToolPolicyGate,
    apply_tool_policy_gate,
    check_runtime_artifact_request,
    check_runtime_artifact_result,
)
from clawharness.harness.selection import SelectionDecision
from clawharness.harness.types import AttemptParams, AttemptResult

__all__ = [
    "RESULT_CLASSIFICATIONS",
    "maybe_compact_harness_session",
    "require_builtin_tool_round_limit",
    "run_selected_attempt",
]

_log = logging.getLogger("clawharness.agents.harness")

#: values a harness's `classify(result, params)` may return
RESULT_CLASSIFICATIONS = frozenset({"ok", "empty", "reasoning-only", "planning-only"})


async def run_selected_attempt(
    decision: SelectionDecision,
    params: AttemptParams,
    *,
    gate: ToolPolicyGate | None = None,
) -> AttemptResult:
    """Run one prepared attempt on the selected harness.

    Applies the tool-policy gate (a rejection raises before the harness is touched),
    refuses attestation requests the harness cannot serve, stamps `agent_harness_id`
    and the harness's own `classify` verdict on the result, and checks a requested
    runtime artifact.
    """
    harness = decision.harness
    if harness is None:
        raise HarnessError(
            "the built-in openclaw harness was selected but none is installed in the registry"
        )
    if gate is not None:
        params = apply_tool_policy_gate(params, gate)
    check_runtime_artifact_request(None if decision.builtin else harness, params)
    if params.agent_harness_id != decision.selected_harness_id:
        params = replace(params, agent_harness_id=decision.selected_harness_id)
    try:
        result = await harness.run_attempt(params)
    except Exception as exc:
        if not decision.builtin:
            _log.warning("%s failed; not falling back", harness.label,
                         extra={"harness_id": harness.id, "provider": params.provider,
                                "model_id": params.model_id, "error": str(exc)})
        raise
    if result.agent_harness_id is None:
        result.agent_harness_id = harness.id
    classify = getattr(harness, "classify", None)
    if callable(classify) and result.agent_harness_result_classification is None:
        verdict = classify(result, params)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        if verdict in RESULT_CLASSIFICATIONS:
            result.agent_harness_result_classification = verdict
    check_runtime_artifact_result(params, result)
    return result


async def maybe_compact_harness_session(
    decision: SelectionDecision, params: Any
) -> dict[str, Any] | None:
    """Route a compaction request to the selected harness.

    Built-in without `compact`: None (the host compacts). Plugin without `compact`: a
    visible `unsupported_harness_compaction` failure, never a silent host compaction of a
    native transcript it does not own.
    """
    harness = decision.harness
    compact = getattr(harness, "compact", None) if harness is not None else None
    if not callable(compact):
        if decision.builtin:
            return None
        return {
            "ok": False,
            "compacted": False,
            "reason": f'Agent harness "{decision.selected_harness_id}" does not support compaction.',
            "failure": {"reason": "unsupported_harness_compaction"},
        }
    outcome = compact(params)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome if isinstance(outcome, dict) or outcome is None else dict(outcome)


def require_builtin_tool_round_limit(decision: SelectionDecision, limit_callback: object) -> None:
    """Tool-round-limit callbacks only work on the built-in runtime."""
    if limit_callback is not None and not decision.builtin:
        raise HarnessError(
            "Tool-calling round limits require the built-in OpenClaw harness; selected "
            f'"{decision.selected_harness_id}".'
        )
