"""Classify how a turn ended, for model fallback.

Two decisions live here:

- `classify_agent_harness_terminal_outcome`: a harness turn that completed with no
  visible text is `empty`, `reasoning-only` or `planning-only` (the last one only with
  an explicit plan). Prompt errors, unfinished turns and any visible text (a deliberate
  `NO_REPLY` counts as visible) stay unclassified.
- `classify_embedded_agent_run_result_for_model_fallback`: whether a finished run result
  should advance the model-fallback chain. Delivered messages, deliberate silence, hook
  blocks, aborts and anything with side effects never do; invisible failures do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import (
    get,
    is_js_number,
    is_record,
    js_string,
    js_trim,
    js_truthy,
    non_empty_string,
)
from clawharness.attempt.failover_text import classify_failover_reason
from clawharness.delivery.silent import is_silent_reply_payload_text

__all__ = [
    "GENERIC_EXTERNAL_RUN_FAILURE_TEXT",
    "classify_agent_harness_terminal_outcome",
    "classify_embedded_agent_run_result_for_model_fallback",
    "has_committed_outbound_delivery_evidence",
    "has_visible_agent_payload",
    "is_reply_payload_terminal_content",
]

#: the exact copy an external runner shows when it failed without detail
GENERIC_EXTERNAL_RUN_FAILURE_TEXT = (
    "⚠️ Something went wrong while processing your request. Please try again, "
    "or use /new to start a fresh session."
)
_CYBER_FAILOVER_CODE = "OPENAI_CYBER_POLICY_REFUSAL"
_PROVIDER_ERROR_REASONS = (
    "auth",
    "auth_permanent",
    "billing",
    "rate_limit",
    "server_error",
    "overloaded",
    "timeout",
)


def classify_agent_harness_terminal_outcome(params: Mapping[str, Any]) -> Any:
    """`empty`, `reasoning-only`, `planning-only`, or `undefined` when the turn is not one."""
    texts = get(params, "assistantTexts")
    has_visible = isinstance(texts, list) and any(
        isinstance(text, str) and len(js_trim(text)) > 0 for text in texts
    )
    prompt_error = get(params, "promptError")
    if (
        not js_truthy(get(params, "turnCompleted"))
        or prompt_error not in (None, UNDEFINED)
        or has_visible
    ):
        return UNDEFINED
    if _trimmed_truthy(get(params, "planText")):
        return "planning-only"
    if _trimmed_truthy(get(params, "reasoningText")):
        return "reasoning-only"
    return "empty"


def _trimmed_truthy(value: Any) -> bool:
    return isinstance(value, str) and len(js_trim(value)) > 0


# --- payload visibility ---------------------------------------------------------------


def _string_list(value: Any) -> list[str]:
    if isinstance(value, str):
        trimmed = js_trim(value)
        return [trimmed] if trimmed else []
    if isinstance(value, list):
        return [js_trim(v) for v in value if isinstance(v, str) and js_trim(v)]
    return []


def _has_media_reference(record: Mapping[str, Any], seen: set[int]) -> bool:
    if id(record) in seen:
        return False
    seen.add(id(record))
    if any(
        _string_list(record.get(key))
        for key in ("mediaUrl", "mediaUrls", "path", "url", "filePath")
    ):
        return True
    attachments = record.get("attachments")
    return isinstance(attachments, list) and any(
        is_record(entry) and _has_media_reference(entry, seen) for entry in attachments
    )


def _has_any_non_empty_string(value: Any) -> bool:
    return isinstance(value, list) and any(non_empty_string(entry) for entry in value)


def is_reply_payload_terminal_content(payload: Mapping[str, Any]) -> bool:
    """False for reasoning, commentary, status notices and TTS supplements of shown text."""
    if get(payload, "isReasoning") is True or get(payload, "isCommentary") is True:
        return False
    if any(
        js_truthy(get(payload, key))
        for key in ("isCompactionNotice", "isFallbackNotice", "isStatusNotice")
    ):
        return False
    supplement = get(payload, "ttsSupplement")
    has_media = non_empty_string(get(payload, "mediaUrl")) or _has_any_non_empty_string(
        get(payload, "mediaUrls")
    )
    is_supplement = (
        is_record(supplement) and non_empty_string(supplement.get("spokenText")) and has_media
    )
    return not (is_supplement and supplement.get("visibleTextAlreadyDelivered") is True)


def has_visible_agent_payload(
    result: Any,
    *,
    include_error_payloads: bool = True,
    include_reasoning_payloads: bool = True,
    include_silent_reply_payloads: bool = True,
    require_terminal_content: bool = False,
) -> bool:
    """True when the result's payloads contain user-visible content."""
    payloads = get(result, "payloads")
    if not isinstance(payloads, list):
        return False
    for payload in payloads:
        if not isinstance(payload, Mapping):
            continue
        if require_terminal_content and (
            payload.get("visible") is False or not is_reply_payload_terminal_content(payload)
        ):
            continue
        if not include_error_payloads and payload.get("isError") is True:
            continue
        if not include_reasoning_payloads and payload.get("isReasoning") is True:
            continue
        text = payload.get("text")
        visible_text = non_empty_string(text) and (
            include_silent_reply_payloads or not is_silent_reply_payload_text(text)
        )
        attachments = payload.get("attachments")
        if (
            visible_text
            or non_empty_string(payload.get("mediaUrl"))
            or _has_any_non_empty_string(payload.get("mediaUrls"))
            or (
                isinstance(attachments, list)
                and _has_media_reference({"attachments": attachments}, set())
            )
            or payload.get("visible") is True
            or js_truthy(payload.get("presentation", UNDEFINED))
            or js_truthy(payload.get("interactive", UNDEFINED))
            or js_truthy(payload.get("channelData", UNDEFINED))
        ):
            return True
    return False


