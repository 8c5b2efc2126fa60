"""Settled-turn finalization: the narrow result contract and its projection.

When a native turn finished all its tool calls but produced no visible text, the host
asks the owning harness, once, for a final answer with tools disabled. The harness
returns a deliberately narrow result: an assistant message, usage and transcript
ownership facts, nothing else. Capability or delivery fields cannot cross it.

`assert_settled_turn_finalization_result` is the host's check of that contract.
`project_settled_turn_finalization_attempt_result` lets a harness that runs the
finalization through its full attempt engine turn that engine's result into the narrow
one, rejecting failures and capability activity first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import (
    get,
    is_js_number,
    js_regex,
    js_string,
    js_trim,
    js_truthy,
    strict_deep_equal,
)
from clawharness.attempt.terminal import normalize_attempt_terminal
from clawharness.delivery.silent import is_silent_reply_text
from clawharness.errors import HarnessError

__all__ = [
    "ALLOWED_SETTLED_FINALIZATION_RESULT_KEYS",
    "EmptySettledTurnFinalizationError",
    "SettledTurnFinalizationRejectedError",
    "assert_settled_turn_finalization_result",
    "extract_assistant_visible_text",
    "project_settled_turn_finalization_attempt_result",
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
_MAX_SAFE_INTEGER = 2**53 - 1


class SettledTurnFinalizationRejectedError(HarnessError):
    """A finalization result or attempt broke the contract (JavaScript name `Error`)."""

    code = "settled_turn_finalization_rejected"
    js_name = "Error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class EmptySettledTurnFinalizationError(HarnessError):
    """The finalizer stopped normally but its answer had no visible text (or was NO_REPLY)."""

    code = "settled_turn_finalization_empty"
    js_name = "EmptySettledTurnFinalizationError"

    def __init__(self, result: Mapping[str, Any]):
        message = "Settled-turn finalization completed without a visible answer"
        super().__init__(message)
        self.message = message
        self.result = result

    @property
    def props(self) -> dict[str, Any]:
        """The error's extra own fields, as the original attaches them."""
        return {"result": self.result}


# --- visible text of an assistant message ---------------------------------------------

_THINK_TAG = "(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"
_THINK_BLOCK = js_regex(
    f"<\\s*{_THINK_TAG}\\b[^<>]*>[\\s\\S]*?<\\s*/\\s*{_THINK_TAG}\\s*>", ignore_case=True
)
_THINK_OPEN = js_regex(f"<\\s*{_THINK_TAG}\\b[^<>]*>[\\s\\S]*$", ignore_case=True)
_FINAL_TAG = js_regex("<\\s*(?:/\\s*)?final\\s*>", ignore_case=True)


def _sanitize_text(text: str) -> str:
    # Reasoning wrapped in tags never reaches users; an unclosed tag hides the rest.
    stripped = _THINK_BLOCK.sub("", text)
    stripped = _THINK_OPEN.sub("", stripped)
    return js_trim(_FINAL_TAG.sub("", stripped))


def _phase(value: Any) -> str | None:
    return value if value in ("commentary", "final_answer") else None


def _signature(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, str) or not js_trim(value):
        return None
    if not value.startswith("{"):
        return {"id": value}
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or parsed.get("v") != 1:
        return None
    out: dict[str, Any] = {}
    if isinstance(parsed.get("id"), str):
        out["id"] = parsed["id"]
    if _phase(parsed.get("phase")):
        out["phase"] = parsed["phase"]
    return out


def _text_blocks(content: list[Any]) -> list[tuple[str, dict[str, Any] | None]]:
    blocks: list[tuple[str, dict[str, Any] | None]] = []
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") not in (
            "text",
            "input_text",
            "output_text",
        ):
            continue
        text = block.get("text")
        if isinstance(text, str):
            blocks.append((text, _signature(block.get("textSignature"))))
    return blocks


