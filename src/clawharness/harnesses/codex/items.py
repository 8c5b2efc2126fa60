"""Codex thread items projected into the host's transcript shape.

    agentMessage      -> assistant {content: [text]}
    reasoning         -> assistant {content: [thinking]}
    commandExecution  -> assistant toolCall `exec {command, cwd}` + toolResult (output,
                         exit code in `details`)
    fileChange        -> assistant toolCall `apply_patch {changes}` + toolResult (diffs)
    dynamicToolCall   -> assistant toolCall `<tool> <arguments>` + toolResult
    mcpToolCall       -> assistant toolCall `<server>__<tool>` + toolResult

Every message carries `{"__meta": {"idempotencyKey": "<thread>:<item id>"}}` (a tool
result: `<thread>:<item id>:result`), so mirroring the same item twice writes it once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from clawharness.plugin_sdk.agent_harness import ContentBlock, Message, ToolResult
from clawharness.plugin_sdk.agent_harness_tool_runtime import ToolCallRequest

__all__ = [
    "API",
    "READ_ONLY_ACTIONS",
    "NativeSettlement",
    "item_messages",
    "native_settlement",
    "tool_name_of",
    "user_message",
]

#: the `api` stamped on assistant messages this harness writes
API = "codex-app-server"
#: Codex's own command classification: these never mutate anything
READ_ONLY_ACTIONS = frozenset({"read", "listFiles", "search"})



def _now_ms() -> int:
    return int(time.time() * 1000)


def _keyed(message: Message, key: str) -> Message:
    message["__meta"] = {"idempotencyKey": key}
    return message


def user_message(prompt: str, thread_id: str, item_id: str) -> Message:
    return _keyed({"role": "user", "content": [{"type": "text", "text": prompt}],
                   "timestamp": _now_ms()}, f"{thread_id}:{item_id}")


def _assistant(content: list[ContentBlock], stop: str, key: str, model: str,
               provider: str) -> Message:
    return _keyed({"role": "assistant", "content": content, "stopReason": stop,
                   "provider": provider, "model": model, "api": API,
                   "timestamp": _now_ms()}, key)


def _tool_result(call_id: str, name: str, text: str, is_error: bool, details: dict[str, Any],
                 key: str) -> Message:
    return _keyed({"role": "toolResult", "toolCallId": call_id, "toolName": name,
                   "content": [{"type": "text", "text": text}], "isError": is_error,
                   "details": details, "timestamp": _now_ms()}, key)


def _kind(change: Mapping[str, Any]) -> str:
    kind = change.get("kind")
    if isinstance(kind, Mapping):
        return str(kind.get("type", "update"))
    return str(kind or "update")


def tool_name_of(item: Mapping[str, Any]) -> str | None:
    """The host tool name an item's tool call is mirrored as (None: not a tool item)."""
    kind = item.get("type")
    if kind == "commandExecution":
        return "exec"
    if kind == "fileChange":
        return "apply_patch"
    if kind == "dynamicToolCall":
        return str(item.get("tool") or "tool")
    if kind == "mcpToolCall":
        return f"{item.get('server') or 'mcp'}__{item.get('tool') or 'tool'}"
    return None


def _content_text(items: Any) -> str:
    parts = []
    for entry in items or ():
        if isinstance(entry, Mapping):
            if entry.get("type") in ("inputText", "text"):
                parts.append(str(entry.get("text", "")))
            elif entry.get("type") in ("inputImage", "image"):
                parts.append("[image]")
    return "\n".join(parts)


