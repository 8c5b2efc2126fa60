"""Silent replies (`NO_REPLY`) and the payload-level "nothing to deliver" decision.

A model says "stay quiet" by answering with the token `NO_REPLY`. Delivery must
suppress such a reply, but only when nothing else in the payload is sendable: a
`NO_REPLY` carrying media, a location, a rich presentation or channel data is still
delivered. A reply that merely *ends* with the token is a real answer and is kept.

Forms recognised as silent text:

- the token alone, any case, possibly repeated (`NO_REPLY NO_REPLY`), with surrounding
  whitespace or edge punctuation (`**NO_REPLY**`, `NO_REPLY.`);
- a JSON string `"NO_REPLY"` or the one-key envelope `{"action": "NO_REPLY"}`;
- model reasoning followed by the token (`<thinking>..</thinking>NO_REPLY`,
  `thinking:\\nI will stay quiet. NO_REPLY`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from functools import cache
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import JS_WS, get, is_js_number, is_record, js_trim, js_truthy

__all__ = [
    "SILENT_REPLY_TOKEN",
    "has_reply_payload_content",
    "is_silent_payload",
    "is_silent_reply_payload_text",
    "is_silent_reply_text",
]

#: the token that marks an intentionally silent reply
SILENT_REPLY_TOKEN = "NO_REPLY"

# JavaScript `/i` without `/u` folds case for ASCII letters only, like re.ASCII here.
_FLAGS = re.IGNORECASE | re.ASCII
_W = JS_WS


@cache
def _exact_regex(token: str) -> re.Pattern[str]:
    escaped = re.escape(token)
    return re.compile(f"^{_W}*{escaped}(?:{_W}+{escaped})*{_W}*\\Z", _FLAGS)


def _strip_edge_punctuation(text: str) -> str:
    start = 0
    while start < len(text) and unicodedata.category(text[start]).startswith("P"):
        start += 1
    end = len(text)
    while end > start and unicodedata.category(text[end - 1]).startswith("P"):
        end -= 1
    return text[start:end]


def is_silent_reply_text(text: Any, token: str = SILENT_REPLY_TOKEN) -> bool:
    """True only for token-only replies (repeats and edge punctuation allowed)."""
    if not isinstance(text, str) or not text:
        return False
    regex = _exact_regex(token)
    return bool(regex.match(text) or regex.match(_strip_edge_punctuation(js_trim(text))))


def _is_json_string_silent(text: str, token: str) -> bool:
    trimmed = js_trim(text)
    if not (trimmed.startswith('"') and trimmed.endswith('"') and token in trimmed):
        return False
    try:
        parsed = json.loads(trimmed)
    except ValueError:
        return False
    return isinstance(parsed, str) and js_trim(parsed) == token


def _is_envelope_silent(text: str, token: str) -> bool:
    trimmed = js_trim(text)
    if (
        not trimmed
        or not trimmed.startswith("{")
        or not trimmed.endswith("}")
        or token not in trimmed
    ):
        return False
    try:
        parsed = json.loads(trimmed)
    except ValueError:
        return False
    if not isinstance(parsed, dict):
        return False
    action = parsed.get("action")
    return list(parsed) == ["action"] and isinstance(action, str) and js_trim(action) == token


_TAG_NAME = "(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"
_TAGGED_REASONING_PREFIX = re.compile(
    f"^{_W}*<{_W}*{_TAG_NAME}\\b[^<>]*>[\\s\\S]*?<{_W}*/{_W}*{_TAG_NAME}{_W}*>{_W}*", _FLAGS
)
_OPEN_REASONING_PREFIX = re.compile(f"^{_W}*<{_W}*{_TAG_NAME}\\b[^<>]*>", _FLAGS)
_PLAIN_REASONING_PREFIX = re.compile(
    f"^{_W}*(?:think(?:ing)?|thought|analysis|reasoning){_W}*:?{_W}*\\r?\\n", _FLAGS
)
_SCOPE = f"(?:{_W}+(?:here|for{_W}+now|on{_W}+this|in{_W}+this{_W}+(?:chat|thread|channel|conversation)))?"
_SILENT_INTENT = re.compile(
    f"^{_W}*(?:i|i'll|i{_W}+will|i'm|i{_W}+am|we|we'll|we{_W}+will|the{_W}+assistant|assistant"
    f"|the{_W}+bot|bot|openclaw){_W}+"
    f"(?:(?:will{_W}+)?(?:stay|remain|keep|be){_W}+(?:quiet|silent){_SCOPE}"
    f"|(?:do{_W}+not|don't|dont|will{_W}+not|won't|would{_W}+not|should{_W}+not){_W}+"
    f"(?:reply|respond){_SCOPE}"
    f"|(?:have|has){_W}+nothing{_W}+(?:to|for){_W}+(?:say|add|reply|respond))"
    f"(?:[.!?]+)?{_W}*\\Z",
    _FLAGS,
)
_SUBSTANTIVE_ANSWER_CUE = re.compile(
    f"\\b(?:answer|here(?:'s|{_W}+is)|tell{_W}+them|you{_W}+(?:should|can|could|need|must)|please"
    f"|try|use|send|service{_W}+is|resolved|retry|yes|no,|sure)\\b",
    _FLAGS,
)
_BARE_REASONING_PLACEHOLDER = re.compile(
    f"^{_W}*(?:(?:internal|private){_W}+)?(?:reasoning|thinking|thoughts?|analysis)"
    f"(?:{_W}+notes?)?{_W}*\\Z",
    _FLAGS,
)


def _strip_leading_reasoning_blocks(text: str) -> str:
    current = text
    while True:
        following = _TAGGED_REASONING_PREFIX.sub("", current, count=1)
        if following == current:
            return current
        current = following


def _strip_final_token(text: str, token: str) -> str | None:
    pattern = re.compile(f"(?:^|[{JS_WS[1:-1]}*.]){re.escape(token)}{_W}*\\Z", _FLAGS)
    stripped = js_trim(pattern.sub("", text, count=1))
    return None if stripped == js_trim(text) else stripped


def _has_silent_intent_final_token(text: str, token: str) -> bool:
    without = _strip_final_token(text, token)
    if without is None:
        return False
    return not without or bool(_SILENT_INTENT.match(without))


def _has_plain_reasoning_final_token(text: str, token: str) -> bool:
    without = _strip_final_token(text, token)
    if without is None:
        return False
    if not without or _SILENT_INTENT.match(without):
        return True
    lines = [js_trim(line) for line in re.split(r"\r?\n", without)]
    lines = [line for line in lines if line]
    final_line = lines[-1] if lines else ""
    previous = "\n".join(lines[:-1])
    intent_after_notes = bool(
        final_line
        and _SILENT_INTENT.match(final_line)
        and previous
        and not _SUBSTANTIVE_ANSWER_CUE.search(previous)
    )
    return intent_after_notes or bool(_BARE_REASONING_PLACEHOLDER.match(without))


def _is_reasoning_prefixed_silent(text: str, token: str) -> bool:
    trimmed = js_trim(text)
    if not trimmed:
        return False
    without_blocks = _strip_leading_reasoning_blocks(trimmed)
    if without_blocks != trimmed:
        return is_silent_reply_text(without_blocks, token) or _has_silent_intent_final_token(
            without_blocks, token
        )
    if _OPEN_REASONING_PREFIX.match(trimmed):
        rest = _OPEN_REASONING_PREFIX.sub("", trimmed, count=1)
        return is_silent_reply_text(rest, token) or _has_plain_reasoning_final_token(rest, token)
    if not _PLAIN_REASONING_PREFIX.match(trimmed):
        return False
    rest = _PLAIN_REASONING_PREFIX.sub("", trimmed, count=1)
    return is_silent_reply_text(rest, token) or _has_plain_reasoning_final_token(rest, token)


def is_silent_reply_payload_text(text: Any, token: str = SILENT_REPLY_TOKEN) -> bool:
    """True for token-only text, its JSON forms, or reasoning followed by the token."""
    if not isinstance(text, str) or not text:
        return False
    return (
        is_silent_reply_text(text, token)
        or _is_json_string_silent(text, token)
        or _is_envelope_silent(text, token)
        or _is_reasoning_prefixed_silent(text, token)
    )


# --- rich content: a presentation or legacy interactive block counts only when valid ---


def normalize_optional_string(value: Any) -> Any:
    """A trimmed non-empty string, else `undefined`."""
    if not isinstance(value, str):
        return UNDEFINED
    trimmed = js_trim(value)
    return trimmed if trimmed else UNDEFINED


def _lower(value: Any) -> Any:
    normalized = normalize_optional_string(value)
    return normalized.lower() if isinstance(normalized, str) else UNDEFINED


def _well_formed_id(value: str) -> bool:
    # Non-empty, not a dot segment, and no unpaired UTF-16 surrogate.
    return value not in ("", ".", "..") and not any(0xD800 <= ord(c) <= 0xDFFF for c in value)


_PICKER_TOKEN = re.compile(r"^[A-Za-z0-9_-]+\Z")


def _picker_token(value: Any) -> bool:
    token = normalize_optional_string(value)
    return isinstance(token, str) and len(token) <= 128 and bool(_PICKER_TOKEN.match(token))


def _valid_model_picker(record: Mapping[str, Any]) -> bool:
    if record.get("type") != "model-picker" or record.get("version") != 1:
        return False
    if not _picker_token(record.get("snapshotToken")):
        return False
    intent = record.get("intent")
    cursor_ok = (
        "cursor" not in record
        or record.get("cursor") is UNDEFINED
        or _picker_token(record.get("cursor"))
    )
    tokens = {name: _picker_token(record.get(name)) for name in ("providerToken", "modelToken")}
    if intent in ("show-providers", "show-recents"):
        return cursor_ok
    if intent == "show-models":
        return tokens["providerToken"] and cursor_ok
    if intent == "choose-model":
        return tokens["providerToken"] and tokens["modelToken"]
    if intent == "choose-runtime":
        return (
            tokens["providerToken"]
            and tokens["modelToken"]
            and _picker_token(record.get("runtimeToken"))
        )
    return intent in ("reset", "cancel")


def _action_type(raw: Any) -> str | None:
    """The type of a valid presentation action, or None when it does not normalise."""
    if not is_record(raw):
        return None
    kind = _lower(raw.get("type"))
    if kind == "command":
        return kind if normalize_optional_string(raw.get("command")) is not UNDEFINED else None
    if kind == "callback":
        return kind if normalize_optional_string(raw.get("value")) is not UNDEFINED else None
    if kind == "model-picker":
        return kind if _valid_model_picker(raw) else None
    if kind == "approval":
        approval_id = raw.get("approvalId")
        valid = (
            raw.get("type") == "approval"
            and isinstance(approval_id, str)
            and _well_formed_id(approval_id)
            and raw.get("approvalKind") in ("exec", "plugin", "system-agent")
            and raw.get("decision") in ("allow-once", "allow-always", "deny")
        )
        return kind if valid else None
    if kind == "question":
        question_id = raw.get("questionId")
        if raw.get("type") != "question" or not isinstance(question_id, str):
            return None
        if not _well_formed_id(question_id):
            return None
        intent = raw.get("intent", UNDEFINED)
        if intent is UNDEFINED:
            option = raw.get("optionValue")
            return kind if isinstance(option, str) and js_trim(option) else None
        return kind if intent == "custom-input" else None
    if kind in ("url", "web-app"):
        url = normalize_optional_string(raw.get("url")) is not UNDEFINED
        widget = (
            kind == "web-app" and normalize_optional_string(raw.get("widgetId")) is not UNDEFINED
        )
        return kind if url or widget else None
    return None


def _valid_button(raw: Any) -> bool:
    if not is_record(raw):
        return False
    label = _first_string(raw, "label", "text")
    value = _first_string(raw, "value", "callbackData", "callback_data")
    web_app = raw.get("webApp") if is_record(raw.get("webApp")) else raw.get("web_app")
    web_url = is_record(web_app) and normalize_optional_string(web_app.get("url")) is not UNDEFINED
    has_action = "action" in raw and raw["action"] is not UNDEFINED
    action = _action_type(raw["action"]) if has_action else None
    if not label or (has_action and action is None):
        return False
    url = normalize_optional_string(raw.get("url")) is not UNDEFINED
    return bool(action or value or url or web_url)


def _valid_option(raw: Any) -> bool:
    if not is_record(raw):
        return False
    label = _first_string(raw, "label", "text")
    value = normalize_optional_string(raw.get("value")) is not UNDEFINED
    has_action = "action" in raw and raw["action"] is not UNDEFINED
    action = _action_type(raw["action"]) if has_action else None
    if action not in ("command", "callback", "model-picker"):
        action = None
    if not label or (has_action and action is None):
        return False
    return bool(action or value)


def _first_string(record: Mapping[str, Any], *keys: str) -> bool:
    return any(normalize_optional_string(record.get(key)) is not UNDEFINED for key in keys)


def _finite(value: Any) -> bool:
    return is_js_number(value) and value == value and value not in (float("inf"), float("-inf"))


def _unique_strings(values: Any) -> list[str] | None:
    if not isinstance(values, list) or not values:
        return None
    normalized = [normalize_optional_string(value) for value in values]
    if any(entry is UNDEFINED for entry in normalized) or len(set(normalized)) != len(normalized):
        return None
    return [str(entry) for entry in normalized]


def _valid_chart(record: Mapping[str, Any]) -> bool:
    if normalize_optional_string(record.get("title")) is UNDEFINED:
        return False
    chart_type = _lower(record.get("chartType"))
    if chart_type == "pie":
        segments = record.get("segments")
        return (
            isinstance(segments, list)
            and bool(segments)
            and all(
                is_record(entry)
                and normalize_optional_string(entry.get("label")) is not UNDEFINED
                and _finite(entry.get("value"))
                and entry["value"] > 0
                for entry in segments
            )
        )
    if chart_type not in ("bar", "area", "line"):
        return False
    categories = _unique_strings(record.get("categories"))
    series = record.get("series")
    if categories is None or not isinstance(series, list) or not series:
        return False
    names: list[Any] = []
    for entry in series:
        values = entry.get("values") if is_record(entry) else None
        name = normalize_optional_string(entry.get("name")) if is_record(entry) else UNDEFINED
        if name is UNDEFINED or not isinstance(values, list) or len(values) != len(categories):
            return False
        if not all(_finite(value) for value in values):
            return False
        names.append(name)
    return len(set(names)) == len(names)


def _valid_table(record: Mapping[str, Any]) -> bool:
    headers = _unique_strings(record.get("headers"))
    rows = record.get("rows")
    if normalize_optional_string(record.get("caption")) is UNDEFINED or headers is None:
        return False
    if not isinstance(rows, list) or not rows:
        return False
    for row in rows:
        if not isinstance(row, list) or len(row) != len(headers):
            return False
        for cell in row:
            ok = (
                _finite(cell)
                if is_js_number(cell)
                else normalize_optional_string(cell) is not UNDEFINED
            )
            if not ok:
                return False
    index = record.get("rowHeaderColumnIndex", UNDEFINED)
    if index is UNDEFINED:
        return True
    return is_js_number(index) and float(index).is_integer() and 0 <= index < len(headers)


def _valid_block(raw: Any, *, presentation: bool) -> bool:
    if not is_record(raw):
        return False
    kind = _lower(raw.get("type"))
    if kind == "text" or (presentation and kind == "context"):
        return normalize_optional_string(raw.get("text")) is not UNDEFINED
    if kind == "buttons":
        buttons = raw.get("buttons")
        return isinstance(buttons, list) and any(_valid_button(entry) for entry in buttons)
    if kind == "select":
        options = raw.get("options")
        return isinstance(options, list) and any(_valid_option(entry) for entry in options)
    if not presentation:
        return False
    if kind == "divider":
        return True
    if kind == "chart":
        return _valid_chart(raw)
    return kind == "table" and _valid_table(raw)


def has_message_presentation_blocks(value: Any) -> bool:
    """True when a presentation normalises to a title or at least one valid block."""
    if not is_record(value):
        return False
    blocks = value.get("blocks")
    has_block = isinstance(blocks, list) and any(_valid_block(b, presentation=True) for b in blocks)
    return has_block or normalize_optional_string(value.get("title")) is not UNDEFINED


def has_legacy_interactive_reply_blocks(value: Any) -> bool:
    """True when a deprecated interactive reply has at least one valid block."""
    if not is_record(value):
        return False
    blocks = value.get("blocks")
    return isinstance(blocks, list) and any(_valid_block(b, presentation=False) for b in blocks)


def _has_channel_data(value: Any) -> bool:
    return is_record(value) and len(value) > 0


def has_reply_payload_content(
    payload: Mapping[str, Any],
    *,
    trim_text: bool = False,
    has_channel_data: bool | None = None,
    extra_content: bool | None = None,
) -> bool:
    """True when a reply payload carries anything a channel could send."""
    text = get(payload, "text")
    if trim_text and isinstance(text, str):
        text = js_trim(text)
    media_urls = get(payload, "mediaUrls")
    channel = (
        _has_channel_data(get(payload, "channelData"))
        if has_channel_data is None
        else has_channel_data
    )
    extra = (
        (get(payload, "location") not in (None, UNDEFINED))
        if extra_content is None
        else extra_content
    )
    return bool(
        normalize_optional_string(text) is not UNDEFINED
        or normalize_optional_string(get(payload, "mediaUrl")) is not UNDEFINED
        or (
            isinstance(media_urls, list)
            and any(normalize_optional_string(entry) is not UNDEFINED for entry in media_urls)
        )
        or has_message_presentation_blocks(get(payload, "presentation"))
        or has_legacy_interactive_reply_blocks(get(payload, "interactive"))
        or channel
        or js_truthy(extra)
    )


def is_silent_payload(payload: Mapping[str, Any]) -> bool:
    """True when delivery should drop the payload: silent text and nothing else to send."""
    if not isinstance(payload, Mapping):
        return False
    if not is_silent_reply_payload_text(get(payload, "text"), SILENT_REPLY_TOKEN):
        return False
    return not has_reply_payload_content({**payload, "text": UNDEFINED}, trim_text=True)