def _positive_number(value: Any) -> bool:
    return is_js_number(value) and value == value and value > 0 and value != float("inf")


def has_committed_outbound_delivery_evidence(result: Mapping[str, Any]) -> bool:
    """True when a message was sent, a child session accepted or a cron job added."""
    targets = get(result, "messagingToolSentTargets")
    spawns = get(result, "acceptedSessionSpawns")
    return (
        get(result, "didSendViaMessagingTool") is True
        or _has_any_non_empty_string(get(result, "messagingToolSentTexts"))
        or _has_any_non_empty_string(get(result, "messagingToolSentMediaUrls"))
        or (isinstance(targets, list) and len(targets) > 0)
        or (
            isinstance(spawns, list)
            and any(
                is_record(spawn)
                and non_empty_string(spawn.get("runId"))
                and non_empty_string(spawn.get("childSessionKey"))
                for spawn in spawns
            )
        )
        or _positive_number(get(result, "successfulCronAdds"))
    )


# --- model-fallback classification ----------------------------------------------------


def _has_deliberate_silent_reply(meta: Any) -> bool:
    if get(get(meta, "error"), "kind") == "hook_block":
        return True
    return any(
        isinstance(text, str) and is_silent_reply_payload_text(text)
        for text in (get(meta, "finalAssistantRawText"), get(meta, "finalAssistantVisibleText"))
    )


def _has_deliverable_payload(result: Mapping[str, Any]) -> bool:
    final_text = get(get(result, "meta"), "finalAssistantVisibleText")
    if non_empty_string(final_text) and not is_silent_reply_payload_text(final_text):
        return True
    return has_visible_agent_payload(
        result,
        include_error_payloads=False,
        include_reasoning_payloads=False,
        require_terminal_content=True,
    )


def _has_non_text_visible_content(payload: Mapping[str, Any]) -> bool:
    rest = {k: v for k, v in payload.items() if k not in ("isError", "text")}
    return _has_deliverable_payload({"payloads": [rest]})


def _fallback(provider: str, model: str, tail: str, code: str, **extra: Any) -> dict[str, Any]:
    return {"message": f"{provider}/{model} {tail}", "reason": "format", "code": code, **extra}


def _generic_external_failure(provider: str, model: str, payloads: Any) -> Any:
    if not isinstance(payloads, list) or len(payloads) != 1:
        return None
    payload = payloads[0]
    text = get(payload, "text")
    if (
        get(payload, "isError") is True
        or get(payload, "isReasoning") is True
        or not isinstance(text, str)
        or js_trim(text) != GENERIC_EXTERNAL_RUN_FAILURE_TEXT
        or not isinstance(payload, Mapping)
        or _has_non_text_visible_content(payload)
    ):
        return None
    return {
        "message": f"{provider}/{model} ended with a generic external runner failure: {text}",
        "reason": "format",
        "code": "generic_external_run_failure",
        "rawError": text,
    }