def _extract_for_phase(message: Mapping[str, Any], phase: str | None) -> tuple[str, bool]:
    message_phase = _phase(message.get("phase"))
    content = message.get("content")
    if isinstance(content, str):
        requested = message_phase == phase
        return (_sanitize_text(content) if requested else "", requested)
    if not isinstance(content, list):
        return ("", False)
    blocks = _text_blocks(content)
    explicit = any(sig is not None and sig.get("phase") for _, sig in blocks)
    parts: list[str] = []
    requested = False
    for text, sig in blocks:
        resolved = (sig or {}).get("phase") or (None if explicit else message_phase)
        if resolved != phase:
            continue
        requested = True
        cleaned = _sanitize_text(text)
        if js_trim(cleaned):
            parts.append(cleaned)
    return (js_trim("\n".join(parts)), requested)


def extract_assistant_visible_text(message: Mapping[str, Any]) -> str:
    """User-visible text of an assistant message, preferring final-answer phase blocks."""
    final_text, had_final = _extract_for_phase(message, "final_answer")
    if had_final:
        return final_text if js_trim(final_text) else ""
    return _extract_for_phase(message, None)[0]


# --- the narrow result contract -------------------------------------------------------


def _contains_tool_call(assistant: Any) -> bool:
    content = get(assistant, "content")
    return isinstance(content, list) and any(
        isinstance(block, Mapping) and block.get("type") == "toolCall" for block in content
    )


def _is_safe_integer(value: Any) -> bool:
    if not is_js_number(value):
        return False
    number = float(value)
    return number.is_integer() and abs(number) <= _MAX_SAFE_INTEGER


def resolve_settled_turn_finalization_text(result: Mapping[str, Any]) -> str:
    """The answer text, or EmptySettledTurnFinalizationError when none is visible."""
    assistant = result.get("assistant")
    text = (
        js_trim(extract_assistant_visible_text(assistant)) if isinstance(assistant, Mapping) else ""
    )
    if not text or is_silent_reply_text(text):
        raise EmptySettledTurnFinalizationError(result)
    return text


def assert_settled_turn_finalization_result(result: Mapping[str, Any]) -> Mapping[str, Any]:
    """Validate a finalizer's result before core turns it into a terminal reply."""
    unknown = next(
        (key for key in result if key not in ALLOWED_SETTLED_FINALIZATION_RESULT_KEYS), None
    )
    if unknown is not None:
        raise SettledTurnFinalizationRejectedError(
            f"Settled-turn finalization returned unsupported result field: {unknown}"
        )
    assistant = result.get("assistant")
    if not js_truthy(assistant) or get(assistant, "role") != "assistant":
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization did not return an assistant message"
        )
    stop_reason = get(assistant, "stopReason")
    if stop_reason == "toolUse" or _contains_tool_call(assistant):
        raise SettledTurnFinalizationRejectedError("Settled-turn finalization returned a tool call")
    if stop_reason != "stop":
        raise SettledTurnFinalizationRejectedError(
            f"Settled-turn finalization returned unsuccessful stop reason: {js_string(stop_reason)}"
        )
    index = result.get("assistantMessageIndex", UNDEFINED)
    if index is not UNDEFINED and (not _is_safe_integer(index) or index < 0):
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization returned an invalid assistant message index"
        )
    resolve_settled_turn_finalization_text(result)
    return result


# --- projecting a full attempt result -------------------------------------------------


def _count(value: Any) -> float:
    """`value ?? 0` coerced the way a JavaScript `>` comparison coerces it."""
    if value is None or value is UNDEFINED or value is False:
        return 0
    if value is True:
        return 1
    if is_js_number(value):
        return float(value)
    if isinstance(value, str):
        try:
            return float(js_trim(value) or "0")
        except ValueError:
            return float("nan")
    return float("nan")


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (list, str)) else 0


def _only_rejected_tool_calls(result: Mapping[str, Any]) -> bool:
    # The finalizer runs with tools disabled, so a call it makes is rejected before it runs.
    # Calls that all failed without starting, and left nothing running, did no work.
    metas = result.get("toolMetas")
    lifecycle = get(result, "itemLifecycle")
    return (
        isinstance(metas, list)
        and len(metas) > 0
        and all(
            get(tool, "isError") is True
            and get(tool, "asyncStarted") is not True
            and get(tool, "terminate") is not True
            and get(tool, "codeModeSuspended") is not True
            for tool in metas
        )
        and get(get(result, "lastToolError"), "executionStarted") is False
        and strict_deep_equal(get(lifecycle, "activeCount"), 0)
        and strict_deep_equal(get(lifecycle, "completedCount"), get(lifecycle, "startedCount"))
    )


