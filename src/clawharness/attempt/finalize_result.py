"""The settled-turn finalization result: the narrow contract and its visible text.

When a native turn finished all its tool calls but produced no visible text, the host
asks the owning harness, once, for a final answer with tools disabled. The harness
returns a deliberately narrow JSON object: an assistant message, usage and transcript
ownership facts, nothing else. Capability or delivery fields cannot cross it.

`parse_settled_turn_finalization_result` is the host's check of that contract, where the
harness's answer enters; it yields a `SettledTurnFinalizationResult`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from clawharness._json import JsonObject, JsonValue
from clawharness._text import BLANK_CLASS, trim
from clawharness.delivery.silent import is_silent_reply_text
from clawharness.errors import HarnessError

__all__ = [
    "ALLOWED_SETTLED_FINALIZATION_RESULT_KEYS",
    "EmptySettledTurnFinalizationError",
    "SettledTurnFinalizationRejectedError",
    "SettledTurnFinalizationResult",
    "extract_assistant_visible_text",
    "parse_settled_turn_finalization_result",
    "resolve_settled_turn_finalization_text",
]

#: the only fields a finalization result may carry
ALLOWED_SETTLED_FINALIZATION_RESULT_KEYS = frozenset(
    {
        "assistant",
        "usage",
        "assistantTranscriptOwned",
        "assistantTranscriptIdempotencyKey",
        "assistantMessageIndex",
        "diagnosticTrace",
    }
)
#: the largest integer every JSON reader holds exactly (2**53 - 1)
_MAX_EXACT_JSON_INTEGER: Final = 2**53 - 1


class SettledTurnFinalizationRejectedError(HarnessError):
    """A finalization result or attempt broke the contract."""

    code = "settled_turn_finalization_rejected"


@dataclass(frozen=True, slots=True)
class SettledTurnFinalizationResult:
    """A finalizer's answer that passed the contract check."""

    #: the assistant message (stop reason "stop", no tool call, visible text)
    assistant: JsonObject
    usage: JsonValue = None
    #: the harness already wrote the assistant row to the transcript itself
    assistant_transcript_owned: bool = False
    assistant_transcript_idempotency_key: JsonValue = None
    #: where the answer sits in the harness's message list, when it said
    assistant_message_index: int | None = None
    diagnostic_trace: JsonValue = None


class EmptySettledTurnFinalizationError(HarnessError):
    """The finalizer stopped normally but its answer had no visible text (or was NO_REPLY)."""

    code = "settled_turn_finalization_empty"

    def __init__(self, result: SettledTurnFinalizationResult):
        super().__init__("Settled-turn finalization completed without a visible answer")
        self.result = result


# --- visible text of an assistant message ---------------------------------------------

_THINK_TAG = "(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"
_S = BLANK_CLASS
_ANY = f"[{BLANK_CLASS[1:-1]}\\S]"
_TAG_FLAGS = re.ASCII | re.IGNORECASE
_THINK_BLOCK = re.compile(
    f"<{_S}*{_THINK_TAG}\\b[^<>]*>{_ANY}*?<{_S}*/{_S}*{_THINK_TAG}{_S}*>", _TAG_FLAGS)
_THINK_OPEN = re.compile(f"<{_S}*{_THINK_TAG}\\b[^<>]*>{_ANY}*\\Z", _TAG_FLAGS)
_FINAL_TAG = re.compile(f"<{_S}*(?:/{_S}*)?final{_S}*>", _TAG_FLAGS)
_TEXT_BLOCK_TYPES = ("text", "input_text", "output_text")


def _sanitize_text(text: str) -> str:
    # Reasoning wrapped in tags never reaches users; an unclosed tag hides the rest.
    stripped = _THINK_BLOCK.sub("", text)
    stripped = _THINK_OPEN.sub("", stripped)
    return trim(_FINAL_TAG.sub("", stripped))


def _phase(value: object) -> str | None:
    return value if value in ("commentary", "final_answer") and isinstance(value, str) else None


def _signature_phase(value: JsonValue) -> str | None:
    """The phase a block's text signature declares (a v1 JSON signature may; a bare id,
    a malformed or an unknown signature does not)."""
    if not isinstance(value, str) or not value.startswith("{"):
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or parsed.get("v") != 1:
        return None
    return _phase(parsed.get("phase"))


