"""Transcript messages of the built-in runtime, in the original's wire shape.

    user        {"role": "user", "content": [{"type": "text", "text"} | image...], "timestamp"}
    assistant   {"role": "assistant", "content": [text | thinking | toolCall blocks],
                 "stopReason", "usage": {"input", "output", "cacheRead"?, "totalTokens"},
                 "provider", "model", "api", "timestamp", "errorMessage"?}
    toolResult  {"role": "toolResult", "toolCallId", "toolName", "content": [text blocks],
                 "isError", "details"?, "timestamp"}
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from clawharness.plugin_sdk.agent_harness import ContentBlock, Message
from clawharness.providers import ToolCall, Usage

__all__ = [
    "MISSING_RESULT_TEXT",
    "AssistantBuilder",
    "Message",
    "model_context",
    "tool_result_message",
    "user_message",
]


#: the text of a tool result synthesized for a call the history never answered
MISSING_RESULT_TEXT = "No result was recorded for this tool call."

_UNREPLAYED = frozenset({"error", "aborted"})


def _now_ms() -> int:
    return int(time.time() * 1000)


def user_message(prompt: str, images: Sequence[Mapping[str, Any]] = ()) -> Message:
    """The user turn: the prompt's text, then any images (`{type: image, data, mimeType}`)."""
    content: list[ContentBlock] = [{"type": "text", "text": prompt}]
    for image in images:
        content.append({"type": "image", "data": image.get("data", ""),
                        "mimeType": image.get("mimeType", image.get("mime_type", "image/png"))})
    return {"role": "user", "content": content, "timestamp": _now_ms()}


def tool_result_message(
    call_id: str, name: str, content: list[ContentBlock], *, is_error: bool,
    details: Any = None,
) -> Message:
    """A tool result message."""
    message: Message = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                        "content": content, "isError": is_error, "timestamp": _now_ms()}
    if details:
        message["details"] = details
    return message


class AssistantBuilder:
    """Accumulates one streamed assistant message, block by block, in stream order."""

    __slots__ = ("_api", "_blocks", "_kind", "_model", "_parts", "_provider", "_signature",
                 "calls", "text")

    def __init__(self, provider: str, model: str, api: str) -> None:
        self._provider = provider
        self._model = model
        self._api = api
        self._blocks: list[ContentBlock] = []
        self._kind: str | None = None
        self._parts: list[str] = []
        self._signature: str | None = None
        #: the complete tool calls, in order
        self.calls: list[ToolCall] = []
        #: the visible text so far (all text blocks)
        self.text = ""

    def _close(self) -> None:
        if self._kind == "text":
            self._blocks.append({"type": "text", "text": "".join(self._parts)})
        elif self._kind == "thinking":
            block: ContentBlock = {"type": "thinking", "thinking": "".join(self._parts)}
            if self._signature:
                block["thinkingSignature"] = self._signature
            self._blocks.append(block)
        self._kind = None
        self._parts = []
        self._signature = None

    def add_text(self, delta: str) -> str:
        """Add visible text; returns the cumulative text."""
        if self._kind != "text":
            self._close()
            self._kind = "text"
        self._parts.append(delta)
        self.text += delta
        return self.text

    def add_thinking(self, delta: str, signature: str | None) -> None:
        """Add reasoning text (or only its signature)."""
        if self._kind != "thinking":
            if not delta and signature and self._blocks and self._blocks[-1]["type"] == "thinking":
                # a signature that arrives after its block closed belongs to that block
                self._blocks[-1]["thinkingSignature"] = signature
                return
            self._close()
            self._kind = "thinking"
        if delta:
            self._parts.append(delta)
        if signature:
            self._signature = signature

    def add_call(self, call: ToolCall) -> None:
        """Add a complete tool call."""
        self._close()
        self.calls.append(call)
        self._blocks.append({"type": "toolCall", "id": call.id, "name": call.name,
                             "arguments": call.arguments})

    def message(
        self, stop_reason: str, usage: Usage | None = None, *, error: str | None = None
    ) -> Message:
        """The settled message. An `error`/`aborted` one keeps only its text and thinking."""
        self._close()
        content = self._blocks
        if stop_reason in _UNREPLAYED:
            # its tool calls never ran and would need results; it is not replayed anyway
            content = [b for b in content if b["type"] != "toolCall"]
        message: Message = {
            "role": "assistant",
            "content": content,
            "stopReason": stop_reason,
            "usage": (usage or Usage.counted()).to_wire(),
            "provider": self._provider,
            "model": self._model,
            "api": self._api,
            "timestamp": _now_ms(),
        }
        if error is not None:
            message["errorMessage"] = error
        return message


def _missing(call_id: str, name: str) -> Message:
    return tool_result_message(call_id, name, [{"type": "text", "text": MISSING_RESULT_TEXT}],
                               is_error=True)


def model_context(history: Sequence[Message]) -> list[Message]:
    """The history as the model may see it (a new list; messages are shared, not copied).

    Failed and aborted assistant turns are left out, a tool result answers only a call of
    the assistant turn just before it, and a call left unanswered gets a synthesized error
    result, so every API sees well-paired tool calls.
    """
    # runs over the whole context window every attempt: kept to a few dict reads a message
    out: list[Message] = []
    append = out.append
    open_calls: dict[str, str] = {}
    unreplayed = _UNREPLAYED
    for message in history:
        if type(message) is not dict and not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "toolResult":
            if open_calls:
                call_id = message.get("toolCallId")
                if isinstance(call_id, str) and call_id in open_calls:
                    del open_calls[call_id]
                    append(message)
            continue
        if role == "assistant":
            if message.get("stopReason") in unreplayed:
                continue
            if open_calls:
                out.extend(_missing(i, n) for i, n in open_calls.items())
                open_calls.clear()
            append(message)
            for block in message.get("content") or ():
                if type(block) is dict and block.get("type") == "toolCall":
                    open_calls[str(block.get("id", ""))] = str(block.get("name", ""))
        elif role == "user":
            if open_calls:
                out.extend(_missing(i, n) for i, n in open_calls.items())
                open_calls.clear()
            append(message)
    if open_calls:
        out.extend(_missing(i, n) for i, n in open_calls.items())
    return out
