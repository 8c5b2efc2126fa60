"""Classify tool results and extract their errors and text for users and the model.

A tool result is JSON-shaped (`{"content": [...], "details": {...}}`). It is an error
when its details say so (`ok: false`, an error-like `status`, `timedOut`, an `error`
value, a non-zero `exitCode`). `extract_tool_error_message` finds the one-line message
to show, and `format_tool_progress_output` prepares verbose output for progress updates.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from clawharness._jsvalue import UNDEFINED, JsError, JsSet
from clawharness.tools._js import (
    is_js_number,
    is_js_object,
    is_record,
    js_get,
    js_len,
    js_number_to_string,
    js_regex,
    js_split_first_line,
    js_trim,
    js_trim_start,
    js_truthy,
    normalize_optional_lower,
    normalize_optional_string,
    truncate_utf16_safe,
)
from clawharness.tools.redact import (
    redact_model_visible_tool_payload_text,
    redact_sensitive_field_value,
    redact_tool_detail,
)
from clawharness.tools.sanitize import truncate_tool_text

__all__ = [
    "TOOL_ERROR_MAX_CHARS",
    "TOOL_PROGRESS_OUTPUT_MAX_CHARS",
    "extract_tool_error_message",
    "extract_tool_result_text",
    "format_tool_progress_output",
    "is_tool_result_error",
    "js_json_stringify",
    "read_tool_result_details",
    "read_tool_result_status",
]

#: default cap for verbose tool output in progress messages (UTF-16 code units)
TOOL_PROGRESS_OUTPUT_MAX_CHARS: Final = 8000
#: cap for a one-line tool error message
TOOL_ERROR_MAX_CHARS: Final = 400

_ERROR_STATUSES = frozenset(
    [
        "error",
        "failed",
        "failure",
        "timeout",
        "timed_out",
        "blocked",
        "denied",
        "forbidden",
        "unavailable",
        "approval-unavailable",
        "disabled",
        "aborted",
        "cancelled",
        "canceled",
        "killed",
        "invalid",
    ]
)
_ERROR_LIKE_RE = js_regex(r"error|fail|timeout|timed[_\s-]?out|denied|cancel|invalid|forbidden")
_SENSITIVE_HEADER_FIELDS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token"}
)
_OPAQUE_FIELDS = frozenset({"encrypted_content", "encrypted_stdout"})
_DATA_URI_RE = js_regex(
    r"^data:(?:[a-z][a-z0-9.+-]*\/[a-z0-9.+-]+)?(?:;[a-z0-9.+-]+(?:=[^,;\"'\s]+)?)*,", "i"
)


def _field(value: Any, key: str) -> Any:
    """`key in value ? value[key] : undefined` for object values."""
    return js_get(value, key) if is_js_object(value) else UNDEFINED


def read_tool_result_details(result: Any) -> Any:
    """The result's `details` object (not an array), or None."""
    if not is_js_object(result):
        return None
    details = _field(result, "details")
    return details if is_record(details) else None


def read_tool_result_status(result: Any) -> str | None:
    """Lower-cased, trimmed `details.status`, or None."""
    details = read_tool_result_details(result)
    return normalize_optional_lower(_field(details, "status")) if details is not None else None


def is_tool_result_error(result: Any) -> bool:
    """True when the result's details report failure."""
    details = read_tool_result_details(result)
    status = read_tool_result_status(result)
    ok = _field(details, "ok") if details is not None else UNDEFINED
    success = _field(details, "success") if details is not None else UNDEFINED
    explicitly_successful = ok is True or success is True
    if ok is False or success is False:
        return True
    if status in _ERROR_STATUSES and not explicitly_successful:
        return True
    timed_out = _field(details, "timedOut") if details is not None else UNDEFINED
    error = _field(details, "error") if details is not None else UNDEFINED
    if timed_out is True or js_truthy(error):
        return True
    if status == "completed":
        return False
    exit_code = _field(details, "exitCode") if details is not None else UNDEFINED
    return (
        isinstance(exit_code, (int, float))
        and is_js_number(exit_code)
        and (math.isfinite(exit_code) and exit_code != 0)
    )


