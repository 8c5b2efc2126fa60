"""Classify tool results and extract their errors and text for users and the model.

A tool result is JSON (`{"content": [...], "details": {...}}`). It is an error when
its details say so (`ok: false`, an error-like `status`, `timedOut`, an `error` value,
a non-zero `exitCode`). `extract_tool_error_message` finds the one-line message to
show, and `format_tool_progress_output` prepares verbose output for progress updates.
Lengths are counted in UTF-16 code units (see `clawharness._utf16`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Final, TypeAlias

from clawharness._json import JsonValue
from clawharness._numbers import format_number
from clawharness._text import BLANK_CLASS, trim, trim_start
from clawharness._utf16 import utf16_len, utf16_truncate
from clawharness.delivery.tool_results import is_tool_result_error
from clawharness.redaction import (
    redact_model_visible_tool_payload_text,
    redact_sensitive_field_value,
    redact_tool_detail,
)
from clawharness.tools.sanitize import truncate_tool_text

__all__ = [
    "TOOL_ERROR_MAX_CHARS",
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS",
    "ToolResultJson",
    "compact_json",
    "extract_tool_error_message",
    "extract_tool_result_text",
    "format_tool_progress_output",
    "is_tool_result_error",
    "read_tool_result_details",
    "read_tool_result_status",
]

#: default cap for verbose tool output in progress messages (UTF-16 code units)
TOOL_PROGRESS_OUTPUT_MAX_CHARS: Final = 8000
#: cap for a one-line tool error message
TOOL_ERROR_MAX_CHARS: Final = 400

_NON_ERROR_STATUSES: Final = frozenset({"0", "ok", "success", "completed", "running"})
_BM = BLANK_CLASS[1:-1]
_ERROR_LIKE_RE: Final = re.compile(
    rf"error|fail|timeout|timed[_{_BM}-]?out|denied|cancel|invalid|forbidden", re.ASCII
)
_SENSITIVE_HEADER_FIELDS: Final = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token"}
)
_OPAQUE_FIELDS: Final = frozenset({"encrypted_content", "encrypted_stdout"})
_DATA_URI_RE: Final = re.compile(
    rf"^data:(?:[a-z][a-z0-9.+-]*/[a-z0-9.+-]+)?(?:;[a-z0-9.+-]+(?:=[^,;\"'{_BM}]+)?)*,",
    re.IGNORECASE | re.ASCII,
)

Record: TypeAlias = Mapping[str, JsonValue]
#: a tool result as JSON; any mapping is read like the JSON object it stands for
ToolResultJson: TypeAlias = JsonValue | Record


def _get(value: ToolResultJson, key: str) -> JsonValue:
    """`value[key]` for a JSON object, else None (arrays and scalars have no fields)."""
    return value.get(key) if isinstance(value, Mapping) else None


def _lower(value: JsonValue) -> str | None:
    """A string value trimmed and lower-cased, or None for blanks and other values."""
    if not isinstance(value, str):
        return None
    return trim(value).lower() or None


def _first_line(text: str) -> str:
    head, _, _ = text.partition("\n")
    return head.removesuffix("\r")


def read_tool_result_details(result: ToolResultJson) -> Record | None:
    """The result's `details` object (not an array), or None."""
    details = _get(result, "details")
    return details if isinstance(details, Mapping) else None


def read_tool_result_status(result: ToolResultJson) -> str | None:
    """Lower-cased, trimmed `details.status`, or None."""
    details = read_tool_result_details(result)
    return _lower(details.get("status")) if details is not None else None


def _normalize_error_text(text: str) -> str | None:
    first_line = trim(_first_line(trim_start(text)))
    if not first_line:
        return None
    if utf16_len(first_line) > TOOL_ERROR_MAX_CHARS:
        return f"{utf16_truncate(first_line, TOOL_ERROR_MAX_CHARS)}…"
    return first_line


def _is_error_like_status(status: str) -> bool:
    normalized = _lower(status)
    if not normalized or normalized in _NON_ERROR_STATUSES:
        return False
    return _ERROR_LIKE_RE.search(normalized) is not None


def _error_candidate(value: JsonValue) -> str | None:
    if isinstance(value, str):
        return _normalize_error_text(value)
    message = _get(value, "message")
    if isinstance(message, str):
        return _normalize_error_text(message)
    error = _get(value, "error")
    if isinstance(error, str):
        return _normalize_error_text(error)
    return None


def _direct_error(value: ToolResultJson) -> str | None:
    if not isinstance(value, Mapping):
        return None
    return (
        _error_candidate(value.get("error"))
        or _error_candidate(value.get("message"))
        or _error_candidate(value.get("reason"))
    )


def _error_field(value: ToolResultJson) -> str | None:
    if not isinstance(value, Mapping):
        return None
    direct = _direct_error(value)
    if direct:
        return direct
    status = value.get("status")
    status_text = trim(status) if isinstance(status, str) else ""
    if not status_text or not _is_error_like_status(status_text):
        return None
    return _normalize_error_text(status_text)


# -- JSON text ---------------------------------------------------------------------------


