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

import dataclasses
import json
import re
import unicodedata
from collections.abc import Mapping
from functools import cache
from typing import Final

from clawharness._json import JsonValue
from clawharness.delivery._coerce import WHITESPACE_CLASS, strip_whitespace
from clawharness.delivery.reply_content import (
    ReplyPayload,
    has_reply_payload_content,
    parse_reply_payload,
)

__all__ = [
    "SILENT_REPLY_TOKEN",
    "is_silent_payload",
    "is_silent_reply_payload_text",
    "is_silent_reply_text",
]

#: the token that marks an intentionally silent reply
SILENT_REPLY_TOKEN = "NO_REPLY"

# ASCII-only case folding and word boundaries: the token and the cues are English words.
_FLAGS = re.IGNORECASE | re.ASCII
_W = WHITESPACE_CLASS


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


def is_silent_reply_text(text: str | None, token: str = SILENT_REPLY_TOKEN) -> bool:
    """True only for token-only replies (repeats and edge punctuation allowed)."""
    if not isinstance(text, str) or not text:
        return False
    regex = _exact_regex(token)
    return bool(regex.match(text) or regex.match(_strip_edge_punctuation(strip_whitespace(text))))


def _is_json_string_silent(text: str, token: str) -> bool:
    trimmed = strip_whitespace(text)
    if not (trimmed.startswith('"') and trimmed.endswith('"') and token in trimmed):
        return False
    try:
        parsed = json.loads(trimmed)
    except ValueError:
        return False
    return isinstance(parsed, str) and strip_whitespace(parsed) == token


def _is_envelope_silent(text: str, token: str) -> bool:
    trimmed = strip_whitespace(text)
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
    return list(parsed) == ["action"] and isinstance(action, str) and strip_whitespace(action) == token


_TAG_NAME = "(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"
_SCOPE = f"(?:{_W}+(?:here|for{_W}+now|on{_W}+this|in{_W}+this{_W}+(?:chat|thread|channel|conversation)))?"
# compiled when a reply first needs them (their whitespace class is large: compiling all
# of them cost every process that imports this module ~40 ms)
_SOURCES: Final = {
    "tagged_reasoning_prefix":
        f"^{_W}*<{_W}*{_TAG_NAME}\\b[^<>]*>[\\s\\S]*?<{_W}*/{_W}*{_TAG_NAME}{_W}*>{_W}*",
    "open_reasoning_prefix": f"^{_W}*<{_W}*{_TAG_NAME}\\b[^<>]*>",
    "plain_reasoning_prefix":
        f"^{_W}*(?:think(?:ing)?|thought|analysis|reasoning){_W}*:?{_W}*\\r?\\n",
    "silent_intent":
        f"^{_W}*(?:i|i'll|i{_W}+will|i'm|i{_W}+am|we|we'll|we{_W}+will|the{_W}+assistant|assistant"
        f"|the{_W}+bot|bot|openclaw){_W}+"
        f"(?:(?:will{_W}+)?(?:stay|remain|keep|be){_W}+(?:quiet|silent){_SCOPE}"
        f"|(?:do{_W}+not|don't|dont|will{_W}+not|won't|would{_W}+not|should{_W}+not){_W}+"
        f"(?:reply|respond){_SCOPE}"
        f"|(?:have|has){_W}+nothing{_W}+(?:to|for){_W}+(?:say|add|reply|respond))"
        f"(?:[.!?]+)?{_W}*\\Z",
    "substantive_answer_cue":
        f"\\b(?:answer|here(?:'s|{_W}+is)|tell{_W}+them|you{_W}+(?:should|can|could|need|must)|please"
        f"|try|use|send|service{_W}+is|resolved|retry|yes|no,|sure)\\b",
    "bare_reasoning_placeholder":
        f"^{_W}*(?:(?:internal|private){_W}+)?(?:reasoning|thinking|thoughts?|analysis)"
        f"(?:{_W}+notes?)?{_W}*\\Z",
}


@cache
def _rx(name: str) -> re.Pattern[str]:
    return re.compile(_SOURCES[name], _FLAGS)


def _strip_leading_reasoning_blocks(text: str) -> str:
    current = text
    while True:
        following = _rx("tagged_reasoning_prefix").sub("", current, count=1)
        if following == current:
            return current
        current = following


def _strip_final_token(text: str, token: str) -> str | None:
    pattern = re.compile(f"(?:^|[{WHITESPACE_CLASS[1:-1]}*.]){re.escape(token)}{_W}*\\Z", _FLAGS)
    stripped = strip_whitespace(pattern.sub("", text, count=1))
    return None if stripped == strip_whitespace(text) else stripped


def _has_silent_intent_final_token(text: str, token: str) -> bool:
    without = _strip_final_token(text, token)
    if without is None:
        return False
    return not without or bool(_rx("silent_intent").match(without))


def _has_plain_reasoning_final_token(text: str, token: str) -> bool:
    without = _strip_final_token(text, token)
    if without is None:
        return False
    if not without or _rx("silent_intent").match(without):
        return True
    lines = [strip_whitespace(line) for line in re.split(r"\r?\n", without)]
    lines = [line for line in lines if line]
    final_line = lines[-1] if lines else ""
    previous = "\n".join(lines[:-1])
    intent_after_notes = bool(
        final_line
        and _rx("silent_intent").match(final_line)
        and previous
        and not _rx("substantive_answer_cue").search(previous)
    )
    return intent_after_notes or bool(_rx("bare_reasoning_placeholder").match(without))


def _is_reasoning_prefixed_silent(text: str, token: str) -> bool:
    trimmed = strip_whitespace(text)
    if not trimmed:
        return False
    without_blocks = _strip_leading_reasoning_blocks(trimmed)
    if without_blocks != trimmed:
        return is_silent_reply_text(without_blocks, token) or _has_silent_intent_final_token(
            without_blocks, token
        )
    if _rx("open_reasoning_prefix").match(trimmed):
        rest = _rx("open_reasoning_prefix").sub("", trimmed, count=1)
        return is_silent_reply_text(rest, token) or _has_plain_reasoning_final_token(rest, token)
    if not _rx("plain_reasoning_prefix").match(trimmed):
        return False
    rest = _rx("plain_reasoning_prefix").sub("", trimmed, count=1)
    return is_silent_reply_text(rest, token) or _has_plain_reasoning_final_token(rest, token)


def is_silent_reply_payload_text(text: str | None, token: str = SILENT_REPLY_TOKEN) -> bool:
    """True for token-only text, its JSON forms, or reasoning followed by the token."""
    if not isinstance(text, str) or not text:
        return False
    # every form holds the token itself (its case aside: the patterns fold ASCII case);
    # a reply without it, as nearly every reply is, is answered by one search
    if token.lower() not in text.lower():
        return False
    return (
        is_silent_reply_text(text, token)
        or _is_json_string_silent(text, token)
        or _is_envelope_silent(text, token)
        or _is_reasoning_prefixed_silent(text, token)
    )


def is_silent_payload(payload: ReplyPayload | Mapping[str, JsonValue]) -> bool:
    """True when delivery should drop the payload: silent text and nothing else to send.

    A mapping is read as the camelCase payload a harness returns (`parse_reply_payload`).
    """
    reply = payload if isinstance(payload, ReplyPayload) else parse_reply_payload(payload)
    if not is_silent_reply_payload_text(reply.text, SILENT_REPLY_TOKEN):
        return False
    return not has_reply_payload_content(dataclasses.replace(reply, text=None))
