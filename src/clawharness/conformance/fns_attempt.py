"""Conformance fragment: attempt terminals, terminal classification, finalization, user
turns, accepted spawns, usage and sub-agent session keys.

Maps the original's export names to adapters: each decodes the vector's JavaScript
arguments into the core's typed values, calls the core, and encodes the result back
(camelCase, the original's key order, `undefined` where the original returns it).
"""

from __future__ import annotations

from typing import Any

from clawharness.conformance.js_finalize import project_finalization
from clawharness.conformance.js_run_result import classify_embedded_run, classify_terminal_outcome
from clawharness.conformance.js_terminal import TERMINAL_NAMESPACE
from clawharness.conformance.js_usage import encode_usage
from clawharness.conformance.jsrules import get, is_record, js_truthy, to_json
from clawharness.conformance.jsvalue import UNDEFINED
from clawharness.records.usage import normalize_usage
from clawharness.runtime_plan.spawns import normalize_accepted_session_spawn_result
from clawharness.sessions.subagent import is_subagent_session_key
from clawharness.sessions.user_turn import (
    normalize_input_provenance,
    restore_prepared_user_turn_operational_meta_for_runtime,
)

__all__ = ["FUNCTIONS"]

_PROVENANCE_FIELDS = ("kind", "originSessionId", "sourceSessionKey", "originChannel", "sourceTool")


def _restore_user_turn(params: Any = UNDEFINED) -> Any:
    runtime = get(params, "runtimeMessage")
    prepared = get(params, "preparedMessage")
    if not js_truthy(prepared) or get(runtime, "role") != "user":
        return runtime  # unchanged, whatever it is
    # A truthy non-object snapshot has no fields to restore from: it reads as `{}`.
    snapshot = to_json(prepared) if is_record(prepared) else {}
    restored: dict[str, Any] = dict(
        restore_prepared_user_turn_operational_meta_for_runtime(to_json(runtime), snapshot))
    provenance = restored.get("provenance")
    if isinstance(provenance, dict) and normalize_input_provenance(
            snapshot.get("provenance")) is not None:
        # The original's provenance object names every field, `undefined` when not given.
        restored["provenance"] = {key: provenance.get(key, UNDEFINED) for key in _PROVENANCE_FIELDS}
    return restored


def _normalize_accepted_session_spawn(result: Any = UNDEFINED) -> Any:
    spawn = normalize_accepted_session_spawn_result(to_json(result) if is_record(result) else None)
    if spawn is None:
        return None  # the original returns null (not undefined) for an unaccepted spawn
    return {
        "runId": spawn.run_id,
        "childSessionKey": spawn.child_session_key,
        "expectsCompletionMessage": spawn.expects_completion_message,
    }


def _normalize_usage(raw: Any = UNDEFINED) -> Any:
    return encode_usage(normalize_usage(to_json(raw)) if js_truthy(raw) else None)


def _is_subagent_session_key(session_key: Any = UNDEFINED) -> bool:
    return isinstance(session_key, str) and is_subagent_session_key(session_key)


FUNCTIONS: dict[str, Any] = {
    "agentHarnessAttemptTerminal": TERMINAL_NAMESPACE,
    "classifyAgentHarnessTerminalOutcome": classify_terminal_outcome,
    "classifyEmbeddedAgentRunResultForModelFallback": classify_embedded_run,
    "projectSettledTurnFinalizationAttemptResult": project_finalization,
    "restorePreparedUserTurnOperationalMetaForRuntime": _restore_user_turn,
    "normalizeAcceptedSessionSpawnResult": _normalize_accepted_session_spawn,
    "normalizeUsage": _normalize_usage,
    "isSubagentSessionKey": _is_subagent_session_key,
}
