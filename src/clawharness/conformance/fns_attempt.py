"""Conformance fragment: attempt terminals, terminal classification, finalization, user turns.

Maps the original's export names to the Python implementations. Values are JS-shaped
(camelCase mappings, `UNDEFINED` for `undefined`), exactly as the vectors carry them.
"""

from __future__ import annotations

from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt.classify import (
    classify_agent_harness_terminal_outcome,
    classify_embedded_agent_run_result_for_model_fallback,
)
from clawharness.attempt.finalize_projection import project_settled_turn_finalization_attempt_result
from clawharness.attempt.terminal import agent_harness_attempt_terminal
from clawharness.sessions.user_turn import restore_prepared_user_turn_operational_meta_for_runtime

__all__ = ["FUNCTIONS"]


def _classify_embedded(params: Any = UNDEFINED) -> Any:
    return classify_embedded_agent_run_result_for_model_fallback(
        params if isinstance(params, dict) else {}
    )


FUNCTIONS: dict[str, Any] = {
    "agentHarnessAttemptTerminal": agent_harness_attempt_terminal,
    "classifyAgentHarnessTerminalOutcome": classify_agent_harness_terminal_outcome,
    "classifyEmbeddedAgentRunResultForModelFallback": _classify_embedded,
    "projectSettledTurnFinalizationAttemptResult": project_settled_turn_finalization_attempt_result,
    "restorePreparedUserTurnOperationalMetaForRuntime": (
        restore_prepared_user_turn_operational_meta_for_runtime
    ),
}
