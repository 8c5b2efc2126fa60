"""The closed attempt terminal: how an attempt ended, with sticky precedence.

A terminal is a JSON-like mapping, one of:

- ``{"kind": "ok", "settlementWarning"?}``
- ``{"kind": "aborted", "source": runtime|external|yield_cleanup, "failure"?, "timeoutObservation"?}``
- ``{"kind": "timeout", "phase": prompt|tool_execution|compaction,
  "source": runtime|run_budget|idle|external|observation, "aborted"?, "failure"?}``
- ``{"kind": "failed", "source": ..., "error": ..., "timeoutObservation"?}``

Observations merge into one owner so that a stronger interruption (a timeout, an
external abort) is never overwritten by a weaker later fact. Harnesses that still
report the deprecated flat booleans (`aborted`, `timedOut`, `promptError`, ...) are
normalised at the SDK boundary, and `project` turns a terminal back into those flags
for legacy event consumers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import get, is_nullish, js_truthy

__all__ = [
    "AttemptTerminalHelpers",
    "agent_harness_attempt_terminal",
    "merge_attempt_terminal",
    "normalize_attempt_terminal",
    "project_attempt_terminal",
    "set_attempt_terminal_failure",
]

Terminal = dict[str, Any]

_KIND_RANK = {"ok": 0, "failed": 1, "aborted": 2, "timeout": 3}
_PHASE_RANK = {"prompt": 0, "tool_execution": 1, "compaction": 2}
_TIMEOUT_SOURCE_RANK = {"observation": 0, "runtime": 1, "idle": 2, "run_budget": 3, "external": 4}
_ABORT_SOURCE_RANK = {"yield_cleanup": 0, "runtime": 1, "external": 2}


def _rank_gt(table: Mapping[str, int], left: Any, right: Any, *, or_equal: bool = False) -> bool:
    # An unknown name ranks as `undefined`, and every comparison with it is false.
    a = table.get(left) if isinstance(left, str) else None
    b = table.get(right) if isinstance(right, str) else None
    if a is None or b is None:
        return False
    return a >= b if or_equal else a > b


def _merge_phase(phase: Any, observation: Any) -> Any:
    if js_truthy(observation) and _rank_gt(_PHASE_RANK, observation, phase):
        return observation
    return phase


def _failure_of(terminal: Mapping[str, Any]) -> Any:
    kind = terminal.get("kind")
    if kind == "failed":
        return {"source": get(terminal, "source"), "error": get(terminal, "error")}
    if kind == "ok":
        return UNDEFINED
    return get(terminal, "failure")


def _spread(value: Any) -> dict[str, Any]:
    # Object spread: a mapping contributes its entries, a string its characters by index.
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str):
        return {str(index): char for index, char in enumerate(value)}
    return {}


def _with_failure(terminal: Terminal, failure: Any) -> Terminal:
    if not js_truthy(failure) or terminal.get("kind") == "ok":
        return terminal
    if terminal.get("kind") == "failed":
        return {**terminal, **_spread(failure)}
    return {**terminal, "failure": failure}


def _with_timeout_observation(terminal: Terminal, phase: Any) -> Terminal:
    compaction = terminal.get("timeoutObservation") == "compaction" or phase == "compaction"
    return {**terminal, "timeoutObservation": "compaction" if compaction else "tool_execution"}


def _has_timeout_abort(terminal: Mapping[str, Any]) -> bool:
    return (
        terminal.get("kind") == "timeout"
        and terminal.get("source") != "observation"
        and terminal.get("aborted") is True
    )


def _first_defined(*values: Any) -> Any:
    for value in values:
        if not is_nullish(value):
            return value
    return values[-1]


def set_attempt_terminal_failure(terminal: Terminal, failure: Any) -> Terminal:
    """Replace the failure detail without weakening a stronger interruption."""
    kind = terminal.get("kind")
    if not js_truthy(failure):
        if kind == "failed":
            observation = get(terminal, "timeoutObservation")
            if js_truthy(observation):
                return {"kind": "timeout", "phase": observation, "source": "observation"}
            return {"kind": "ok"}
        if kind in ("aborted", "timeout"):
            return {key: value for key, value in terminal.items() if key != "failure"}
        return terminal
    if kind == "timeout" and terminal.get("source") == "observation":
        return {"kind": "failed", **_spread(failure), "timeoutObservation": get(terminal, "phase")}
    if kind in ("failed", "ok"):
        observation = get(terminal, "timeoutObservation") if kind == "failed" else UNDEFINED
        return {
            "kind": "failed",
            **_spread(failure),
            **({"timeoutObservation": observation} if js_truthy(observation) else {}),
        }
    return {**terminal, "failure": failure}


def merge_attempt_terminal(current: Terminal, incoming: Terminal) -> Terminal:
    """Merge a new observation into the attempt's terminal, keeping precedence in one place."""
    incoming_kind = incoming.get("kind")
    current_kind = current.get("kind")
    if incoming_kind == "ok":
        return current
    failure = _first_defined(_failure_of(incoming), _failure_of(current))

    if (
        incoming_kind == "timeout"
        and incoming.get("source") == "observation"
        and current_kind != "timeout"
    ):
        if current_kind == "ok":
            return _with_failure(incoming, failure)
        return _with_failure(_with_timeout_observation(current, incoming.get("phase")), failure)

    if (
        current_kind == "timeout"
        and current.get("source") == "observation"
        and incoming_kind != "timeout"
    ):
        if incoming_kind in ("failed", "aborted"):
            observed = _with_timeout_observation(incoming, current.get("phase"))
            return _with_failure(observed, failure)
        return _with_failure(incoming, failure)

    if current_kind == "timeout" and incoming_kind == "timeout":
        phase = (
            incoming.get("phase")
            if _rank_gt(_PHASE_RANK, incoming.get("phase"), current.get("phase"))
            else current.get("phase")
        )
        selected = (
            incoming
            if _rank_gt(_TIMEOUT_SOURCE_RANK, incoming.get("source"), current.get("source"))
            else current
        )
        if selected.get("source") == "observation":
            compaction = (
                current.get("phase") == "compaction" or incoming.get("phase") == "compaction"
            )
            merged: Terminal = {
                "kind": "timeout",
                "phase": "compaction" if compaction else "tool_execution",
                "source": "observation",
            }
            return _with_failure(merged, failure)
        merged = {"kind": "timeout", "phase": phase, "source": selected.get("source")}
        if _has_timeout_abort(current) or _has_timeout_abort(incoming):
            merged["aborted"] = True
        return _with_failure(merged, failure)

    if current_kind in ("aborted", "failed") and incoming_kind == "timeout":
        if incoming.get("source") == "observation":
            observed = _with_timeout_observation(current, incoming.get("phase"))
            return _with_failure(observed, failure)
        external = current_kind == "aborted" and current.get("source") == "external"
        merged = {
            **incoming,
            "phase": _merge_phase(incoming.get("phase"), get(current, "timeoutObservation")),
            "source": "external" if external else incoming.get("source"),
        }
        if (current_kind == "aborted" and current.get("source") != "yield_cleanup") or incoming.get(
            "aborted"
        ) is True:
            merged["aborted"] = True
        return _with_failure(merged, failure)

    if current_kind == "timeout" and incoming_kind in ("aborted", "failed"):
        if current.get("source") == "observation":
            observed = _with_timeout_observation(incoming, current.get("phase"))
            return _with_failure(observed, failure)
        external = incoming_kind == "aborted" and incoming.get("source") == "external"
        merged = {
            **current,
            "phase": _merge_phase(current.get("phase"), get(incoming, "timeoutObservation")),
            "source": "external" if external else current.get("source"),
        }
        if (
            incoming_kind == "aborted" and incoming.get("source") != "yield_cleanup"
        ) or current.get("aborted") is True:
            merged["aborted"] = True
        return _with_failure(merged, failure)

    if current_kind in ("aborted", "failed") and incoming_kind in ("aborted", "failed"):
        selected_terminal: Terminal
        if current_kind == "aborted" and incoming_kind == "aborted":
            stronger = _rank_gt(_ABORT_SOURCE_RANK, incoming.get("source"), current.get("source"))
            source = incoming.get("source") if stronger else current.get("source")
            selected_terminal = {"kind": "aborted", "source": source}
        elif _rank_gt(_KIND_RANK, incoming_kind, current_kind, or_equal=True):
            selected_terminal = incoming
        else:
            selected_terminal = current
        for observation in (
            get(current, "timeoutObservation"),
            get(incoming, "timeoutObservation"),
        ):
            if js_truthy(observation):
                selected_terminal = _with_timeout_observation(selected_terminal, observation)
        return _with_failure(selected_terminal, failure)

    stronger_incoming = _rank_gt(_KIND_RANK, incoming_kind, current_kind, or_equal=True)
    return _with_failure(incoming if stronger_incoming else current, failure)


