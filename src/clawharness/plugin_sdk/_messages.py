"""Builders of transcript messages, in the shape the host stores (`Message`).

A transcript message is a JSON document in the original's wire shape (camelCase keys),
so a session can move between runtimes and keep its history. These builders make the
messages a harness settles; `message_text` reads the visible text back.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from clawharness._json import JsonValue
from clawharness.harness.messages import ContentBlock, Message
from clawharness.harness.messages import message_text as _message_text
from clawharness.plugin_sdk._tool_calls import ToolCallRequest

__all__ = ["assistant_message", "message_text", "tool_result_message", "user_message"]


def _now_ms() -> int:
    return int(time.time() * 1000)


def user_message(text: str, *, images: Sequence[Mapping[str, JsonValue]] = (),
                 timestamp: int | None = None) -> Message:
    """The turn's user message: one text block, then one `image` block per attachment
    (`{"data": <base64>, "mimeType": ...}`, as `AttemptParams.images` carries them)."""
    content: list[ContentBlock] = [{"type": "text", "text": text}]
    for image in images:
        data, mime = image.get("data"), image.get("mimeType")
        content.append({"type": "image", "data": data if isinstance(data, str) else "",
                        "mimeType": mime if isinstance(mime, str) else "image/png"})
    return {"role": "user", "content": content,
            "timestamp": _now_ms() if timestamp is None else timestamp}


def assistant_message(text: str = "", *, tool_calls: Sequence[ToolCallRequest] = (),
                      stop_reason: str | None = None, provider: str | None = None,
                      model: str | None = None, api: str | None = None,
                      usage: Mapping[str, JsonValue] | None = None,
                      timestamp: int | None = None) -> Message:
    """An assistant message: its text (no text block when empty), then one `toolCall`
    block per call (`{"type": "toolCall", "id", "name", "arguments"}`, paired with
    its result by id). `stop_reason` defaults to "toolUse" when it calls tools, else
    "stop". Settle it before the tool results it asks for."""
    content: list[ContentBlock] = [{"type": "text", "text": text}] if text else []
    for call in tool_calls:
        content.append({"type": "toolCall", "id": call.call_id, "name": call.name,
                        "arguments": dict(call.arguments)})
    message: Message = {
        "role": "assistant", "content": content,
        "stopReason": stop_reason or ("toolUse" if tool_calls else "stop"),
        "timestamp": _now_ms() if timestamp is None else timestamp}
    if provider is not None:
        message["provider"] = provider
    if model is not None:
        message["model"] = model
    if api is not None:
        message["api"] = api
    if usage is not None:
        message["usage"] = usage
    return message


def tool_result_message(call: ToolCallRequest, content: str | Sequence[ContentBlock], *,
                        is_error: bool = False, details: JsonValue | None = None,
                        timestamp: int | None = None) -> Message:
    """The result of `call`, as the model sees it: `content` (a text, or content
    blocks), `isError`, and `details` when given (`ToolCalls` builds these itself)."""
    blocks: list[ContentBlock] = ([{"type": "text", "text": content}]
                                  if isinstance(content, str) else list(content))
    message: Message = {"role": "toolResult", "toolCallId": call.call_id,
                        "toolName": call.name, "content": blocks, "isError": is_error,
                        "timestamp": _now_ms() if timestamp is None else timestamp}
    if details is not None:
        message["details"] = details
    return message


def message_text(message: Mapping[str, object]) -> str:
    """The visible text of a message: its text blocks, joined (thinking is not visible)."""
    return _message_text(message)