def _normalize_error_text(text: str) -> str | None:
    first_line = js_trim(js_split_first_line(js_trim_start(text)))
    if not first_line:
        return None
    if js_len(first_line) > TOOL_ERROR_MAX_CHARS:
        return f"{truncate_utf16_safe(first_line, TOOL_ERROR_MAX_CHARS)}…"
    return first_line


def _is_error_like_status(status: str) -> bool:
    normalized = normalize_optional_lower(status)
    if not normalized or normalized in ("0", "ok", "success", "completed", "running"):
        return False
    return _ERROR_LIKE_RE.search(normalized) is not None


def _error_candidate(value: Any) -> str | None:
    if isinstance(value, str):
        return _normalize_error_text(value)
    if not is_js_object(value):
        return None
    message = _field(value, "message")
    if isinstance(message, str):
        return _normalize_error_text(message)
    error = _field(value, "error")
    if isinstance(error, str):
        return _normalize_error_text(error)
    return None


def _direct_error(value: Any) -> str | None:
    if not is_js_object(value):
        return None
    return (
        _error_candidate(_field(value, "error"))
        or _error_candidate(_field(value, "message"))
        or _error_candidate(_field(value, "reason"))
    )


def _error_field(value: Any) -> str | None:
    if not is_js_object(value):
        return None
    direct = _direct_error(value)
    if direct:
        return direct
    status = normalize_optional_string(_field(value, "status")) or ""
    if not status or not _is_error_like_status(status):
        return None
    return _normalize_error_text(status)


def _aggregated_error(value: Any) -> str | None:
    return _error_candidate(_field(value, "aggregated")) if is_js_object(value) else None


# -- JSON ------------------------------------------------------------------------------


def js_json_stringify(value: Any) -> str | None:
    """`JSON.stringify(value)` (compact); None where JavaScript returns undefined."""
    if value is UNDEFINED or callable(value):
        return None
    return _stringify(value)


def _stringify(value: Any) -> str:
    if value is None or value is UNDEFINED:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if is_js_number(value):
        return js_number_to_string(value) if math.isfinite(value) else "null"
    if isinstance(value, list) and not isinstance(value, JsSet):
        items = [
            "null" if item is UNDEFINED or callable(item) else _stringify(item) for item in value
        ]
        return "[" + ",".join(items) + "]"
    if type(value) is dict:
        members = [
            f"{json.dumps(str(key), ensure_ascii=False)}:{_stringify(child)}"
            for key, child in value.items()
            if child is not UNDEFINED and not callable(child)
        ]
        return "{" + ",".join(members) + "}"
    if isinstance(value, JsError):
        return _stringify(dict(value.props))
    return "{}"


def _no_constants(name: str) -> Any:
    raise ValueError(f"invalid JSON constant {name}")


def _json_parse(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constants)


# -- result text -----------------------------------------------------------------------


def _redact_data_uri(value: str) -> str:
    if not _DATA_URI_RE.match(js_trim_start(value)):
        return value
    return f"[inline data URI: {js_len(value)} chars]"


def _carries_binary(record: Any) -> bool:
    kind = normalize_optional_lower(_field(record, "type"))
    if kind in ("audio", "image", "base64"):
        return True
    media = _field(record, "media_type")
    if media is None or media is UNDEFINED:
        media = _field(record, "mimeType")
    media_type = normalize_optional_lower(media)
    if media_type is None:
        return False
    return media_type.startswith(("image/", "audio/", "video/")) or media_type == "application/pdf"