def item_messages(item: Mapping[str, Any], thread_id: str, *, model: str,
                  provider: str) -> list[Message]:
    """The transcript messages of one completed item ([] for items not mirrored)."""
    kind = item.get("type")
    item_id = str(item.get("id", ""))
    key = f"{thread_id}:{item_id}"
    if kind == "agentMessage":
        text = str(item.get("text") or "")
        if not text:
            return []
        return [_assistant([{"type": "text", "text": text}], "stop", key, model, provider)]
    if kind == "reasoning":
        parts = [str(p) for p in (*(item.get("summary") or ()), *(item.get("content") or ()))]
        thinking = "\n\n".join(p for p in parts if p)
        if not thinking:
            return []
        return [_assistant([{"type": "thinking", "thinking": thinking}], "stop", key, model,
                           provider)]
    name = tool_name_of(item)
    if name is None:
        return []
    status = str(item.get("status") or "")
    arguments: dict[str, Any]
    details: dict[str, Any] = {"status": status}
    if kind == "commandExecution":
        arguments = {"command": item.get("command", ""), "cwd": item.get("cwd")}
        exit_code = item.get("exitCode")
        output = str(item.get("aggregatedOutput") or "")
        details.update(exitCode=exit_code, command=item.get("command"), cwd=item.get("cwd"),
                       durationMs=item.get("durationMs"))
        is_error = status != "completed" or exit_code not in (0, None)
        if status == "declined":
            text = "The command was declined and did not run."
        else:
            text = output if output else f"(no output; exit code {exit_code})"
    elif kind == "fileChange":
        changes = [c for c in item.get("changes") or () if isinstance(c, Mapping)]
        arguments = {"changes": [{"path": c.get("path"), "kind": _kind(c)} for c in changes]}
        details["changes"] = [{"path": c.get("path"), "kind": _kind(c), "diff": c.get("diff")}
                              for c in changes]
        is_error = status != "completed"
        summary = "\n".join(f"{_kind(c)} {c.get('path')}" for c in changes)
        text = ("The file change was declined and not applied." if status == "declined"
                else f"Applied:\n{summary}" if not is_error else f"Failed ({status}):\n{summary}")
    elif kind == "dynamicToolCall":
        raw_args = item.get("arguments")
        arguments = dict(raw_args) if isinstance(raw_args, Mapping) else {"input": raw_args}
        is_error = item.get("success") is False or status == "failed"
        text = _content_text(item.get("contentItems"))
    else:  # mcpToolCall
        raw_args = item.get("arguments")
        arguments = dict(raw_args) if isinstance(raw_args, Mapping) else {"input": raw_args}
        error = item.get("error")
        result = item.get("result")
        is_error = error is not None or status == "failed"
        text = (str(error.get("message")) if isinstance(error, Mapping)
                else _content_text(result.get("content")) if isinstance(result, Mapping)
                else json.dumps(result) if result is not None else "")
    call: ContentBlock = {"type": "toolCall", "id": item_id, "name": name, "arguments": arguments}
    return [_assistant([call], "toolUse", key, model, provider),
            _tool_result(item_id, name, text, is_error, details, f"{key}:result")]


@dataclass(frozen=True, slots=True)
class NativeSettlement:
    """What a completed native command or file change tells the host's observer: the
    call as it ran, its result, and Codex's own failure and mutation facts."""

    call: ToolCallRequest
    result: ToolResult
    is_error: bool
    execution_started: bool
    error: str | None = None
    failure: Mapping[str, Any] | None = None
    native_mutation: Mapping[str, Any] | None = None


def native_settlement(item: Mapping[str, Any]) -> NativeSettlement | None:
    """The settlement of a native command or file change (None for other items)."""
    kind = item.get("type")
    item_id = str(item.get("id", ""))
    status = str(item.get("status") or "")
    started = status != "declined"
    if kind == "commandExecution":
        command = str(item.get("command") or "")
        exit_code = item.get("exitCode")
        actions = [a.get("type") for a in item.get("commandActions") or ()
                   if isinstance(a, Mapping)]
        mutating = not actions or any(a not in READ_ONLY_ACTIONS for a in actions)
        success = status == "completed" and exit_code in (0, None)
        native: dict[str, Any] = {"mutatingAction": mutating, "replaySafe": not mutating}
        if mutating:
            native["actionFingerprint"] = (
                f"tool=exec|cwd={str(item.get('cwd') or '').lower()}|command={command.lower()}")
        error = None if success else (
            "declined by the approval policy" if status == "declined"
            else f"exit code {exit_code}" if exit_code not in (0, None) else status)
        return NativeSettlement(
            ToolCallRequest(item_id, "exec", {"command": command, "cwd": item.get("cwd")}),
            {"content": [{"type": "text", "text": str(item.get("aggregatedOutput") or "")}],
             "details": {"exitCode": exit_code, "status": status}},
            not success, started, error,
            failure=None if success else {"exitCode": exit_code}, native_mutation=native)
    if kind == "fileChange":
        changes = [c for c in item.get("changes") or () if isinstance(c, Mapping)]
        paths = sorted(str(c.get("path", "")) for c in changes)
        success = status == "completed"
        return NativeSettlement(
            ToolCallRequest(item_id, "apply_patch", {
                "changes": [{"path": c.get("path"), "kind": _kind(c)} for c in changes]}),
            {"content": [{"type": "text", "text": "\n".join(paths)}],
             "details": {"status": status}},
            not success, started, None if success else f"file change {status}",
            native_mutation={"mutatingAction": True, "replaySafe": False,
                             "actionFingerprint": "tool=apply_patch|path="
                                                  + ",".join(p.lower() for p in paths)})
    return None
