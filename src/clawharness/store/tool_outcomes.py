"""Tool calls exactly once: the records behind `clawharness.tools.outcomes`.

Every tool call of a durable turn has a key (session, turn, call id). Before the tool
runs, the call is *claimed* (a row saying it started, committed); its terminal outcome
is *committed* to the same row before the model sees it. A retried turn that meets the
key again finds either the committed outcome (replayed, the tool not run again) or a
claim with no outcome (the tool started and its effect is unknown).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["ToolCallClaim", "ToolCallKey", "ToolCallRecord", "row_to_record"]


@dataclass(frozen=True, slots=True)
class ToolCallKey:
    session_id: str
    run_id: str
    call_id: str

    @property
    def text(self) -> str:
        """The idempotency key, as logs and errors show it."""
        return f"{self.session_id}/{self.run_id}/{self.call_id}"


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    key: ToolCallKey
    tool_name: str
    #: False for a call that may safely run twice (a read)
    state_changing: bool
    started_at: float
    #: the committed result (`{"content": [...], ...}`), None while none is
    outcome: dict[str, Any] | None
    is_error: bool
    committed_at: float | None

    @property
    def committed(self) -> bool:
        return self.committed_at is not None


@dataclass(frozen=True, slots=True)
class ToolCallClaim:
    """The call's row after a claim; `fresh`: this claim made it (the call never started
    before), else it is the row an earlier attempt left."""

    record: ToolCallRecord
    fresh: bool


def row_to_record(key: ToolCallKey, row: tuple[Any, ...]) -> ToolCallRecord:
    """(tool_name, state_changing, started_at, outcome, is_error, committed_at) -> record."""
    outcome = row[3]
    if isinstance(outcome, str):
        outcome = json.loads(outcome)
    return ToolCallRecord(key, str(row[0]), bool(row[1]), float(row[2]), outcome,
                          bool(row[4]), None if row[5] is None else float(row[5]))
