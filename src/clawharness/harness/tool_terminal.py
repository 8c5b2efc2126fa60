"""Reporting a settled tool call to the host (`params.observe_tool_terminal`).

Every harness that runs tools reports each settled call the same way, so the host's
observer sees one observation shape and the turn keeps the last tool error the host
answers; these two functions are that one way.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from clawharness.harness.types import ObserveToolTerminal

__all__ = ["report_tool_terminal", "tool_observation"]


def tool_observation(*, tool_call_id: str, tool_name: str, arguments: Mapping[str, Any],
                     execution_started: bool, is_error: bool, result: Mapping[str, Any],
                     failure_error: str) -> dict[str, Any]:
    """The observation of one settled tool call; `failure_error` is used only on an error."""
    observation: dict[str, Any] = {
        "toolCallId": tool_call_id, "toolName": tool_name, "arguments": dict(arguments),
        "executionStarted": execution_started, "outcome": "failure" if is_error else "success",
        "result": result}
    if is_error:
        observation["failure"] = {"error": failure_error}
    return observation


async def report_tool_terminal(observe: ObserveToolTerminal | None,
                               observation: Mapping[str, Any],
                               last_tool_error: dict[str, Any] | None) -> dict[str, Any] | None:
    """Report `observation` to `observe`; the turn's last tool error as the host now sees
    it (`last_tool_error` unchanged when there is no observer or it answers nothing)."""
    if observe is None:
        return last_tool_error
    resolution = observe(observation)
    # (an observer's usual answer, a dict, is not awaitable: `isawaitable` would ask
    # the `Awaitable` ABC, in Python)
    if resolution is not None and type(resolution) is not dict and inspect.isawaitable(
            resolution):
        resolution = await resolution
    # (a dict is told apart in C, before the ABC's check in Python)
    if not isinstance(resolution, (dict, Mapping)):
        return last_tool_error
    last = resolution.get("lastToolError")
    return dict(last) if last is not None and isinstance(last, Mapping) else None
