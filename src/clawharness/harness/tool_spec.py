"""The tools a host offers an attempt: `ToolSpec` and what its `execute` receives; and
`ToolOutcomes`, what a harness asks before and after each tool call of a retried turn.

Kept apart from `harness.types` so `harness.capabilities` (which binds a tool surface)
and the attempt types can import each other's names without a cycle.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = [
    "CallerToolResult",
    "ToolCallContext",
    "ToolCallDecision",
    "ToolExecute",
    "ToolOutcomes",
    "ToolResult",
    "ToolSpec",
    "caller_tool",
]

#: a tool's result in the transcript's wire shape: `{"content": [blocks], "details"?: ...,
#: "isError"?: bool}`; tool results are whatever the tool produced, so values are open
ToolResult = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCallContext:
    """What a host tool's `execute` receives besides its arguments."""

    call_id: str
    workspace_dir: str
    abort: asyncio.Event
    session_key: str
    run_id: str


#: `execute(arguments, context) -> result`
ToolExecute = Callable[[Mapping[str, Any], ToolCallContext], Awaitable[ToolResult]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the host offers: name, description, JSON schema and its implementation."""

    name: str
    description: str
    #: the JSON schema of the arguments
    parameters: Mapping[str, Any]
    execute: ToolExecute
    #: the owning plugin, or None for core tools
    owner: str | None = None
    #: other names a tool policy rule may use for this tool (an MCP tool offered as
    #: `my-fs__read` is also `my.fs__read`, its configured server's spelling); a deny of
    #: any of them refuses it (`clawharness.harness.capabilities.check_tool_names`)
    policy_names: tuple[str, ...] = ()
    #: the caller runs this tool, not the host (a function tool an HTTP client brought,
    #: `caller_tool`): a harness does not execute it; the model's call of it ends the
    #: attempt `ok` with the call pending in `AttemptResult.client_tool_calls`, and the
    #: caller's result arrives with the next turn as a `toolResult` transcript entry
    executed_by_caller: bool = False


def caller_tool(name: str, description: str, parameters: Mapping[str, Any]) -> ToolSpec:
    """A tool the caller runs (`ToolSpec.executed_by_caller`). Its `execute` refuses, so
    a harness that ignores the flag reports a failed call rather than inventing a result."""

    async def refuse(_arguments: Mapping[str, Any], _context: ToolCallContext) -> ToolResult:
        raise RuntimeError(f"tool {name!r} is run by the caller, not the host: the "
                           "runtime should have ended the attempt with the call pending")

    return ToolSpec(name, description, parameters, refuse, executed_by_caller=True)


@dataclass(frozen=True, slots=True)
class CallerToolResult:
    """The caller's result of a call of one of its tools (`caller_tool`) that an earlier
    turn ended with: `call_id` names the call, `output` is what the caller's tool gave."""

    call_id: str
    output: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ToolCallDecision:
    """What to do with one tool call: `run` it; `replay` its committed `result` and
    `error`; or report it `interrupted` (`error` says so) without running it."""

    action: Literal["run", "replay", "interrupted"]
    result: dict[str, Any] | None = None
    error: str | None = None


class ToolOutcomes(Protocol):
    """Tool side effects exactly once across a turn's attempts (`AttemptParams.tool_outcomes`;
    the host's is `clawharness.tools.outcomes.ToolOutcomeLedger`)."""

    async def begin(self, call_id: str, tool_name: str,
                    arguments: Mapping[str, Any]) -> ToolCallDecision:
        """Claim the call (committed before this returns) and say what to do with it."""
        ...

    async def commit(self, call_id: str, result: Mapping[str, Any] | None,
                     error: str | None) -> None:
        """Store the call's terminal outcome; call it before the model sees the result."""
        ...