def normalize_attempt_terminal(legacy: Mapping[str, Any]) -> Terminal:
    """Build a terminal from the deprecated flat flags a harness result may still carry."""
    terminal: Terminal = {"kind": "ok"}
    aborted = js_truthy(get(legacy, "aborted"))
    external = js_truthy(get(legacy, "externalAbort"))
    during_compaction = js_truthy(get(legacy, "timedOutDuringCompaction"))
    during_tools = js_truthy(get(legacy, "timedOutDuringToolExecution"))
    by_budget = js_truthy(get(legacy, "timedOutByRunBudget"))
    idle = js_truthy(get(legacy, "idleTimedOut"))
    if aborted or external:
        terminal = merge_attempt_terminal(
            terminal, {"kind": "aborted", "source": "external" if external else "runtime"}
        )
    if js_truthy(get(legacy, "timedOut")) or idle or by_budget:
        timeout: Terminal = {
            "kind": "timeout",
            "phase": "compaction"
            if during_compaction
            else "tool_execution"
            if during_tools
            else "prompt",
            "source": "external"
            if external
            else "run_budget"
            if by_budget
            else "idle"
            if idle
            else "runtime",
        }
        if aborted or external:
            timeout["aborted"] = True
        terminal = merge_attempt_terminal(terminal, timeout)
    elif during_compaction or during_tools:
        terminal = merge_attempt_terminal(
            terminal,
            {
                "kind": "timeout",
                "phase": "compaction" if during_compaction else "tool_execution",
                "source": "observation",
            },
        )
    prompt_error = get(legacy, "promptError")
    if not is_nullish(prompt_error):
        source = get(legacy, "promptErrorSource")
        terminal = set_attempt_terminal_failure(
            terminal, {"error": prompt_error, "source": "prompt" if is_nullish(source) else source}
        )
    return terminal


