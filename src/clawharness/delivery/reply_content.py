"""Does a reply payload carry anything a channel could send?

A reply payload is what the host delivers for a turn: text, media, a rich presentation,
a legacy interactive block, channel data or a location. A presentation or interactive
block counts only when at least one of its blocks is valid (a button needs a label and
something to do, a chart needs finite values, ...), so an inert block does not keep a
silent reply alive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import (
    as_list,
    as_record,
    is_finite_number,
    is_number,
    normalize_optional_lowercase,
    normalize_optional_string,
    strip_whitespace,
)

__all__ = [
    "ReplyPayload",
    "has_legacy_interactive_reply_blocks",
    "has_message_presentation_blocks",
    "has_reply_payload_content",
    "parse_reply_payload",
]


@dataclass(frozen=True, slots=True)
class ReplyPayload:
    """One reply the host may deliver.

    `presentation`, `interactive`, `channel_data` and `location` stay the JSON the
    harness or plugin wrote; `has_reply_payload_content` decides what in them is sendable.
    """

    text: str | None = None
    media_url: str | None = None
    media_urls: tuple[str, ...] = ()
    presentation: JsonValue = None
    interactive: JsonValue = None
    channel_data: JsonValue = None
    location: JsonValue = None


def parse_reply_payload(value: Mapping[str, JsonValue]) -> ReplyPayload:
    """Read a camelCase reply payload object; fields of the wrong type count as absent."""
    text = value.get("text")
    media_url = value.get("mediaUrl")
    media_urls = as_list(value.get("mediaUrls")) or []
    return ReplyPayload(
        text=text if isinstance(text, str) else None,
        media_url=media_url if isinstance(media_url, str) else None,
        media_urls=tuple(url for url in media_urls if isinstance(url, str)),
        presentation=value.get("presentation"),
        interactive=value.get("interactive"),
        channel_data=value.get("channelData"),
        location=value.get("location"),
    )


def _well_formed_id(value: str) -> bool:
    # Non-empty, not a dot segment, and no unpaired UTF-16 surrogate.
    return value not in ("", ".", "..") and not any(0xD800 <= ord(c) <= 0xDFFF for c in value)


_PICKER_TOKEN = re.compile(r"^[A-Za-z0-9_-]+\Z")


def _picker_token(value: JsonValue) -> bool:
    token = normalize_optional_string(value)
    return token is not None and len(token) <= 128 and bool(_PICKER_TOKEN.match(token))


def _valid_model_picker(record: JsonObject) -> bool:
    version = record.get("version")
    # `is_number`: `True == 1` to Python, but a boolean is no version number.
    if record.get("type") != "model-picker" or not (is_number(version) and version == 1):
        return False
    if not _picker_token(record.get("snapshotToken")):
        return False
    intent = record.get("intent")
    cursor_ok = "cursor" not in record or _picker_token(record["cursor"])
    provider_ok = _picker_token(record.get("providerToken"))
    model_ok = _picker_token(record.get("modelToken"))
    if intent in ("show-providers", "show-recents"):
        return cursor_ok
    if intent == "show-models":
        return provider_ok and cursor_ok
    if intent == "choose-model":
        return provider_ok and model_ok
    if intent == "choose-runtime":
        return provider_ok and model_ok and _picker_token(record.get("runtimeToken"))
    return intent in ("reset", "cancel")


def _has_string(record: JsonObject, *keys: str) -> bool:
    return any(normalize_optional_string(record.get(key)) is not None for key in keys)


def _action_type(raw: JsonValue) -> str | None:
    """The type of a valid control action, or None when it does not normalise."""
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "command":
        return kind if _has_string(record, "command") else None
    if kind == "callback":
        return kind if _has_string(record, "value") else None
    if kind == "model-picker":
        return kind if _valid_model_picker(record) else None
    if kind == "approval":
        approval_id = record.get("approvalId")
        valid = (
            record.get("type") == "approval"
            and isinstance(approval_id, str)
            and _well_formed_id(approval_id)
            and record.get("approvalKind") in ("exec", "plugin", "system-agent")
            and record.get("decision") in ("allow-once", "allow-always", "deny")
        )
        return kind if valid else None
    if kind == "question":
        question_id = record.get("questionId")
        if record.get("type") != "question" or not isinstance(question_id, str):
            return None
        if not _well_formed_id(question_id):
            return None
        if "intent" not in record:
            option = record.get("optionValue")
            return kind if isinstance(option, str) and strip_whitespace(option) else None
        return kind if record["intent"] == "custom-input" else None
    if kind in ("url", "web-app"):
        widget = kind == "web-app" and _has_string(record, "widgetId")
        return kind if _has_string(record, "url") or widget else None
    return None


def _valid_button(raw: JsonValue) -> bool:
    record = as_record(raw)
    if record is None:
        return False
    web_app = as_record(record.get("webApp"))
    if web_app is None:
        web_app = as_record(record.get("web_app"))
    has_action = "action" in record
    action = _action_type(record["action"]) if has_action else None
    if not _has_string(record, "label", "text") or (has_action and action is None):
        return False
    return bool(
        action
        or _has_string(record, "value", "callbackData", "callback_data")
        or _has_string(record, "url")
        or (web_app is not None and _has_string(web_app, "url"))
    )


def _valid_option(raw: JsonValue) -> bool:
    record = as_record(raw)
    if record is None:
        return False
    has_action = "action" in record
    action = _action_type(record["action"]) if has_action else None
    if action not in ("command", "callback", "model-picker"):
        action = None
    if not _has_string(record, "label", "text") or (has_action and action is None):
        return False
    return bool(action or _has_string(record, "value"))


def _unique_strings(values: JsonValue) -> list[str] | None:
    items = as_list(values)
    if not items:
        return None
    normalized = [normalize_optional_string(value) for value in items]
    strings = [entry for entry in normalized if entry is not None]
    if len(strings) != len(normalized) or len(set(strings)) != len(strings):
        return None
    return strings


def _positive_finite(value: JsonValue) -> bool:
    return is_finite_number(value) and value > 0


def _valid_pie_segment(entry: JsonValue) -> bool:
    record = as_record(entry)
    return (
        record is not None
        and _has_string(record, "label")
        and _positive_finite(record.get("value"))
    )


def _valid_chart(record: JsonObject) -> bool:
    if not _has_string(record, "title"):
        return False
    chart_type = normalize_optional_lowercase(record.get("chartType"))
    if chart_type == "pie":
        segments = as_list(record.get("segments"))
        return bool(segments) and all(_valid_pie_segment(entry) for entry in segments or ())
    if chart_type not in ("bar", "area", "line"):
        return False
    categories = _unique_strings(record.get("categories"))
    series = as_list(record.get("series"))
    if categories is None or not series:
        return False
    names: list[str] = []
    for entry in series:
        item = as_record(entry)
        values = as_list(item.get("values")) if item is not None else None
        name = normalize_optional_string(item.get("name")) if item is not None else None
        if name is None or values is None or len(values) != len(categories):
            return False
        if not all(is_finite_number(value) for value in values):
            return False
        names.append(name)
    return len(set(names)) == len(names)


def _valid_table_cell(cell: JsonValue) -> bool:
    if is_number(cell):
        return is_finite_number(cell)
    return normalize_optional_string(cell) is not None


def _valid_table(record: JsonObject) -> bool:
    headers = _unique_strings(record.get("headers"))
    rows = as_list(record.get("rows"))
    if not _has_string(record, "caption") or headers is None or not rows:
        return False
    for row in rows:
        cells = as_list(row)
        if cells is None or len(cells) != len(headers):
            return False
        if not all(_valid_table_cell(cell) for cell in cells):
            return False
    if "rowHeaderColumnIndex" not in record:
        return True
    index = record["rowHeaderColumnIndex"]
    return is_number(index) and float(index).is_integer() and 0 <= index < len(headers)


def _valid_block(raw: JsonValue, *, presentation: bool) -> bool:
    record = as_record(raw)
    if record is None:
        return False
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "text" or (presentation and kind == "context"):
        return _has_string(record, "text")
    if kind == "buttons":
        buttons = as_list(record.get("buttons")) or []
        return any(_valid_button(entry) for entry in buttons)
    if kind == "select":
        options = as_list(record.get("options")) or []
        return any(_valid_option(entry) for entry in options)
    if not presentation:
        return False
    if kind == "divider":
        return True
    if kind == "chart":
        return _valid_chart(record)
    return kind == "table" and _valid_table(record)


def has_message_presentation_blocks(value: JsonValue) -> bool:
    """True when a presentation has a title or at least one valid block."""
    record = as_record(value)
    if record is None:
        return False
    blocks = as_list(record.get("blocks")) or []
    return any(_valid_block(b, presentation=True) for b in blocks) or _has_string(record, "title")


def has_legacy_interactive_reply_blocks(value: JsonValue) -> bool:
    """True when a deprecated interactive reply has at least one valid block."""
    record = as_record(value)
    if record is None:
        return False
    blocks = as_list(record.get("blocks")) or []
    return any(_valid_block(b, presentation=False) for b in blocks)


def has_reply_payload_content(payload: ReplyPayload) -> bool:
    """True when a reply payload carries anything a channel could send.

    Text and media URLs count when they are not blank, channel data when it is a
    non-empty object, and a location whenever it is given (even `0` or `false`).
    """
    return bool(
        normalize_optional_string(payload.text) is not None
        or normalize_optional_string(payload.media_url) is not None
        or any(normalize_optional_string(url) is not None for url in payload.media_urls)
        or has_message_presentation_blocks(payload.presentation)
        or has_legacy_interactive_reply_blocks(payload.interactive)
        or bool(as_record(payload.channel_data))
        or payload.location is not None
    )
