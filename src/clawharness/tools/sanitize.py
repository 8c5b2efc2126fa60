"""Sanitize tool arguments and tool results before they are logged, shown or replayed.

`sanitize_tool_args` redacts every string (field-aware for object members) and replaces
repeated references with `"[Circular]"`. `sanitize_tool_result` redacts a result for the
model: inline image data is dropped (its decoded size kept as `bytes`), text blocks are
capped at 8,000 UTF-16 units, and secrets are masked.
"""

from __future__ import annotations

import math
from typing import Any, Final

from clawharness._jsvalue import UNDEFINED, JsMap, JsSet
from clawharness.tools._js import is_js_number, js_len, truncate_utf16_safe
from clawharness.tools.redact import (
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
    if js_len(text) <= TOOL_RESULT_MAX_CHARS:
        return text
    return f"{truncate_utf16_safe(text, TOOL_RESULT_MAX_CHARS)}\n…(truncated)…"


def _redact_deep(value: Any, seen: set[int]) -> Any:
    if isinstance(value, str):
        return redact_tool_payload_text(value)
    if type(value) is list:
        # Unlike a cycle check, `seen` is never cleared: any repeat becomes "[Circular]".
        if id(value) in seen:
            return "[Circular]"
        seen.add(id(value))
        return [_redact_deep(item, seen) for item in value]
    if type(value) is dict:
        if id(value) in seen:
            return "[Circular]"
        seen.add(id(value))
        return {
            key: (
                redact_sensitive_field_value(key, child)
                if isinstance(child, str)
                else _redact_deep(child, seen)
            )
            for key, child in value.items()
        }
    if isinstance(value, (JsMap, JsSet)):
        # Maps and sets have no own enumerable entries: they sanitize to `{}`.
        if id(value) in seen:
            return "[Circular]"
        seen.add(id(value))
        return {}
    return value


def sanitize_tool_args(args: Any) -> Any:
    """Redact secrets in tool-call arguments (any JSON-like value)."""
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


def _omit_image_data(item: Any) -> Any:
    if type(item) is not dict or item.get("type") != "image":
        return item
    data = item.get("data")
    existing = item.get("bytes")
    existing_bytes = existing if is_js_number(existing) else UNDEFINED
    size: Any = existing_bytes if not isinstance(data, str) else estimate_base64_decoded_bytes(data)
    cleaned = {key: child for key, child in item.items() if key != "data"}
    cleaned["bytes"] = size
    cleaned["omitted"] = True
    return cleaned


def _cap_text_block(item: Any) -> Any:
    if type(item) is dict and item.get("type") == "text" and isinstance(item.get("text"), str):
        capped = dict(item)
        capped["text"] = truncate_tool_text(item["text"])
        return capped
    return item


def sanitize_tool_result(result: Any) -> Any:
    """Redact a tool result for the model and transcript."""
    if isinstance(result, str):
        return redact_model_visible_tool_payload_text(result)
    if type(result) is list:
        return redact_model_visible_secrets(result)
    if isinstance(result, (JsMap, JsSet)):
        # Spreading a Map or Set copies no entries.
        return redact_model_visible_secrets({})
    if type(result) is not dict:
        return result
    pre_cleaned = dict(result)
    content = result.get("content")
    if isinstance(content, list):
        pre_cleaned["content"] = [_omit_image_data(item) for item in content]
    out = redact_model_visible_secrets(pre_cleaned)
    if isinstance(out, dict) and isinstance(out.get("content"), list):
        out["content"] = [_cap_text_block(item) for item in out["content"]]
    return out