def _harness_classification(provider: str, model: str, meta: Any) -> Any:
    kind = get(meta, "agentHarnessResultClassification")
    if kind == "empty":
        return _fallback(provider, model, "ended without a visible assistant reply", "empty_result")
    if kind == "reasoning-only":
        return _fallback(provider, model, "ended with reasoning only", "reasoning_only_result")
    if kind == "planning-only":
        return _fallback(
            provider,
            model,
            "ended with a structured plan but no final answer",
            "planning_only_result",
        )
    return None


def _is_cyber_refusal(provider: str, meta: Any) -> bool:
    agent_meta = get(meta, "agentMeta")
    refusal = get(agent_meta, "providerRefusal")
    return (
        provider == "openai"
        and get(agent_meta, "agentHarnessId") == "openclaw"
        and get(meta, "replayInvalid") is not True
        and get(refusal, "provider") == "openai"
        and get(refusal, "category") == "cyber"
    )


def classify_embedded_agent_run_result_for_model_fallback(params: Mapping[str, Any]) -> Any:
    """A model-fallback classification for a run result, or None when fallback must not run."""
    result = get(params, "result")
    meta = get(result, "meta")
    if not isinstance(result, Mapping) or not isinstance(meta, (Mapping, list)):
        return None
    provider = js_string(get(params, "provider"))
    model = js_string(get(params, "model"))
    error = get(meta, "error")
    if get(get(get(meta, "agentMeta"), "providerRefusal"), "category") == "misalignment":
        return None
    if (
        get(meta, "intentionalTerminalCompletion") == "tool-batch"
        or js_truthy(get(meta, "aborted"))
        or get(params, "hasDirectlySentBlockReply") is True
        or get(params, "hasBlockReplyPipelineOutput") is True
    ):
        return None
    incomplete = get(error, "kind") == "incomplete_turn"
    fallback_safe = incomplete and get(error, "fallbackSafe") is True
    if get(meta, "replayInvalid") is True and not fallback_safe:
        return None
    if has_committed_outbound_delivery_evidence(result) or get(error, "kind") == "hook_block":
        return None
    if _is_cyber_refusal(provider, meta):
        return {
            "message": f"{provider}/{model} was refused by OpenAI cyber policy",
            "reason": "unknown",
            "code": _CYBER_FAILOVER_CODE,
            "preserveResultOnExhaustion": True,
            "preserveResultPriority": 100,
        }
    if incomplete and not fallback_safe:
        return None
    raw_payloads = get(result, "payloads")
    payloads: list[Any] = raw_payloads if isinstance(raw_payloads, list) else []
    generic = _generic_external_failure(provider, model, raw_payloads)
    if generic:
        return generic
    if _has_deliverable_payload(result):
        return None
    if fallback_safe:
        terminal_text = next(
            (
                p["text"]
                for p in payloads
                if get(p, "isError") is True and isinstance(get(p, "text"), str)
            ),
            None,
        )
        return {
            "message": terminal_text
            if terminal_text is not None
            else f"{provider}/{model} ended with an incomplete terminal response",
            "reason": "format",
            "code": "incomplete_result",
            "preserveResultOnExhaustion": True,
            "preserveResultPriority": 1 if get(error, "terminalPresentation") is True else 0,
        }
    harness = _harness_classification(provider, model, meta)
    if harness:
        return harness
    error_text = "\n".join(
        (p["text"] if isinstance(get(p, "text"), str) else "")
        for p in payloads
        if get(p, "isError") is True
    )
    if js_trim(error_text):
        reason = classify_failover_reason(error_text, provider)
        if reason in _PROVIDER_ERROR_REASONS:
            return {
                "message": f"{provider}/{model} ended with a provider error: {error_text}",
                "reason": reason,
                "code": "embedded_error_payload",
                "rawError": error_text,
            }
    if _has_deliberate_silent_reply(meta) or js_trim(error_text):
        return None
    if any(
        get(p, "isError") is True and isinstance(p, Mapping) and _has_non_text_visible_content(p)
        for p in payloads
    ):
        return None
    assistant_payloads = [p for p in payloads if get(p, "isError") is not True]
    if assistant_payloads and all(get(p, "isReasoning") is True for p in assistant_payloads):
        return _fallback(provider, model, "ended with reasoning only", "reasoning_only_result")
    return _fallback(provider, model, "ended without a visible assistant reply", "empty_result")
