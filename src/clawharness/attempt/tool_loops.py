"""A turn's tool-loop detection: the guard an attempt gets, and the outcome it ends with.

The rules are `clawharness.harness.tool_loops`; this is where config turns into a guard
(`tools.loopDetection`) and where an attempt the guard stopped gets its outcome,
`tool_loop`, whatever its runtime reported (a native runtime whose further tool calls
were refused may have ended `ok`, or `aborted`).
"""

from __future__ import annotations

from dataclasses import replace

from clawharness.config import LoopDetectionConfig
from clawharness.harness import AttemptResult, AttemptTerminal, ToolLoopGuard, ToolLoopLimits

__all__ = ["ended_by_tool_loop", "tool_loop_guard"]


def tool_loop_guard(config: LoopDetectionConfig) -> ToolLoopGuard | None:
    """A fresh guard for one attempt; None when loop detection is off."""
    if not config.enabled:
        return None
    return ToolLoopGuard(ToolLoopLimits(config.same_call_limit, config.no_progress_limit))


def ended_by_tool_loop(guard: ToolLoopGuard | None, result: AttemptResult) -> AttemptResult:
    """`result`, with the tool-loop outcome when the guard tripped during the attempt."""
    loop = None if guard is None else guard.tripped
    if loop is None or result.terminal.source == "tool_loop":
        return result
    return replace(result, terminal=AttemptTerminal(
        "aborted", source="tool_loop", error=loop.message, details=loop.details()))
