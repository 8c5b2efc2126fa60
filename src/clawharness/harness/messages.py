"""Transcript messages: the typed shape of what a harness hands back and the host stores.

A message is a JSON document in the transcript's wire shape (camelCase keys, as the
original stores it, so a session can switch runtimes and keep its history). `Message`
and `ContentBlock` are `TypedDict`s of that shape: a type checker sees the keys, and the
value is still the plain dict the store writes.

The builders (`user_message`, `assistant_message`, `tool_result_message`) make the
common messages; `message_text` reads a message's visible text back.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Literal, Required, TypedDict

from clawharness._json import JsonValue

__all__ = [
    "ContentBlock",
    "Message",
    "MessageMeta",
    "MessageRole",
    "assistant_message",
    "message_text",
    "tool_result_message",
    "user_message",
]

MessageRole = Literal["user", "assistant", "toolResult"]


class ContentBlock(TypedDict, total=False):
    """One block of a message's content, by `type`:

    - `"text"`: `text` (and the provider's `textSignature`)
    - `"thinking"`: `thinking` (and the provider's `thinkingSignature`)
    - `"toolCall"`: `id`, `name`, `arguments` (an assistant's tool call)
    - `"image"`: `data` (base64) and `mimeType`
    """

    type: Required[str]
    text: str
    textSignature: str
    thinking: str
    thinkingSignature: str
    id: str
    name: str
    arguments: Mapping[str, JsonValue]
    data: str
    mimeType: str


class MessageMeta(TypedDict, total=False):
    """Host bookkeeping riding on a mirrored message (never shown to a model)."""

    #: the same key mirrored twice is stored once (`<run id>:<n>` is a good key)
    idempotencyKey: str


# the functional form, because `__meta` would be name-mangled as a class attribute
Message = TypedDict("Message", {
    "role": Required[MessageRole],
    "content": Required[list[ContentBlock]],
    #: milliseconds since the epoch
    "timestamp": int,
    #: an assistant's: "stop", "length", "toolUse", "error", "aborted"
    "stopReason": str,
    "errorMessage": str,
    "usage": Mapping[str, JsonValue],
    "provider": str,
    "model": str,
    "api": str,
    #: a tool result's
    "toolCallId": str,
    "toolName": str,
    "isError": bool,
    "details": JsonValue,
    "__meta": MessageMeta,
}, total=False)
Message.__doc__ = """One transcript message (`role` and `content` always; the rest by role)."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def user_message(text: str, *, timestamp: int | None = None) -> Message:
    """A user message with one text block."""
    return {"role": "user", "content": [{"type": "text", "text": text}],
            "timestamp": _now_ms() if timestamp is None else timestamp}


def assistant_message(text: str, *, stop_reason: str = "stop", provider: str | None = None,
                      model: str | None = None, timestamp: int | None = None) -> Message:
    """An assistant reply with one text block: the message that makes a reply part of
    the transcript (see `AttemptResult`)."""
    message: Message = {"role": "assistant", "content": [{"type": "text", "text": text}],
                        "stopReason": stop_reason,
                        "timestamp": _now_ms() if timestamp is None else timestamp}
    if provider is not None:
        message["provider"] = provider
    if model is not None:
        message["model"] = model
    return message


def tool_result_message(tool_call_id: str, tool_name: str, text: str, *,
                        is_error: bool = False, timestamp: int | None = None) -> Message:
    """The result of one tool call, as the model sees it."""
    return {"role": "toolResult", "toolCallId": tool_call_id, "toolName": tool_name,
            "content": [{"type": "text", "text": text}], "isError": is_error,
            "timestamp": _now_ms() if timestamp is None else timestamp}


def message_text(message: Mapping[str, object]) -> str:
    """The visible text of a message: its text blocks, joined (thinking is not visible)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, Sequence):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "".join(parts)
