"""A turn's result as the relay carries it from the worker to the front: the one JSON
shape of `TurnResult` (`turn_result_to_wire`), and the results the cluster itself makes."""

from __future__ import annotations

import json

from clawharness._json import JsonValue
from clawharness.records.turn_result import (
    ClusterPlacement,
    TurnResult,
    turn_result_from_wire,
    turn_result_to_wire,
)

__all__ = ["failed_result", "result_from_wire", "result_to_wire", "withdrawn_result"]


def result_to_wire(result: TurnResult) -> dict[str, JsonValue]:
    # what JSON cannot hold (a harness's odd error detail) becomes its text, never a
    # failed relay
    loaded: dict[str, JsonValue] = json.loads(json.dumps(turn_result_to_wire(result),
                                                         default=str))
    return loaded


def result_from_wire(wire: dict[str, JsonValue]) -> TurnResult:
    return turn_result_from_wire(wire)


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
                      cluster=ClusterPlacement(withdrawn=True))
