"""Sanitize tool arguments and tool results before they are logged, shown or replayed.

`sanitize_tool_args` redacts every string (field-aware for object members) and replaces
repeated references with `"[Circular]"`. `sanitize_tool_result` redacts a result for the
model: inline image data is dropped (its decoded size kept as `bytes`), text blocks are
capped at 8,000 UTF-16 units, and secrets are masked.
"""

from __future__ import annotations

import math
from typing import Final

from clawharness._json import JsonValue
from clawharness._utf16 import utf16_len, utf16_truncate
from clawharness.redaction import (
    redact_model_visible_secrets,
    redact_model_visible_tool_payload_text,
    redact_sensitive_field_value,
    redact_tool_payload_text,
)

__all__ = [
    "TOOL_RESULT_MAX_CHARS",
    "estimate_base64_decoded_bytes",
    "sanitize_tool_args",
    "sanitize_tool_result",
    "truncate_tool_text",
]

#: cap for one text block of a tool result, in UTF-16 code units
TOOL_RESULT_MAX_CHARS: Final = 8000


def truncate_tool_text(text: str) -> str:
    """Cap tool text at TOOL_RESULT_MAX_CHARS with a visible marker."""
    if utf16_len(text) <= TOOL_RESULT_MAX_CHARS:
        return text
    return f"{utf16_truncate(text, TOOL_RESULT_MAX_CHARS)}\n…(truncated)…"


def _redact_deep(value: JsonValue, seen: set[int]) -> JsonValue:
    if isinstance(value, str):
        return redact_tool_payload_text(value)
    if not isinstance(value, list | dict):
        return value
    # Unlike a cycle check, `seen` is never cleared: any repeat becomes "[Circular]".
    if id(value) in seen:
        return "[Circular]"
    seen.add(id(value))
    if isinstance(value, list):
        return [_redact_deep(item, seen) for item in value]
    return {
        key: (
            redact_sensitive_field_value(key, child)
            if isinstance(child, str)
            else _redact_deep(child, seen)
        )
        for key, child in value.items()
    }


def sanitize_tool_args(args: JsonValue) -> JsonValue:
    """Redact secrets in tool-call arguments (any JSON value; other values pass as given)."""
    return _redact_deep(args, set())


def estimate_base64_decoded_bytes(data: str) -> int:
    """Decoded size of base64 text, ignoring whitespace and padding."""
    effective = len(data) - sum(1 for ch in data if ord(ch) <= 32)
    if effective == 0:
        return 0
    padding = 0
    end = len(data) - 1
    while end >= 0 and ord(data[end]) <= 32:
        end -= 1
    if end >= 0 and data[end] == "=":
        padding = 1
        end -= 1
        while end >= 0 and ord(data[end]) <= 32:
            end -= 1
        if end >= 0 and data[end] == "=":
            padding = 2
    return max(0, math.floor(effective * 3 / 4) - padding)


def _omit_image_data(item: JsonValue) -> JsonValue:
    """An image block without its data; `bytes` is the decoded size, or None if unknown."""
    if not isinstance(item, dict) or item.get("type") != "image":
        return item
    data = item.get("data")
    existing = item.get("bytes")
    if isinstance(data, str):
        size: JsonValue = estimate_base64_decoded_bytes(data)
    else:
        size = existing if isinstance(existing, int | float) and not isinstance(existing, bool) else None
    cleaned = {key: child for key, child in item.items() if key != "data"}
    cleaned["bytes"] = size
    cleaned["omitted"] = True
    return cleaned


def _cap_text_block(item: JsonValue) -> JsonValue:
    if isinstance(item, dict) and item.get("type") == "text":
        text = item.get("text")
        if isinstance(text, str):
            return {**item, "text": truncate_tool_text(text)}
    return item


def sanitize_tool_result(result: JsonValue) -> JsonValue:
    """Redact a tool result for the model and transcript (see the module docstring)."""
    if isinstance(result, str):
        return redact_model_visible_tool_payload_text(result)
    if isinstance(result, list):
        return redact_model_visible_secrets(result)
    if not isinstance(result, dict):
        return result
    pre_cleaned = dict(result)
    content = result.get("content")
    if isinstance(content, list):
        pre_cleaned["content"] = [_omit_image_data(item) for item in content]
    out = redact_model_visible_secrets(pre_cleaned)
    if isinstance(out, dict) and isinstance(blocks := out.get("content"), list):
        out["content"] = [_cap_text_block(item) for item in blocks]
    return out
