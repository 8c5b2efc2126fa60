"""API-neutral pieces of the scripted model server: the resolved reply and request reading.

A `Reply` is a script item made concrete for one request: tool-call ids assigned, token
counts known, the model name echoed. The per-API encoders only translate it.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from clawharness.providers.script import ScriptItem, ScriptToolCall

__all__ = [
    "Reply",
    "ReplyCall",
    "chunk_text",
    "latest_text",
    "make_reply",
    "new_id",
]

Api = Literal["responses", "chat", "anthropic"]

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    """A fresh id, unique within this process (`prefix` + hex counter)."""
    return f"{prefix}{next(_ids):08x}"


@dataclass(frozen=True, slots=True)
class ReplyCall:
    """A tool call with its id settled."""

    call_id: str
    call: ScriptToolCall


@dataclass(frozen=True, slots=True)
class Reply:
    """What to answer one request with, independent of the API's wire format."""

    model: str
    text: str | None
    calls: tuple[ReplyCall, ...]
    input_tokens: int
    output_tokens: int
    cut: bool = False
    #: how many of `input_tokens` were read from the prompt cache
    cached_tokens: int = 0
    #: how many of `input_tokens` were written to the prompt cache (Anthropic reports them)
    cache_write_tokens: int = 0
    #: how many of `output_tokens` were reasoning (OpenAI's APIs report them)
    reasoning_tokens: int = 0
    #: reasoning streamed before the text (Responses: a reasoning summary; Messages: a
    #: thinking block; Chat Completions: `reasoning_content`)
    thinking: str | None = None


def chunk_text(text: str, pieces: int = 3) -> list[str]:
    """Split `text` into up to `pieces` non-empty parts, so a stream has several deltas."""
    if len(text) <= 1:
        return [text]
    size = math.ceil(len(text) / min(pieces, len(text)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def estimate_tokens(value: Any) -> int:
    """A rough token count (about four characters a token), at least 1."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return max(1, len(text) // 4)


def make_reply(item: ScriptItem, body: dict[str, Any], api: Api) -> Reply:
    """Resolve `item` for a request with JSON `body` on `api`."""
    prefix = "toolu_" if api == "anthropic" else "call_"
    calls = tuple(ReplyCall(c.id or new_id(prefix), c) for c in item.tool_calls)
    produced = (item.thinking or "") + (item.text or "") + "".join(c.call.arguments_json() for c in calls)
    usage = item.usage
    input_tokens = usage.input_tokens if usage and usage.input_tokens is not None else None
    output_tokens = usage.output_tokens if usage and usage.output_tokens is not None else None
    model = body.get("model")
    whole_input = input_tokens if input_tokens is not None else estimate_tokens(body)
    return Reply(
        model=model if isinstance(model, str) and model else "scripted",
        text=item.text,
        calls=calls,
        input_tokens=whole_input,
        output_tokens=output_tokens if output_tokens is not None else estimate_tokens(produced),
        cut=item.cut,
        thinking=item.thinking,
        cached_tokens=usage.cached_of(whole_input) if usage else 0,
        cache_write_tokens=usage.written_of(whole_input) if usage else 0,
        reasoning_tokens=usage.reasoning_tokens if usage else 0,
    )


def latest_text(api: Api, body: dict[str, Any]) -> str:
    """The text of the request's last input if it is a user message or a tool result.

    Anything else as the last input (an assistant message, a bare function call) gives "".
    """
    if api == "responses":
        items = body.get("input")
        if isinstance(items, str):
            return items
        last = items[-1] if isinstance(items, list) and items else None
        if not isinstance(last, dict):
            return ""
        kind = last.get("type")
        if kind in ("function_call_output", "custom_tool_call_output"):
            return _text_of(last.get("output"))
        if kind in (None, "message") and last.get("role") == "user":
            return _text_of(last.get("content"))
        return ""
    messages = body.get("messages")
    # trailing system/developer notes (Claude Code appends one) are not the turn's input
    conversation = [m for m in messages if not (isinstance(m, dict) and m.get("role") in (
        "system", "developer"))] if isinstance(messages, list) else []
    last = conversation[-1] if conversation else None
    if not isinstance(last, dict):
        return ""
    roles = ("user",) if api == "anthropic" else ("user", "tool", "function")
    return _text_of(last.get("content")) if last.get("role") in roles else ""


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_part_text(p) for p in value) if t)
    return ""


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return ""
    if part.get("type") == "tool_result":
        return _text_of(part.get("content"))
    text = part.get("text")
    return text if isinstance(text, str) else ""