def compact_json(value: ToolResultJson) -> str:
    """Compact JSON text of `value`: no spaces, non-ASCII kept, numbers written as
    `clawharness._numbers` does, non-finite numbers as `null`; an object that is not
    JSON is written as `{}`."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return format_number(value) if math.isfinite(value) else "null"
    if isinstance(value, list):
        return "[" + ",".join(compact_json(item) for item in value) + "]"
    if isinstance(value, Mapping):
        members = (
            f"{json.dumps(str(key), ensure_ascii=False)}:{compact_json(child)}"
            for key, child in value.items()
        )
        return "{" + ",".join(members) + "}"
    return "{}"


def _no_constants(name: str) -> JsonValue:
    raise ValueError(f"invalid JSON constant {name}")


def _parse_json(text: str) -> JsonValue:
    parsed: JsonValue = json.loads(text, parse_constant=_no_constants)
    return parsed


# -- result text ---------------------------------------------------------------------------


def _redact_data_uri(value: str) -> str:
    if not _DATA_URI_RE.match(trim_start(value)):
        return value
    return f"[inline data URI: {utf16_len(value)} chars]"


def _carries_binary(record: Record) -> bool:
    kind = _lower(record.get("type"))
    if kind in ("audio", "image", "base64"):
        return True
    media = record.get("media_type")
    if media is None:
        media = record.get("mimeType")
    media_type = _lower(media)
    if media_type is None:
        return False
    return media_type.startswith(("image/", "audio/", "video/")) or media_type == "application/pdf"


def _sanitize_structured(
    value: ToolResultJson, key: str, parent_binary: bool, seen: set[int]
) -> JsonValue:
    """A structured block made safe to show: secrets, binary and opaque data replaced.

    Any container met a second time (not only a cycle) becomes `[Circular]`.
    """
    if isinstance(value, str):
        if key.lower() in _SENSITIVE_HEADER_FIELDS:
            return "***"
        if key == "blob" or (key == "data" and parent_binary):
            return f"[binary omitted: {utf16_len(value)} chars]"
        if key in _OPAQUE_FIELDS:
            return f"[opaque data omitted: {utf16_len(value)} chars]"
        redacted = redact_sensitive_field_value(key, value, model_visible=True)
        return truncate_tool_text(_redact_data_uri(redacted))
    if value is None or isinstance(value, bool | int | float):
        return value
    if not isinstance(value, list | Mapping):
        return {}
    if id(value) in seen:
        return "[Circular]"
    seen.add(id(value))
    if isinstance(value, list):
        return [_sanitize_structured(item, key, parent_binary, seen) for item in value]
    binary = _carries_binary(value)
    return {name: _sanitize_structured(child, name, binary, seen) for name, child in value.items()}


def _stringify_structured_block(block: ToolResultJson) -> str | None:
    if not isinstance(block, list | Mapping):
        return None
    kind = _get(block, "type")
    if isinstance(kind, str) and kind in ("text", "image", "image_url", "audio"):
        return None
    serialized = compact_json(_sanitize_structured(block, "", False, set()))
    redacted = redact_model_visible_tool_payload_text(serialized)
    return redacted if redacted and redacted != "{}" else None


def _content_blocks(result: ToolResultJson) -> list[ToolResultJson]:
    if isinstance(result, list):
        return list(result)
    kind = _get(result, "type")
    if isinstance(kind, str) and kind:
        return [result]
    content = _get(result, "content")
    if isinstance(content, list):
        return list(content)
    if isinstance(content, Mapping):
        return [content]
    return [result]


def extract_tool_result_text(result: ToolResultJson) -> str | None:
    """The text a tool result shows: its text blocks, else its structured blocks as JSON."""
    if isinstance(result, str):
        trimmed = trim(redact_model_visible_tool_payload_text(_redact_data_uri(result)))
        return truncate_tool_text(trimmed) if trimmed else None
    if not isinstance(result, list | Mapping):
        return None
    content = _content_blocks(result)
    texts: list[str] = []
    for block in content:
        text = _get(block, "text")
        if _get(block, "type") == "text" and isinstance(text, str) and trim(text):
            texts.append(trim(text))
    if texts:
        return truncate_tool_text("\n".join(texts))
    structured = [s for s in (_stringify_structured_block(item) for item in content) if s]
    return truncate_tool_text("\n".join(structured)) if structured else None


def extract_tool_error_message(result: ToolResultJson) -> str | None:
    """One-line error message for a failed tool result, or None."""
    if not isinstance(result, list | Mapping):
        return None
    details = _get(result, "details")
    found = _direct_error(details) or _error_candidate(_get(details, "aggregated"))
    found = found or _direct_error(result)
    if found:
        return found
    text = extract_tool_result_text(result)
    if text:
        try:
            from_json = _error_field(_parse_json(text))
        except (ValueError, RecursionError):
            from_json = None
        if from_json:
            return from_json
    from_status = _error_field(details) or _error_field(result)
    if from_status:
        return from_status
    if read_tool_result_status(result) and not is_tool_result_error(result):
        return None
    return _normalize_error_text(text) if text else None


# -- progress output -----------------------------------------------------------------------


def format_tool_progress_output(output: str, *, max_chars: float | None = None) -> str | None:
    """Verbose tool output for a progress update: line endings normalized, trimmed,
    redacted and capped at `max_chars` UTF-16 units (default 8,000) with a marker.

    None when nothing but blanks is left.
    """
    trimmed = trim(output.replace("\r\n", "\n").replace("\r", "\n"))
    if not trimmed:
        return None
    redacted = redact_tool_detail(trimmed)
    limit = TOOL_PROGRESS_OUTPUT_MAX_CHARS if max_chars is None else max_chars
    if utf16_len(redacted) <= limit:
        return redacted
    return f"{utf16_truncate(redacted, limit)}\n...(truncated)..."
