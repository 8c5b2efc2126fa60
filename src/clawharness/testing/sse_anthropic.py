"""Anthropic Messages wire encoders, streaming and not.

The stream order is the one the real API (and Claude Code) uses: `message_start`, then per
content block `content_block_start` / `content_block_delta`... / `content_block_stop`, then
`message_delta` (stop reason, usage) and `message_stop`.
"""

from __future__ import annotations

import json
from typing import Any

from clawharness.providers.script import ScriptError
from clawharness.testing.wire import Reply, chunk_text, new_id

__all__ = ["anthropic_error_body", "messages_object", "messages_stream"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def anthropic_error_body(error: ScriptError) -> dict[str, Any]:
    """The Anthropic error JSON for a scripted error."""
    kind = error.type or _ERROR_TYPES.get(error.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": error.message}}


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps({'type': event, **data})}\n\n"


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.calls else "end_turn"


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.thinking is not None:
        blocks.append({"type": "thinking", "thinking": reply.thinking,
                       "signature": "scripted-signature"})
    if reply.text is not None:
        blocks.append({"type": "text", "text": reply.text})
    for rc in reply.calls:
        blocks.append(
            {"type": "tool_use", "id": rc.call_id, "name": rc.call.name,
             "input": rc.call.arguments_object()}
        )
    return blocks


def _message(
    msg_id: str, reply: Reply, content: list[dict[str, Any]], done: bool
) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": _stop_reason(reply) if done else None,
        "stop_sequence": None,
        "usage": {
            # Anthropic counts cache reads and writes beside its (uncached) input tokens
            "input_tokens": reply.input_tokens - reply.cached_tokens - reply.cache_write_tokens,
            "output_tokens": reply.output_tokens if done else 1,
            "cache_creation_input_tokens": reply.cache_write_tokens,
            "cache_read_input_tokens": reply.cached_tokens,
        },
    }


def messages_object(reply: Reply) -> dict[str, Any]:
    """The non-streaming Messages answer."""
    return _message(new_id("msg_"), reply, _blocks(reply), done=True)


def messages_stream(reply: Reply) -> list[str]:
    """The SSE frames of a streamed Messages answer (cut after the first delta if asked)."""
    frames = [_sse("message_start", {"message": _message(new_id("msg_"), reply, [], False)})]
    first_delta: int | None = None
    for index, block in enumerate(_blocks(reply)):
        if block["type"] == "thinking":
            frames.append(_sse("content_block_start", {
                "index": index, "content_block": {"type": "thinking", "thinking": "",
                                                  "signature": ""}}))
            for piece in chunk_text(block["thinking"]):
                frames.append(_sse("content_block_delta", {
                    "index": index, "delta": {"type": "thinking_delta", "thinking": piece}}))
            frames.append(_sse("content_block_delta", {
                "index": index, "delta": {"type": "signature_delta",
                                          "signature": block["signature"]}}))
        elif block["type"] == "text":
            frames.append(_sse("content_block_start", {
                "index": index, "content_block": {"type": "text", "text": ""}}))
            for piece in chunk_text(block["text"]):
                if first_delta is None:
                    first_delta = len(frames)
                frames.append(_sse("content_block_delta", {
                    "index": index, "delta": {"type": "text_delta", "text": piece}}))
        else:
            start = {**block, "input": {}}
            frames.append(_sse("content_block_start", {"index": index, "content_block": start}))
            for piece in chunk_text(json.dumps(block["input"])):
                frames.append(_sse("content_block_delta", {
                    "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}))
        frames.append(_sse("content_block_stop", {"index": index}))
    frames.append(_sse("message_delta", {
        "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
        "usage": {"input_tokens": (reply.input_tokens - reply.cached_tokens
                                   - reply.cache_write_tokens),
                  "output_tokens": reply.output_tokens},
    }))
    frames.append(_sse("message_stop", {}))
    if reply.cut:
        return frames[: first_delta + 1] if first_delta is not None else frames[:1]
    return frames
