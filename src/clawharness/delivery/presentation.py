"""Normalize portable message presentations and legacy interactive replies.

A source-reply payload may carry buttons, selects and text blocks, as plugin-written
JSON. Only well-formed controls survive normalization, into the typed values below; a
presentation with neither a title nor a block is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias, TypeVar

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import (
    as_list,
    as_record,
    is_finite_number,
    normalize_optional_lowercase,
    normalize_optional_string,
)

__all__ = [
    "ButtonStyle",
    "ButtonsBlock",
    "ControlAction",
    "DividerBlock",
    "InteractiveBlock",
    "InteractiveReply",
    "MessagePresentation",
    "PresentationBlock",
    "PresentationButton",
    "PresentationOption",
    "SelectBlock",
    "TextBlock",
    "Tone",
    "normalize_legacy_interactive_reply",
    "normalize_message_presentation",
]

T = TypeVar("T")

ButtonStyle = Literal["primary", "secondary", "success", "danger"]
Tone = Literal["info", "success", "warning", "danger", "neutral"]
_BUTTON_STYLES: dict[str, ButtonStyle] = {
    "primary": "primary",
    "secondary": "secondary",
    "success": "success",
    "danger": "danger",
}
_TONES: dict[str, Tone] = {
    "info": "info",
    "success": "success",
    "warning": "warning",
    "danger": "danger",
    "neutral": "neutral",
}


@dataclass(frozen=True, slots=True)
class ControlAction:
    """What pressing a control does: run a slash command or send a callback value."""

    kind: Literal["command", "callback"]
    #: the command text or the callback value
    value: str


@dataclass(frozen=True, slots=True)
class PresentationButton:
    label: str
    action: ControlAction | None = None
    value: str | None = None
    url: str | None = None
    web_app_url: str | None = None
    priority: int | float | None = None
    disabled: bool = False
    reusable: bool = False
    style: ButtonStyle | None = None


@dataclass(frozen=True, slots=True)
class PresentationOption:
    label: str
    #: the option's value (the action's value when the option gave none)
    value: str
    action: ControlAction | None = None


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str
    #: `context` blocks exist only in presentations, not in legacy interactive replies
    kind: Literal["text", "context"] = "text"


@dataclass(frozen=True, slots=True)
class DividerBlock:
    pass


@dataclass(frozen=True, slots=True)
class ButtonsBlock:
    buttons: tuple[PresentationButton, ...]


@dataclass(frozen=True, slots=True)
class SelectBlock:
    options: tuple[PresentationOption, ...]
    placeholder: str | None = None


InteractiveBlock: TypeAlias = TextBlock | ButtonsBlock | SelectBlock
PresentationBlock: TypeAlias = TextBlock | DividerBlock | ButtonsBlock | SelectBlock


@dataclass(frozen=True, slots=True)
class MessagePresentation:
    """A portable rich message: an optional title, a tone and its blocks."""

    blocks: tuple[PresentationBlock, ...] = ()
    title: str | None = None
    tone: Tone | None = None


@dataclass(frozen=True, slots=True)
class InteractiveReply:
    """The deprecated interactive reply: blocks only."""

    blocks: tuple[InteractiveBlock, ...]


def _first_string(record: JsonObject, *keys: str) -> str | None:
    for key in keys:
        value = normalize_optional_string(record.get(key))
        if value is not None:
            return value
    return None


def _action(raw: JsonValue) -> ControlAction | None:
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "command":
        command = normalize_optional_string(record.get("command"))
        return ControlAction("command", command) if command else None
    if kind == "callback":
        value = normalize_optional_string(record.get("value"))
        return ControlAction("callback", value) if value else None
    return None


def _style(raw: JsonValue) -> ButtonStyle | None:
    return _BUTTON_STYLES.get(normalize_optional_lowercase(raw) or "")


def _tone(raw: JsonValue) -> Tone | None:
    return _TONES.get(normalize_optional_lowercase(raw) or "")


def _button(raw: JsonValue) -> PresentationButton | None:
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
    return PresentationButton(
        label=label,
        action=action,
        value=value,
        url=url,
        web_app_url=web_app_url,
        priority=priority if is_finite_number(priority) else None,
        disabled=record.get("disabled") is True,
        reusable=record.get("reusable") is True,
        style=_style(record.get("style")),
    )


def _option(raw: JsonValue) -> PresentationOption | None:
    record = as_record(raw)
    if record is None:
        return None
    label = _first_string(record, "label", "text")
    action = _action(record.get("action"))
    value = normalize_optional_string(record.get("value")) or (action.value if action else None)
    if not label or not value:
        return None
    return PresentationOption(label=label, value=value, action=action)


def _normalized(value: JsonValue, normalize: Callable[[JsonValue], T | None]) -> tuple[T, ...]:
    items = as_list(value)
    if items is None:
        return ()
    return tuple(item for item in (normalize(entry) for entry in items) if item is not None)


def _controls_block(record: JsonObject, kind: str | None) -> ButtonsBlock | SelectBlock | None:
    if kind == "buttons":
        buttons = _normalized(record.get("buttons"), _button)
        return ButtonsBlock(buttons) if buttons else None
    if kind == "select":
        options = _normalized(record.get("options"), _option)
        if not options:
            return None
        return SelectBlock(options, placeholder=normalize_optional_string(record.get("placeholder")))
    return None


def _interactive_block(raw: JsonValue) -> InteractiveBlock | None:
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "text":
        text = normalize_optional_string(record.get("text"))
        return TextBlock(text) if text else None
    return _controls_block(record, kind)


def _presentation_block(raw: JsonValue) -> PresentationBlock | None:
    record = as_record(raw)
    if record is None:
        return None
    kind = normalize_optional_lowercase(record.get("type"))
    if kind == "text" or kind == "context":
        text = normalize_optional_string(record.get("text"))
        return TextBlock(text, kind="text" if kind == "text" else "context") if text else None
    if kind == "divider":
        return DividerBlock()
    return _controls_block(record, kind)


def normalize_legacy_interactive_reply(raw: JsonValue) -> InteractiveReply | None:
    """The valid blocks of a legacy interactive reply, or None when none survive."""
    record = as_record(raw)
    if record is None:
        return None
    blocks: tuple[InteractiveBlock, ...] = _normalized(record.get("blocks"), _interactive_block)
    return InteractiveReply(blocks) if blocks else None


def normalize_message_presentation(raw: JsonValue) -> MessagePresentation | None:
    """A presentation's title, tone and valid blocks, or None without a title or a block."""
    record = as_record(raw)
    if record is None:
        return None
    blocks: tuple[PresentationBlock, ...] = _normalized(
        record.get("blocks"), _presentation_block
    )
    title = normalize_optional_string(record.get("title"))
    if not title and not blocks:
        return None
    return MessagePresentation(blocks=blocks, title=title, tone=_tone(record.get("tone")))