def _extract_for_phase(message: Mapping[str, object], phase: str | None) -> tuple[str, bool]:
    message_phase = _phase(message.get("phase"))
    content = message.get("content")
    if isinstance(content, str):
        requested = message_phase == phase
        return (_sanitize_text(content) if requested else "", requested)
    if not isinstance(content, list):
        return ("", False)
    blocks = [
        (text, _signature_phase(block.get("textSignature")))
        for block in content
        if isinstance(block, dict) and block.get("type") in _TEXT_BLOCK_TYPES
        and isinstance(text := block.get("text"), str)
    ]
    # Once any block declares its phase, undeclared blocks no longer inherit the message's.
    explicit = any(block_phase for _, block_phase in blocks)
    parts: list[str] = []
    requested = False
    for text, block_phase in blocks:
        resolved = block_phase or (None if explicit else message_phase)
        if resolved != phase:
            continue
        requested = True
        cleaned = _sanitize_text(text)
        if trim(cleaned):
            parts.append(cleaned)
    return (trim("\n".join(parts)), requested)


def extract_assistant_visible_text(message: Mapping[str, object]) -> str:
    """User-visible text of an assistant message, preferring final-answer phase blocks."""
    final_text, had_final = _extract_for_phase(message, "final_answer")
    if had_final:
        return final_text if trim(final_text) else ""
    return _extract_for_phase(message, None)[0]


# --- the narrow result contract -------------------------------------------------------


def _contains_tool_call(assistant: Mapping[str, JsonValue]) -> bool:
    content = assistant.get("content")
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "toolCall" for block in content
    )


def _message_index(value: JsonValue) -> int | None:
    """A non-negative integer index; None for anything else (1.5, -1, "3", null, 2**53)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    index = int(value)
    return index if 0 <= index <= _MAX_EXACT_JSON_INTEGER else None


def _describe(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def resolve_settled_turn_finalization_text(result: SettledTurnFinalizationResult) -> str:
    """The answer text, or EmptySettledTurnFinalizationError when none is visible."""
    text = trim(extract_assistant_visible_text(result.assistant))
    if not text or is_silent_reply_text(text):
        raise EmptySettledTurnFinalizationError(result)
    return text


def parse_settled_turn_finalization_result(
    raw: Mapping[str, JsonValue],
) -> SettledTurnFinalizationResult:
    """Check a finalizer's JSON result before core turns it into a terminal reply.

    Raises `SettledTurnFinalizationRejectedError` naming the broken rule (an unknown
    field, no assistant message, a tool call, a stop reason other than "stop", an
    invalid message index) and `EmptySettledTurnFinalizationError` when the answer has
    no visible text.
    """
    unknown = next((key for key in raw if key not in ALLOWED_SETTLED_FINALIZATION_RESULT_KEYS),
                   None)
    if unknown is not None:
        raise SettledTurnFinalizationRejectedError(
            f"Settled-turn finalization returned unsupported result field: {unknown}"
        )
    assistant = raw.get("assistant")
    if not isinstance(assistant, dict) or assistant.get("role") != "assistant":
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization did not return an assistant message"
        )
    stop_reason = assistant.get("stopReason")
    if stop_reason == "toolUse" or _contains_tool_call(assistant):
        raise SettledTurnFinalizationRejectedError("Settled-turn finalization returned a tool call")
    if stop_reason != "stop":
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization returned unsuccessful stop reason: "
            f"{_describe(stop_reason)}"
        )
    index: int | None = None
    if "assistantMessageIndex" in raw:
        index = _message_index(raw["assistantMessageIndex"])
        if index is None:
            raise SettledTurnFinalizationRejectedError(
                "Settled-turn finalization returned an invalid assistant message index"
            )
    result = SettledTurnFinalizationResult(
        assistant=assistant,
        usage=raw.get("usage"),
        assistant_transcript_owned=raw.get("assistantTranscriptOwned") is True,
        assistant_transcript_idempotency_key=raw.get("assistantTranscriptIdempotencyKey"),
        assistant_message_index=index,
        diagnostic_trace=raw.get("diagnosticTrace"),
    )
    resolve_settled_turn_finalization_text(result)
    return result