def project_attempt_terminal(terminal: Mapping[str, Any]) -> dict[str, Any]:
    """Project a terminal onto the legacy flag fields of events and run metadata."""
    kind = terminal.get("kind")
    source = terminal.get("source")
    failure = _failure_of(terminal)
    external = kind in ("aborted", "timeout") and source == "external"
    timed_out = kind == "timeout" and source != "observation"
    observation = get(terminal, "timeoutObservation") if kind in ("aborted", "failed") else None
    failure_source = get(failure, "source")
    return {
        "aborted": (kind == "aborted" and source != "yield_cleanup")
        or _has_timeout_abort(terminal),
        "cleanupYieldAborted": kind == "aborted" and source == "yield_cleanup",
        "externalAbort": external,
        "failed": failure is not UNDEFINED,
        "idleTimedOut": kind == "timeout" and source == "idle",
        "interrupted": external or timed_out,
        "promptError": get(failure, "error") if js_truthy(failure) else None,
        "promptErrorSource": None if is_nullish(failure_source) else failure_source,
        "timedOut": timed_out,
        "timedOutByRunBudget": kind == "timeout" and source == "run_budget",
        "timedOutDuringCompaction": (kind == "timeout" and terminal.get("phase") == "compaction")
        or observation == "compaction",
        "timedOutDuringToolExecution": (
            kind == "timeout" and terminal.get("phase") == "tool_execution"
        )
        or observation == "tool_execution",
    }


@dataclass(frozen=True, slots=True)
class AttemptTerminalHelpers:
    """The SDK's `agentHarnessAttemptTerminal` namespace: one owner for terminal precedence."""

    merge: Callable[[Terminal, Terminal], Terminal]
    normalize: Callable[[Mapping[str, Any]], Terminal]
    project: Callable[[Mapping[str, Any]], dict[str, Any]]
    set_failure: Callable[[Terminal, Any], Terminal]


agent_harness_attempt_terminal = AttemptTerminalHelpers(
    merge=merge_attempt_terminal,
    normalize=normalize_attempt_terminal,
    project=project_attempt_terminal,
    set_failure=set_attempt_terminal_failure,
)
