"""The client's function tools, OpenAI's way, on both endpoints.

A request's `tools` (`{"type": "function", ...}`) are offered to the agent's model beside
the agent's own tools; the client runs them. A turn whose model calls one stops there:
Chat Completions answers `finish_reason: "tool_calls"` with `message.tool_calls`, Responses
`function_call` output items. The client's next request brings the results (`role: "tool"`
messages with `tool_call_id`, `function_call_output` items with `call_id`) and the turn
goes on in the same session. Here: reading the tools and the results from a request
(pure), and the wire shapes of the calls.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from clawharness.gateway.openai_http.answers import ClientCall, HostCall
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.routing import text_of_content
from clawharness.harness import CallerToolResult, ToolSpec, caller_tool

__all__ = [
    "HOST_TOOLS_HEADER",
    "ToolResults",
    "chat_tool_calls",
    "chat_tool_results",
    "client_tools",
    "function_call_item",
    "host_call_item",
    "responses_tool_results",
]

Api = Literal["chat", "responses"]
#: a request header that asks to see the host's own tool calls (`include`)
HOST_TOOLS_HEADER: Final = "x-openclaw-host-tool-calls"
_NAME: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_EMPTY_SCHEMA: Final = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class ToolResults:
    """The tool results a request ends with, and the user's words after them (`message`,
    "" when none): together the input of the turn that continues the calls' session."""

    results: tuple[CallerToolResult, ...]
    message: str


def _tool_choice_offers(value: Any, api: Api) -> bool:
    """Whether the tools are offered at all: `auto` (the default) yes, `none` no;
    forcing a call the agent's model is asked for is not supported."""
    if value is None or value == "auto":
        return True
    if value == "none":
        return False
    raise OpenAiHttpError(400, "`tool_choice` must be \"auto\" or \"none\" here: the agent's "
                          "model decides when to call a tool", param="tool_choice",
                          code="unsupported_parameter")


def client_tools(body: Mapping[str, Any], api: Api) -> tuple[ToolSpec, ...]:
    """The request's function tools (none when `tool_choice` is "none"); OpenAiHttpError
    naming the tool that is not one."""
    offered = _tool_choice_offers(body.get("tool_choice"), api)
    tools = body.get("tools")
    if tools is None:
        return ()
    if not isinstance(tools, list):
        raise OpenAiHttpError(400, "`tools` must be an array", param="tools")
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, Mapping):
            raise OpenAiHttpError(400, f"`{where}` must be an object", param=where)
        if tool.get("type") != "function":
            raise OpenAiHttpError(400, f"`{where}.type` {tool.get('type')!r} is not "
                                  "supported: only function tools (the client runs them)",
                                  param=f"{where}.type", code="unsupported_parameter")
        spec: Any = tool.get("function") if api == "chat" else tool
        fn_where = f"{where}.function" if api == "chat" else where
        if not isinstance(spec, Mapping):
            raise OpenAiHttpError(400, f"`{fn_where}` must be an object", param=fn_where)
        name = spec.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise OpenAiHttpError(400, f"`{fn_where}.name` must be 1-64 letters, digits, "
                                  "'_' or '-'", param=f"{fn_where}.name")
        if name in seen:
            raise OpenAiHttpError(400, f"tool {name!r} is given twice", param=f"{fn_where}.name")
        seen.add(name)
        description = spec.get("description") or ""
        if not isinstance(description, str):
            raise OpenAiHttpError(400, f"`{fn_where}.description` must be a string",
                                  param=f"{fn_where}.description")
        parameters = spec.get("parameters") or _EMPTY_SCHEMA
        if not isinstance(parameters, Mapping):
            raise OpenAiHttpError(400, f"`{fn_where}.parameters` must be a JSON schema object",
                                  param=f"{fn_where}.parameters")
        specs.append(caller_tool(name, description, dict(parameters)))
    return tuple(specs) if offered else ()


def _output_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return text_of_content(value)


def chat_tool_results(messages: Any) -> ToolResults | None:
    """The `role: "tool"` messages (with `tool_call_id`) the message list ends with, and
    any user messages after them; None when it does not end so."""
    if not isinstance(messages, list):
        return None
    after: list[str] = []
    results: list[CallerToolResult] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        role = message.get("role") if isinstance(message, Mapping) else None
        if role == "user" and not results:
            after.append(text_of_content(message.get("content")))
            continue
        if role != "tool":
            break
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise OpenAiHttpError(400, f"`messages[{index}].tool_call_id` must name the "
                                  "tool call this result answers",
                                  param=f"messages[{index}].tool_call_id")
        results.append(CallerToolResult(call_id, _output_text(message.get("content"))))
    if not results:
        return None
    return ToolResults(tuple(reversed(results)), "\n\n".join(t for t in reversed(after) if t))


def responses_tool_results(items: Any) -> ToolResults | None:
    """The `function_call_output` items the input ends with, and any user message items
    after them; None when it does not end so."""
    if not isinstance(items, list):
        return None
    after: list[str] = []
    results: list[CallerToolResult] = []
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if not isinstance(item, Mapping):
            break
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user" and not results:
            after.append(text_of_content(item.get("content")))
            continue
        if kind != "function_call_output":
            break
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            raise OpenAiHttpError(400, f"`input[{index}].call_id` must name the function "
                                  "call this output answers", param=f"input[{index}].call_id")
        results.append(CallerToolResult(call_id, _output_text(item.get("output"))))
    if not results:
        return None
    return ToolResults(tuple(reversed(results)), "\n\n".join(t for t in reversed(after) if t))


def result_call_ids(results: Sequence[CallerToolResult]) -> list[str]:
    return [r.call_id for r in results]


def chat_tool_calls(calls: Sequence[ClientCall]) -> list[dict[str, Any]]:
    """`message.tool_calls` of a Chat Completions answer."""
    return [{"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": c.arguments}} for c in calls]


def function_call_item(call: ClientCall, status: str = "completed") -> dict[str, Any]:
    """A Responses `function_call` output item."""
    return {"type": "function_call", "id": f"fc_{call.id}", "call_id": call.id,
            "name": call.name, "arguments": call.arguments, "status": status}


def host_call_item(call: HostCall) -> dict[str, Any]:
    """A host tool call the host ran, as a Responses `mcp_call` item (server `openclaw`):
    the item type for a tool the server, not the client, ran."""
    item: dict[str, Any] = {"type": "mcp_call", "id": f"mcp_{call.id}",
                            "server_label": "openclaw", "name": call.name,
                            "arguments": call.arguments, "output": call.output,
                            "status": "failed" if call.is_error else "completed",
                            "error": None}
    if call.is_error:
        item["error"] = {"type": "mcp_tool_execution_error",
                         "content": [{"type": "text", "text": call.output}]}
    return item
