"""The model fallback decision: after one candidate's attempt, what the chain does next.

The turn runner (`clawharness.attempt.turn`) walks its candidates (the turn's model, then
the configured fallbacks) and asks `decide_fallback` after each attempt. The decision is
pure and synchronous; the rules (seed 004, "Selection policy"):

- an attempt that did not fail, or the last candidate's, ends the turn;
- `AgentHarnessPreflightError` without scope is terminal for the whole chain (the turn
  ends with that failure, recorded as a fallback);
- with `scope="harness"` the chain goes on, skipping only later candidates that select
  the same harness (the runner checks each candidate's selection against
  `skip_harness`); anything else still runs through its normal runtime and policy checks;
- otherwise only a built-in attempt that failed before producing anything (no tool call,
  no assistant text) falls back: once a plugin harness claimed the turn, its failure is
  the turn's, never replayed through another runtime.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from clawharness.errors import AgentHarnessPreflightError
from clawharness.harness.types import AttemptResult

__all__ = ["FallbackAction", "FallbackDecision", "decide_fallback"]


class FallbackAction(Enum):
    """What the chain does after an attempt."""

    #: the turn ends with this attempt (it did not fail, or nothing may follow it)
    END = "end"
    #: try the next candidate
    NEXT = "next"
    #: try the next candidate that does not select this attempt's harness
    SKIP_HARNESS = "skip-harness"
    #: the turn ends with this failure, which no other candidate may replace
    STOP = "stop"


@dataclass(frozen=True, slots=True)
class FallbackDecision:
    """The chain's next move after one attempt, and why."""

    action: FallbackAction
    reason: str

    @property
    def tries_next(self) -> bool:
        """The chain goes on to a later candidate."""
        return self.action in (FallbackAction.NEXT, FallbackAction.SKIP_HARNESS)

    @property
    def records_fallback(self) -> bool:
        """This attempt's model goes into the turn's fallbacks (it failed, and the chain
        moved past it or stopped on a chain-wide failure)."""
        return self.action is not FallbackAction.END

    @property
    def skip_harness(self) -> bool:
        """Later candidates on this attempt's harness are skipped."""
        return self.action is FallbackAction.SKIP_HARNESS


_ENDS = FallbackDecision(FallbackAction.END, "the attempt did not fail")
_LAST = FallbackDecision(FallbackAction.END, "the last candidate")
_CLAIMED = FallbackDecision(FallbackAction.END,
                            "the harness claimed the turn: never replayed elsewhere")
_NEXT = FallbackDecision(FallbackAction.NEXT, "the built-in runtime failed before any output")
_SKIP = FallbackDecision(FallbackAction.SKIP_HARNESS, "harness-scoped preflight failure")
_STOP = FallbackDecision(FallbackAction.STOP, "preflight failure: terminal for the chain")


def decide_fallback(result: AttemptResult, *, builtin: bool, last: bool,
                    preflight: AgentHarnessPreflightError | None = None) -> FallbackDecision:
    """The chain's move after an attempt that ended with `result` (module docstring).

    `builtin`: the attempt ran on the built-in runtime. `last`: no candidate follows it.
    `preflight`: the harness refused the attempt before any model work.
    """
    if result.terminal.kind != "failed":
        return _ENDS
    if last:
        return _LAST
    if preflight is not None:
        return _SKIP if preflight.scope == "harness" else _STOP
    if builtin and not (result.tool_metas or result.assistant_texts):
        return _NEXT
    return _CLAIMED
