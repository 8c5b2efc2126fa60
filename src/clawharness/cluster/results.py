"""A `TurnResult` as the JSON row the relay carries from the worker to the front."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from clawharness.attempt.turn import TurnResult

__all__ = ["failed_result", "result_from_wire", "result_to_wire", "withdrawn_result"]

_FIELDS = {f.name for f in dataclasses.fields(TurnResult)}
_TUPLES = ("tool_calls", "payloads", "warnings")


def result_to_wire(result: TurnResult) -> dict[str, Any]:
    out = {f: getattr(result, f) for f in _FIELDS}
    # what JSON cannot hold becomes its text, never a failed relay
    loaded: dict[str, Any] = json.loads(json.dumps(out, default=str))
    return loaded


def result_from_wire(wire: dict[str, Any]) -> TurnResult:
    values = {k: v for k, v in wire.items() if k in _FIELDS}
    for name in _TUPLES:
        if name in values and values[name] is not None:
            values[name] = tuple(values[name])
    return TurnResult(**values)


def failed_result(session_key: str, turn_id: str, error: str, *,
                  error_type: str = "cluster_turn_failed") -> TurnResult:
    """What the front reports for a turn the cluster could not run at all."""
    return TurnResult(session_key=session_key, session_id="", run_id=turn_id, runtime="",
                      selected_reason="", terminal="failed", text="", error=error,
                      error_details={"type": error_type})


def withdrawn_result(session_key: str, turn_id: str) -> TurnResult:
    """What the front reports for a turn aborted while it waited in its session's queue:
    `aborted`, as the turn itself would have ended; nothing ran and nothing was stored."""
    return TurnResult(session_key=session_key, session_id="", run_id=turn_id, runtime="",
                      selected_reason="", terminal="aborted", text="",
                      extra={"cluster": {"withdrawn": True}})
