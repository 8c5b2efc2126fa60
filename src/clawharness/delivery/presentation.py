"""Normalize portable message presentations and legacy interactive replies.

A source-reply payload may carry buttons, selects and text blocks. Only well-formed
controls survive normalization; a presentation with neither a title nor a block is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from clawharness._jsvalue import UNDEFINED
from clawharness.delivery._coerce import (
    as_record,
    is_array,
    is_finite_number,
    normalize_optional_lowercase,
    normalize_optional_string,
)

__all__ = ["normalize_legacy_interactive_reply", "normalize_message_presentation"]

T = TypeVar("T")

_BUTTON_STYLES = frozenset({"primary", "secondary", "success", "danger"})
_TONES = frozenset({"info", "success", "warning", "danger", "neutral"})


def _or_undefined(value: str | None) -> Any:
    # The original always writes these keys, even when their value is undefined.
    return UNDEFINED if value is None else value


def _first_string(record: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = normalize_optional_string(record.get(key))
        if value is not None:
            return value
    return None


def _action(raw: Any) -> dict[str, Any] | None:
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "command":
        command = normalize_optional_string(record.get("command"))
        return {"type": "command", "command": command} if command else None
    if kind == "callback":
        value = normalize_optional_string(record.get("value"))
        return {"type": "callback", "value": value} if value else None
    return None


def _action_value(action: dict[str, Any] | None) -> str | None:
    if action is None:
        return None
    value = action.get("command") if action["type"] == "command" else action.get("value")
    return value if isinstance(value, str) else None


def _button(raw: Any) -> dict[str, Any] | None:
    record = as_record(raw)
    if record is None:
        return None
    label = _first_string(record, "label", "text")
    value = _first_string(record, "value", "callbackData", "callback_data")
    action = _action(record.get("action"))
    url = normalize_optional_string(record.get("url"))
    web_app = as_record(record.get("webApp"))
    if web_app is None:
        web_app = as_record(record.get("web_app"))
    web_app_url = normalize_optional_string(web_app.get("url")) if web_app is not None else None
    if not label or (not action and not value and not url and not web_app_url):
        return None
    priority = record.get("priority")
    button: dict[str, Any] = {"label": label}
    if action:
        button["action"] = action
    if value:
        button["value"] = value
    if url:
        button["url"] = url
    if web_app_url:
        button["webApp"] = {"url": web_app_url}
    if is_finite_number(priority):
        button["priority"] = priority
    if record.get("disabled") is True:
        button["disabled"] = True
    if record.get("reusable") is True:
        button["reusable"] = True
    style = normalize_optional_lowercase(record.get("style"))
    button["style"] = style if style in _BUTTON_STYLES else UNDEFINED
    return button


def _option(raw: Any) -> dict[str, Any] | None:
    record = as_record(raw)
    if record is None:
        return None
    label = _first_string(record, "label", "text")
    action = _action(record.get("action"))
    value = normalize_optional_string(record.get("value")) or _action_value(action)
    if not label or not value:
        return None
    option: dict[str, Any] = {"label": label}
    if action:
        option["action"] = action
    option["value"] = value
    return option


def _list(value: Any, normalize: Callable[[Any], T | None]) -> list[T]:
    if not is_array(value):
        return []
    return [item for item in (normalize(entry) for entry in value) if item]


def _controls_block(record: dict[str, Any], kind: str | None) -> dict[str, Any] | None:
    if kind == "buttons":
        buttons = _list(record.get("buttons"), _button)
        return {"type": "buttons", "buttons": buttons} if buttons else None
    if kind == "select":
        options = _list(record.get("options"), _option)
        if not options:
            return None
        placeholder = normalize_optional_string(record.get("placeholder"))
        return {"type": "select", "placeholder": _or_undefined(placeholder), "options": options}
    return None


def _interactive_block(raw: Any) -> dict[str, Any] | None:
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "text":
        text = normalize_optional_string(record.get("text"))
        return {"type": "text", "text": text} if text else None
    return _controls_block(record, kind)


def _presentation_block(raw: Any) -> dict[str, Any] | None:
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind in ("text", "context"):
        text = normalize_optional_string(record.get("text"))
        return {"type": kind, "text": text} if text else None
    if kind == "divider":
        return {"type": "divider"}
    return _controls_block(record, kind)


def normalize_legacy_interactive_reply(raw: Any) -> dict[str, Any] | None:
    """`{blocks}` of valid legacy interactive blocks, or None when none survive."""
    record = as_record(raw)
    if record is None:
        return None
    blocks = _list(record.get("blocks"), _interactive_block)
    return {"blocks": blocks} if blocks else None


def normalize_message_presentation(raw: Any) -> dict[str, Any] | None:
    """`{title?, tone, blocks}` with valid blocks, or None without a title or block."""
    record = as_record(raw)
    if record is None:
        return None
    blocks = _list(record.get("blocks"), _presentation_block)
    title = normalize_optional_string(record.get("title"))
    if not title and not blocks:
        return None
    presentation: dict[str, Any] = {}
    if title:
        presentation["title"] = title
    tone = normalize_optional_lowercase(record.get("tone"))
    presentation["tone"] = tone if tone in _TONES else UNDEFINED
    presentation["blocks"] = blocks
    return presentation