def _sanitize_structured(value: Any, key: str, parent_binary: bool, seen: set[int]) -> Any:
    if isinstance(value, str):
        if key.lower() in _SENSITIVE_HEADER_FIELDS:
            return "***"
        if key == "blob" or (key == "data" and parent_binary):
            return f"[binary omitted: {js_len(value)} chars]"
        if key in _OPAQUE_FIELDS:
            return f"[opaque data omitted: {js_len(value)} chars]"
        redacted = redact_sensitive_field_value(key, value, model_visible=True)
        return truncate_tool_text(_redact_data_uri(redacted))
    if not is_js_object(value):
        return value
    if id(value) in seen:
        return "[Circular]"
    seen.add(id(value))
    if type(value) is list:
        return [_sanitize_structured(item, key, parent_binary, seen) for item in value]
    if type(value) is dict:
        binary = _carries_binary(value)
        return {
            name: _sanitize_structured(child, name, binary, seen) for name, child in value.items()
        }
    if isinstance(value, JsError):
        return {
            name: _sanitize_structured(child, name, False, seen)
            for name, child in value.props.items()
        }
    return {}


def _stringify_structured_block(block: Any) -> str | None:
    if not is_js_object(block):
        return None
    kind = _field(block, "type")
    if isinstance(kind, str) and kind in ("text", "image", "image_url", "audio"):
        return None
    serialized = js_json_stringify(_sanitize_structured(block, "", False, set()))
    redacted = redact_model_visible_tool_payload_text(serialized) if serialized else serialized
    return redacted if redacted and redacted != "{}" else None


def _content_blocks(result: Any) -> list[Any]:
    if type(result) is list:
        return list(result)
    kind = _field(result, "type")
    if isinstance(kind, str) and kind:
        return [result]
    content = _field(result, "content")
    if type(content) is list:
        return list(content)
    if is_js_object(content):
        return [content]
    return [result]


def extract_tool_result_text(result: Any) -> str | None:
    """The text a tool result shows: its text blocks, else its structured blocks as JSON."""
    if isinstance(result, str):
        trimmed = js_trim(redact_model_visible_tool_payload_text(_redact_data_uri(result)))
        return truncate_tool_text(trimmed) if trimmed else None
    if not is_js_object(result):
        return None
    content = _content_blocks(result)
    texts: list[str] = []
    for block in content:
        if not is_js_object(block):
            continue
        text = _field(block, "text")
        if _field(block, "type") == "text" and isinstance(text, str) and js_trim(text):
            texts.append(js_trim(text))
    if texts:
        return truncate_tool_text("\n".join(texts))
    structured = [s for s in (_stringify_structured_block(item) for item in content) if s]
    return truncate_tool_text("\n".join(structured)) if structured else None


def extract_tool_error_message(result: Any) -> str | None:
    """One-line error message for a failed tool result, or None."""
    if not is_js_object(result):
        return None
    details = _field(result, "details")
    found = _direct_error(details) or _aggregated_error(details) or _direct_error(result)
    if found:
        return found
    text = extract_tool_result_text(result)
    if text:
        try:
            from_json = _error_field(_json_parse(text))
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


# -- progress output -------------------------------------------------------------------


def format_tool_progress_output(output: str, options: Any = None) -> str | None:
    """Normalize line endings, trim, redact and cap verbose tool output."""
    if not isinstance(output, str):
        raise JsError("TypeError", "output.replace is not a function")
    trimmed = js_trim(output.replace("\r\n", "\n").replace("\r", "\n"))
    if not trimmed:
        return None
    redacted = redact_tool_detail(trimmed)
    max_chars: Any = _field(options, "maxChars") if is_js_object(options) else UNDEFINED
    if max_chars is None or max_chars is UNDEFINED:
        max_chars = TOOL_PROGRESS_OUTPUT_MAX_CHARS
    if not is_js_number(max_chars) or js_len(redacted) <= max_chars:
        return redacted
    return f"{truncate_utf16_safe(redacted, max_chars)}\n...(truncated)..."