def _has_capability_activity(result: Mapping[str, Any]) -> bool:
    lifecycle = get(result, "itemLifecycle")
    replay = get(result, "replayMetadata")
    current_replay = get(result, "currentAttemptReplayMetadata")
    tool_evidence = (
        _length(result.get("toolMetas")) > 0
        or _count(get(lifecycle, "startedCount")) > 0
        or _count(get(lifecycle, "completedCount")) > 0
        or _count(get(lifecycle, "activeCount")) > 0
        or js_truthy(get(current_replay, "hadPotentialSideEffects"))
        or (js_truthy(current_replay) and not js_truthy(get(current_replay, "replaySafe")))
        or js_truthy(get(result, "lastToolError"))
    )
    if tool_evidence and not _only_rejected_tool_calls(result):
        return True
    truthy_fields = (
        "didSendViaMessagingTool",
        "didDeliverSourceReplyViaMessageTool",
        "didSendDeterministicApprovalPrompt",
        "heartbeatToolResponse",
        "toolAudioAsVoice",
        "toolTrustedLocalMedia",
        "hasToolMediaBlockReply",
        "yieldDetected",
    )
    list_fields = (
        "clientToolCalls",
        "acceptedSessionSpawns",
        "messagingToolSentTexts",
        "messagingToolSentMediaUrls",
        "messagingToolSentTargets",
        "messagingToolSourceReplyPayloads",
        "toolMediaUrls",
        "hostOwnedToolMediaUrls",
    )
    return (
        js_truthy(get(replay, "hadPotentialSideEffects"))
        or not js_truthy(get(replay, "replaySafe"))
        or any(_length(get(result, key)) > 0 for key in list_fields)
        or any(js_truthy(get(result, key)) for key in truthy_fields)
        or _count(get(result, "successfulCronAdds")) > 0
    )


def project_settled_turn_finalization_attempt_result(
    result: Mapping[str, Any],
) -> Mapping[str, Any]:
    """Narrow a full attempt result into a finalization result, or raise why it cannot be."""
    terminal = result["terminal"] if "terminal" in result else normalize_attempt_terminal(result)
    failed_fields = (
        "promptTimeoutOutcome",
        "preflightRecovery",
        "beforeAgentFinalizeRevisionReason",
        "codexAppServerFailure",
        "cloudCodeAssistFormatError",
    )
    if (
        get(terminal, "kind") != "ok"
        or _count(get(result, "compactionCount")) > 0
        or any(js_truthy(get(result, key)) for key in failed_fields)
    ):
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization attempt did not complete successfully"
        )
    if _has_capability_activity(result):
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization attempt reported capability activity"
        )
    assistant = get(result, "currentAttemptCompletedAssistant")
    if not js_truthy(assistant):
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization attempt returned no completed assistant message"
        )
    projected: dict[str, Any] = {"assistant": assistant}
    if js_truthy(get(result, "attemptUsage")):
        projected["usage"] = result["attemptUsage"]
    if js_truthy(get(result, "assistantTranscriptOwned")):
        projected["assistantTranscriptOwned"] = True
        if js_truthy(get(result, "assistantTranscriptIdempotencyKey")):
            projected["assistantTranscriptIdempotencyKey"] = result[
                "assistantTranscriptIdempotencyKey"
            ]
    elif get(result, "lastAssistantTextMessageIndex") is not UNDEFINED:
        projected["assistantMessageIndex"] = result["lastAssistantTextMessageIndex"]
    if js_truthy(get(result, "diagnosticTrace")):
        projected["diagnosticTrace"] = result["diagnosticTrace"]
    return assert_settled_turn_finalization_result(projected)
