"""Tools the caller runs: a turn that offers them, and the turn that brings their results.

A front (the OpenAI-compatible HTTP API) may bring function tools of its client's
(`TurnOptions.caller_tools`, made by `caller_tool`). The built-in runtime offers them to the
model beside the host's tools but does not run them: a call of one ends the attempt `ok`
with the call pending (`AttemptResult.client_tool_calls`, the turn's
`TurnResult.client_tool_calls`); the assistant message with the call is in the transcript
like any other. The caller runs the tool and starts the next turn with its result
(`TurnOptions.caller_results`, usually with an empty message): the results are checked
against the calls the transcript left pending and stored as `toolResult` entries before
the attempt, so the model sees its call answered and goes on.

Native runtimes run their own tool loops and cannot stop for a caller, so a turn with
caller tools or results is refused on them (`ClientToolsUnsupportedError`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from clawharness.errors import ClientToolError
from clawharness.harness.tool_spec import CallerToolResult, ToolSpec
from clawharness.store import TranscriptEntry

__all__ = ["caller_result_messages", "check_caller_tools", "pending_calls"]


def check_caller_tools(caller_tools: Sequence[ToolSpec],
                       host_tools: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]:
    """The caller's tools, refused by name when one is not a caller tool, appears twice,
    or would shadow a host tool of the turn."""
    host_names = {t.name for t in host_tools}
    seen: set[str] = set()
    for tool in caller_tools:
        if not tool.executed_by_caller:
            raise ClientToolError(f"tool {tool.name!r} is not a caller's tool (make it with "
                                  "caller_tool)")
        if tool.name in seen:
            raise ClientToolError(f"the caller's tool {tool.name!r} is offered twice")
        if tool.name in host_names:
            raise ClientToolError(f"the caller's tool {tool.name!r} has the name of one of "
                                  "the agent's own tools: rename it")
        seen.add(tool.name)
    return tuple(caller_tools)


def pending_calls(entries: Sequence[TranscriptEntry]) -> dict[str, str]:
    """The tool calls of the transcript's last assistant message that no later entry
    answered (call id -> tool name), in order; `entries` end with the newest."""
    answered: set[str] = set()
    for entry in reversed(entries):
        message = entry.content if isinstance(entry.content, Mapping) else {}
        role = message.get("role", entry.role)
        if role == "toolResult":
            call_id = message.get("toolCallId")
            if isinstance(call_id, str):
                answered.add(call_id)
            continue
        if role != "assistant":
            return {}
        calls: dict[str, str] = {}
        for block in message.get("content") or ():
            if isinstance(block, Mapping) and block.get("type") == "toolCall":
                call_id, name = block.get("id"), block.get("name")
                if isinstance(call_id, str) and call_id not in answered:
                    calls[call_id] = name if isinstance(name, str) else ""
        return calls
    return {}


def caller_result_messages(results: Sequence[CallerToolResult], pending: Mapping[str, str],
                           *, run_id: str) -> list[dict[str, Any]]:
    """The `toolResult` messages of the caller's `results`, refused (ClientToolError,
    naming the call) unless they answer every call the transcript left pending, and
    nothing else (the host's own calls are always answered within their turn)."""
    owed = dict(pending)
    given: dict[str, CallerToolResult] = {}
    for result in results:
        if result.call_id in given:
            raise ClientToolError(f"two results for the tool call {result.call_id!r}")
        if result.call_id not in owed:
            waiting = ", ".join(map(repr, owed)) or "none"
            raise ClientToolError(
                f"the tool call {result.call_id!r} is not waiting for a result in this "
                f"session (waiting: {waiting})")
        given[result.call_id] = result
    missing = [i for i in owed if i not in given]
    if missing:
        raise ClientToolError(f"the tool calls {', '.join(map(repr, missing))} are waiting "
                              "for results too: answer every call of the last reply")
    now = int(time.time() * 1000)
    return [{"role": "toolResult", "toolCallId": call_id, "toolName": owed[call_id],
             "content": [{"type": "text", "text": given[call_id].output}],
             "isError": given[call_id].is_error, "timestamp": now,
             "__meta": {"idempotencyKey": f"{run_id}:result:{call_id}",
                        "callerResult": True}}
            for call_id in owed]
